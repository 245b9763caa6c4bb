"""An independent oracle for the lane race rule (E-PARALLEL-RACE): a generator of small parallel
regions and a brute-force judge of each.

    python3 race_judge.py CAIRN SEEDS COUNT WORKDIR [--jobs J] [--show-refused]
    python3 race_judge.py --self-test     (the judge alone, on lanes written by hand)

SEEDS is one seed (7), a list (1,2,3) or a range (1-20); COUNT programs are made from each seed.

Each program is a function of two run-time unknowns, `n` (the extent) and `cols` (a row width), with
views y and z (rw) and x (ro) of LEN elements, and one region `parallel i in n`. Its lanes write and
read elements through affine forms of i (S * i + b, d - S * i, i * cols + c), non-affine ones (i / k,
i % k, i * i, min(i, k), (i + d) * S), constants; slices nested up to six deep with constant or
lane-dependent starts; parts bound by `let` outside the region or inside the lane; `let mut` locals
used as indices; `for` loops (constant bounds and `0..cols`); conditions on i with else branches and
conditions on data; helpers that write or read every element of a part lent to them; wide loads and
stores (`load_wide[K]`, `store_wide`, K = 2 or 4) of y and z, modelled as K element accesses.

Each program is made twice, in step: as CAIRN text and as a Python function of (n, cols, i) that
runs the lane and records every element it writes and reads, as (root view, element) pairs. The
model shares nothing with the checker's reasoning: it executes the lane. A condition on data (x[i])
is taken both ways, so the model holds every access the lane may make.

The judge runs every lane for n in 1..7 and cols in 0..4. A program races when, for some (n, cols),
two lanes write one element, or a lane reads an element that another lane writes and that it does
not write itself (the spec's own-element allowance). Taking a part is not an access; a helper lent a
part writes (or reads) all of it.

Verdicts, one program at a time (`cairn check`, two at a time on a thread pool):
  - accepted but races: `FAIL seed=S prog=K`, with the witness and the program (unsound checker);
  - refused with a code other than E-PARALLEL-RACE / E-PARALLEL-WRITE: `FAIL generator: ...` (the
    generator made an ill-typed program), except for the few programs made to read out of bounds on
    purpose, whose refusal must say "out of bounds";
  - a model that steps out of bounds (or below zero) for the n and cols tried: `FAIL generator: ...`;
  - cairn crashing (an exit status other than 0 and 1): `FAIL seed=S prog=K`;
  - refused without a race: counted against precision, not a failure (the rule is conservative).
It prints the checker's precision (of the race-free programs, the share accepted: in all, by shape,
by feature), then `N passed, N failed, 0 skipped`, and exits 1 when anything failed.
"""
import os
import random
import re
import sys
import time
from concurrent.futures import ThreadPoolExecutor

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), ".."))
from judge_common import arguments, cairn_check, seeds_of  # noqa: E402

LEN = 512                  # every view's length; the generator stays far below it
NS = range(1, 8)           # the extents the judge tries
COLS = range(0, 5)         # the row widths it tries (0 too: a run-time width may be 0)
MAX_I = max(NS) - 1        # the largest lane index
MAX_N = max(NS)
MAX_COLS = max(COLS)
SHAPES = ("affine", "slices", "lets", "loops", "run-time width", "non-affine")
ALLOWED = {"E-PARALLEL-RACE", "E-PARALLEL-WRITE"}

HELPERS = {
    "put": "fn put(m:usize, p:rw<i32>[m]) { for k in 0..m { p[k] = 1; } }",
    "get": "fn get(m:usize, p:ro<i32>[m]) -> i32 {\n"
           "  let mut s:i32 = 0;\n  for k in 0..m { s = s + p[k]; }\n  return s;\n}",
}


# ------------------------------------------------------------------------------------ the model

class OutOfBounds(Exception):
    """The model stepped outside a view or below zero: the generator's fault, not the checker's."""


class Lane:
    """What one lane touches: sets of (root view, element). A view is (root, offset, length)."""

    def __init__(self):
        self.w, self.r = set(), set()

    @staticmethod
    def at(v, k):
        if not 0 <= k < v[2]:
            raise OutOfBounds(f"index {k} of a part of {v[0]} of length {v[2]}")
        return (v[0], v[1] + k)

    def wr(self, v, k):
        self.w.add(self.at(v, k))

    def rd(self, v, k):
        self.r.add(self.at(v, k))
        return 0

    @staticmethod
    def sl(v, a, b):
        if not 0 <= a <= b <= v[2]:
            raise OutOfBounds(f"part {a}..{b} of a part of {v[0]} of length {v[2]}")
        return (v[0], v[1] + a, b - a)

    @staticmethod
    def sub(a, b):
        if b > a:
            raise OutOfBounds(f"usize {a} - {b} underflows")
        return a - b

    def put(self, m, v):
        """fn put(m:usize, p:rw<i32>[m]) writes every element of p."""
        if m != v[2]:
            raise OutOfBounds(f"a part of length {v[2]} lent as [{m}]")
        for k in range(m):
            self.wr(v, k)

    def get(self, m, v):
        """fn get(m:usize, p:ro<i32>[m]) -> i32 reads every element of p."""
        if m != v[2]:
            raise OutOfBounds(f"a part of length {v[2]} lent as [{m}]")
        for k in range(m):
            self.rd(v, k)
        return 0


