"""coop_gen.py: the cooperative judge's generator (coop_judge.py describes the programs): each
random region made twice in step, as CAIRN text and as a Python model of one thread."""
import random
import re

from coop_model import GS, LEN, Shape

# ------------------------------------------------------------------------------- the generator

class X:
    """An expression, as CAIRN and Python text in step, with its precedence (3 atom, 2 product,
    1 sum). Python divides with // and subtracts through L.sub, which refuses to go below zero."""

    def __init__(self, c, p=None, prec=3):
        self.c, self.p, self.prec = c, c if p is None else p, prec


def num(n):
    return X(str(n))


def op(o, a, b):
    lvl = 1 if o in "+-" else 2
    wrap = lambda e, right: e.prec < lvl or (right and e.prec == lvl and o not in "+*")
    ac, ap = (f"({a.c})", f"({a.p})") if wrap(a, False) else (a.c, a.p)
    bc, bp = (f"({b.c})", f"({b.p})") if wrap(b, True) else (b.c, b.p)
    if o == "-":
        return X(f"{ac} - {bc}", f"L.sub({a.p}, {b.p})", 1)
    return X(f"{ac} {o} {bc}", f"{ap} {'//' if o == '/' else o} {bp}", lvl)


class Cond:
    """A condition, CAIRN and Python, with what the generator means by it: 'block' (the same in
    every thread of a block), 'warp' (the same in every thread of a warp) or 'thread' (it splits
    warps); pre holds the Python lines to run before it (a vote's: the vote is a warp operation).
    The judge does not trust the label; it runs the threads."""

    def __init__(self, c, p, kind, pre=()):
        self.c, self.p, self.kind, self.pre = c, p, kind, list(pre)


def cmp(a, o, b, kind):
    return Cond(f"{a.c} {o} {b.c}", f"{a.p} {o} {b.p}", kind)


def both(c1, c2):
    """c1 && c2; a vote may only be c1 (the right side runs only where the left lets it)."""
    assert not c2.pre
    kind = "thread" if "thread" in (c1.kind, c2.kind) else ("warp" if "warp" in (c1.kind, c2.kind) else "block")
    return Cond(f"{c1.c} && {c2.c}", f"({c1.p}) and ({c2.p})", kind, c1.pre)


THREAD_SHAPES = [(("t",), (32,)), (("t",), (64,)), (("t",), (64,)), (("t",), (128,)), (("t",), (256,)),
                 (("tx", "ty"), (32, 2)), (("tx", "ty"), (32, 4)), (("tx", "ty"), (16, 4)),
                 (("tx", "ty"), (64, 2)), (("tx", "ty"), (8, 8)), (("tx", "ty", "tz"), (32, 2, 2)),
                 (("tx", "ty", "tz"), (16, 2, 2)), (("tx", "ty", "tz"), (8, 4, 2))]
GRID_SHAPES = [(("b",), ("g",)), (("b",), ("g",)), (("bx", "by"), ("g", 2)), (("bx", "by", "bz"), (2, "g", 1))]


class Array:
    def __init__(self, name, n, zeroed):
        self.name, self.n, self.zeroed = name, n, zeroed
        self.full = zeroed              # every element surely written (or zeroed) by now


