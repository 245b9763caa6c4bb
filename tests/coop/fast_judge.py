#!/usr/bin/env python3
"""fast_judge.py: the judge of the fast version's launch-time proofs (src/emit_fast.c).

A device region's launch picks its fast version (the operations the pass marked, unchecked) only
where the host proved, from the launch's values, that no marked operation can fail in any thread.
This judge generates random device regions whose index arithmetic the pass follows (sums and
products of block and thread names, loop counters, parameters and constants; reads guarded by
`i < n` or not; grid-stride while loops; a subtraction under `t >= c`), with launch values drawn so
that some runs go out of bounds or overflow and most do not. Each program is built for the emulated
machine (which runs every operation checked) with -DCN_COOP_FAST_TRACE, so each launch says which
version the device would run, and run:

  - a launch that says "fast" must run without a failed guard: the emulated run checks every
    operation, and every operation these programs have is one the pass can mark (add_wrap never
    fails), so a trap after "fast" is a proof that did not hold: an unsound proof, reported;
  - a clean run that says "checked" is only imprecision, counted: the precision figure is the share
    of clean runs that got the fast version.

Usage: fast_judge.py CAIRN SEED COUNT WORKDIR
Prints FAIL lines, the figures, and `N passed, N failed, N skipped`.
"""
import os
import random
import re
import subprocess
import sys


def term(r, names, params, depth=0):
    """One product: a name, loop counter or parameter times a coefficient; or min / max of two
    sums (src/emit_fast.c follows both: each bound's min or max)."""
    kind = r.random()
    if depth == 0 and kind < 0.12:
        f = r.choice(["min", "max"])
        a = " + ".join(term(r, names, params, 1) for _ in range(r.randint(1, 2)))
        b = " + ".join(term(r, names, params, 1) for _ in range(r.randint(1, 2)))
        return f"{f}({a}, {b})"
    kind = r.random()
    if kind < 0.55:
        v = r.choice(names)
    elif kind < 0.8:
        v = r.choice(params)
    else:
        return str(r.choice([1, 3, 7, 32, 100]))
    c = r.choice([1, 1, 2, 3, 8, 32, 33, 128])
    return v if c == 1 else f"{v} * {c}"


def expr(r, names, params):
    return " + ".join(term(r, names, params) for _ in range(r.randint(1, 3)))


def program(r):
    two = r.random() < 0.4
    T = r.choice([32, 64, 128]) if not two else 0
    if two:
        tx, ty = r.choice([(32, 2), (32, 4), (64, 2)])
        T = tx * ty
        head = f"blocks b, c in g, h threads t, u in {tx}, {ty}"
        names = ["b", "c", "t", "u"]
        flat_b, flat_t = "(b + g * c)", f"(t + {tx} * u)"
    else:
        head = f"blocks b in g threads t in {T}"
        names = ["b", "t"]
        flat_b, flat_t = "b", "t"
    params = ["p", "q"]
    body = [f"    let mut acc:u32 = 0;"]
    for s_ in range(r.randint(1, 3)):
        shape = r.random()
        if shape < 0.3:
            K = r.choice([1, 2, 4])
            e = expr(r, names + ["k"], params)
            if r.random() < 0.6:
                body.append(f"    for k in 0..{K} {{ let i:usize = {e}; if i < n {{ acc = add_wrap(acc, x[i]); }} }}")
            else:
                body.append(f"    for k in 0..{K} {{ acc = add_wrap(acc, x[{e}]); }}")
        elif shape < 0.5:
            step = r.choice(["g * " + str(T), str(T), "p + 1"])
            body.append(f"    let mut j{s_} = {flat_t};")
            body.append(f"    while j{s_} < n {{ acc = add_wrap(acc, x[j{s_}]); j{s_} += {step}; }}")
        elif shape < 0.6:
            cst = r.choice([1, 2, 31])
            body.append(f"    if {flat_t} >= {cst} {{ acc = add_wrap(acc, x[{flat_t} - {cst}]); }}")
        elif shape < 0.66:
            cst = r.choice([1, 2])
            body.append(f"    acc = add_wrap(acc, x[{flat_t} + q - {cst}]);")
        elif shape < 0.72:
            # a pipeline's count: p - min(e, p) never goes below zero, which only the bounds of
            # min(e, p) (at most p) show
            e = expr(r, names, params)
            body.append(f"    acc = add_wrap(acc, x[{flat_t} + (p - min({e}, p))]);")
        elif shape < 0.88:
            # min / max bounds that must hold for every thread: the index goes past n where q does
            e = expr(r, names, params)
            if r.random() < 0.5:
                body.append(f"    acc = add_wrap(acc, x[min({e}, q * 1000) + {flat_t}]);")
            else:
                body.append(f"    acc = add_wrap(acc, x[max({e}, q) + {flat_t}]);")
        elif shape < 0.94:
            # facts of guarded expressions (src/emit_fast.c): a row and a column, each an expression
            # the condition bounds, read at row * width + column as written (the column's terms
            # unparenthesized, so its bound is of the sum's last terms); the width and the bounds
            # may disagree, and then only the launch's values keep the read inside
            ea, eb = expr(r, names, params), expr(r, names, params)
            w, ba, bb = r.choice(["p", "q", "p + 1"]), r.choice(["q", "p", "n"]), r.choice(["p", "q", "p + 1", "n"])
            body.append(f"    if {ea} < {ba} && {eb} < {bb} {{ acc = add_wrap(acc, x[({ea}) * ({w}) + {eb}]); }}")
        elif shape < 0.97:
            # a lower bound of a sum lets what follows subtract from it
            e, cst = expr(r, names, params), r.choice([1, 3, 40])
            body.append(f"    if {e} >= {cst} && {e} - {cst} < n {{ acc = add_wrap(acc, x[{e} - {cst}]); }}")
        else:
            e = expr(r, names, params)
            body.append(f"    let i{s_}:usize = {e};")
            body.append(f"    if i{s_} < n {{ acc = add_wrap(acc, x[i{s_}]); }}")
    body.append(f"    out[{flat_b} * {T} + {flat_t}] = acc;")
    grid = "g, h" if two else "g"
    sig = "g:usize, h:usize" if two else "g:usize"
    src = (f"fn k(n:usize, x:ro<u32>[n]@device, m:usize, out:rw<u32>[m]@device, p:usize, q:usize, {sig}) {{\n"
           f"  {head} {{\n" + "\n".join(body) + "\n  }\n}\n")
    # launch values: mostly in bounds, sometimes not
    g = r.randint(1, 4)
    h = r.randint(1, 3) if two else 1
    blocks = g * h
    n = r.choice([blocks * T, blocks * T * 2, 64, 1000, blocks * T * 40])
    m = blocks * T if r.random() < 0.85 else blocks * T - r.randint(1, T)
    p, q = r.choice([0, 1, 5, 64]), r.choice([0, 1, 2, 300])
    if r.random() < 0.08:
        p = (1 << 63) + r.randint(0, 1000)   # products past usize
    call = f"k({n}, dx, {m}, dout, {p}, {q}, {g}{', ' + str(h) if two else ''})"
    main = (f"fn main() -> i32 {{\n"
            f"  buffer hx:u32[{n}] = zeroed;\n"
            f"  for i in 0..{n} {{ hx[i] = u32(i % 1000) * 7 + 3; }}\n"
            f"  buffer dx:u32[{n}]@device = zeroed;\n"
            f"  buffer dout:u32[{max(m, 1)}]@device = zeroed;\n"
            f"  transfer(dx, hx);\n"
            f"  {call};\n"
            f"  buffer ho:u32[{max(m, 1)}] = zeroed;\n"
            f"  transfer(ho, dout);\n"
            f"  let mut s:u32 = 0;\n"
            f"  for i in 0..{max(m, 1)} {{ s = add_wrap(s, ho[i]); }}\n"
            f"  println(s);\n"
            f"  return 0;\n}}\n")
    return src + main