def race_at(lane_fn, n, cols):
    """The first race among the lanes of one (n, cols), as text, or None."""
    lanes = []
    for i in range(n):
        L = Lane()
        lane_fn(n, cols, i, L)
        lanes.append(L)
    writer = {}
    for i, L in enumerate(lanes):
        for e in sorted(L.w):
            j = writer.setdefault(e, i)
            if j != i:
                return f"n={n} cols={cols}: lanes i={j} and i={i} both write {e[0]}[{e[1]}]"
    for i, L in enumerate(lanes):
        for e in sorted(L.r - L.w):
            if e in writer:
                return (f"n={n} cols={cols}: lane i={i} reads {e[0]}[{e[1]}], "
                        f"which lane i={writer[e]} writes")
    return None


def judge(prog):
    """The first race of the program over every (n, cols) tried, or None. Raises OutOfBounds."""
    env = {}
    exec(prog.model, env)
    lane_fn = env["lane"]
    for cols in (COLS if prog.uses_cols else (1,)):
        for n in NS:
            w = race_at(lane_fn, n, cols)
            if w:
                return w
    return None


# ------------------------------------------------------------------------------- the generator

class Form:
    """An index: a lane term + const + var. lane is None, ('fwd', S) for S * i, ('rev', S) for
    const - S * i, or ('cols',) for i * cols; var is the text of a loop counter or local term (the
    same in CAIRN and Python) and vmax its largest value."""

    def __init__(self, lane=None, const=0, var=None, vmax=0):
        self.lane, self.const, self.var, self.vmax = lane, const, var, vmax

    def lane_text(self):
        if self.lane[0] == "cols":
            return "i * cols"
        return "i" if self.lane[1] == 1 else f"{self.lane[1]} * i"

    def text(self):
        """(CAIRN, Python): the same but for `-`, which the model checks for underflow."""
        if self.lane and self.lane[0] == "rev":
            c, p = f"{self.const} - {self.lane_text()}", f"L.sub({self.const}, {self.lane_text()})"
        else:
            terms = [self.lane_text()] if self.lane else []
            if self.const or not (terms or self.var):
                terms.append(str(self.const))
            c = p = " + ".join(terms)
        if self.var:
            c, p = (f"{c} + {self.var}", f"{p} + {self.var}") if c else (self.var, self.var)
        return c, p

    def max(self):
        """The largest value over the lanes and widths tried (a bound for part widths)."""
        lane = 0
        if self.lane and self.lane[0] == "fwd":
            lane = self.lane[1] * MAX_I
        elif self.lane and self.lane[0] == "cols":
            lane = MAX_I * MAX_COLS
        return lane + self.const + self.vmax


class Layout:
    """A written view's lane-private block: lane i owns S*i + base + [0, S) (fwd),
    base - S*i - [0, S) (rev), or i*cols + base + [0, cols) (cols). An access inside its own lane's
    block cannot race; the generator aims there unless it means to make a racy program."""

    def __init__(self, kind, S, base):
        self.kind, self.S, self.base = kind, S, base

    def own(self, r, var=None, vmax=0):
        if self.kind == "rev":
            return Form(("rev", self.S), self.base - r, var, vmax)
        if self.kind == "cols":
            return Form(("cols",), self.base + r, var, vmax)
        return Form(("fwd", self.S), self.base + r, var, vmax)

    def room(self):
        """How many residues past the start every lane owns without a loop over cols."""
        return self.S if self.kind != "cols" else 1


class Out:
    """The lane body as two texts in step: CAIRN lines and the Python model's lines."""

    def __init__(self):
        self.c, self.p = [], []
        self.depth = 0

    def line(self, c, p=()):
        self.c.append("  " * (self.depth + 2) + c)
        self.p.extend("    " * (self.depth + 1) + s for s in p)

    def model(self, p):
        """Python lines with no CAIRN text (what a condition on data reads)."""
        self.p.extend("    " * (self.depth + 1) + s for s in p)

    def open(self, c, p):
        self.line(c + " {", [p + ":", "    pass"])
        self.depth += 1

    def orelse(self, p):
        self.depth -= 1
        self.line("} else {", [p + ":", "    pass"])
        self.depth += 1

    def close(self):
        self.depth -= 1
        self.c.append("  " * (self.depth + 2) + "}")


