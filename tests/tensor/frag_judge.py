#!/usr/bin/env python3
"""A brute-force judge for fragments under the phase rule (numerics.md, "Tensor-core fragments";
devices.md, the phase rule), against `cairn check`.

    python3 frag_judge.py CAIRN SEED COUNT WORKDIR [--show]

THE PROGRAMS. Each is one cooperative region `blocks g in 1 threads t in T` (T = 32, 64 or 128: one to
four warps) over a zeroed shared array `s:f32[1024]` seen as a 32 x 32 tile, with a WMMA accumulator
(16 x 16) and an mma.sync accumulator (16 x 8) filled at the top, then a random sequence of:

  mma_store(s, W, I, J, wacc)      a WMMA store of fragment (I, J) of rows(32, 32)
  mma_store(s, M, I, J, macc)      an mma.sync store of fragment (I, J) of rows(32, 32): 16 x 8
  let x = mma_load[..](s, W, I, J) a WMMA accumulator's load
  s[E] = 1.0;                      a thread's write
  let r = s[E];                    a thread's read
  barrier;

I and J are constants or the warp's number (t / 32, its successor mod the warps), so every lane of a
warp names one fragment; E is t, t + 256, 2 t + 1, 33 t % 1024, a constant (from thread 0 alone, or
from every thread on purpose), or an element of the warp's own fragment. A fragment operation may sit
under `if t < 32` (warp 0 alone). The generator breaks the rule in about half the programs.

THE MODEL executes every thread, statement by statement, counting phases at barriers, and records each
access of s with its phase, its step (the statement) and its actor, as numerics.md states them:

  - a thread's own reads and writes are the thread's (actor t);
  - an mma.sync store is each lane's writes of the elements the PTX ISA gives it: lane l's value v is
    element (l / 4 + 8 (v / 2), 2 (l % 4) + v % 2) of the 16 x 8 fragment;
  - a WMMA store names no lane: it is a write by the whole warp, an actor apart from every thread,
    "the storing thread's own included";
  - a WMMA load is a read of the fragment's elements by the whole warp, an actor apart from the
    warp's store too (a warp's load of what it stored in the phase is a read of another's write).

Then, per phase and element, between two different actors: two writes are E-COOP-CONFLICT; a read of
what another wrote at an earlier step is E-COOP-UNORDERED; a write over what another read at an
earlier step (or at the same step: a statement reads first) is E-COOP-REUSE.

THE VERDICT: a program the model finds breaking a rule must be refused with one of the codes it
breaks; one it finds legal must be accepted. Prints FAIL lines and `N passed, N failed, 0 skipped`.
"""
import os
import random
import subprocess
import sys

CODES = ("E-COOP-CONFLICT", "E-COOP-UNORDERED", "E-COOP-REUSE")


def wmma_elems(i, j):
    return [(16 * i + r) * 32 + 16 * j + c for r in range(16) for c in range(16)]


def mma_lane_elems(i, j, lane):
    out = []
    for v in range(4):
        r, c = lane // 4 + 8 * (v // 2), 2 * (lane % 4) + v % 2
        out.append((16 * i + r) * 32 + 8 * j + c)
    return out


def coord(expr, w, W):
    return {"0": 0, "1": 1, "w": w, "w1": (w + 1) % W}[expr]


def coord_src(expr, W):
    return {"0": "0", "1": "1", "w": "t / 32", "w1": "(t / 32 + 1) %% %d" % W}[expr]


