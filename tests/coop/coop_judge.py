"""An independent judge for cooperative regions (spec/devices.md, "Cooperative regions" to "A
finish"): a generator of small random regions and a brute-force judge of each.

    python3 coop_judge.py CAIRN SEEDS COUNT WORKDIR [--jobs J] [--show-refused] [--show-info]
    python3 coop_judge.py --self-test     (the judge alone, on regions modelled by hand)
    python3 coop_judge.py --print SEED K  (program K of SEED: its CAIRN text, its model, its verdict)
    python3 coop_judge.py --typecheck CAIRN SEED COUNT WORKDIR
                                          (each program parses, and its sequential stand-in types)

SEEDS is one seed (7), a list (1,2,3) or a range (1-20); COUNT programs are made from each seed.

THE PROGRAMS. Each is one function `fn f(g:usize, out:rw<i32>[LEN], hist:rw<i32>[LEN],
x:ro<i32>[LEN], y:rw<i32>[LEN])` holding one region `blocks B in G threads T in X { ... }`: one to three names on
each side (thread shapes from 32 to 256 threads, such as `t in 64`, `tx, ty in 16, 4`, `tx, ty, tz
in 32, 2, 2`; grids `b in g`, `bx, by in g, 2`, `bx, by, bz in 2, g, 1`), shared arrays zeroed
(`shared s1:i32[N] = zeroed;`) or not (`shared w1:i32[N];`), phases separated by barriers, `for k in
0..K` loops (constant K) with barriers inside or none, conditions on the thread names (t < 32,
t % 2 == 0, t / 32 == w, tx == 31 && ty == 1, ty < 1) and on block names and g, indices over thread
names, block names and loop counters (t, 63 - t, (t + 1) % 64, t * 2 + 1, t / 2, ty * 33 + tx,
b * 64 + t, (b * 64 + t) * 8 + k ...), a tree reduction whose stride is a local (shr(32, k)), the
spec's 33-wide tile transpose, warp operations (`reduce + warp yield v`, `shuffle_xor(v, 1)`) under
warp-uniform and divergent conditions, under votes (`warp_any(c)`, `warp_all(c)`, `!warp_all(c)`,
`warp_ballot(c) != 0`, c on the thread's names or on a value) and under a warp reduction's answer,
and atomic updates (`atomic_add_wrap(hist[k], 1)`, also on shared arrays), sometimes beside plain
accesses; wide accesses of shared arrays (`store_wide(s, t * 2, Array[i32, 2]())` of a 2T array, or at
t on purpose; `load_wide[2](s, i)[0]`), modelled as their two element accesses. While loops: a grid-stride loop over y (i from the block's and thread's place by the grid's
threads, `i += g * 64`), a block-stride loop that covers a shared array (`j += 64`), and
`let mut k = 0; while k < K { ...; barrier; k += 1; }`. A phase may write a shared array at an index
the same in every thread (g % n, (b + 3) % n, a loop counter) from one pinned thread. Barriers sit
at top level, in loops, under block-uniform conditions, under conditions on a shared element read at
an index the same in every thread (s[g % 64] > 2), and (on purpose, sometimes) under thread-dependent
ones or votes. Each piece keeps to a discipline that makes it legal (each phase writes a shared array
only at a one-to-one index of the thread and reads it only there; an outside array has one layout
whose elements each belong to one thread of one block) unless the generator means to break it, which
it does in about half the programs.

Each program is made twice, in step: as CAIRN text and as a Python generator thread(L, g, b, t) of
the flat block number and the flat thread number (tx + X * ty + X * Y * tz) that runs the thread and
records, through L, every barrier and warp operation it reaches and every element it reads, writes or
updates atomically, each with its phase (the barriers this thread has passed), its step and its line.
It computes values too: L's reads give the element's value (the block's shared arrays, zeroed or
holding a poison value; the grid's outside arrays), writes store one, and the thread yields at each
barrier and warp operation. The judge runs a block's threads together (run_block): each thread runs
to its next barrier or warp operation; a warp whose 32 threads wait at a warp operation gets its
result (a reduction's total, a shuffled value, a vote's answer); when every thread left waits at a
barrier, all go on. So conditions on values (a shared element, a vote) take the values the device
would give a race-free program.
A step places an access in the body's order, loops unrolled: a tuple (statement, iteration,
statement, ..., part), where part 0 is the statement's reads and part 1 its write, so tuples compare
as the body runs. The model shares nothing with the checker's reasoning: it executes. Every program is run on two
contents of x (uneven from thread to thread, and 9 or 0 by warps, so that votes differ between
warps); what it breaks on either, it breaks.

THE JUDGE runs every thread of every block for g in 1..4 (only g = 4 when the body does not name g:
a block's run does not depend on g then, so the larger grid holds every smaller one's blocks). Its
verdict is the set of codes the program breaks, each with a first witness. The rules, as the page
states them, made concrete:

  E-COOP-BARRIER    in some block, two threads reach different sequences of barriers (by step): a
                    barrier that not every thread of the block reaches.
  E-COOP-WARP       in some warp (32 consecutive flat threads of a block), two threads reach
                    different sequences of warp operations: one not reached by the whole warp.
  E-COOP-CONFLICT   two threads of one block write one element of a shared array in one phase.
  E-COOP-UNORDERED  a thread reads a shared element that another thread of its block writes at an
                    earlier step of the same phase ("reads what another writes earlier").
  E-COOP-REUSE      a thread writes a shared element that another thread of its block reads at an
                    earlier step of the same phase (or in the same statement, whose reads come
                    first): "writes over what another may still be reading".
  E-COOP-UNWRITTEN  a thread reads (or updates atomically) an element of an unzeroed shared array
                    that neither it wrote at an earlier step nor any thread wrote in an earlier
                    phase ("by that thread earlier or by any thread before a barrier between them").
  E-COOP-GLOBAL     an element of an outside array (out, hist, y) is written by two threads (of one
                    block or two), or read by one thread and written by another. A thread's own
                    reads of what it writes are allowed. Barriers do not matter: nothing orders blocks.
  E-ATOMIC-MIXED    an outside array is updated atomically by some thread and read or written plainly
                    by some thread (anywhere in the region); or, in one phase of one block, a shared
                    array is updated atomically and read or written plainly (the page: "kept apart
                    from its plain accesses by a barrier"). Atomic updates of one element never
                    conflict with each other; an atomic and a plain access of one element count here,
                    not as CONFLICT, UNORDERED or REUSE.

Accesses the run never makes (a condition no thread takes, for any g tried) count for nothing: the
judge is the run-time truth. After a barrier that not every thread reaches, phases are counted per
thread (the barriers it passed); such a program breaks E-COOP-BARRIER whatever else it breaks.

THE VERDICTS, one program at a time (`cairn check`, J at a time on a thread pool):
  - accepted, but the judge's set is not empty: `FAIL seed=S prog=K: accepted, but CODE: witness`
    (threads, block, element, phase, lines), with the program: the checker is unsound;
  - cairn crashing (an exit status other than 0 and 1): `FAIL seed=S prog=K`;
  - refused with a code that says the program is ill-formed (a parse, name or type error, a bound
    shown out of range): `FAIL generator: ...`; so is a model that steps out of bounds;
  - refused with none of the judge's codes (E-UNSUPPORTED, say, or a code of the phase rule the
    judge does not find): counted by code and printed as info (diagnostic precision), no failure;
  - a clean program refused: counted against precision, no failure.
It prints the checker's precision (of the clean programs, the share accepted: in all and by
feature), then `N passed, N failed, 0 skipped`, and exits 1 when anything failed.
"""
import os
import re
import sys
import time
from concurrent.futures import ProcessPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from judge_common import arguments, cairn_check, seeds_of  # noqa: E402
# the model (coop_model.py) and the generator (coop_gen.py); coop_judge_cases.py and
# coop_emulate_diff.py take them from here
from coop_model import (CODES, GENERATOR_FAULTS, LEN, OutOfBounds, Shape, judge,  # noqa: E402,F401
                        name)