class Program:
    def __init__(self, shape, text, model, tags):
        self.shape, self.text, self.model, self.tags = shape, text, model, tags
        self.uses_cols = "cols" in model.split("def lane", 1)[1].split(":", 1)[1]


class Gen:
    """Makes one program of a shape. Each access aims inside its lane's block of the view unless
    bad() says otherwise; half the programs have no bad access at all."""

    def __init__(self, rng, shape):
        self.rng, self.shape = rng, shape
        self.bad_rate = 0.0 if rng.random() < 0.4 else rng.choice((0.2, 0.4, 0.7))
        self.out = Out()
        self.pre_c, self.pre_p = [], []          # lines outside the region
        self.tags, self.helpers = set(), set()
        self.names = 0
        self.views = {"y": self.layout()}
        if rng.random() < 0.4:
            self.views["z"] = self.layout()

    def fresh(self, stem):
        self.names += 1
        return f"{stem}{self.names}"

    def bad(self):
        return self.rng.random() < self.bad_rate

    def layout(self):
        r = self.rng
        if self.shape == "run-time width":
            return Layout("cols", 0, r.choice((0, 0, 2)))
        S = r.randint(1, 4)
        if self.shape == "affine" and r.random() < 0.3:
            return Layout("rev", S, S * (MAX_I + 2) + r.randint(S - 1, 12))
        base = S * r.randint(0, 3)
        if self.shape != "non-affine" and r.random() < 0.3:
            base += r.randint(0, S - 1)
        return Layout("fwd", S, base)

    def view(self):
        return self.rng.choice(sorted(self.views))

    def residue(self, lay, span=1):
        """A start residue: one that leaves room for span elements in the block, or (bad) not."""
        room = lay.room()
        if not self.bad():
            return self.rng.randint(0, max(0, room - span))
        return self.rng.randint(max(0, room - span + 1), room + 1)

    def near(self, lay):
        """A constant index inside the block of one of the first lanes (or just past it): one that
        races, if it does, for the small n the judge tries, not only for n beyond them."""
        j, r = self.rng.randint(0, 3), self.rng.randint(0, lay.room())
        if lay.kind == "rev":
            return lay.base - lay.S * j - r
        return lay.base + (lay.S if lay.kind == "fwd" else 1) * j + r

    def target(self, v, var=None, vmax=0, span=1):
        """A form inside lane i's block of v, or (bad) a neighbour's element, a constant, another
        stride."""
        lay, r = self.views[v], self.rng
        if self.bad():
            k = r.randrange(3)
            if k == 0:
                return Form(None, self.near(lay), var, vmax)
            if k == 1 and lay.kind == "fwd":
                return Form(("fwd", max(1, lay.S + r.choice((-1, 1)))), lay.base + r.randint(0, 3), var, vmax)
        return lay.own(self.residue(lay, span + vmax), var, vmax)

    # --- accesses

    def value(self, v):
        """(CAIRN, Python lines) of an i32 value: a constant, or a read of x, y or z."""
        r = self.rng
        k = r.randrange(5)
        if k == 0:
            return str(r.randint(0, 9)), []
        if k == 1:
            c, p = Form(("fwd", r.randint(1, 3)), r.randint(0, 9)).text()
            return f"x[{c}] + 1", [f"L.rd(x, {p})"]
        if k == 2:
            return "x[i] * 2", ["L.rd(x, i)"]
        w = self.view() if r.random() < 0.3 else v
        c, p = self.target(w).text()
        return f"{w}[{c}] + 1", [f"L.rd({w}, {p})"]

    def access(self, vc, vp, idx, v):
        """One access of element idx (a Form or a (CAIRN, Python) pair) of the view vc / vp:
        a store, an update or a load into a lane local; on a whole view (y, z, never a part, whose
        end a wide access could pass), sometimes a wide load or store of 2 or 4 elements from idx."""
        c, p = idx.text() if isinstance(idx, Form) else idx
        if vc in self.views and vc == vp and self.rng.random() < 0.15:
            return self.wide(vc, c, p)
        k = self.rng.random()
        if k < 0.2:
            self.out.line(f"let {self.fresh('s')}:i32 = {vc}[{c}] + 1;", [f"L.rd({vp}, {p})"])
        elif k < 0.35:
            self.out.line(f"{vc}[{c}] += 1;", [f"L.rd({vp}, {p})", f"L.wr({vp}, {p})"])
        else:
            val_c, val_p = self.value(v)
            self.out.line(f"{vc}[{c}] = {val_c};", val_p + [f"L.wr({vp}, {p})"])

    def wide(self, v, c, p):
        """load_wide[K] / store_wide of v[idx .. idx + K]: K elements read or written, which may
        reach past the lane's block into a neighbour's (a race the rule must see)."""
        self.tags.add("wide")
        K = self.rng.choice((2, 4))
        elems = [f"({p}) + {q}" for q in range(K)]
        if self.rng.random() < 0.5:
            self.out.line(f"let {self.fresh('s')} = load_wide[{K}]({v}, {c});", [f"L.rd({v}, {e})" for e in elems])
        else:
            self.out.line(f"store_wide({v}, {c}, Array[i32, {K}]());", [f"L.wr({v}, {e})" for e in elems])

    def lend(self, vc, vp, width):
        """Lends the part vc / vp of `width` elements (CAIRN, Python) to put (writes it) or get."""
        self.tags.add("call")
        if self.rng.random() < 0.7:
            self.helpers.add("put")
            self.out.line(f"put({width[0]}, {vc});", [f"L.put({width[1]}, {vp})"])
        else:
            self.helpers.add("get")
            self.out.line(f"let {self.fresh('s')}:i32 = get({width[0]}, {vc});", [f"L.get({width[1]}, {vp})"])

    # --- slices

    def chain(self, v, f, depth, part=None):
        """The view expression of v sliced `depth` times that reaches f (an element; with part,
        a width: the part f .. f + part). Returns (CAIRN, Python, the index left for the last
        level or the part's start as a Form). Starts are constants or, at one level, the lane term."""
        r = self.rng
        lane_level = r.randrange(depth) if depth and f.lane and f.lane[0] != "rev" and r.random() < 0.6 else None
        rem = f.const
        floor = f.lane[1] * (MAX_I + 1) if f.lane and f.lane[0] == "rev" else 0
        starts = []
        for lvl in range(depth):
            take = r.randint(0, max(0, min(3, rem - floor)))
            starts.append(Form(f.lane if lvl == lane_level else None, take))
            rem -= take
        last = Form(None if lane_level is not None else f.lane, rem, f.var, f.vmax)
        need = last.max() + (part if part else 1) + r.randint(0, 2)
        levels = []
        for s in reversed(starts):
            sc, sp = s.text()
            if s.lane is None and r.random() < 0.25:      # a width that grows with n
                levels.append((f"[{sc} .. n + {s.const + need}]", f"{sc}, n + {s.const + need}"))
                need = s.max() + MAX_N + need
            else:
                end = str(s.const + need) if s.lane is None else f"{sc} + {need}"
                levels.append((f"[{sc} .. {end}]", f"{sp}, {sp} + {need}" if s.lane else f"{sp}, {end}"))
                need = s.max() + need
        c, p = v, v
        for lc, lp in reversed(levels):
            c, p = c + lc, f"L.sl({p}, {lp})"
        if depth >= 5:
            self.tags.add("slices 5-6 deep")
        return c, p, last

    def st_slice(self):
        v, r = self.view(), self.rng
        depth = r.randint(1, 6)
        if r.random() < 0.3:                         # a part lent to a helper
            w = r.randint(1, self.views[v].room() + 1)
            c, p = self.part_expr(v, self.target(v, span=w), w, depth - 1)
            return self.lend(c, p, (str(w), str(w)))
        if r.random() < 0.1:                         # the shape: n-wide parts, one element
            self.tags.add("slices 5-6 deep")
            k = r.randint(5, 6)
            c = v + "".join(f"[1 .. n + {8 - j}]" for j in range(k))
            p = v
            for j in range(k):
                p = f"L.sl({p}, 1, n + {8 - j})"
            return self.access(c, p, Form(None, r.randint(0, 1)), v)
        root, f = self.base_of(v, self.target(v))
        c, p, last = self.chain(root, f, depth)
        self.access(c, p, last, v)

    def part_expr(self, v, f, w, depth):
        """The part of w elements from f, reached through `depth` slices of v or of a part of v
        bound outside the region: (CAIRN, Python)."""
        root, f = self.base_of(v, f)
        c, p, start = self.chain(root, f, depth, part=w)
        sc, sp = start.text()
        ec, ep = Form(start.lane, start.const + w, start.var, start.vmax).text() \
            if not (start.lane and start.lane[0] == "rev") else (f"{sc} + {w}", f"{sp} + {w}")
        return f"{c}[{sc} .. {ec}]", f"L.sl({p}, {sp}, {ep})"

    def base_of(self, v, f, always=False):
        """Where an access of f in v starts: v, or (sometimes, or always) a part of v bound outside
        the region. Returns the name and f relative to it."""
        if not always and self.rng.random() >= 0.3 or f.lane and f.lane[0] == "rev":
            return v, f
        name, lo = self.outside_part(v, f.const)
        return name, Form(f.lane, f.const - lo, f.var, f.vmax)

    # --- let-bound parts and locals

    def outside_part(self, v, max_lo):
        """A part of v bound by let outside the region, starting at most at max_lo; returns its
        name and start."""
        lo = self.rng.randint(0, max(0, max_lo))
        name = self.fresh("p")
        hi = LEN - self.rng.choice((0, 0, 3))
        self.pre_c.append(f"  let {name} = {v}[{lo} .. {hi}];")
        self.pre_p.append(f"    {name} = L.sl({v}, {lo}, {hi})")
        self.tags.add("let outside")
        if self.rng.random() < 0.3:                 # a part of that part
            inner = self.rng.randint(0, max(0, max_lo - lo))
            outer, name = name, self.fresh("q")
            self.pre_c.append(f"  let {name} = {outer}[{inner} .. {hi - lo - 1}];")
            self.pre_p.append(f"    {name} = L.sl({outer}, {inner}, {hi - lo - 1})")
            lo += inner
        return name, lo

    def st_let(self):
        v, r = self.view(), self.rng
        k = r.randrange(4)
        if k == 0:                                   # through a part bound outside the region
            name, f = self.base_of(v, self.target(v), always=True)
            self.access(name, name, f, v)
        elif k == 1:                                 # a part of the lane's own elements, in the lane
            self.tags.add("let part")
            lay = self.views[v]
            w = r.randint(1, lay.room() + 2)
            c, p = self.part_expr(v, self.target(v, span=1), w, r.choice((0, 0, 1, 2, 4)))
            a = self.fresh("a")
            self.out.line(f"let {a} = {c};", [f"{a} = {p}"])
            if r.random() < 0.3:
                return self.lend(a, a, (str(w), str(w)))
            j = r.randrange(w) if r.random() < 0.5 or self.bad() else 0
            self.access(a, a, Form(None, j), v)
        else:                                        # an index in a local, immutable or mutable
            lay = self.views[v]
            f = self.target(v)
            fc, fp = f.text()
            t = self.fresh("t")
            if k == 2:
                self.tags.add("let index")
                self.out.line(f"let {t}:usize = {fc};", [f"{t} = {fp}"])
                return self.access(v, v, (t, t), v)
            self.tags.add("let mut")
            self.out.line(f"let mut {t}:usize = {fc};", [f"{t} = {fp}"])
            if r.random() < 0.5:
                step = r.randint(0, 2)
                self.out.line(f"{t} = {t} + {step};" if r.random() < 0.5 else f"{t} += {step};", [f"{t} += {step}"])
                return self.access(v, v, (t, t), v)
            K = r.randint(1, lay.room() + 1)         # a loop-carried index
            kk = self.fresh("k")
            self.tags.add("loop")
            self.out.open(f"for {kk} in 0..{K}", f"for {kk} in range({K})")
            self.access(v, v, (t, t), v)
            self.out.line(f"{t} += 1;", [f"{t} += 1"])
            self.out.close()

    # --- loops

    def st_loop(self):
        v, r = self.view(), self.rng
        lay = self.views[v]
        k = self.fresh("k")
        K = max(1, lay.room() - r.randint(0, 1)) if not self.bad() else lay.room() + r.randint(1, 2)
        self.tags.add("loop")
        kind = r.randrange(4)
        if kind == 0 and K >= 2:                    # two loops, k1 * 2 + k2
            K1, k2 = (K + 1) // 2, self.fresh("k")
            f = self.target(v, f"{k} * 2 + {k2}", 2 * (K1 - 1) + 1)
            self.out.open(f"for {k} in 0..{K1}", f"for {k} in range({K1})")
            self.out.open(f"for {k2} in 0..2", f"for {k2} in range(2)")
            self.access(v, v, f, v)
            self.out.close()
            self.out.close()
            return
        f = self.target(v, k, K - 1)
        self.out.open(f"for {k} in 0..{K}", f"for {k} in range({K})")
        if kind == 1:                               # a condition on the counter
            lim = r.randint(1, lay.room())
            self.out.open(f"if {k} < {lim}", f"if {k} < {lim}")
            self.access(v, v, f, v)
            self.out.close()
        elif kind == 2 and r.random() < 0.5:        # through a slice
            c, p, last = self.chain(v, f, r.randint(1, 3))
            self.access(c, p, last, v)
        else:
            self.access(v, v, f, v)
        self.out.close()

    # --- rows of a run-time width

    def st_cols(self):
        v, r = self.view(), self.rng
        lay = self.views[v]
        b = lay.base
        self.tags.add("loop")
        c = self.fresh("c")
        kind = r.randrange(6)
        bad = self.bad()
        if kind == 5:                                # a column: for c in 0..cols { y[c * n + i] }
            return self.st_column(v, b, c, bad)
        hi, hi_p = ("cols + 1", "cols + 1") if bad and r.random() < 0.5 else ("cols", "cols")
        if kind == 0:                                # for c in 0..cols { y[i * cols + c] }
            f = (f"i + {c}", f"i + {c}") if bad and r.random() < 0.5 else Form(("cols",), b, c, 0).text()
            self.out.open(f"for {c} in 0..{hi}", f"for {c} in range({hi_p})")
            self.access(v, v, f, v)
            self.out.close()
        elif kind == 1:                              # one element of the row
            self.access(v, v, Form(("cols",), b + (r.randint(1, 2) if bad else 0)), v)
        elif kind == 2:                              # the row bound by let, then its elements
            self.tags.add("let part")
            a = self.fresh("row")
            start = f"i * cols + {b}" if b else "i * cols"
            self.out.line(f"let {a} = {v}[{start} .. {start} + {hi}];",
                          [f"{a} = L.sl({v}, {start}, {start} + {hi_p})"])
            if r.random() < 0.4:
                return self.lend(a, a, (hi, hi_p))
            self.out.open(f"for {c} in 0..{hi}", f"for {c} in range({hi_p})")
            self.access(a, a, (c, c), v)
            self.out.close()
        elif kind == 3:                              # the row lent to a helper
            start = f"i * cols + {b}" if b else "i * cols"
            self.lend(f"{v}[{start} .. {start} + {hi}]", f"L.sl({v}, {start}, {start} + {hi_p})", (hi, hi_p))
        else:                                        # a constant loop over a row of run-time width
            K = r.randint(1, 3)
            self.out.open(f"for {c} in 0..{K}", f"for {c} in range({K})")
            self.access(v, v, Form(("cols",), b, c, K - 1), v)
            self.out.close()

    def st_column(self, v, b, c, bad):
        """A lane's column of a matrix n lanes wide, over rows: y[c * S * n + S * i + b] (lane i's
        elements in their own residue class modulo S * n), or (bad) a stride other than the width
        (cols, n - 1, n + 1), which lets two lanes meet."""
        r = self.rng
        self.tags.add("column")
        if r.random() < 0.4:                         # rows dealt out in turns: row t * n + i, its q
            W = r.randint(1, 3)
            width = r.choice(("(n - 1)", "(n + 1)", "cols")) if bad and r.random() < 0.6 else "n"
            qhi = W + 1 if bad and r.random() < 0.5 else W
            q = self.fresh("q")
            idx = f"({c} * {width} + i) * {W} + {q}" + (f" + {b}" if b else "")
            hi_c = str(r.randint(1, 3))
            self.out.open(f"for {c} in 0..{hi_c}", f"for {c} in range({hi_c})")
            self.out.open(f"for {q} in 0..{qhi}", f"for {q} in range({qhi})")
            self.access(v, v, (idx, idx), v)
            self.out.close()
            self.out.close()
            return
        S = r.choice((1, 1, 2))
        width = r.choice(("cols", "(n - 1)", "(n + 1)")) if bad else "n"
        stride = f"{width} * {S}" if S > 1 else width
        lane = f"{S} * i" if S > 1 else "i"
        hi_c, hi_p = ("cols", "cols") if r.random() < 0.5 else ((str(r.randint(1, 3)),) * 2)
        idx = f"{c} * {stride} + {lane}" + (f" + {b}" if b else "")
        self.out.open(f"for {c} in 0..{hi_c}", f"for {c} in range({hi_p})")
        self.access(v, v, (idx, idx), v)
        if r.random() < 0.5:                         # a second access of the same column
            self.access(v, v, (idx, idx), v)
        self.out.close()

    # --- non-affine indices

    def st_nonaffine(self):
        v, r = self.view(), self.rng
        lay = self.views[v]
        S, d0 = lay.S, lay.base // lay.S
        rr = self.residue(lay)
        tail = f" * {S} + {lay.base + rr}" if S > 1 else f" + {lay.base + rr}"
        k = r.randint(2, 4)
        kind = r.randrange(6)
        guard = not self.bad()
        if kind == 0:                                # (i + d) * S + r: affine in disguise
            d = d0 if guard else d0 + r.choice((1, 2))
            idx = f"(i + {d}) * {S} + {rr}"
            return self.access(v, v, (idx, idx), v)
        if kind == 1:
            idx, cond = f"min(i, {k})", f"i < {k}" if r.random() < 0.5 else f"i <= {k}"
        elif kind == 2:
            idx, cond = f"i % {k}", f"i < {k}"
        elif kind == 3:
            idx, cond = f"i / {k}", f"i % {k} == 0"
        elif kind == 4:
            idx, cond = "i * i", f"i < {r.randint(1, 3)}"
        else:
            c = self.near(lay)
            return self.access(v, v, (str(c), str(c)), v)
        cidx = (f"({idx})" if S > 1 and kind != 4 else idx) + tail
        pidx = cidx.replace(" / ", " // ")
        if guard:
            self.out.open(f"if {cond}", f"if {cond}")
        self.access(v, v, (cidx, pidx), v)
        if guard:
            self.out.close()

    def st_affine(self):
        v = self.view()
        self.access(v, v, self.target(v), v)

    # --- conditions and the whole program

    def condition(self):
        """(CAIRN, Python, Python for the else branch) of a condition."""
        r = self.rng
        k = r.randint(1, 5)
        kind = r.randrange(6)
        if kind == 5:                               # on data: the model takes both branches
            self.tags.add("data condition")
            return "x[i] > 0", "if True", "if True", ["L.rd(x, i)"]
        self.tags.add("condition")
        c = [f"i < {k}", f"i >= {k}", f"i % 2 == {k % 2}", f"i % 3 == {k % 3}", f"cols > {k % 3 + 1}"][kind]
        return c, f"if {c}", "else", []

    def statement(self):
        body = {"affine": self.st_affine, "slices": self.st_slice, "lets": self.st_let,
                "loops": self.st_loop, "run-time width": self.st_cols,
                "non-affine": self.st_nonaffine}[self.shape]
        if self.rng.random() >= 0.3:
            return body()
        c, p_then, p_else, p_pre = self.condition()
        self.out.model(p_pre)
        self.out.open(f"if {c}", p_then)
        body()
        if self.rng.random() < 0.5:
            self.out.orelse(p_else)
            body()
        self.out.close()

    def make(self):
        for _ in range(self.rng.randint(1, 3)):
            self.statement()
        if self.rng.random() < 0.03:                # out of bounds on purpose (not modelled)
            self.tags.add("out of bounds")
            self.out.line(f"let {self.fresh('s')}:i32 = x[{LEN + self.rng.randint(0, 3)}];")
        params = ["n:usize", "cols:usize"] + [f"{v}:rw<i32>[{LEN}]" for v in sorted(self.views)] + \
            [f"x:ro<i32>[{LEN}]"]
        text = "".join(HELPERS[h] + "\n" for h in sorted(self.helpers))
        text += f"fn f({', '.join(params)}) {{\n" + "".join(s + "\n" for s in self.pre_c)
        text += "  parallel i in n {\n" + "".join(s + "\n" for s in self.out.c) + "  }\n}\n"
        model = "def lane(n, cols, i, L):\n"
        model += "".join(f"    {v} = ('{v}', 0, {LEN})\n" for v in list(self.views) + ["x"])
        model += "".join(s + "\n" for s in self.pre_p) + "    pass\n" + "".join(s + "\n" for s in self.out.p)
        return Program(self.shape, text, model, self.tags)


