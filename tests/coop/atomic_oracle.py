"""The exact oracle of atomic_add_unordered's contract (numerics.md, "Atomic float addition"), and
the programs that test it.

The contract: after k adds an element is its old value plus every added value, each partial sum
rounded once to nearest, in some order; on the device an f32 add also flushes a subnormal operand or
result to zero. So an f32 element ends within k * 2^-23 * (|old| + sum |v|) + k * 2^-125 of the exact
sum (k < 2^22), and an f64 one within k * 2^-52 * (|old| + sum |v|) (k < 2^51).

This script computes each exact sum in rationals (fractions.Fraction: every float is a rational, and
their sum is exact), the bound, and the interval of floats the element may end in: the least float
at or above exact - bound and the greatest at or below exact + bound, found by bisection over the
floats in order. No float arithmetic touches the oracle. It writes the test programs with those
intervals inside, as their bits, so each program checks its own results exactly, on host threads and
on the GPU alike, and prints only whether each one held:

    tests/coop/run_atomics_unordered.cairn       a cooperative region on host threads: 2000 threads
                                                 (8 blocks of 256) add into one outside element, and
                                                 each block's 256 into one shared element
    tests/coop/run_atomics_unordered_lanes.cairn 2000 lanes of a parallel region into one element
    tests/dev/run_coop_atomics_unordered.cairn   the region on the device (tests/device/run.sh)

The added values come from an integer hash of (case, i) that both this script and the programs
compute (h32 below and in the programs), built bit by bit with from_bits, so both sides add the same
floats. Cases, for f32 and f64 each: cancel (alternating signs, one magnitude band: the exact sum is
far below the sum of magnitudes), mixed (random signs over 120 binades for f32, 600 for f64),
subnormal (random signs, subnormals and the least normals, a subnormal old value: the device's f32
flush lands here), tiny (only positive subnormals: a device f32 sum flushes to 0, which is inside the
bound), nearmax (an old value of -2^127, one add near +0.9 of the largest float and one near -0.4 of
it, and the rest small: no order overflows, and the partial sums sit at the top of the range).

    python3 tests/coop/atomic_oracle.py write    rewrite the three programs
    python3 tests/coop/atomic_oracle.py check    exit 1 if a program differs from what write would
                                                 write (the intervals cannot drift from the oracle)
    python3 tests/coop/atomic_oracle.py selftest the oracle's own checks (rounding of the interval
                                                 ends, the hash, the bound against sums done in
                                                 every order for small cases)
"""
import itertools
import os
import struct
import sys
from fractions import Fraction

M32 = 0xFFFFFFFF
N = 2000          # threads (or lanes) that add, one value each
BLOCKS = 8
THREADS = 256


def h32(i, salt):
    """The programs' hash: u32 arithmetic, multiplications wrapping."""
    a = ((i ^ salt) * 2654435761) & M32
    b = a ^ (a >> 15)
    c = (b * 2246822519) & M32
    return c ^ (c >> 13)


# ------------------------------------------------------------------ floats and their order

class Fmt:
    def __init__(self, name, bits, mant, bias, eps_exp, flush_exp):
        self.name, self.bits, self.mant, self.bias = name, bits, mant, bias
        self.eps_exp = eps_exp          # the bound's k * 2^eps_exp * (|old| + sum |v|)
        self.flush_exp = flush_exp      # ... + k * 2^flush_exp (None: no flush term)
        self.pack = "<I" if bits == 32 else "<Q"
        self.unpack = "<f" if bits == 32 else "<d"
        self.max_ord = (((1 << (bits - 1 - mant)) - 2) << mant) | ((1 << mant) - 1)   # the largest finite

    def value(self, b):
        """The float with bits b, exactly, as a Fraction."""
        return Fraction(struct.unpack(self.unpack, struct.pack(self.pack, b))[0])

    def bits_of_ord(self, k):
        """Finite floats in increasing order: k = 0 is +0, k < 0 the negatives."""
        return k if k >= 0 else (1 << (self.bits - 1)) | -k

    def ceil_bits(self, q):
        """The least finite float >= q (the largest one when none is)."""
        lo, hi = -self.max_ord, self.max_ord
        if self.value(self.bits_of_ord(hi)) < q:
            return self.bits_of_ord(hi)
        while lo < hi:
            mid = (lo + hi) // 2
            if self.value(self.bits_of_ord(mid)) >= q:
                hi = mid
            else:
                lo = mid + 1
        return self.bits_of_ord(lo)

    def floor_bits(self, q):
        """The greatest finite float <= q (the least one when none is)."""
        lo, hi = -self.max_ord, self.max_ord
        if self.value(self.bits_of_ord(lo)) > q:
            return self.bits_of_ord(lo)
        while lo < hi:
            mid = (lo + hi + 1) // 2
            if self.value(self.bits_of_ord(mid)) <= q:
                lo = mid
            else:
                hi = mid - 1
        return self.bits_of_ord(lo)

    def make(self, sign, exp, mant):
        return (sign << (self.bits - 1)) | (exp << self.mant) | (mant & ((1 << self.mant) - 1))