def elem(expr, t):
    if expr == "t":
        return t
    if expr == "t256":
        return t + 256
    if expr == "2t1":
        return 2 * t + 1
    if expr == "33t":
        return 33 * t % 1024
    if expr == "own":   # an element of the warp's own 16 x 16 fragment (w, 0): row w * 16 + l % 16
        return (16 * (t // 32) + t % 16) * 32 + (t % 32) // 16
    return int(expr)


def elem_src(expr):
    return {"t": "t", "t256": "t + 256", "2t1": "2 * t + 1", "33t": "33 * t % 1024",
            "own": "(16 * (t / 32) + t % 16) * 32 + t % 32 / 16"}.get(expr, expr)


def draw(rng):
    T = rng.choice([32, 64, 128])
    W = T // 32
    stmts = []
    for _ in range(rng.randint(2, 6)):
        p = rng.random()
        # fragment coordinates: rows of fragments in a 32 x 32 tile: I < 2; J < 2 (WMMA) or < 4 (mma.sync)
        ci = rng.choice(["w", "w", "0", "1", "w1"]) if W <= 2 else rng.choice(["0", "1"])
        cj = rng.choice(["0", "1", "w"]) if W <= 2 else rng.choice(["0", "1"])
        warp0 = rng.random() < 0.25
        if p < 0.22:
            stmts.append(("wstore", ci, cj, warp0))
        elif p < 0.36:
            stmts.append(("mstore", ci, cj if cj != "w" or W <= 2 else "0", warp0))
        elif p < 0.5:
            stmts.append(("wload", ci, cj, warp0))
        elif p < 0.68:
            e = rng.choice(["t", "t256", "2t1", "33t", "own" if W <= 2 else "t", str(rng.randrange(1024))])
            pinned = e.isdigit() and rng.random() < 0.7
            stmts.append(("write", e, pinned))
        elif p < 0.84:
            stmts.append(("read", rng.choice(["t", "t256", "2t1", "33t", "own" if W <= 2 else "t",
                                              str(rng.randrange(1024))])))
        else:
            stmts.append(("barrier",))
    return T, stmts


def source(T, stmts):
    W = T // 32
    lines = ["layout W = rows(32, 32);", "fn f() {", "  blocks g in 1 threads t in %d {" % T,
             "    shared s:f32[1024] = zeroed;",
             "    let wacc = WmmaAcc[f32, 16, 16, 16](1.0);",
             "    let macc = MmaAcc[f32, 16, 8, 16](2.0);"]
    for n, st in enumerate(stmts):
        k = st[0]
        if k in ("wstore", "mstore", "wload"):
            i, j = coord_src(st[1], W), coord_src(st[2], W)
            if k == "wstore":
                body = "mma_store(s, W, %s, %s, wacc);" % (i, j)
            elif k == "mstore":
                body = "mma_store(s, W, %s, %s, macc);" % (i, j)
            else:
                body = "let x%d = mma_load[WmmaAcc[f32, 16, 16, 16]](s, W, %s, %s);" % (n, i, j)
            lines.append("    if t < 32 { %s }" % body if st[3] else "    " + body)
        elif k == "write":
            body = "s[%s] = 1.0;" % elem_src(st[1])
            lines.append("    if t == 0 { %s }" % body if st[2] else "    " + body)
        elif k == "read":
            lines.append("    let r%d = s[%s];" % (n, elem_src(st[1])))
        else:
            lines.append("    barrier;")
    lines += ["  }", "}"]
    return "\n".join(lines) + "\n"


def model(T, stmts):
    """The codes the program breaks, each with a witness."""
    W = T // 32
    acc = []   # (phase, step, elem, kind, actor)
    for t in range(T):
        w, lane, phase = t // 32, t % 32, 0
        for step, st in enumerate(stmts):
            k = st[0]
            if k == "barrier":
                phase += 1
                continue
            if k in ("wstore", "mstore", "wload"):
                if st[3] and w != 0:
                    continue
                i, j = coord(st[1], w, W), coord(st[2], w, W)
                if k == "wstore":
                    if lane == 0:
                        acc += [(phase, step, e, "w", ("ws", w)) for e in wmma_elems(i, j)]
                elif k == "mstore":
                    acc += [(phase, step, e, "w", t) for e in mma_lane_elems(i, j, lane)]
                elif lane == 0:
                    acc += [(phase, step, e, "r", ("wl", w)) for e in wmma_elems(i, j)]
            elif k == "write":
                if st[2] and t != 0:
                    continue
                acc.append((phase, step, elem(st[1], t), "w", t))
            else:
                acc.append((phase, step, elem(st[1], t), "r", t))
    found = {}
    by = {}
    for a in acc:
        by.setdefault((a[0], a[2]), []).append(a)
    for (phase, e), xs in by.items():
        for p in xs:
            for q in xs:
                if p[4] == q[4]:
                    continue
                if p[3] == "w" and q[3] == "w":
                    found.setdefault("E-COOP-CONFLICT", (e, p, q))
                elif p[3] == "w" and q[3] == "r" and p[1] < q[1]:
                    found.setdefault("E-COOP-UNORDERED", (e, p, q))
                elif p[3] == "w" and q[3] == "r" and p[1] >= q[1]:
                    found.setdefault("E-COOP-REUSE", (e, p, q))
    return found


def main():
    cairn, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
    show = "--show" in sys.argv
    rng = random.Random(seed)
    passed = failed = legal = 0
    os.makedirs(work, exist_ok=True)
    for n in range(count):
        T, stmts = draw(rng)
        text = source(T, stmts)
        path = os.path.join(work, "frag%d.cairn" % n)
        with open(path, "w") as f:
            f.write(text)
        want = model(T, stmts)
        p = subprocess.run([cairn, "check", "--device-target", "sm_90a", path], capture_output=True, text=True,
                           timeout=120)
        got = [c for c in CODES + ("E-COOP-UNDECIDED", "E-COOP-WARP") if "error[%s]" % c in p.stderr]
        ok = (p.returncode == 0 and not want) or (p.returncode == 1 and want and got and got[0] in want)
        legal += not want
        if ok and p.returncode not in (0, 1):
            ok = False
        if ok:
            passed += 1
        else:
            failed += 1
            print("FAIL frag judge: seed %d program %d: model %s, checker exit %d %s\n%s%s" %
                  (seed, n, sorted(want) or "legal", p.returncode, got, text, p.stderr[:600]))
        if show:
            print(n, sorted(want) or "legal", p.returncode, got)
    if legal < count // 5 or legal > count * 4 // 5:
        failed += 1
        print("FAIL frag judge: %d of %d programs legal: the generator should make both kinds" % (legal, count))
    print("%d passed, %d failed, 0 skipped" % (passed, failed))
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