def generate(seed, count):
    rng = random.Random(seed)
    return [Gen(rng, rng.choice(SHAPES)).make() for _ in range(count)]


# ---------------------------------------------------------------------------------- the verdicts

def foreign_codes(prog, stderr):
    """The refusal codes the generator should not have caused (empty when all is well)."""
    bad = []
    for line in stderr.splitlines():
        m = re.search(r"error\[(E-[A-Z-]+)\]", line)
        if not m or m.group(1) in ALLOWED:
            continue
        if "out of bounds" in prog.tags and re.search(r"bounds|BOUNDS|GUARD", line):
            continue
        bad.append(line)
    return bad


class Tally:
    """Counts per key ("all", "shape:S", "feature:F"): race-free programs accepted, race-free
    programs, racy programs. Programs made to read out of bounds count in none."""

    def __init__(self):
        self.passed = self.failed = 0
        self.keys = {}

    def count(self, prog, race, accepted):
        if "out of bounds" in prog.tags:
            return
        for key in ["all", "shape:" + prog.shape] + ["feature:" + t for t in prog.tags]:
            c = self.keys.setdefault(key, [0, 0, 0])
            if race:
                c[2] += 1
            else:
                c[0] += accepted
                c[1] += 1

    def line(self, key):
        a, b, _ = self.keys.get(key, [0, 0, 0])
        return f"{a}/{b} race-free programs accepted ({100.0 * a / b if b else 0:.1f}%)"

    def report(self):
        print(f"precision: {self.line('all')}")
        for key in sorted(self.keys):
            if key != "all":
                kind, name = key.split(":")
                print(f"precision, {kind} {name}: {self.line(key)}, {self.keys[key][2]} racy programs")


