#!/usr/bin/env python3
"""A brute-force judge for layout declarations and their methods (src/check_call.c, "layouts").

Draws random layouts (rows, swizzles of rows or of swizzles, spreads of either), valid and not,
writes one program that declares them and prints their methods on constant arguments and on the
same arguments known only at run time (through a function), and holds
what `cairn run` prints to a model written here from docs/memory.md alone (not from layout.c):

  rows(R, C):            (i, j) -> i * C + j, cosize R * C
  swizzle(L, B, M, S):   o -> o XOR ((o >> S) AND ((2^B - 1) << M)), o = L's offset; cosize L's
  spread(L, LR, LC, VR, VC): lane t holds a VR x VC block at grid (t / LC, t % LC), repeated down
                          the rows, then across; value v is element v % (VR VC) of its block, row by
                          row, in repetition v / (VR VC)

A layout the model says is invalid is declared alone in a program of its own, which must be
refused with E-LAYOUT at its line. Prints `N passed, N failed, 0 skipped`.

  layout_judge.py CAIRN SEED COUNT WORKDIR
"""
import os
import random
import subprocess
import sys


def cosize(L):
    return L["r"] * L["c"] if L["k"] == "rows" else cosize(L["base"])


def offset(L, i, j):
    if L["k"] == "rows":
        return i * L["c"] + j
    o = offset(L["base"], i, j)
    if L["k"] == "swizzle":
        mask = ((1 << L["b"]) - 1) << L["m"]
        return o ^ ((o >> L["s"]) & mask)
    return o