F32 = Fmt("f32", 32, 23, 127, -23, -125)
F64 = Fmt("f64", 64, 52, 1023, -52, None)

# (name, sign mode, exponent low, exponent high) per format; biased exponents
CASES = {
    "f32": [("cancel", "alt", 127 + 20, 127 + 21), ("mixed", "rand", 127 - 60, 127 + 60),
            ("subnormal", "rand", 0, 2), ("tiny", "pos", 0, 0), ("nearmax", "rand", 127 + 80, 127 + 100)],
    "f64": [("cancel", "alt", 1023 + 40, 1023 + 41), ("mixed", "rand", 1023 - 300, 1023 + 300),
            ("subnormal", "rand", 0, 2), ("tiny", "pos", 0, 0), ("nearmax", "rand", 1023 + 900, 1023 + 950)],
}
# the old value each element starts from, and the two large adds of nearmax (i = 0 and 1)
OLD = {"f32": [F32.make(0, 127 + 21, 3), F32.make(1, 127 + 34, 0x2AAAAA), F32.make(0, 0, 0x123), 0,
               F32.make(1, 254, 0)],
       "f64": [F64.make(0, 1023 + 41, 3), F64.make(1, 1023 + 200, 0x5555555555555), F64.make(0, 0, 0x123), 0,
               F64.make(1, 2046, 0)]}
BIG = {"f32": (F32.make(0, 254, 0x666666), F32.make(1, 253, 0x4CCCCC)),   # +1.8 * 2^127, -1.6 * 2^126
       "f64": (F64.make(0, 2046, 0xCCCCCCCCCCCCC), F64.make(1, 2045, 0x999999999999A))}


def value_bits(fmt, c, i):
    """The bits of the value lane or thread i adds in case c (the programs' v32 and v64)."""
    name, mode, elo, ehi = CASES[fmt.name][c]
    if name == "nearmax" and i < 2:
        return BIG[fmt.name][i]
    h = h32(i, 1000 * (c + 1))
    h2 = h32(i, 1000 * (c + 1) + 7)
    sign = {"alt": i % 2, "rand": h & 1, "pos": 0}[mode]
    exp = elo + h2 % (ehi - elo + 1)
    if fmt.bits == 32:
        mant = h >> 9
    else:
        mant = ((h << 20) ^ h2) & ((1 << 52) - 1)
    return fmt.make(sign, exp, mant)


def interval(fmt, old_bits, value_bits_list):
    """(lo bits, hi bits, exact, bound) for an element that starts at old and takes these adds."""
    old = fmt.value(old_bits)
    vs = [fmt.value(b) for b in value_bits_list]
    k = len(vs)
    exact = old + sum(vs, Fraction(0))
    bound = k * Fraction(2) ** fmt.eps_exp * (abs(old) + sum((abs(v) for v in vs), Fraction(0)))
    if fmt.flush_exp is not None:
        bound += k * Fraction(2) ** fmt.flush_exp
    return fmt.ceil_bits(exact - bound), fmt.floor_bits(exact + bound), exact, bound


def element_intervals(fmt):
    """Per case: the shared element of each block (old 0, its threads' values) and the outside
    element (the case's old value, all N values), in that order: BLOCKS + 1 intervals."""
    out = []
    for c in range(len(CASES[fmt.name])):
        vals = [value_bits(fmt, c, i) for i in range(N)]
        for b in range(BLOCKS):
            out.append(interval(fmt, 0, vals[b * THREADS:min(N, (b + 1) * THREADS)]))
        out.append(interval(fmt, OLD[fmt.name][c], vals))
    return out


# ------------------------------------------------------------------ the programs

HASH = """fn h32(i:u32, salt:u32) -> u32 {
  let a = mul_wrap(i ^ salt, 2654435761);
  let b = a ^ shr(a, 15);
  let c = mul_wrap(b, 2246822519);
  return c ^ shr(c, 13);
}
"""


