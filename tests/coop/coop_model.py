"""coop_model.py: the cooperative judge's model (coop_judge.py says what it is and how it judges):
the threads of a block run together, their accesses recorded, and the page's rules checked on
what they did. It shares nothing with the generator (coop_gen.py) but the shapes and sizes."""

LEN = 16384                 # every outside array's length; no index the generator makes reaches it
GS = range(1, 5)            # the grid parameters the judge tries
CODES = ("E-COOP-BARRIER", "E-COOP-WARP", "E-COOP-CONFLICT", "E-COOP-UNORDERED", "E-COOP-REUSE",
         "E-COOP-UNWRITTEN", "E-COOP-GLOBAL", "E-ATOMIC-MIXED")
# Refusals that say the generator made a program that is not valid CAIRN, whatever the rules say.
GENERATOR_FAULTS = {"E-PARSE", "E-NAME", "E-TYPE-MISMATCH", "E-OPERATOR", "E-CAST", "E-ASSIGN",
                    "E-CALL", "E-BOUNDS", "E-CONST", "E-ENCODING", "E-EXTENT", "E-COOP-SHAPE",
                    "E-COOP-SHARED"}


# ------------------------------------------------------------------------------------ the model

class OutOfBounds(Exception):
    """The model stepped outside an array or below zero: the generator's fault, not the checker's."""


class Thread:
    """What one thread does: its events in order, and the values it reads and writes. An access is
    (phase, array, element, kind, step, line) with kind 'R', 'W' or 'A' (atomic), kept in sh (shared
    arrays) or acc (outside arrays); a barrier or warp operation is (step, line). mem holds the
    arrays' values: the block's shared arrays (one list each, the block's threads share it) and the
    outside ones (the grid's)."""

    __slots__ = ("lens", "shared", "phase", "sh", "acc", "bars", "warps", "mem")

    def __init__(self, lens, shared, mem):
        self.lens, self.shared, self.phase, self.mem = lens, shared, 0, mem
        self.sh, self.acc, self.bars, self.warps = [], [], [], []

    def _rec(self, a, e, kind, step, line):
        if not 0 <= e < self.lens[a]:
            raise OutOfBounds(f"index {e} of {a} of length {self.lens[a]}")
        (self.sh if a in self.shared else self.acc).append((self.phase, a, e, kind, step, line))

    def rd(self, a, e, step, line):
        """Records a read of a[e] and gives its value."""
        self._rec(a, e, "R", step, line)
        return self.mem[a][e]

    def wr(self, a, e, step, line, v=0):
        """Records a write of v into a[e] (the value's reads are recorded first: it is an argument)."""
        self._rec(a, e, "W", step, line)
        self.mem[a][e] = v

    def at(self, a, e, step, line):
        """An atomic add of 1: records it, gives the old value."""
        self._rec(a, e, "A", step, line)
        old = self.mem[a][e]
        self.mem[a][e] = old + 1
        return old

    def bar(self, step, line):
        self.bars.append((step, line))
        self.phase += 1

    def warp(self, step, line):
        self.warps.append((step, line))

    @staticmethod
    def sub(a, b):
        if b > a:
            raise OutOfBounds(f"usize {a} - {b} underflows")
        return a - b


class Shape:
    """Names and extents of both sides. Extents of the grid may be 'g'."""

    def __init__(self, tnames, text, bnames, gext):
        self.tnames, self.text, self.bnames, self.gext = tnames, text, bnames, gext
        self.T = 1
        for x in text:
            self.T *= x

    def blocks(self, g):
        n = 1
        for x in self.gext:
            n *= g if x == "g" else x
        return n

    def tname(self, t):
        vals, r = [], t
        for x in self.text:
            vals.append(r % x)
            r //= x
        if len(vals) == 1:
            return f"{self.tnames[0]} = {vals[0]}"
        return "(" + ", ".join(f"{n} = {v}" for n, v in zip(self.tnames, vals)) + ")"

    def bname(self, b, g):
        vals, r = [], b
        for x in self.gext:
            x = g if x == "g" else x
            vals.append(r % x)
            r //= x
        if len(vals) == 1:
            return f"block {self.bnames[0]} = {vals[0]}"
        return "block (" + ", ".join(f"{n} = {v}" for n, v in zip(self.bnames, vals)) + ")"