def verdict(T, seed, k, prog, rc, stderr, show_refused):
    where = f"seed={seed} prog={k}"
    try:
        race = judge(prog)
    except Exception as e:   # OutOfBounds, or a model that does not run: the generator is wrong
        T.failed += 1
        print(f"FAIL generator: {where}: the model fails: {type(e).__name__}: {e}\n{prog.text}")
        return
    if rc not in (0, 1):
        T.failed += 1
        print(f"FAIL {where}: cairn check exited {rc}:\n{stderr}{prog.text}")
        return
    foreign = foreign_codes(prog, stderr) if rc == 1 else []
    if foreign:
        T.failed += 1
        print(f"FAIL generator: {where}: refused with another code:\n  " + "\n  ".join(foreign) + "\n" + prog.text)
        return
    if rc == 0 and race:
        T.count(prog, race, True)
        T.failed += 1
        print(f"FAIL {where}: accepted, but {race}\n{prog.text}")
        return
    T.passed += 1
    T.count(prog, race, rc == 0)
    if not race and rc == 1 and show_refused:
        print(f"refused without a race ({where}, {prog.shape}):\n{prog.text}{stderr}")


# The judge on lanes written by hand, each with its verdict: the first race found (text), None for
# none, or the error the model must raise. `race_judge.py --self-test` runs them.
JUDGE_CASES = [
    ("L.wr(y, i)", None),
    ("L.wr(y, i % 4)", "n=5 cols=1: lanes i=0 and i=4 both write y[0]"),
    ("L.wr(y, 0)", "n=2 cols=1: lanes i=0 and i=1 both write y[0]"),
    ("L.rd(y, i + 1)\n    L.wr(y, i)", "n=2 cols=1: lane i=0 reads y[1], which lane i=1 writes"),
    ("L.rd(y, i)\n    L.wr(y, i)", None),                          # the own-element allowance
    ("L.rd(y, 2 * i + 1)\n    L.wr(y, 2 * i)", None),              # an element nobody writes
    ("a = L.sl(y, 3 * i, 3 * i + 5)\n    L.wr(a, 1)", None),       # taking a part is no access
    ("L.put(5, L.sl(y, 4 * i, 4 * i + 5))", "lanes i=0 and i=1 both write y[4]"),
    ("L.put(4, L.sl(y, 4 * i, 4 * i + 4))", None),
    ("L.get(3, L.sl(y, 2 * i, 2 * i + 3))\n    L.wr(y, 2 * i)", "lane i=0 reads y[2], which lane i=1 writes"),
    ("if i < 1:\n        L.wr(y, 0)", None),
    ("for c in range(cols):\n        L.wr(y, i * cols + c)", None),
    ("for c in range(cols + 1):\n        L.wr(y, i * cols + c)", "n=2 cols=0: lanes i=0 and i=1 both write y[0]"),
    ("for k in range(3):\n        L.wr(y, 2 * i + k)", "lanes i=0 and i=1 both write y[2]"),
    ("L.wr(y, L.sub(40, 4 * i))", None),
    ("L.wr(y, i * i)", None),
    ("p = L.sl(y, 2, 512)\n    L.wr(p, i)\n    L.wr(y, i)", "n=3 cols=1: lanes i=0 and i=2 both write y[2]"),
    ("L.rd(x, 0)\n    L.wr(y, i)\n    L.rd(z, i + 1)", None),      # views apart; x and z not written
    ("L.wr(z, i)\n    L.rd(y, i + 1)\n    L.wr(y, i + 1)", None),
    ("L.wr(y, 600)", "OutOfBounds"),
    ("L.wr(y, L.sub(3, i))", "OutOfBounds"),
    ("L.put(3, L.sl(y, i, i + 4))", "OutOfBounds"),
]