def value_fn(fmt):
    """v32 or v64: the value of case c for thread i, as value_bits builds it."""
    f = fmt.name
    u = "u32" if fmt.bits == 32 else "u64"
    lines = [f"fn v{fmt.bits}(c:usize, i:usize) -> {f} {{"]
    big = BIG[f]
    nm = [n for n, *_ in CASES[f]].index("nearmax")
    lines.append(f"  if c == {nm} && i == 0 {{ return from_bits[{f}]({big[0]:#x}); }}")
    lines.append(f"  if c == {nm} && i == 1 {{ return from_bits[{f}]({big[1]:#x}); }}")
    lines.append("  let s = u32(1000 * (c + 1));")
    lines.append("  let h = h32(u32(i), s);")
    lines.append("  let h2 = h32(u32(i), s + 7);")
    lines.append("  let mut sign:u32 = h & 1;")
    lines.append("  let mut lo:u32 = 0;")
    lines.append("  let mut span:u32 = 1;")
    for c, (name, mode, elo, ehi) in enumerate(CASES[f]):
        sign = {"alt": "    sign = u32(i % 2);\n", "rand": "", "pos": "    sign = 0;\n"}[mode]
        lines.append(f"  if c == {c} {{\n{sign}    lo = {elo};\n    span = {ehi - elo + 1};\n  }}")
    lines.append("  let e = lo + h2 % span;")
    if fmt.bits == 32:
        lines.append("  return from_bits[f32](shl(sign, 31) | shl(e, 23) | shr(h, 9));")
    else:
        lines.append("  let m = (shl(u64(h), 20) ^ u64(h2)) & 0xfffffffffffff;")
        lines.append("  return from_bits[f64](shl(u64(sign), 63) | shl(u64(e), 52) | m);")
    lines.append("}")
    return "\n".join(lines) + "\n"