class Gen:
    """Makes one program. Each piece keeps to its discipline unless bad() says otherwise; about
    half the programs have bad_rate 0."""

    def __init__(self, rng):
        self.rng = r = rng
        self.bad_rate = 0.0 if r.random() < 0.5 else r.choice((0.1, 0.2, 0.4))
        tn, te = r.choice(THREAD_SHAPES)
        if len(te) > 1 or te[0] > 128:
            bn, ge = r.choice(GRID_SHAPES[:2]) if r.random() < 0.6 else r.choice(GRID_SHAPES)
        else:
            bn, ge = r.choice(GRID_SHAPES)
        self.shape = Shape(tn, te, bn, ge)
        self.T, self.X = self.shape.T, te[0]
        self.tags = {f"{len(tn)} thread names", f"{len(bn)} block names"}
        self.lines, self.py = [], []     # CAIRN lines (1 = the fn line), model lines
        self.depth = 0                   # of the body, inside the region
        self.ids = 0
        self.loops = []                  # (statement id, counter, K or None, visible) of the loops around
        self.locals = [[]]               # i32 locals in scope, per block
        self.names = 0
        self.uses_flat_local = r.random() < 0.3
        self.arrays = self.make_arrays()
        self.out_layout = r.choice(("plain", "slot", "slot", "slot2", "rev", "pin"))
        if self.out_layout == "slot2" and self.shape.blocks(max(GS)) * self.T * 16 > LEN:
            self.out_layout = "slot"         # its stride of 16 would pass out's end
        self.pin = self.pin_cond()
        self.hist_used = False

    # --- text

    def fresh(self, stem):
        self.names += 1
        return f"{stem}{self.names}"

    def bad(self):
        return self.rng.random() < self.bad_rate

    def emit(self, c, p=()):
        self.lines.append("  " * (self.depth + 2) + c)
        self.py.extend("    " * (self.depth + 1) + s for s in p)
        return len(self.lines)

    def open(self, c, p, pre=()):
        self.py.extend("    " * (self.depth + 1) + s for s in pre)
        self.emit(c + " {", [p + ":", "    pass"])
        self.depth += 1
        self.locals.append([])

    def open_if(self, cond):
        self.open(f"if {cond.c}", f"if {cond.p}", cond.pre)

    def orelse(self):
        self.depth -= 1
        self.locals[-1] = []
        self.emit("} else {", ["else:", "    pass"])
        self.depth += 1

    def close(self):
        self.depth -= 1
        self.locals.pop()
        self.lines.append("  " * (self.depth + 2) + "}")

    def step(self, sid, part):
        parts = []
        for lid, k, _, _ in self.loops:
            parts += [str(lid), k]
        return "(" + ", ".join(parts + [str(sid), str(part)]) + ")"

    def new_id(self):
        self.ids += 1
        return self.ids

    def line(self):
        return len(self.lines) + 1

    # --- names and forms

    def ft(self):
        """The flat thread number: t, or tx + X * ty (+ X * Y * tz), or the local f."""
        s = self.shape
        if len(s.tnames) == 1:
            return X(s.tnames[0])
        if self.uses_flat_local:
            return X("f")
        e, w = X(s.tnames[0]), 1
        for nm, ext in zip(s.tnames[1:], s.text):
            w *= ext
            e = op("+", e, op("*", num(w), X(nm)))
        return e

    def fb(self):
        s = self.shape
        if len(s.bnames) == 1:
            return X(s.bnames[0])
        e, w = X(s.bnames[0]), None
        for nm, ext in zip(s.bnames[1:], s.gext):
            w = X(str(ext)) if w is None else op("*", w, X(str(ext)))
            e = op("+", e, op("*", w, X(nm)))
        return e

    def nblocks(self):
        """The grid's number of blocks: g, g * 2, 2 * g * 1."""
        e = None
        for x in self.shape.gext:
            e = X(str(x)) if e is None else op("*", e, X(str(x)))
        return e

    def counter(self):
        vis = [c for c in self.loops if c[3]]
        return self.rng.choice(vis) if vis else None

    def thread_cond(self, kind):
        """A condition on the thread names meant to be 'warp' (warp-uniform) or 'thread'."""
        r, T, ft, s = self.rng, self.T, self.ft(), self.shape
        if kind == "warp":
            opts = [cmp(ft, "<", num(32 * r.randint(1, T // 32)), "warp")] if T > 32 else []
            if T > 32:
                opts.append(cmp(op("/", ft, num(32)), "==", num(r.randrange(T // 32)), "warp"))
                opts.append(cmp(ft, ">=", num(32 * r.randint(1, T // 32 - 1)), "warp") if T > 64 else opts[0])
            if len(s.tnames) > 1 and self.X >= 32:
                opts.append(cmp(X(s.tnames[1]), "<", num(r.randint(1, s.text[1] - 1)), "warp"))
            if len(s.tnames) > 1 and self.X < 32 and s.text[1] * self.X > 32:
                opts.append(cmp(X(s.tnames[1]), "<", num(32 // self.X), "warp"))
            if not opts:
                return Cond("g > 1", "g > 1", "block")
            return r.choice(opts)
        opts = [cmp(ft, "<", num(r.choice([1, 5, 16, 31, 33, T // 2 + 3, T - 1])), "thread"),
                cmp(op("%", ft, num(2)), "==", num(r.randrange(2)), "thread"),
                cmp(ft, "==", num(r.choice((0, 1, T - 1))), "thread")]
        if len(s.tnames) > 1:
            opts.append(both(cmp(X(s.tnames[0]), "==", num(self.X - 1), "thread"),
                             cmp(X(s.tnames[1]), "==", num(1), "thread")))
            opts.append(cmp(X(s.tnames[0]), "<", num(max(1, self.X // 2)), "thread"))
        return r.choice(opts)

    def block_cond(self):
        r = self.rng
        opts = [Cond("g > 1", "g > 1", "block"), cmp(X(self.shape.bnames[0]), "==", num(0), "block")]
        c = self.counter()
        if c:
            opts.append(cmp(X(c[1]), "<", num(r.randint(1, c[2])), "block"))
        return r.choice(opts)

    def uniform_index(self, n):
        """An index of an array of n elements that is the same in every thread of a block: a
        constant, or one made of g, a block name and a loop counter."""
        r, b = self.rng, self.shape.bnames[0]
        opts = [num(r.randrange(n)), op("%", X("g"), num(n)), op("%", op("+", X(b), num(r.randint(1, 5))), num(n)),
                op("%", op("+", op("*", X("g"), num(3)), X(b)), num(n))]
        c = self.counter()
        if c:
            opts.append(op("%", op("+", X(c[1]), X(b)), num(n)))
        return r.choice(opts)

    def shared_cond(self, sid, warp):
        """A condition on a shared element read at an index the same in every thread (or, warp:
        in every thread of a warp; bad: in none) of an array whose elements the phase does not
        write: (Cond, array) or (None, None). Threads agree on it when the index is uniform."""
        r = self.rng
        cands = [a for a in self.arrays if a.full and (self.modes.get(a.name) or ("R",))[0] == "R"]
        if not cands:
            return None, None
        a = r.choice(cands)
        if self.bad():
            idx, kind = op("%", self.ft(), num(a.n)), "thread"
        elif warp and self.T > 32 and r.random() < 0.5:
            idx, kind = op("%", op("/", self.ft(), num(32)), num(a.n)), "warp"
        else:
            idx, kind = self.uniform_index(a.n), "block"
        k = r.randint(0, 3)
        o = r.choice((">", "==", "<"))
        ln = self.line()
        return Cond(f"{a.name}[{idx.c}] {o} {k}", f"L.rd('{a.name}', {idx.p}, {self.step(sid, 0)}, {ln}) {o} {k}",
                    kind), a

    def vote_cond(self, sid, inner=None):
        """warp_any(C), warp_all(C), !warp_all(C) or warp_ballot(C) != 0 with C a condition that
        may split the warp: the same in every thread of a warp."""
        r = self.rng
        c = inner or self.vote_arg()
        kind = r.choice(("any", "all", "nall", "ballot"))
        q = self.fresh("_q")
        st = self.step(sid, 0)
        ln = self.line()
        pre = [f"_c = bool({c.p})", f"L.warp({st}, {ln})",
               f"{q} = yield ('{'all' if kind == 'nall' else kind}', {st}, _c)"]
        self.tags.add("votes")
        if kind == "any":
            return Cond(f"warp_any({c.c})", q, "warp", pre)
        if kind == "all":
            return Cond(f"warp_all({c.c})", q, "warp", pre)
        if kind == "nall":
            return Cond(f"!warp_all({c.c})", f"not {q}", "warp", pre)
        return Cond(f"warp_ballot({c.c}) != 0", f"{q} != 0", "warp", pre)

    def vote_arg(self):
        """What a vote asks: a condition on the thread's names, or on a local's value."""
        r = self.rng
        scope = [v for s in self.locals for v in s]
        if scope and r.random() < 0.5:
            v = r.choice(scope)
            k = r.randint(0, 12)
            return Cond(f"{v} > {k}", f"{v} > {k}", "thread")
        return self.thread_cond("thread")

    def pin_cond(self):
        """A condition that pins the thread names to one value (the pinned-name rule)."""
        s, r = self.shape, self.rng
        if len(s.tnames) > 1 and r.random() < 0.5:
            return both(cmp(X(s.tnames[0]), "==", num(self.X - 1), "thread"),
                        cmp(X(s.tnames[1]), "==", num(1), "thread"))
        return cmp(self.ft(), "==", num(r.choice((0, 0, self.T - 1))), "thread")

    def make_arrays(self):
        r, T, out = self.rng, self.T, []
        for _ in range(r.randint(1, 3)):
            zeroed = r.random() < 0.6
            n = r.choice([T, T, T, 2 * T, max(1, T // 32)])
            out.append(Array(self.fresh("s" if zeroed else "w"), n, zeroed))
        if len(self.shape.tnames) == 2 and self.X == 32 and r.random() < 0.3:
            out.append(Array("tile", 1056, r.random() < 0.7))
        return out

    # --- shared indices

    def own(self, a):
        """The phase's one-to-one write form for a: (guard or None, index, covers every element)."""
        r, T, ft = self.rng, self.T, self.ft()
        if a.name == "tile":
            s = self.shape
            return None, op("+", op("*", X(s.tnames[1]), num(33)), X(s.tnames[0])), False
        if a.n == T:
            opts = [(None, ft, True), (None, op("-", num(T - 1), ft), True),
                    (None, op("%", op("+", ft, num(r.randint(1, T - 1))), num(T)), True)]
            if len(self.shape.tnames) == 2:
                tx, ty = self.shape.tnames
                opts.append((None, op("+", op("*", X(tx), num(self.shape.text[1])), X(ty)), True))
            c = self.counter()
            if c and self.phase_in_loop:
                opts.append((None, op("%", op("+", ft, X(c[1])), num(T)), True))
            return r.choice(opts)
        if a.n == 2 * T:
            return r.choice([(None, op("+", op("*", ft, num(2)), num(1)), False), (None, op("*", ft, num(2)), False),
                             (None, op("+", ft, num(T)), False)])
        if T == 32:
            return cmp(ft, "==", num(0), "thread"), num(0), True
        return cmp(op("%", ft, num(32)), "==", num(0), "thread"), op("/", ft, num(32)), True

    def bad_own(self, a):
        r, ft = self.rng, self.ft()
        k = r.randrange(4)
        if k == 0:
            return None, op("/", ft, num(2)) if a.n >= self.T else op("%", ft, num(a.n)), False
        if k == 1:
            return None, num(r.randrange(min(a.n, 4))), False
        if k == 2:
            return None, self.uniform_index(a.n), False      # every thread, one element
        return None, op("%", op("+", ft, num(1)), num(a.n)), False

    def anywhere(self, a):
        """A read index of a, anywhere in bounds."""
        r, T, ft, n = self.rng, self.T, self.ft(), a.n
        if a.name == "tile":
            s = self.shape
            return op("+", op("*", X(s.tnames[0]), num(33)), X(s.tnames[1]))
        opts = [num(r.randrange(n)), op("%", op("+", ft, num(r.randint(1, 3))), num(n)), op("%", ft, num(n)),
                self.uniform_index(n)]
        if n >= T:
            opts += [op("-", num(T - 1), ft), op("/", ft, num(2)), ft]
        if n <= T // 32:
            opts.append(op("/", ft, num(32)))
        c = self.counter()
        if c:
            opts.append(op("%", op("+", ft, X(c[1])), num(n)) if r.random() < 0.5 else
                        op("%", X(c[1]), num(n)))
        return r.choice(opts)

    # --- values and accesses

    def read(self, arr, idx, sid):
        """The Python expression that records a read of arr[idx] in statement sid and gives its
        value."""
        return f"L.rd('{arr}', {idx.p}, {self.step(sid, 0)}, {self.line()})"

    def x_index(self):
        r, ft = self.rng, self.ft()
        opts = [op("+", op("*", self.fb(), num(self.T)), ft), ft, num(r.randrange(64))]
        c = self.counter()
        if c:
            opts.append(X(c[1]))
        return r.choice(opts)

    def value(self, sid):
        """An i32 value: (CAIRN, the Python expression that computes it, recording its reads)."""
        r = self.rng
        k = r.randrange(6)
        scope = [v for s in self.locals for v in s]
        if k == 0 or (k == 1 and not scope):
            n = str(r.randint(0, 9))
            return n, n
        if k == 1:
            v = r.choice(scope)
            return v, v
        if k == 2:
            i = self.x_index()
            return f"x[{i.c}] + 1", f"{self.read('x', i, sid)} + 1"
        if k == 3 and r.random() < 0.3:
            wide = self.wide_read(sid)
            if wide:
                return wide
        a, idx = self.shared_read_target()
        if a is None:
            i = self.x_index()
            return f"x[{i.c}]", self.read("x", i, sid)
        return f"{a.name}[{idx.c}]", self.read(a.name, idx, sid)

    def wide_read(self, sid):
        """load_wide[2](a, i)[0], i even, of an array the phase only reads (or, bad, any array): both
        elements read, the first one's value. None when no array has two elements to read."""
        r, ft = self.rng, self.ft()
        cands = [a for a in self.arrays if a.n >= 2 and (self.bad() or (a.full and (self.modes.get(a.name) or ("R",))[0] == "R"))]
        if not cands:
            return None
        a = r.choice(cands)
        # an even index: the pair sits on 8 bytes (the access's alignment guard), so a program the
        # checker accepts runs (tests/coop/test_coop_emulate_diff.sh runs them)
        idx = r.choice([num(2 * r.randrange(a.n // 2)), op("*", num(2), op("%", ft, num(a.n // 2)))])
        self.tags.add("wide accesses")
        st, ln = self.step(sid, 0), self.line()
        return (f"load_wide[2]({a.name}, {idx.c})[0]",
                f"(L.rd('{a.name}', {idx.p}, {st}, {ln}), L.rd('{a.name}', ({idx.p}) + 1, {st}, {ln}))[0]")

    def shared_read_target(self):
        """(array, index) a phase may read now: an R array anywhere, a W array at its own index
        (where the guard is none); or, when bad, any array anywhere."""
        r = self.rng
        cands = []
        for a in self.arrays:
            m = self.modes.get(a.name)
            if m and m[0] == "R" and (a.full or self.bad()):
                cands.append((a, self.anywhere(a)))
            elif m and m[0] == "W" and m[1] is None and (a.full or self.written.get(a.name)):
                cands.append((a, m[2]))
        if self.bad() and self.arrays:
            a = r.choice(self.arrays)
            cands.append((a, self.anywhere(a)))
        return r.choice(cands) if cands else (None, None)

    def write(self, arr, idx, sid, val_p):
        """The Python expression that records a write of the value val_p into arr[idx]."""
        return f"L.wr('{arr}', {idx.p}, {self.step(sid, 1)}, {self.line()}, {val_p})"

    def st_shared_write(self):
        ws = [a for a in self.arrays if (self.modes.get(a.name) or ("",))[0] in ("W", "U")]
        pairs = [a for a in self.arrays if a.n == 2 * self.T]
        if not ws or self.bad():
            a = self.rng.choice(self.arrays)
            guard, idx, _ = self.bad_own(a)
            if pairs and self.rng.random() < 0.2:    # a wide store at t: two threads' pairs overlap
                a, guard, idx = self.rng.choice(pairs), None, self.ft()
            mode = "W"
        else:
            a = self.rng.choice(ws)
            mode, guard, idx = self.modes[a.name]
            if mode == "U" and self.bad():
                guard = None                 # every thread, one element
        sid = self.new_id()
        if guard is not None:
            self.open_if(guard)
        if mode == "U":
            self.tags.add("uniform-index writes")
        ft2 = op("*", self.ft(), num(2))
        if a.n == 2 * self.T and guard is None and idx.c in (ft2.c, self.ft().c) and self.rng.random() < 0.4:
            # store_wide of two elements: at 2 * t a thread's own pair; at t (bad) its neighbour's too
            self.tags.add("wide accesses")
            w = [self.write(a.name, X(f"({idx.p}) + {q}"), sid, "0") for q in range(2)]
            self.emit(f"store_wide({a.name}, {idx.c}, Array[i32, 2]());", w)
        elif self.rng.random() < 0.25 and (a.full or self.written.get(a.name) or self.bad()):
            self.emit(f"{a.name}[{idx.c}] += 1;", [self.write(a.name, idx, sid, self.read(a.name, idx, sid) + " + 1")])
        else:
            vc, vp = self.value(sid)
            self.emit(f"{a.name}[{idx.c}] = {vc};", [self.write(a.name, idx, sid, vp)])
        if guard is not None:
            self.close()
        if mode == "W" and (guard is None or guard.kind != "block"):
            self.written[a.name] = True

    def st_local(self):
        sid = self.new_id()
        v = self.fresh("v")
        vc, vp = self.value(sid)
        self.emit(f"let {v}:i32 = {vc};", [f"{v} = {vp}"])
        self.locals[-1].append(v)

    def st_atomic(self):
        r = self.rng
        sid = self.new_id()
        ats = [a for a in self.arrays if (self.modes.get(a.name) or ("",))[0] == "A"]
        if ats and r.random() < 0.7:
            a = r.choice(ats)
            i = self.anywhere(a)
            self.tags.add("shared atomics")
            self.emit(f"atomic_add_wrap({a.name}[{i.c}], 1);", [f"L.at('{a.name}', {i.p}, {self.step(sid, 1)}, {self.line()})"])
            return
        self.hist_used = True
        self.tags.add("atomics")
        i = r.choice([num(r.randrange(8)), op("%", self.ft(), num(16)), self.fb()])
        self.emit(f"atomic_add_wrap(hist[{i.c}], 1);", [f"L.at('hist', {i.p}, {self.step(sid, 1)}, {self.line()})"])

    def out_index(self):
        """The program's one-writer index of out here, and the pin it needs (or None)."""
        r, T, fb, ft = self.rng, self.T, self.fb(), self.ft()
        lay = self.out_layout
        c = self.counter()
        slot = X(c[1]) if c and r.random() < 0.6 else num(r.randrange(4 if c else 8))
        if c and slot.c != c[1] and r.random() < 0.3:
            slot = op("+", X(c[1]), num(r.randrange(5)))
        if lay == "plain":
            return op("+", op("*", fb, num(T)), ft), None
        if lay == "rev":
            return op("+", op("*", fb, num(T)), op("-", num(T - 1), ft)), None
        if lay == "slot":
            return op("+", op("*", op("+", op("*", fb, num(T)), ft), num(8)), slot), None
        if lay == "slot2":   # two counters of nested loops (each below 4) as two more names
            two = [c for c in self.loops if c[3] and c[2] is not None and c[2] <= 4]
            if len(two) >= 2:
                c1, c2 = r.sample(two, 2)
                slot = op("+", op("*", X(c1[1]), num(4)), X(c2[1]))
                self.tags.add("outside indices of two counters")
            return op("+", op("*", op("+", op("*", fb, num(T)), ft), num(16)), slot), None
        return op("+", op("*", fb, num(8)), slot), self.pin

    def bad_out_index(self):
        r, ft, fb = self.rng, self.ft(), self.fb()
        two = [c for c in self.loops if c[3] and c[2] is not None and c[2] >= 2]
        if self.out_layout == "slot2" and len(two) >= 2 and r.random() < 0.5:
            # two counters whose weights overlap the thread's: t, k1 = 1 meets t + 1, k1 = 0
            c1, c2 = r.sample(two, 2)
            self.tags.add("outside indices of two counters")
            return op("+", op("+", op("*", op("+", op("*", fb, num(self.T)), ft), num(4)), op("*", X(c1[1]), num(4))),
                      X(c2[1])), None
        return r.choice([ft, fb, op("/", ft, num(2)), num(r.randrange(4)),
                         op("+", op("+", op("*", fb, num(self.T)), ft), num(1))]), None

    def st_out(self):
        r = self.rng
        if self.hist_used and r.random() < 0.3 and self.bad():
            sid = self.new_id()
            self.emit("hist[0] = 1;", [f"L.wr('hist', 0, {self.step(sid, 1)}, {self.line()}, 1)"])
            return
        two = [c for c in self.loops if c[3] and c[2] is not None and c[2] <= 4]
        if self.out_layout == "slot2" and len(two) < 2 and r.random() < 0.7:
            # a nest of two loops of its own around the access, so that two counters weigh in it
            opened = 0
            for _ in range(2 - len(two)):
                lid, k, K = self.new_id(), self.fresh("k"), r.randint(1, 4)
                self.open(f"for {k} in 0..{K}", f"for {k} in range({K})")
                self.loops.append((lid, k, K, True))
                opened += 1
            self.st_out()
            for _ in range(opened):
                self.loops.pop()
                self.close()
            return
        idx, pin = self.bad_out_index() if self.bad() else self.out_index()
        if pin is not None and self.bad():
            pin = None
        if pin is not None and self.bad():
            pin = self.pin_cond()            # another pin: two threads may write one element
        sid = self.new_id()
        if pin is not None:
            self.open_if(pin)
        k = r.random()
        if k < 0.2:
            v = self.fresh("v")
            self.emit(f"let {v}:i32 = out[{idx.c}];", [f"{v} = {self.read('out', idx, sid)}"])
        elif k < 0.35:
            self.emit(f"out[{idx.c}] += 1;", [self.write("out", idx, sid, self.read("out", idx, sid) + " + 1")])
        else:
            vc, vp = self.value(sid)
            self.emit(f"out[{idx.c}] = {vc};", [self.write("out", idx, sid, vp)])
        if pin is not None:
            self.close()

    def st_grid_stride(self):
        """A grid-stride loop over y: i from the thread's place in the grid by the grid's threads,
        while i < a bound (bad: a stride of half the grid, or no block in the start)."""
        r, T = self.rng, self.T
        self.tags.add("while loops")
        i, wv = self.fresh("gs"), self.fresh("_w")
        start = op("+", op("*", self.fb(), num(T)), self.ft())
        stride = op("*", self.nblocks(), num(T))
        if self.bad():
            k = r.randrange(3)
            if k == 0:
                start = self.ft()
            elif k == 1:
                stride = op("*", self.nblocks(), num(T // 2))
            else:
                stride = num(T)
        bound = T * r.randint(1, 6) + r.randrange(T)
        lid, sid = self.new_id(), self.new_id()
        self.emit(f"let mut {i} = {start.c};", [f"{i} = {start.p}", f"{wv} = 0"])
        self.open(f"while {i} < {bound}", f"while {i} < {bound}")
        self.loops.append((lid, wv, None, False))
        if r.random() < 0.3:
            self.emit(f"y[{i}] += 1;", [self.write("y", X(i), sid, self.read("y", X(i), sid) + " + 1")])
        else:
            vc, vp = self.value(sid)
            self.emit(f"y[{i}] = {vc};", [self.write("y", X(i), sid, vp)])
        self.emit(f"{i} += {stride.c};", [f"{i} += {stride.p}", f"{wv} += 1"])
        self.loops.pop()
        self.close()

    def stride_cover(self, a):
        """An S array's covering write: j from the thread's number by the block's threads while
        j < the array's length (bad: a stride of half the block)."""
        r, T = self.rng, self.T
        self.tags.add("while loops")
        j, wv = self.fresh("bs"), self.fresh("_w")
        step = T // 2 if self.bad() and T > 32 else T
        lid, sid = self.new_id(), self.new_id()
        ft = self.ft()
        self.emit(f"let mut {j} = {ft.c};", [f"{j} = {ft.p}", f"{wv} = 0"])
        self.open(f"while {j} < {a.n}", f"while {j} < {a.n}")
        self.loops.append((lid, wv, None, False))
        vc, vp = self.value(sid) if r.random() < 0.5 else ("1", "1")
        self.emit(f"{a.name}[{j}] = {vc};", [self.write(a.name, X(j), sid, vp)])
        self.emit(f"{j} += {step};", [f"{j} += {step}", f"{wv} += 1"])
        self.loops.pop()
        self.close()
        self.written[a.name] = True
        self.covered[a.name] = step == T

    def st_warp(self):
        r = self.rng
        sid = self.new_id()
        w = self.fresh("r")
        vc, vp = self.value(sid)
        if re.fullmatch(r"[0-9]+", vc):      # a bare literal has no type of its own here
            i = self.x_index()
            vc, vp = f"x[{i.c}]", self.read("x", i, sid)
        cond = None
        k = r.random()
        if k < 0.25:
            cond = self.thread_cond("thread" if self.bad() else "warp")
        elif k < 0.4:
            cond = self.vote_cond(sid)
            if self.bad():
                cond = both(cond, self.thread_cond("thread"))
        elif k < 0.5:
            cond, _ = self.shared_cond(sid, True)
            if cond:
                self.tags.add("conditions on shared reads")
        elif k < 0.55:
            scope = [v for v in self.warp_results if any(v in s for s in self.locals)]
            if scope:
                c = f"{r.choice(scope)} > {r.randint(0, 40)}"
                cond = Cond(c, c, "warp")        # a warp reduction's answer: every thread of the warp has it
        if cond:
            self.open_if(cond)
        self.tags.add("warp operations")
        ln = self.line()
        st = self.step(sid, 1)
        pre = [f"_v = {vp}", f"L.warp({st}, {ln})"]
        if r.random() < 0.6:
            self.emit(f"let {w} = reduce + warp yield {vc};", pre + [f"{w} = yield ('reduce', {st}, '+', _v)"])
            self.warp_results.append(w)
        else:
            m = r.choice((1, 2, 16))
            self.emit(f"let {w} = shuffle_xor({vc}, {m});", pre + [f"{w} = yield ('shfl', {st}, 'xor', {m}, _v)"])
        self.locals[-1].append(w)
        if cond:
            self.close()

    def st_if(self, budget):
        r = self.rng
        k = r.random()
        c = None
        if k < 0.1:
            c, _ = self.shared_cond(self.new_id(), False)
            if c:
                self.tags.add("conditions on shared reads")
        if c is None:
            c = self.thread_cond(r.choice(("warp", "thread"))) if k < 0.75 else self.block_cond()
        self.tags.add("conditions")
        self.open_if(c)
        saved = dict(self.written)
        self.statements(budget)
        if r.random() < 0.3:
            self.orelse()
            self.statements(1)
        self.close()
        self.written = saved                # a write under a condition counts for nothing

    def st_loop(self, budget):
        r = self.rng
        lid, k, K = self.new_id(), self.fresh("k"), r.randint(1, 4)
        self.tags.add("loops")
        self.open(f"for {k} in 0..{K}", f"for {k} in range({K})")
        self.loops.append((lid, k, K, True))
        self.statements(budget)
        self.loops.pop()
        self.close()

    def statements(self, n):
        r = self.rng
        for _ in range(n):
            k = r.random()
            if k < 0.28:
                self.st_shared_write()
            elif k < 0.42:
                self.st_local()
            elif k < 0.55:
                self.st_out()
            elif k < 0.6:
                self.st_grid_stride()
            elif k < 0.67:
                self.st_atomic()
            elif k < 0.78:
                self.st_warp()
            elif k < 0.9 and self.depth < 3:
                self.st_if(r.randint(1, 2))
            elif self.depth < 3:
                self.st_loop(r.randint(1, 2))
            else:
                self.st_local()

    # --- phases and barriers

    def start_phase(self):
        """Chooses what each shared array is in this phase: W (written at one form), S (written by
        a stride loop), U (written by one thread at an index the same in every thread), R, A, or
        untouched; arrays written in the phase before count as fully written only now."""
        for a in self.arrays:
            if self.covered.get(a.name):
                a.full = True
        self.written, self.covered = {}, {}
        r = self.rng
        self.modes = {}
        for a in self.arrays:
            k = r.random()
            if k < 0.4:
                guard, idx, covers = self.own(a)
                self.modes[a.name] = ("W", guard, idx)
                if covers:
                    self.pending_cover.append(a.name)
            elif k < 0.45 and a.n in (self.T, 2 * self.T) and a.name != "tile":
                self.modes[a.name] = ("S", None, None)
                self.pending_cover.append(a.name)
            elif k < 0.5 and a.zeroed and a.name != "tile":
                self.modes[a.name] = ("U", self.pin_cond(), self.uniform_index(a.n))
            elif k < 0.85:
                self.modes[a.name] = ("R",)
            elif k < 0.97 and a.zeroed:
                self.modes[a.name] = ("A",)

    def phase(self):
        self.pending_cover = []
        self.start_phase()
        # an unconditional covering write first, now and then, so that later phases may read
        for name in self.pending_cover:
            a = next(a for a in self.arrays if a.name == name)
            if self.modes[name][0] == "S":
                self.stride_cover(a)
            elif self.rng.random() < 0.7:
                self.cover(a)
        self.statements(self.rng.randint(1, 3))

    def cover(self, a):
        _, guard, idx = self.modes[a.name]
        sid = self.new_id()
        if guard is not None:
            self.open_if(guard)
        vc, vp = self.value(sid) if self.rng.random() < 0.5 else ("1", "1")
        self.emit(f"{a.name}[{idx.c}] = {vc};", [self.write(a.name, idx, sid, vp)])
        if guard is not None:
            self.close()
        self.written[a.name] = True
        self.covered[a.name] = True

    def barrier(self, optional=True):
        """A barrier: plain, under a block-uniform condition, under a condition on a shared element
        read at an index the same in every thread, under a thread condition or a vote (bad), or left
        out (bad: two phases become one)."""
        r = self.rng
        if optional and self.bad() and r.random() < 0.5:
            return False
        sid = self.new_id()
        k = r.random()
        cond = None
        if self.bad() and k < 0.4:
            cond = self.thread_cond(r.choice(("warp", "thread")))
        elif self.bad() and k < 0.5:
            cond = self.vote_cond(sid)
        elif k < 0.1:
            cond = self.block_cond()
            self.tags.add("barriers under block conditions")
        elif k < 0.2:
            cond, _ = self.shared_cond(sid, False)
            if cond:
                self.tags.add("barriers under shared reads")
        if cond:
            self.open_if(cond)
        self.emit("barrier;", [f"L.bar({self.step(sid, 0)}, {self.line()})", "yield ('bar',)"])
        if cond:
            self.close()
        return True

    def loop_phases(self):
        """for k in 0..K { phase; barrier; [phase; barrier;] }: barriers inside a loop; or the same
        as `let mut k = 0; while k < K { ...; k += 1; }`."""
        r = self.rng
        lid, k, K = self.new_id(), self.fresh("k"), r.randint(2, 4)
        self.tags.add("barriers in loops")
        # a trip count known only when it runs: g - 1, from 0 to 3 as the judge tries g
        bc, bp = (str(K), str(K)) if r.random() < 0.6 else ("g - 1", "L.sub(g, 1)")
        if bc == "g - 1":
            K = max(GS) - 1
            self.tags.add("barriers in loops of unknown trip count")
        as_while = r.random() < 0.3
        if as_while:
            self.tags.add("while loops")
            self.emit(f"let mut {k}:usize = 0;", [f"{k} = 0"])
            self.open(f"while {k} < {bc}", f"while {k} < {bp}")
        else:
            self.open(f"for {k} in 0..{bc}", f"for {k} in range({bp})")
        self.loops.append((lid, k, K, True))
        self.phase_in_loop = True
        for _ in range(r.randint(1, 2)):
            self.phase()
            self.barrier()
        self.phase_in_loop = False
        self.loops.pop()
        if as_while:
            self.emit(f"{k} += 1;", [f"{k} += 1"])
        self.close()

    def tree(self):
        """The block sum's tree: a stride that halves, a local, and a barrier each step."""
        cands = [a for a in self.arrays if a.n == self.T and (a.full or self.bad())]
        if not cands:
            return self.phase()
        a = self.rng.choice(cands)
        self.tags.add("tree reductions")
        ft, T = self.ft(), self.T
        lid, k = self.new_id(), self.fresh("k")
        steps = self.rng.randint(1, T.bit_length() - 1)
        self.open(f"for {k} in 0..{steps}", f"for {k} in range({steps})")
        self.loops.append((lid, k, steps, True))
        s = self.fresh("h")
        self.emit(f"let {s}:usize = shr({T // 2}, {k});", [f"{s} = {T // 2} >> {k}"])
        sid = self.new_id()
        self.open(f"if {ft.c} < {s}", f"if {ft.p} < {s}")
        up = op('+', ft, X(s))
        self.emit(f"{a.name}[{ft.c}] = {a.name}[{ft.c}] + {a.name}[{up.c}];",
                  [self.write(a.name, ft, sid, f"{self.read(a.name, ft, sid)} + {self.read(a.name, up, sid)}")])
        self.close()
        self.barrier()
        self.loops.pop()
        self.close()
        self.start_phase()

    def transpose(self):
        """The page's tile: rows ty + k * Y written at [r * 33 + tx], read across after a barrier."""
        tile = next((a for a in self.arrays if a.name == "tile"), None)
        if tile is None:
            return self.phase()
        self.tags.add("transposes")
        tx, ty = self.shape.tnames
        Y = self.shape.text[1]
        K = 32 // Y
        for part in (0, 1):
            lid, k = self.new_id(), self.fresh("k")
            self.open(f"for {k} in 0..{K}", f"for {k} in range({K})")
            self.loops.append((lid, k, K, True))
            rr = self.fresh("q")
            self.emit(f"let {rr} = {ty} + {k} * {Y};", [f"{rr} = {ty} + {k} * {Y}"])
            sid = self.new_id()
            wi = op("+", op("*", X(rr), num(33)), X(tx))
            ri = op("+", op("*", X(tx), num(33)), X(rr))
            if part == 0:
                xi = self.x_index()
                self.emit(f"tile[{wi.c}] = x[{xi.c}];", [self.write("tile", wi, sid, self.read("x", xi, sid))])
            else:
                v = self.fresh("v")
                idx = ri if not self.bad() else wi
                self.emit(f"let {v}:i32 = tile[{idx.c}];", [f"{v} = {self.read('tile', idx, sid)}"])
                if self.out_layout == "slot":
                    oi, _ = self.out_index()
                    sid = self.new_id()
                    self.emit(f"out[{oi.c}] = {v};", [self.write("out", oi, sid, v)])
            self.loops.pop()
            self.close()
            if part == 0:
                self.barrier()
        tile.full = True
        self.start_phase()

    # --- the program

    def make(self):
        r, s = self.rng, self.shape
        self.phase_in_loop = False
        self.written, self.covered, self.pending_cover, self.modes = {}, {}, [], {}
        self.warp_results = []
        self.lines.append(f"fn f(g:usize, out:rw<i32>[{LEN}], hist:rw<i32>[{LEN}], x:ro<i32>[{LEN}], "
                          f"y:rw<i32>[{LEN}]) {{")
        ext = lambda e: ", ".join(str(x) for x in e)
        self.lines.append(f"  blocks {', '.join(s.bnames)} in {ext(s.gext)} threads {', '.join(s.tnames)} in {ext(s.text)} {{")
        for a in self.arrays:
            self.emit(f"shared {a.name}:i32[{a.n}]" + (" = zeroed;" if a.zeroed else ";"))
        if len(s.tnames) > 1 and self.uses_flat_local:
            f = self.ft.__func__  # the inline form, for the local's own definition
            self.uses_flat_local = False
            e = f(self)
            self.uses_flat_local = True
            self.emit(f"let f = {e.c};", [f"f = {e.p}"])
        has_tile = any(a.name == "tile" for a in self.arrays)
        for i in range(r.randint(1, 4)):
            if i:
                self.barrier()
            k = r.random()
            if has_tile and k < 0.5:
                self.transpose()
            elif k < 0.2:
                self.loop_phases()
            elif k < 0.3:
                self.tree()
            elif k < 0.4:
                self.transpose()
            else:
                self.phase()
        self.lines.append("  }")
        self.lines.append("}")
        model = ["def thread(L, g, b, t):"]
        model += names_py(s)
        model += self.py
        model += ["    return", "    yield"]   # a generator, whatever the body holds
        lens = {a.name: a.n for a in self.arrays}
        lens.update({"out": LEN, "hist": LEN, "x": LEN, "y": LEN})
        body = "\n".join(self.lines[2:])
        return Program(s, "\n".join(self.lines) + "\n", "\n".join(model) + "\n", lens,
                       {a.name for a in self.arrays}, {a.name for a in self.arrays if not a.zeroed},
                       bool(re.search(r"\bg\b", body)), self.tags)


def names_py(s):
    """Python lines that give the thread's and block's names from their flat numbers."""
    out = []
    for names, ext, flat in ((s.tnames, s.text, "t"), (s.bnames, s.gext, "b")):
        if len(names) == 1:
            if names[0] != flat:
                out.append(f"    {names[0]} = {flat}")
            continue
        rest = flat
        for nm, x in zip(names, ext):
            out.append(f"    {nm} = {rest} % {x}")
            out.append(f"    _r = {rest} // {x}")
            rest = "_r"
    return out


class Program:
    def __init__(self, shape, text, model, lens, shared, unzeroed, uses_g, tags):
        self.shape, self.text, self.model, self.lens = shape, text, model, lens
        self.shared, self.unzeroed, self.uses_g, self.tags = shared, unzeroed, uses_g, tags


def generate(seed, count):
    rng = random.Random(seed)
    return [Gen(rng).make() for _ in range(count)]