POISON = -7777              # what an unzeroed shared element holds until written


# x's elements, two ways: small and uneven, so that values read from it differ from thread to thread;
# and by warps, 9 in every other warp's stretch and 0 in the others, so that a vote on them differs
# from warp to warp. A program is judged on both (what it breaks on either, it breaks).
X_DATA = [("", [(i * 7 + 3) % 10 for i in range(LEN)]),
          (" (x by warps)", [9 if (i // 32) % 2 == 0 else 0 for i in range(LEN)])]


def run_block(fn, shape, lens, shared, unzeroed, g, b, outside):
    """Runs one block's threads together, as the device does: a thread's model is a generator that
    yields at each barrier (('bar',)) and each warp operation ((kind, step, args...)). Every thread
    runs to its next such point, one after another; then the warps whose 32 threads all wait at a
    warp operation get its result (a warp reduction's total, a shuffle's value from the lane it
    names, a vote's answer); when no warp is whole, the threads that wait at warp operations get
    results among the threads that are there (a warp split: the judge's E-COOP-WARP); when every
    thread left waits at a barrier, they all go on. Within a phase the threads run one after another,
    so a read sees what threads before it wrote: one order of the phase, the only one where the
    program is race-free."""
    mem = dict(outside)
    for a in shared:
        mem[a] = [POISON if a in unzeroed else 0] * lens[a]
    threads = [Thread(lens, shared, mem) for _ in range(shape.T)]
    gens = [fn(threads[t], g, b, t) for t in range(shape.T)]
    wait = [None] * shape.T

    def go(u, value):
        try:
            wait[u] = gens[u].send(value)
        except StopIteration:
            wait[u] = None

    for u in range(shape.T):
        if hasattr(gens[u], "send"):     # a model with no yield at all ran when it was called
            go(u, None)
    while True:
        live = [u for u in range(shape.T) if wait[u] is not None]
        if not live:
            break
        warps = {}
        for u in live:
            if wait[u][0] != "bar":
                warps.setdefault(u // 32, []).append(u)
        whole = [w for w, us in warps.items() if len(us) == 32]
        if warps:
            for w in (whole or list(warps)):
                for u, v in warp_results({u: wait[u] for u in warps[w]}).items():
                    go(u, v)
            continue
        for u in live:
            go(u, None)
    return threads


def warp_results(reqs):
    """The results of the warp operations the lanes in reqs wait at, lane by lane: lanes at one
    operation (one step) combine with each other only."""
    out, by_step = {}, {}
    for u, r in reqs.items():
        by_step.setdefault(r[1], {})[u] = r
    for rs in by_step.values():
        kind = next(iter(rs.values()))[0]
        lanes = sorted(rs)
        if kind == "reduce":
            vals = [rs[u][3] for u in lanes]
            total = sum(vals) if rs[lanes[0]][2] == "+" else max(vals)
            out.update({u: total for u in lanes})
        elif kind in ("any", "all", "ballot"):
            cs = {u: bool(rs[u][2]) for u in lanes}
            ans = any(cs.values()) if kind == "any" else all(cs.values()) if kind == "all" else \
                sum(1 << (u % 32) for u in lanes if cs[u])
            out.update({u: ans for u in lanes})
        else:                                # ("shfl", step, mode, arg, v)
            for u in lanes:
                mode, arg, own = rs[u][2], rs[u][3], rs[u][4]
                lane = u % 32
                src = {"xor": lane ^ arg, "down": lane + arg, "up": lane - arg, "idx": arg}[mode]
                src = u - lane + src if 0 <= src < 32 else u
                out[u] = rs[src][4] if src in rs else own
    return out


def sequences(shape, threads, key, g, b, group, code, what):
    """The first group of threads (the block, or one warp) whose sequences of barriers or warp
    operations differ, as (code, witness), or None."""
    for lo in range(0, shape.T, group):
        first = [s for s, _ in getattr(threads[lo], key)]
        for u in range(lo + 1, min(lo + group, shape.T)):
            mine = [s for s, _ in getattr(threads[u], key)]
            if mine != first:
                return code, differing(shape, threads, key, lo, u, g, b, what)
    return None


def differing(shape, threads, key, v, u, g, b, what):
    a, c = getattr(threads[v], key), getattr(threads[u], key)
    i = 0
    while i < len(a) and i < len(c) and a[i][0] == c[i][0]:
        i += 1
    reach, miss = (v, u) if i < len(a) and (i >= len(c) or a[i][0] < c[i][0]) else (u, v)
    line = (a if reach == v else c)[i][1]
    return (f"g={g} {shape.bname(b, g)}: thread {shape.tname(reach)} reaches the {what} at line "
            f"{line}, which thread {shape.tname(miss)} does not")


def shared_rules(shape, threads, shared, unzeroed, g, b, found):
    """The phase rule, E-COOP-UNWRITTEN and shared atomics for one block; adds to found."""
    where = f"g={g} {shape.bname(b, g)}"
    tn = shape.tname
    groups, kinds = {}, {}
    first_write = {}                        # (array, element) -> the first phase that writes it
    for u, th in enumerate(threads):
        for (p, a, e, k, s, ln) in th.sh:
            kinds.setdefault((p, a), {}).setdefault(k, (u, ln))
            if k == "A":
                continue
            groups.setdefault((p, a, e), []).append((u, k, s, ln))
            if k == "W" and first_write.get((a, e), p + 1) > p:
                first_write[(a, e)] = p
    for (p, a), ks in kinds.items():
        if "A" in ks and ("R" in ks or "W" in ks) and "E-ATOMIC-MIXED" not in found:
            (ua, la), (up, lp) = ks["A"], ks.get("W") or ks["R"]
            found["E-ATOMIC-MIXED"] = (f"{where}: thread {tn(ua)} updates {a} atomically at line {la}, "
                                       f"and thread {tn(up)} touches it plainly at line {lp}, in phase {p}")
    for (p, a, e), accs in groups.items():
        phase_pairs(accs, f"{where}: ", f"{a}[{e}]", p, tn, found)
    for u, th in enumerate(threads):
        own = set()
        for (p, a, e, k, s, ln) in th.sh:
            if a not in unzeroed:
                continue
            if k == "W":
                own.add((a, e))
            elif (a, e) not in own and first_write.get((a, e), p) >= p and "E-COOP-UNWRITTEN" not in found:
                found["E-COOP-UNWRITTEN"] = (f"{where}: thread {tn(u)} reads {a}[{e}] at line {ln} in phase "
                                             f"{p}, and no thread surely wrote it first")


def phase_pairs(accs, where, elem, p, tn, found):
    """CONFLICT, UNORDERED and REUSE among the plain accesses of one element in one phase."""
    u0 = accs[0][0]
    if all(a[0] == u0 for a in accs):
        return                               # one thread alone: nothing to order
    writes = sorted((s, u, ln) for (u, k, s, ln) in accs if k == "W")
    if not writes:
        return
    writers = {}
    for s, u, ln in writes:
        writers.setdefault(u, (s, ln))
    if len(writers) > 1 and "E-COOP-CONFLICT" not in found:
        (u, (_, l1)), (v, (_, l2)) = list(writers.items())[:2]
        found["E-COOP-CONFLICT"] = (f"{where}threads {tn(u)} and {tn(v)} both write {elem} in phase {p} "
                                    f"(lines {l1} and {l2})")
    early = sorted(writers.items(), key=lambda w: w[1][0])[:2]           # earliest write, per thread
    lates = {}
    for s, u, ln in writes:
        lates[u] = (s, ln)
    late = sorted(lates.items(), key=lambda w: w[1][0], reverse=True)[:2]  # latest write, per thread
    for (u, k, s, ln) in accs:
        if k != "R":
            continue
        other = [w for w in early if w[0] != u][:1]
        if other and other[0][1][0] < s and "E-COOP-UNORDERED" not in found:
            v, (_, lw) = other[0]
            found["E-COOP-UNORDERED"] = (f"{where}thread {tn(u)} reads {elem} at line {ln}, which thread "
                                         f"{tn(v)} writes at line {lw} earlier in phase {p}")
        other = [w for w in late if w[0] != u][:1]
        if other and other[0][1][0] > s and "E-COOP-REUSE" not in found:
            v, (_, lw) = other[0]
            found["E-COOP-REUSE"] = (f"{where}thread {tn(v)} writes {elem} at line {lw} over what thread "
                                     f"{tn(u)} reads at line {ln} earlier in phase {p}")


def outside_rules(shape, runs, g, found):
    """E-COOP-GLOBAL and E-ATOMIC-MIXED on the outside arrays over every block of one grid."""
    writer, readers, atomic, plain = {}, {}, {}, {}
    for b, threads in enumerate(runs):
        for u, th in enumerate(threads):
            who = (b, u)
            for (p, a, e, k, s, ln) in th.acc:
                if a == "x":
                    continue
                if k == "A":
                    atomic.setdefault(a, (who, ln))
                    continue
                plain.setdefault(a, (who, ln))
                if k == "W":
                    w = writer.setdefault((a, e), (who, ln))
                    if w[0] != who and "E-COOP-GLOBAL" not in found:
                        found["E-COOP-GLOBAL"] = (f"g={g}: {name(shape, w[0], g)} and {name(shape, who, g)} "
                                                  f"both write {a}[{e}] (lines {w[1]} and {ln})")
                else:
                    rs = readers.setdefault((a, e), [])     # two distinct readers are enough
                    if len(rs) < 2 and all(r[0] != who for r in rs):
                        rs.append((who, ln))
    for (a, e), rs in readers.items():
        w = writer.get((a, e))
        for who, ln in rs:
            if w and w[0] != who and "E-COOP-GLOBAL" not in found:
                found["E-COOP-GLOBAL"] = (f"g={g}: {name(shape, who, g)} reads {a}[{e}] at line {ln}, which "
                                          f"{name(shape, w[0], g)} writes at line {w[1]}")
    for a in atomic:
        if a in plain and "E-ATOMIC-MIXED" not in found:
            (wa, la), (wp, lp) = atomic[a], plain[a]
            found["E-ATOMIC-MIXED"] = (f"g={g}: {name(shape, wa, g)} updates {a} atomically at line {la}, "
                                       f"and {name(shape, wp, g)} touches it plainly at line {lp}")


def name(shape, who, g):
    return f"thread {shape.tname(who[1])} of {shape.bname(who[0], g)}"


def judge_fn(fn, shape, lens, shared, unzeroed, uses_g):
    """The verdict: {code: first witness} over every g tried (empty: the program is clean). Blocks
    whose threads do the same inside the block (the same shared accesses, barriers and warp
    operations) are judged once: the rules inside a block see nothing else."""
    found, seen = {}, set()
    for (data, xs), g in ((d, g) for d in X_DATA for g in (GS if uses_g else (max(GS),))):
        outside = {a: (xs if a == "x" else [0] * n) for a, n in lens.items() if a not in shared}
        runs = [run_block(fn, shape, lens, shared, unzeroed, g, b, outside) for b in range(shape.blocks(g))]
        before = set(found)
        for b, threads in enumerate(runs):
            sig = hash(tuple((tuple(th.sh), tuple(th.bars), tuple(th.warps)) for th in threads))
            if sig in seen:
                continue
            seen.add(sig)
            for key, group, code, what in (("bars", shape.T, "E-COOP-BARRIER", "barrier"),
                                           ("warps", 32, "E-COOP-WARP", "warp operation")):
                if code not in found:
                    hit = sequences(shape, threads, key, g, b, group, code, what)
                    if hit:
                        found[hit[0]] = hit[1]
            shared_rules(shape, threads, shared, unzeroed, g, b, found)
        outside_rules(shape, runs, g, found)
        for c in set(found) - before:
            found[c] += data
    return found


def judge(prog):
    env = {}
    exec(prog.model, env)
    return judge_fn(env["thread"], prog.shape, prog.lens, prog.shared, prog.unzeroed, prog.uses_g)