def self_test():
    passed = failed = 0
    for body, want in JUDGE_CASES:
        model = f"def lane(n, cols, i, L):\n    y, z, x = ('y', 0, {LEN}), ('z', 0, {LEN}), ('x', 0, {LEN})\n    {body}\n"
        prog = Program("self test", "", model, set())
        try:
            got = judge(prog)
        except OutOfBounds:
            got = "OutOfBounds"
        if got == want or (want and got and want in got and want != "OutOfBounds"):
            passed += 1
        else:
            failed += 1
            print(f"FAIL judge self test: {body!r}: the judge says {got!r}, not {want!r}")
    print(f"{passed} passed, {failed} failed, 0 skipped")
    return 1 if failed else 0


def main():
    if sys.argv[1:] == ["--self-test"]:
        return self_test()
    a = arguments(__doc__.split("\n\n")[0], "print each race-free program refused")
    T, t0, total = Tally(), time.time(), 0
    with ThreadPoolExecutor(a.jobs) as pool:
        for seed in seeds_of(a.seeds):
            progs = generate(seed, a.count)
            jobs = []
            for k, prog in enumerate(progs):
                path = os.path.join(a.work, f"s{seed}_{k}.cairn")
                with open(path, "w") as f:
                    f.write(prog.text)
                jobs.append(pool.submit(cairn_check, a.cairn, path))
            for k, (prog, job) in enumerate(zip(progs, jobs)):
                rc, stderr = job.result()
                verdict(T, seed, k, prog, rc, stderr, a.show_refused)
                os.unlink(os.path.join(a.work, f"s{seed}_{k}.cairn"))
            total += len(progs)
    dt = time.time() - t0
    racy, free = T.keys.get("all", [0, 0, 0])[2], T.keys.get("all", [0, 0, 0])[1]
    print(f"race judge: seeds {a.seeds}, {total} programs in {dt:.1f} s ({total / dt:.0f} programs/s): "
          f"{racy} racy, {free} race-free, {total - racy - free} others (out of bounds on purpose, or failed)")
    T.report()
    print(f"{T.passed} passed, {T.failed} failed, 0 skipped")
    return 1 if T.failed else 0


if __name__ == "__main__":
    sys.exit(main())