def table_fn(fmt):
    """old32/old64 (each case's old value) and bounds32/bounds64 (every interval's ends, as bits)."""
    f, u = fmt.name, ("u32" if fmt.bits == 32 else "u64")
    iv = element_intervals(fmt)
    lines = [f"fn old{fmt.bits}(c:usize) -> {f} {{"]
    for c, b in enumerate(OLD[f]):
        lines.append(f"  if c == {c} {{ return from_bits[{f}]({b:#x}); }}")
    lines.append(f"  return 0.0;\n}}")
    lines.append(f"// The interval each element may end in: [{len(iv)}] = {len(CASES[f])} cases x "
                 f"({BLOCKS} blocks' shared elements, then the outside one).")
    lines.append(f"fn bounds{fmt.bits}(lo:rw<{u}>[{len(iv)}], hi:rw<{u}>[{len(iv)}]) {{")
    for j, (lo, hi, _, _) in enumerate(iv):
        lines.append(f"  lo[{j}] = {lo:#x};")
        lines.append(f"  hi[{j}] = {hi:#x};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def region_fn(fmt, device):
    f = fmt.name
    at = "@device" if device else ""
    return f"""fn adds{fmt.bits}(n:usize, c:usize, g:usize, out:rw<{f}>[1]{at}, part:rw<{f}>[g]{at}) {{
  blocks b in g threads t in {THREADS} {{
    shared s:{f}[1] = zeroed;
    let i = b * {THREADS} + t;
    if i < n {{
      let v = v{fmt.bits}(c, i);
      atomic_add_unordered(s[0], v);
      atomic_add_unordered(out[0], v);
    }}
    barrier;
    if t == 0 {{ part[b] = s[0]; }}
  }}
}}
"""


def lanes_fn(fmt):
    f = fmt.name
    return f"""fn adds{fmt.bits}(n:usize, c:usize, out:rw<{f}>[1]) {{
  parallel i in n {{ atomic_add_unordered(out[0], v{fmt.bits}(c, i)); }}
}}
"""


def main_fn(kind):
    """kind: "region", "lanes" or "device"."""
    out = ["fn main() -> i32 {", f"  let n:usize = {N};", f"  let g:usize = {BLOCKS};", "  let mut bad:i32 = 0;"]
    for fmt in (F32, F64):
        f, w, u = fmt.name, fmt.bits, ("u32" if fmt.bits == 32 else "u64")
        cases = CASES[f]
        m = len(cases) * (BLOCKS + 1)
        out.append(f"  buffer lo{w}:{u}[{m}] = zeroed;")
        out.append(f"  buffer hi{w}:{u}[{m}] = zeroed;")
        out.append(f"  bounds{w}(lo{w}, hi{w});")
        out.append(f"  for c in 0..{len(cases)} {{")
        at = "@device" if kind == "device" else ""
        out.append(f"    buffer ho{w}:{f}[1] = zeroed;")
        out.append(f"    ho{w}[0] = old{w}(c);")
        out.append(f"    buffer hp{w}:{f}[{BLOCKS}] = zeroed;")
        if kind == "device":
            out.append(f"    buffer o{w}:{f}[1]@device = zeroed;")
            out.append(f"    buffer p{w}:{f}[{BLOCKS}]@device = zeroed;")
            out.append(f"    transfer(o{w}, ho{w});")
            out.append(f"    adds{w}(n, c, g, o{w}, p{w});")
            out.append(f"    transfer(ho{w}, o{w});")
            out.append(f"    transfer(hp{w}, p{w});")
        elif kind == "region":
            out.append(f"    adds{w}(n, c, g, ho{w}, hp{w});")
        else:
            out.append(f"    adds{w}(n, c, ho{w});")
        out.append(f"    let mut fails:i32 = 0;")
        if kind != "lanes":
            out.append(f"    for b in 0..g {{")
            out.append(f"      let j = c * {BLOCKS + 1} + b;")
            out.append(f"      if !(hp{w}[b] >= from_bits[{f}](lo{w}[j]) && hp{w}[b] <= from_bits[{f}](hi{w}[j])) {{ fails += 1; }}")
            out.append(f"    }}")
        out.append(f"    let j = c * {BLOCKS + 1} + {BLOCKS};")
        out.append(f"    if !(ho{w}[0] >= from_bits[{f}](lo{w}[j]) && ho{w}[0] <= from_bits[{f}](hi{w}[j])) {{ fails += 2; }}")
        out.append(f"    if fails == 0 {{ println(\"{f}\", c, \"within the bound\"); }} "
                   f"else {{ println(\"{f}\", c, \"OUTSIDE the bound:\", fails, to_bits(ho{w}[0])); bad += 1; }}")
        out.append("  }")
    out.append("  return bad;\n}")
    return "\n".join(out) + "\n"


def program(kind):
    names = {f: [n for n, *_ in CASES[f]] for f in CASES}
    where = {"region": "a cooperative region on host threads (8 blocks of 256: each thread adds into one outside\n"
                       "// element and into its block's shared element)",
             "lanes": "2000 lanes of a parallel region on host threads, into one element",
             "device": "a cooperative region on the device (8 blocks of 256: each thread adds into one outside\n"
                       "// element and into its block's shared element)"}[kind]
    head = []
    if kind == "device":
        head.append("// skip: a cooperative region on the device runs only on a GPU (tests/device/run.sh); here "
                    "tests/coop/test_coop_device.sh builds it with nvcc and runs its host version")
    head.append("// expect: run exit 0")
    head.append("// GENERATED by tests/coop/atomic_oracle.py (do not edit; `python3 tests/coop/atomic_oracle.py write`).")
    head.append(f"// atomic_add_unordered's contract (numerics.md) in {where}.")
    head.append("// Each element must end within k * 2^-23 * (|old| + sum |v|) + k * 2^-125 (f32) or")
    head.append("// k * 2^-52 * (|old| + sum |v|) (f64) of the exact sum; the intervals below are the oracle's,")
    head.append("// computed in exact rationals. Cases, in order: " + ", ".join(names["f32"]) + ".")
    for fmt in (F32, F64):
        for c in range(len(CASES[fmt.name])):
            head.append(f"// stdout: {fmt.name} {c} within the bound")
    body = [HASH, value_fn(F32), value_fn(F64), table_fn(F32), table_fn(F64)]
    if kind == "lanes":
        body += [lanes_fn(F32), lanes_fn(F64)]
    else:
        body += [region_fn(F32, kind == "device"), region_fn(F64, kind == "device")]
    body.append(main_fn(kind))
    return "\n".join(head) + "\n" + "".join(body)


ROOT = os.path.normpath(os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", ".."))
FILES = {"region": "tests/coop/run_atomics_unordered.cairn",
         "lanes": "tests/coop/run_atomics_unordered_lanes.cairn",
         "device": "tests/dev/run_coop_atomics_unordered.cairn"}


# ------------------------------------------------------------------ the oracle's own checks

def round_nearest(fmt, q, flush):
    """q rounded to nearest even in fmt (exactly, by bisection), flushed to zero when subnormal."""
    lo, hi = fmt.floor_bits(q), fmt.ceil_bits(q)
    a, b = fmt.value(lo), fmt.value(hi)
    if a == b:
        r = lo
    elif q - a < b - q:
        r = lo
    elif b - q < q - a:
        r = hi
    else:
        r = lo if lo % 2 == 0 else hi
    if flush and abs(fmt.value(r)) < Fraction(2) ** (1 - fmt.bias):
        return 0
    return r


def sequential(fmt, old_bits, vals, flush):
    """The element after the adds in this order, each rounded, each operand and result flushed."""
    cur = old_bits
    for v in vals:
        x, y = fmt.value(cur), fmt.value(v)
        if flush:
            tiny = Fraction(2) ** (1 - fmt.bias)
            x = 0 if abs(x) < tiny else x
            y = 0 if abs(y) < tiny else y
        cur = round_nearest(fmt, x + y, flush)
    return cur


def selftest():
    fails = 0

    def ok(name, cond):
        nonlocal fails
        if not cond:
            fails += 1
            print("FAIL atomic_oracle selftest:", name)

    # the hash against values worked by hand from its definition
    a = (12345 * 2654435761) & M32
    b = a ^ (a >> 15)
    c = (b * 2246822519) & M32
    ok("h32(12345, 0)", h32(12345, 0) == c ^ (c >> 13))
    # interval ends: 1 + 2^-24 lies between 1 and 1 + 2^-23
    one = Fraction(1)
    ok("ceil above 1", F32.ceil_bits(one + Fraction(1, 2 ** 24)) == 0x3F800001)
    ok("floor above 1", F32.floor_bits(one + Fraction(1, 2 ** 24)) == 0x3F800000)
    ok("ceil of a float is itself", F32.ceil_bits(one) == 0x3F800000 and F64.floor_bits(one) == 0x3FF0000000000000)
    ok("least subnormal", F32.ceil_bits(Fraction(1, 2 ** 200)) == 1 and F32.floor_bits(Fraction(1, 2 ** 200)) == 0)
    ok("below zero", F32.floor_bits(Fraction(-1, 2 ** 200)) == 0x80000001)
    ok("past the largest", F32.floor_bits(Fraction(2) ** 200) == 0x7F7FFFFF)
    ok("rounding ties to even", round_nearest(F32, one + Fraction(1, 2 ** 24), False) == 0x3F800000 and
       round_nearest(F32, one + Fraction(3, 2 ** 24), False) == 0x3F800002)
    # the bound holds for every order of small adversarial sets, with and without the flush
    sets = {
        "cancel": [F32.make(0, 150, 1), F32.make(1, 150, 0), F32.make(0, 104, 5), F32.make(1, 127, 3)],
        "subnormal": [F32.make(0, 0, 7), F32.make(1, 1, 0), F32.make(0, 0, 0x7FFFFF), F32.make(1, 0, 9)],
        "nearmax": [BIG["f32"][0], BIG["f32"][1], F32.make(0, 230, 77), F32.make(1, 200, 5)],
    }
    for name, vals in sets.items():
        for old in (0, F32.make(0, 0, 0x123), F32.make(1, 254, 0)):
            if name != "nearmax" and old == F32.make(1, 254, 0):
                continue
            lo, hi, _, _ = interval(F32, old, vals)
            for perm in itertools.permutations(vals):
                for flush in (False, True):
                    r = F32.value(sequential(F32, old, perm, flush))
                    ok(f"{name} old {old:#x} order {[hex(v) for v in perm]} flush {flush}",
                       F32.value(lo) <= r <= F32.value(hi))
    # a lost update is outside the bound: the cancel case without one of its adds
    vals = [value_bits(F32, 0, i) for i in range(N)]
    lo, hi, exact, bound = interval(F32, OLD["f32"][0], vals)
    lost = F32.value(OLD["f32"][0]) + sum((F32.value(v) for v in vals[1:]), Fraction(0))
    ok("a lost add falls outside the cancel case's interval", not (F32.value(lo) <= lost <= F32.value(hi)))
    return fails


def main():
    what = sys.argv[1] if len(sys.argv) > 1 else "check"
    if what == "selftest":
        fails = selftest()
        print("atomic_oracle selftest:", "ok" if not fails else f"{fails} failed")
        return 1 if fails else 0
    bad = 0
    for kind, rel in FILES.items():
        path = os.path.join(ROOT, rel)
        text = program(kind)
        if what == "write":
            with open(path, "w") as f:
                f.write(text)
            print("wrote", rel)
        else:
            try:
                same = open(path).read() == text
            except OSError:
                same = False
            if not same:
                print(f"FAIL atomic_oracle: {rel} is not what the oracle writes (run: python3 tests/coop/atomic_oracle.py write)")
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