def main():
    cairn, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    root = os.path.abspath(os.path.join(os.path.dirname(__file__), "..", ".."))
    r = random.Random(seed)
    passed = failed = skipped = 0
    fast = clean = clean_fast = refused = 0
    for i in range(count):
        src = program(r)
        d = os.path.join(work, f"f{seed}_{i}")
        os.makedirs(d, exist_ok=True)
        f = os.path.join(d, "p.cairn")
        with open(f, "w") as fh:
            fh.write(src)
        chk = subprocess.run([cairn, "check", "--emulate", "--device-target", "sm_90a", f],
                             capture_output=True, text=True)
        if chk.returncode != 0:
            refused += 1   # the checker refused it (a race or a rule): not this judge's business
            skipped += 1
            continue
        b = subprocess.run([cairn, "build", "--emulate", "--device-target", "sm_90a", "--out", d, f],
                           capture_output=True, text=True)
        if b.returncode != 0:
            print(f"FAIL fast judge: {f}: accepted, but does not build: {b.stderr.strip()[:300]}")
            failed += 1
            continue
        exe = os.path.join(d, "t")
        cc = subprocess.run(["cc", "-std=c17", "-O1", "-DCAIRN_EMULATE", "-DCN_COOP_FAST_TRACE",
                             "-I" + os.path.join(root, "runtime"), "-o", exe, os.path.join(d, "p.c"),
                             "-lm", "-lpthread"], capture_output=True, text=True)
        if cc.returncode != 0:
            print(f"FAIL fast judge: {f}: the emitted C does not build: {cc.stderr[:300]}")
            failed += 1
            continue
        run = subprocess.run([exe], capture_output=True, text=True, timeout=120)
        said = re.findall(r"the (fast|checked) version", run.stderr)
        if not said:
            print(f"FAIL fast judge: {f}: the launch did not say which version it runs")
            failed += 1
            continue
        is_fast = said[0] == "fast"
        fast += is_fast
        trapped = run.returncode != 0
        if not trapped:
            clean += 1
            clean_fast += is_fast
        if is_fast and trapped:
            print(f"FAIL fast judge: {f}: the launch proved the fast version safe, but a guard failed: "
                  f"{run.stderr.strip().splitlines()[-1] if run.stderr.strip() else run.returncode}")
            failed += 1
            continue
        if trapped and "guard failed" not in run.stderr:
            print(f"FAIL fast judge: {f}: exit {run.returncode} without a guard's message")
            failed += 1
            continue
        passed += 1
    prec = 100.0 * clean_fast / clean if clean else 100.0
    print(f"fast judge: seed {seed}: {count} programs, {refused} refused by the checker, {fast} launches fast, "
          f"{clean} clean runs of which {clean_fast} fast (precision {prec:.1f}%)")
    print(f"{passed} passed, {failed} failed, {skipped} skipped")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
