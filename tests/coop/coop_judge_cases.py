#!/usr/bin/env python3
"""coop_judge_cases.py: the cooperative judge's hand-made cases (coop_judge.py --self-test) and its
type check of generated programs (coop_judge.py --typecheck): kept apart from the model
(coop_model.py), the generator (coop_gen.py) and the verdicts (coop_judge.py); they use all three."""
import os
import re
import subprocess

from coop_judge import (LEN, OutOfBounds, Program, Shape, both, generate, judge,  # noqa: F401
                        name, names_py)

# ------------------------------------------------------------------- the judge on hand-made cases

# Regions modelled by hand, each with the set of codes it breaks and a piece of the first witness.
# d09 to d16 are the spec's examples (tests/spec/), their lines as in those files; d14 breaks
# E-COOP-UNORDERED too (thread 1 reads warps[1], which thread 32 writes earlier in the phase), and
# the spec names the code it shows. d16's finish is not modelled: it only reads what blocks wrote.
T1, T256, T64 = (("t",), (256,)), (("t",), (256,)), (("t",), (64,))
G1 = (("b",), ("g",))
CASES = [
    ("d09 block sums", T256, G1, {"partial": (256, True)}, """
    n = 700
    i = b * 256 + t
    if i < n:
        L.rd('x', i, (1, 0), 9); L.wr('partial', t, (1, 1), 9)
    L.bar((2, 0), 10)
    for k in range(3):
        s = 128 >> k
        if t < s:
            L.rd('partial', t, (3, k, 4, 0), 13); L.rd('partial', t + s, (3, k, 4, 0), 13)
            L.wr('partial', t, (3, k, 4, 1), 13)
        L.bar((3, k, 5, 0), 14)
    if t < 32:
        L.rd('partial', t, (6, 0), 17); L.warp((6, 1), 17)
        if t == 0:
            L.wr('out', b, (7, 1), 18)
    """, set(), None),
    ("d10 barrier under a condition", T64, G1, {}, """
    if t < 5:
        L.bar((1, 0), 7)
    """, {"E-COOP-BARRIER"}, "thread t = 0 reaches the barrier at line 7, which thread t = 5 does not"),
    ("d11 reverse", T256, G1, {"s": (256, True)}, """
    L.wr('s', t, (1, 1), 10)
    L.rd('s', 255 - t, (2, 0), 11)
    if t == 0:
        L.wr('out', b, (3, 1), 12)
    """, {"E-COOP-UNORDERED"}, "thread t = 255 reads s[0] at line 11, which thread t = 0 writes at line 10"),
    ("d12 shift", T256, G1, {"s": (256, True)}, """
    L.wr('s', t, (1, 1), 8)
    L.bar((2, 0), 9)
    L.rd('s', (t + 1) % 256, (3, 0), 10)
    L.wr('s', t, (4, 1), 11)
    """, {"E-COOP-REUSE"}, "thread t = 1 writes s[1] at line 11 over what thread t = 0 reads at line 10"),
    ("d13 block max, unzeroed", T256, G1, {"warps": (8, False)}, """
    n = 700
    i = b * 256 + t
    if i < n:
        L.rd('x', i, (1, 0), 10)
    L.warp((2, 1), 11)
    if t % 32 == 0:
        L.wr('warps', t // 32, (3, 1), 12)
    L.bar((4, 0), 13)
    if t < 32:
        if t < 8:
            L.rd('warps', t, (5, 0), 16)
        L.warp((6, 1), 17)
        if t == 0:
            L.wr('out', b, (7, 1), 18)
    """, set(), None),
    ("d14 flags, unwritten", T256, G1, {"warps": (8, False)}, """
    if t % 32 == 0:
        L.wr('warps', t // 32, (1, 1), 10)
    if t < 8:
        L.rd('warps', t, (2, 0), 11)
        if t == 0:
            L.wr('out', b, (3, 1), 11)
    """, {"E-COOP-UNWRITTEN", "E-COOP-UNORDERED"}, "thread t = 1 reads warps[1] at line 11 in phase 0"),
    ("d15 transpose", (("tx", "ty"), (32, 8)), (("bx", "by"), ("g", 2)), {"tile": (1056, True)}, """
    w, h = g * 32, 2 * 32
    for k in range(4):
        r = ty + k * 8
        L.rd('x', (by * 32 + r) * w + bx * 32 + tx, (1, k, 2, 0), 13)
        L.wr('tile', r * 33 + tx, (1, k, 2, 1), 13)
    L.bar((3, 0), 15)
    for k in range(4):
        r = ty + k * 8
        L.rd('tile', tx * 33 + r, (4, k, 5, 0), 18)
        L.wr('out', (bx * 32 + r) * h + by * 32 + tx, (4, k, 5, 1), 18)
    """, set(), None),
    ("d16 total, the blocks", T256, G1, {"warps": (8, True)}, """
    n = 3000
    i = b * 256 + t
    while i < n:
        L.rd('x', i, (1, 0), 10)
        i += g * 256
    L.warp((2, 1), 13)
    if t % 32 == 0:
        L.wr('warps', t // 32, (3, 1), 14)
    L.bar((4, 0), 15)
    if t == 0:
        for k in range(8):
            L.rd('warps', k, (5, k, 6, 0), 18)
        L.wr('partial', b, (7, 1), 19)
    """, set(), None),
    ("two threads write one element", T64, G1, {"s": (64, True)}, """
    L.wr('s', t // 2, (1, 1), 4)
    """, {"E-COOP-CONFLICT"}, "threads t = 0 and t = 1 both write s[0] in phase 0"),
    ("read across a barrier", T64, G1, {"s": (64, True)}, """
    L.wr('s', t, (1, 1), 4)
    L.bar((2, 0), 5)
    L.rd('s', 63 - t, (3, 0), 6)
    """, set(), None),
    ("a read and a write in one statement", T64, G1, {"s": (64, True)}, """
    L.rd('s', (t + 1) % 64, (1, 0), 4); L.wr('s', t, (1, 1), 4)
    """, {"E-COOP-REUSE"}, "thread t = 1 writes s[1] at line 4 over what thread t = 0 reads"),
    ("a warp operation under t % 2", T64, G1, {}, """
    if t % 2 == 0:
        L.warp((1, 1), 5)
    """, {"E-COOP-WARP"}, "thread t = 0 reaches the warp operation at line 5, which thread t = 1 does not"),
    ("a warp operation under t / 32 == 1", T64, G1, {}, """
    if t // 32 == 1:
        L.warp((1, 1), 5)
    """, set(), None),
    ("ty < 1 splits a warp of 16 x 4", (("tx", "ty"), (16, 4)), G1, {}, """
    if ty < 1:
        L.warp((1, 1), 5)
    """, {"E-COOP-WARP"}, "(tx = 0, ty = 0) reaches the warp operation at line 5, which thread (tx = 0, ty = 1)"),
    ("ty < 2 keeps a warp of 16 x 4", (("tx", "ty"), (16, 4)), G1, {}, """
    if ty < 2:
        L.warp((1, 1), 5)
    """, set(), None),
    ("out[t] in every block", T64, G1, {}, """
    L.wr('out', t, (1, 1), 3)
    """, {"E-COOP-GLOBAL"}, "thread t = 0 of block b = 0 and thread t = 0 of block b = 1 both write out[0]"),
    ("out[b * 64 + t]", T64, G1, {}, """
    L.wr('out', b * 64 + t, (1, 1), 3)
    """, set(), None),
    ("a neighbour's outside element read", T64, G1, {}, """
    L.rd('out', b * 64 + (t + 1) % 64, (1, 0), 3)
    L.wr('out', b * 64 + t, (2, 1), 4)
    """, {"E-COOP-GLOBAL"}, "thread t = 0 of block b = 0 reads out[1] at line 3, which thread t = 1 of block b = 0"),
    ("out[i] += 1 by its one writer", T64, G1, {}, """
    L.rd('out', b * 64 + t, (1, 0), 3); L.wr('out', b * 64 + t, (1, 1), 3)
    """, set(), None),
    ("an atomic array read plainly", T64, G1, {}, """
    L.at('hist', t % 4, (1, 1), 3)
    if t == 0 and b == 0:
        L.rd('hist', 1, (2, 0), 5)
    """, {"E-ATOMIC-MIXED"}, "updates hist atomically at line 3"),
    ("shared atomics beside a plain read", T64, G1, {"s": (64, True)}, """
    L.at('s', t % 4, (1, 1), 4)
    L.rd('s', t, (2, 0), 5)
    """, {"E-ATOMIC-MIXED"}, "updates s atomically at line 4, and thread t = 0 touches it plainly at line 5, in phase 0"),
    ("shared atomics, then a barrier, then plain reads", T64, G1, {"s": (64, True)}, """
    L.at('s', t % 4, (1, 1), 4)
    L.bar((2, 0), 5)
    L.rd('s', t, (3, 0), 6)
    """, set(), None),
    ("an unzeroed element read first", T64, G1, {"w": (64, False)}, """
    L.rd('w', t, (1, 0), 4)
    """, {"E-COOP-UNWRITTEN"}, "thread t = 0 reads w[0] at line 4 in phase 0"),
    ("an unzeroed element written by the reader first", T64, G1, {"w": (64, False)}, """
    L.wr('w', t, (1, 1), 4)
    L.rd('w', t, (2, 0), 5)
    """, set(), None),
    ("one thread fills a table, a barrier, all read", T64, G1, {"w": (64, False)}, """
    if t == 0:
        for k in range(64):
            L.wr('w', k, (1, k, 2, 1), 6)
    L.bar((3, 0), 7)
    L.rd('w', 63 - t, (4, 0), 8)
    """, set(), None),
    ("a stride that moves with k, a barrier each step", T64, G1, {"s": (64, True)}, """
    for k in range(3):
        L.wr('s', (t + k) % 64, (1, k, 2, 1), 5)
        L.bar((1, k, 3, 0), 6)
    """, set(), None),
    ("a stride that moves with k, no barrier", T64, G1, {"s": (64, True)}, """
    for k in range(3):
        L.wr('s', (t + k) % 64, (1, k, 2, 1), 5)
    """, {"E-COOP-CONFLICT"}, "threads t = 0 and t = 63 both write s[0] in phase 0"),
    ("a barrier in a loop under t < 32", T64, G1, {}, """
    for k in range(2):
        if t < 32:
            L.bar((1, k, 2, 0), 6)
    """, {"E-COOP-BARRIER"}, "reaches the barrier at line 6"),
    ("a barrier under b == 0", T64, G1, {"s": (64, True)}, """
    L.wr('s', t, (1, 1), 4)
    if b == 0:
        L.bar((2, 0), 6)
    L.rd('s', t, (3, 0), 7)
    """, set(), None),
    ("out[b] under t == 0", T64, G1, {}, """
    if t == 0:
        L.wr('out', b, (1, 1), 4)
    """, set(), None),
    ("out[b] under t >= 62", T64, G1, {}, """
    if t >= 62:
        L.wr('out', b, (1, 1), 4)
    """, {"E-COOP-GLOBAL"}, "thread t = 62 of block b = 0 and thread t = 63 of block b = 0 both write out[0]"),
]


