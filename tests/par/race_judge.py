"""Brute-force judge of the lane race rule (E-PARALLEL-RACE, E-PARALLEL-WRITE).

Generates small region programs over one view y: each lane writes and reads elements at index
forms of the lane index i (c*i + d, d - c*i, i / k, i % k, (i + d) * c, constants), some writes under
a condition on i. For each program the judge runs every pair of distinct lanes concretely: a race
is an element one lane writes and another lane reads or writes. Soundness: every program the checker
accepts must have no race. Programs it refuses without a race are counted (the rule is conservative),
never failed.

    python3 race_judge.py CAIRN SEED COUNT WORKDIR
Prints `FAIL ...` for an accepted race, a stats line, and `N passed, N failed, 0 skipped`.
"""
import os
import random
import subprocess
import sys

cairn, seed, count, work = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
rng = random.Random(seed)


def index_form(n):
    """(source text, function of i); every value stays in 0 .. 999."""
    c, d, k = rng.randint(1, 4), rng.randint(0, 40), rng.randint(2, 4)
    kind = rng.randrange(7)
    if kind == 0:
        return f"{c} * i + {d}", lambda i: c * i + d
    if kind == 1:
        d = d + 4 * n
        return f"{d} - {c} * i", lambda i: d - c * i
    if kind == 2:
        return f"i / {k} + {d}", lambda i: i // k + d
    if kind == 3:
        return f"i % {k} + {d}", lambda i: i % k + d
    if kind == 4:
        return f"(i + {d}) * {c}", lambda i: (i + d) * c
    if kind == 5:
        return f"{d}", lambda i: d
    return f"i + {d}", lambda i: i + d


def condition():
    k = rng.randint(1, 6)
    kind = rng.randrange(3)
    if kind == 0:
        return None, lambda i: True
    if kind == 1:
        return f"i < {k}", lambda i: i < k
    return f"i % 2 == {k % 2}", lambda i: i % 2 == k % 2


def program(n):
    stmts, accesses = [], []   # accesses: (is_write, cond, index)
    for _ in range(rng.randint(1, 3)):
        wt, wf = index_form(n)
        ct, cf = condition()
        if rng.random() < 0.5:
            rt, rf = index_form(n)
            s = f"y[{wt}] = y[{rt}] + 1;"
            accesses.append((False, cf, rf))
        else:
            s = f"y[{wt}] = {rng.randint(1, 9)};"
        accesses.append((True, cf, wf))
        stmts.append(f"if {ct} {{ {s} }}" if ct else s)
    src = "fn f(y:rw<u32>[1000]) {\n  parallel i in %d { %s }\n}\n" % (n, " ".join(stmts))
    return src, accesses


def races(n, accesses):
    for i in range(n):
        for j in range(n):
            if i == j:
                continue
            for w, cw, fw in accesses:
                if not w or not cw(i):
                    continue
                for _, co, fo in accesses:
                    if co(j) and fw(i) == fo(j):
                        return f"lanes {i} and {j} touch y[{fw(i)}]"
    return None


passed = failed = accepted = refused_clean = 0
for t in range(count):
    n = rng.randint(1, 12)
    src, acc = program(n)
    path = os.path.join(work, f"r{t}.cairn")
    with open(path, "w") as f:
        f.write(src)
    rc = subprocess.run([cairn, "check", path], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode
    race = races(n, acc)
    if rc == 0:
        accepted += 1
        if race:
            failed += 1
            print(f"FAIL race judge (seed {seed}, case {t}): accepted, but {race}:\n{src}")
            continue
    elif rc == 1 and not race:
        refused_clean += 1
    elif rc not in (0, 1):
        failed += 1
        print(f"FAIL race judge (seed {seed}, case {t}): cairn check exited {rc}:\n{src}")
        continue
    passed += 1
print(f"race judge: seed {seed}, {count} programs, {accepted} accepted (none racing), "
      f"{refused_clean} refused without a race (conservative)")
print(f"{passed} passed, {failed} failed, 0 skipped")
sys.exit(1 if failed else 0)