from coop_gen import Program, both, generate, names_py  # noqa: E402,F401


# ---------------------------------------------------------------------------------- the verdicts

def codes_of(stderr):
    return [m.group(1) for m in re.finditer(r"error\[(E-[A-Z-]+)\]", stderr)]


def check_one(cairn, work, seed, k, prog):
    """Runs in a worker process: the judge's verdict and cairn check's, for one program."""
    try:
        found, err = judge(prog), None
    except Exception as e:           # OutOfBounds, or a model that does not run: the generator
        found, err = {}, f"{type(e).__name__}: {e}"
    path = os.path.join(work, f"s{seed}_{k}.cairn")
    with open(path, "w") as f:
        f.write(prog.text)
    rc, stderr = cairn_check(cairn, path)
    os.unlink(path)
    return found, err, rc, stderr


class Tally:
    def __init__(self):
        self.passed = self.failed = 0
        self.clean = self.accepted = self.broken = 0
        self.by_tag = {}                 # tag -> [clean accepted, clean]
        self.other = {}                  # code -> refusals with it, none of the judge's codes among them
        self.breaks = {}                 # code -> programs the judge finds breaking it
        self.caught = {}                 # code -> of those, refused with that very code

    def count(self, prog, found, rc, codes, show_info, where):
        if not found:
            self.clean += 1
            self.accepted += rc == 0
            for t in prog.tags:
                c = self.by_tag.setdefault(t, [0, 0])
                c[0] += rc == 0
                c[1] += 1
            return
        self.broken += 1
        for c in found:
            self.breaks[c] = self.breaks.get(c, 0) + 1
            self.caught[c] = self.caught.get(c, 0) + (c in codes)
        if rc == 1 and not set(codes) & set(found):
            for c in set(codes):
                self.other[c] = self.other.get(c, 0) + 1
            if show_info:
                print(f"info {where}: refused with {', '.join(sorted(set(codes)))}; the judge finds "
                      f"{', '.join(sorted(found))}")

    def report(self):
        pct = lambda a, b: f"{100.0 * a / b if b else 0:.1f}%"
        print(f"precision: {self.accepted}/{self.clean} clean programs accepted ({pct(self.accepted, self.clean)})")
        for t in sorted(self.by_tag):
            a, b = self.by_tag[t]
            print(f"precision, feature {t}: {a}/{b} clean programs accepted ({pct(a, b)})")
        for c in CODES:
            if self.breaks.get(c):
                print(f"programs breaking {c}: {self.breaks[c]}, refused with that code: {self.caught[c]}")
        for c in sorted(self.other):
            print(f"info: {self.other[c]} programs that break a rule were refused with {c} and none of "
                  f"the judge's codes (diagnostic precision)")