def lane_elem(L, t, v):
    lr, lc, vr, vc = L["lr"], L["lc"], L["vr"], L["vc"]
    block = vr * vc
    w, q = v % block, v // block
    reps = L["r"] // (lr * vr)
    return ((t // lc) * vr + w // vc + (q % reps) * lr * vr,
            (t % lc) * vc + w % vc + (q // reps) * lc * vc)


def valid(L):
    """Whether docs/memory.md's rules accept L (the model's own statement of them)."""
    k = L["k"]
    if k == "rows":
        return L["r"] >= 1 and L["c"] >= 1 and L["r"] * L["c"] <= 1 << 20
    base = L["base"]
    if not valid(base) or base["k"] == "spread":
        return False
    if k == "swizzle":
        b, m, s = L["b"], L["m"], L["s"]
        if min(b, m, s) < 0 or max(b, m, s) > 20 or s < b or m + b > 20:
            return False
        return cosize(base) % (1 << (m + b)) == 0
    lr, lc, vr, vc = L["lr"], L["lc"], L["vr"], L["vc"]
    if min(lr, lc, vr, vc) < 1 or lr > 32 or lc > 32 or vr > 64 or vc > 64 or lr * lc != 32:
        return False
    return base["r"] % (lr * vr) == 0 and base["c"] % (lc * vc) == 0


def src(L):
    if L["k"] == "rows":
        return "rows(%d, %d)" % (L["r"], L["c"])
    if L["k"] == "swizzle":
        return "swizzle(%s, %d, %d, %d)" % (src(L["base"]), L["b"], L["m"], L["s"])
    return "spread(%s, %d, %d, %d, %d)" % (src(L["base"]), L["lr"], L["lc"], L["vr"], L["vc"])


def draw(rng, depth=0):
    p = rng.random()
    if depth >= 2 or p < 0.4:
        r = rng.choice([1, 2, 4, 8, 16, 32, 3, 6, 12, 64])
        c = rng.choice([1, 2, 4, 8, 16, 32, 5, 10, 64, 128])
        if rng.random() < 0.05:
            r = rng.choice([0, -1])
        return {"k": "rows", "r": r, "c": c}
    base = draw(rng, depth + 1)
    if p < 0.75:
        b, m = rng.randint(0, 4), rng.randint(0, 5)
        s = b + rng.randint(0, 4) if rng.random() < 0.9 else max(0, b - 1)
        return {"k": "swizzle", "base": base, "b": b, "m": m, "s": s, "r": base["r"], "c": base["c"]}
    lr = rng.choice([1, 2, 4, 8, 16, 32])
    lc = 32 // lr if rng.random() < 0.9 else rng.choice([2, 4, 8])
    return {"k": "spread", "base": base, "lr": lr, "lc": lc, "vr": rng.choice([1, 2, 4]),
            "vc": rng.choice([1, 2, 4]), "r": base["r"], "c": base["c"]}


def run(cairn, path):
    p = subprocess.run([cairn, "run", path], capture_output=True, text=True, timeout=300)
    return p.returncode, p.stdout, p.stderr


def main():
    cairn, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    rng = random.Random(seed)
    passed = failed = 0
    good, lines, want = [], [], []
    bad = []
    while len(good) + len(bad) < count:
        L = draw(rng)
        (good if valid(L) else bad).append(L)
    for n, L in enumerate(good):
        lines.append("layout L%d = %s;" % (n, src(L)))
    body = []
    for n, L in enumerate(good):
        calls, vals = ["L%d.cosize()" % n], [cosize(L)]
        # each method twice: on constants (folded when the program is checked) and on values known
        # only at run time (through rt(), computed where it runs)
        for _ in range(3):
            i, j = rng.randrange(L["r"]), rng.randrange(L["c"])
            calls += ["L%d.offset(%d, %d)" % (n, i, j), "L%d.offset(rt(%d), rt(%d))" % (n, i, j)]
            vals += [offset(L, i, j)] * 2
        if L["k"] == "spread":
            values = L["r"] * L["c"] // 32
            for _ in range(3):
                t, v = rng.randrange(32), rng.randrange(values)
                row, col = lane_elem(L, t, v)
                calls += ["L%d.row(%d, %d)" % (n, t, v), "L%d.col(%d, %d)" % (n, t, v),
                          "L%d.row(rt(%d), rt(%d))" % (n, t, v), "L%d.col(rt(%d), rt(%d))" % (n, t, v)]
                vals += [row, col, row, col]
        body.append("  println(%s);" % ", ".join(calls))
        want.append(" ".join(str(v) for v in vals))
    prog = os.path.join(work, "judge_good.cairn")
    with open(prog, "w") as f:
        f.write("\n".join(lines) + "\nfn rt(x:usize) -> usize = x;\nfn main() -> i32 {\n" + "\n".join(body) +
                "\n  return 0;\n}\n")
    rc, out, err = run(cairn, prog)
    got = out.splitlines()
    if rc != 0:
        failed += 1
        print("FAIL layout judge: the program of %d valid layouts exited %d: %s" % (len(good), rc, err[:400]))
    else:
        for n, (w, g) in enumerate(zip(want, got)):
            if w == g:
                passed += 1
            else:
                failed += 1
                print("FAIL layout judge: %s: want %s, got %s" % (src(good[n]), w, g))
        if len(got) != len(want):
            failed += 1
            print("FAIL layout judge: %d lines printed, %d expected" % (len(got), len(want)))
    for n, L in enumerate(bad):
        prog = os.path.join(work, "judge_bad%d.cairn" % n)
        with open(prog, "w") as f:
            f.write("fn main() -> i32 { return 0; }\nlayout B = %s;\n" % src(L))
        p = subprocess.run([cairn, "check", prog], capture_output=True, text=True, timeout=60)
        if p.returncode == 1 and ":2:" in p.stderr and "error[E-LAYOUT]" in p.stderr:
            passed += 1
        else:
            failed += 1
            print("FAIL layout judge: %s should be E-LAYOUT at line 2: exit %d: %s"
                  % (src(L), p.returncode, p.stderr[:300]))
    # the judge must see both kinds, or it proves little
    if len(good) < count // 4 or len(bad) < count // 20 or not any(L["k"] == "spread" for L in good):
        failed += 1
        print("FAIL layout judge: too few of a kind: %d valid (%d spreads), %d invalid"
              % (len(good), sum(L["k"] == "spread" for L in good), len(bad)))
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