def case_program(tshape, gshape, arrays, body):
    shape = Shape(tshape[0], tshape[1], gshape[0], gshape[1])
    lines = [ln[4:] if ln.startswith("    ") else ln for ln in body.strip("\n").split("\n")]
    model = "def thread(L, g, b, t):\n" + "\n".join(names_py(shape)) + "\n" + \
            "".join("    " + ln + "\n" for ln in lines)
    lens = {a: n for a, (n, _) in arrays.items()}
    lens.update({"out": LEN, "hist": LEN, "x": LEN, "partial": LEN})
    return Program(shape, "", model, lens, set(arrays), {a for a, (_, z) in arrays.items() if not z},
                   "g" in body, set())


def self_test():
    passed = failed = 0
    for name, tshape, gshape, arrays, body, want, witness in CASES:
        try:
            got = judge(case_program(tshape, gshape, arrays, body))
        except OutOfBounds as e:
            got = {"OutOfBounds": str(e)}
        ok = set(got) == want and (witness is None or any(witness in w for w in got.values()))
        if ok:
            passed += 1
        else:
            failed += 1
            print(f"FAIL judge self test: {name}: the judge says {got}, not {sorted(want)}"
                  + (f" with '{witness}'" if witness else ""))
    print(f"{passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


def stand_in(text):
    """The program with its region made sequential, for a checker that does not yet type a
    cooperative body: one `for` per block and thread name, shared arrays as zeroed buffers,
    barriers as blank lines (the lines keep their numbers), warp operations as their value. What is
    left types only if the generator wrote valid CAIRN around the cooperative forms."""
    out, loops = [], 0
    for ln in text.split("\n"):
        m = re.match(r"(\s*)blocks (.*) in (.*) threads (.*) in (.*) \{$", ln)
        if m:
            heads = [f"for {n} in 0..{e} {{" for names, exts in ((m.group(2), m.group(3)), (m.group(4), m.group(5)))
                     for n, e in zip(names.split(", "), exts.split(", "))]
            loops = len(heads)
            out.append(m.group(1) + " ".join(heads))
            continue
        if ln.strip() == "barrier;":
            ln = ""
        ln = re.sub(r"shared (\w+):i32\[(\d+)\]( = zeroed)?;", r"buffer \1:i32[\2] = zeroed;", ln)
        ln = re.sub(r"reduce \+ warp yield (.*);", r"\1;", ln)
        ln = re.sub(r"shuffle_xor\((.*), \d+\);", r"\1;", ln)
        ln = re.sub(r"\bwarp_(any|all)\(", "sw_vote(", ln)
        ln = re.sub(r"\bwarp_ballot\(", "sw_ballot(", ln)
        out.append(ln)
    out[-3] += "}" * (loops - 1)         # the region's closing brace closes the first loop
    # votes as functions of the thread's own condition, after the program (its lines keep their numbers)
    out.append("fn sw_vote(c:bool) -> bool { return c; }")
    out.append("fn sw_ballot(c:bool) -> u32 { if c { return 1; } return 0; }")
    return "\n".join(out)


def typecheck(cairn, seed, count, work):
    """Every program's stand-in must be accepted, and every program must parse (cairn expand)."""
    failed = 0
    for k, prog in enumerate(generate(seed, count)):
        for cmd, text in (("expand", prog.text), ("check", stand_in(prog.text))):
            path = os.path.join(work, f"t{seed}_{k}.cairn")
            with open(path, "w") as f:
                f.write(text)
            run = subprocess.run([cairn, cmd, path], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
            os.unlink(path)
            if run.returncode != 0:
                failed += 1
                print(f"FAIL generator: seed={seed} prog={k}: cairn {cmd} refuses it:\n{run.stderr}{text}")
    print(f"{count * 2 - failed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0