# The codes whose rules the checker applies today (src/check_coop.c, src/coop_global.c); the
# lowering comes next, and until then every region is also refused with E-UNSUPPORTED.
RULES_BUILT = {"E-COOP-BARRIER", "E-COOP-WARP", "E-COOP-CONFLICT", "E-COOP-UNORDERED", "E-COOP-REUSE", "E-COOP-GLOBAL", "E-ATOMIC-MIXED",
               "E-COOP-UNWRITTEN"}


def verdict(T, seed, k, prog, result, show_refused, show_info):
    found, err, rc, stderr = result
    where = f"seed={seed} prog={k}"
    if err:
        T.failed += 1
        print(f"FAIL generator: {where}: the model fails: {err}\n{prog.text}")
        return
    if rc not in (0, 1):
        T.failed += 1
        print(f"FAIL {where}: cairn check exited {rc}:\n{stderr}{prog.text}")
        return
    codes = codes_of(stderr) if rc == 1 else []
    faults = sorted(set(codes) & GENERATOR_FAULTS)
    if faults:
        T.failed += 1
        lines = [ln for ln in stderr.splitlines() if "error[" in ln]
        print(f"FAIL generator: {where}: refused with {', '.join(faults)}:\n  " + "\n  ".join(lines) + "\n" + prog.text)
        return
    # Until regions are accepted (issue 13 is landing in steps), a region that passes every rule
    # built so far is refused with E-UNSUPPORTED alone: one the judge finds breaking one of those
    # rules has slipped through them, a soundness failure as an acceptance would be.
    slipped = sorted(set(found) & RULES_BUILT)
    if rc == 1 and slipped and set(codes) <= {"E-UNSUPPORTED"}:
        T.failed += 1
        print(f"FAIL {where}: passed the rules built so far (refused only with E-UNSUPPORTED), but "
              + "; ".join(f"{c}: {found[c]}" for c in slipped) + f"\n{prog.text}")
        return
    if rc == 0 and found:
        T.failed += 1
        T.count(prog, found, rc, codes, False, where)
        print(f"FAIL {where}: accepted, but " + "; ".join(f"{c}: {w}" for c, w in sorted(found.items())) +
              f"\n{prog.text}")
        return
    T.passed += 1
    T.count(prog, found, rc, codes, show_info, where)
    if not found and rc == 1 and show_refused:
        print(f"refused though clean ({where}):\n{prog.text}{stderr}")


def main():
    if sys.argv[1:] == ["--self-test"]:
        from coop_judge_cases import self_test
        return self_test()
    if sys.argv[1:2] == ["--typecheck"]:
        from coop_judge_cases import typecheck
        return typecheck(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    if sys.argv[1:2] == ["--print"]:
        prog = generate(int(sys.argv[2]), int(sys.argv[3]) + 1)[-1]
        print(prog.text + "\n" + prog.model)
        for c, w in sorted(judge(prog).items()) or [("clean", "")]:
            print(f"{c}: {w}")
        return 0
    a = arguments(__doc__.split("\n\n")[0], "print each clean program refused",
                  [("--show-info", "print each program refused with none of the judge's codes")])
    T, t0, total = Tally(), time.time(), 0
    with ProcessPoolExecutor(a.jobs) as pool:
        for seed in seeds_of(a.seeds):
            progs = generate(seed, a.count)
            jobs = [pool.submit(check_one, a.cairn, a.work, seed, k, p) for k, p in enumerate(progs)]
            for k, (prog, job) in enumerate(zip(progs, jobs)):
                verdict(T, seed, k, prog, job.result(), a.show_refused, a.show_info)
            total += len(progs)
    dt = time.time() - t0
    print(f"coop judge: seeds {a.seeds}, {total} programs in {dt:.1f} s ({total / dt:.0f} programs/s): "
          f"{T.broken} break a rule, {T.clean} clean, {total - T.broken - T.clean} others (failed)")
    T.report()
    print(f"{T.passed} passed, {T.failed} failed, 0 skipped")
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
