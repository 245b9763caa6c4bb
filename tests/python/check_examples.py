"""The example kernels (examples/kernels/*.cairn) called from Python through python/cairn, each
against an independent torch reference.

    python3 tests/python/check_examples.py [TARGET]

With a GPU visible to torch, each library is built for TARGET (default sm_90a) and called on CUDA
tensors; without one, it is built with --emulate for sm_90a and its @device views take CPU tensors.
The inputs are patterns that a wrong index would change (arange-based with remainders, lengths
such as 1037 that are neither a multiple of 32 nor of 256, rows x cols not square), every output
starts as a sentinel so an unwritten element shows, and the comparisons are exact wherever the
result is exactly representable (saxpy on multiples of 0.25, integer counts, compaction, integer
sums, f32 sums of multiples of 0.25 below 2^22). Softmax and layer norm round differently from
torch (other sum orders, CAIRN's own exp, 1/sqrt for rsqrt): their tolerances are stated where
they are checked. Prints `FAIL examples: ...` for each failure and `check_examples: N failed`;
exit 0: all pass, 1: a failure, 3: torch is not importable (a skip)."""
import os
import sys
import time

try:
    import torch
except ImportError:
    print("check_examples: SKIP: torch is not installed")
    sys.exit(3)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cairn  # noqa: E402

TARGET = sys.argv[1] if len(sys.argv) > 1 else "sm_90a"
CUDA = torch.cuda.is_available()
bad = []


def want(ok, what):
    if not ok:
        bad.append(what)
    return ok


def load(name):
    path = os.path.join(ROOT, "examples", "kernels", name + ".cairn")
    if CUDA:
        return cairn.load(path, target=TARGET)
    return cairn.load(path, target="sm_90a", emulate=True)


def dev(t):
    """A tensor for a @device view: on the GPU, or (emulated) a CPU tensor."""
    t = t.contiguous()
    return t.cuda() if CUDA else t.clone()


def back(t):
    """A result on the host, after the queued work is done."""
    if CUDA:
        torch.cuda.synchronize()
    return t.cpu()


def close(got, ref, rtol, atol):
    """|got - ref| <= atol + rtol * |ref| elementwise (NaN fails); the worst excess for the message."""
    err = (got.double() - ref.double()).abs()
    lim = atol + rtol * ref.double().abs()
    ok = bool(torch.all(err <= lim))   # a NaN compares false
    return ok, float(err.max()) if err.numel() else 0.0


def pattern_f32(n, mul, mod, scale, shift):
    """((i * mul) % mod) * scale + shift for i in 0..n, in f32."""
    return ((torch.arange(n, dtype=torch.int64) * mul) % mod).to(torch.float32) * scale + shift


def check_saxpy(k):
    # multiples of 0.25 (|x| <= 12) times 2.5 or -0.75 plus multiples of 0.5: every product and sum
    # is exact in f32, so the result must equal the f64 computation exactly
    for n in (1, 1037, 4099):
        x = pattern_f32(n, 1, 97, 0.25, -12.0)
        y0 = pattern_f32(n, 1, 13, 0.5, -3.0)
        for a in (2.5, -0.75):
            ref = (a * x.double() + y0.double()).to(torch.float32)
            y = dev(y0)
            k.saxpy(n, a, dev(x), y)
            got = back(y)
            want(torch.equal(got, ref), "saxpy n=%d a=%g: %d of %d elements differ"
                 % (n, a, int((got != ref).sum()), n))
            yh = y0.clone()
            k.saxpy_host(n, a, x.clone(), yh)
            want(torch.equal(yh, ref), "saxpy_host n=%d a=%g: %d elements differ" % (n, a, int((yh != ref).sum())))
    return 2


def softmax_input(rows, cols):
    x = pattern_f32(rows * cols, 37, 101, 0.173, -8.0).view(rows, cols)
    x += (torch.arange(rows, dtype=torch.float32) % 5).mul(3.0).sub(6.0).view(rows, 1)   # rows differ
    return x.contiguous()


def check_softmax(k):
    # tolerance against torch.softmax: rtol 1e-5, atol 1e-7 (f32 sums of up to 1037 terms in other
    # orders and another exp); each row's sum within 1e-5 of 1. softmax and softmax_host run the
    # same operations in the same order with std.math's one exp, so they must agree bit for bit.
    for rows, cols in ((37, 301), (6, 1037), (33, 1), (5, 7)):
        x = softmax_input(rows, cols)
        ref = torch.softmax(x, dim=1)
        outs = {}
        for name in ("softmax", "softmax_block", "softmax_host"):
            if name == "softmax_host":
                y = torch.full((rows, cols), float("nan"))
                k.softmax_host(rows, cols, x.clone(), y)
            else:
                y = dev(torch.full((rows, cols), float("nan")))
                getattr(k, name)(rows, cols, dev(x), y)
                y = back(y)
            outs[name] = y
            ok, err = close(y, ref, 1e-5, 1e-7)
            want(ok, "%s %dx%d: max |y - torch.softmax| %.3g over rtol 1e-5, atol 1e-7" % (name, rows, cols, err))
            rs = y.double().sum(1)
            want(bool(torch.all((rs - 1).abs() <= 1e-5)), "%s %dx%d: a row sums to %r" % (
                name, rows, cols, float(rs[(rs - 1).abs().argmax()])))
        want(torch.equal(outs["softmax"], outs["softmax_host"]),
             "softmax %dx%d: the device lanes and host threads differ in %d elements"
             % (rows, cols, int((outs["softmax"] != outs["softmax_host"]).sum())))
    return 3


def check_layernorm(k):
    # tolerance against torch.nn.functional.layer_norm: rtol 1e-5, atol 2e-5 (|y| < 4; the mean and
    # variance are f32 sums in other orders, and 1/sqrt is not torch's rsqrt). layernorm and
    # layernorm_host are the same operations in the same order: bit for bit.
    eps = 1e-5
    for rows, cols in ((37, 301), (6, 1037), (9, 3)):
        n = rows * cols
        r = torch.arange(rows, dtype=torch.float32).view(rows, 1)
        x = (pattern_f32(n, 53, 89, 0.05, 0.0).view(rows, cols) * (1 + r % 3) + r - 10.0).contiguous()
        gamma = pattern_f32(cols, 1, 7, 0.125, 0.75)
        beta = pattern_f32(cols, 3, 5, 0.1, -0.2)
        ref = torch.nn.functional.layer_norm(x, (cols,), gamma, beta, eps)
        outs = {}
        for name in ("layernorm", "layernorm_block", "layernorm_host"):
            if name == "layernorm_host":
                y = torch.full((rows, cols), float("nan"))
                k.layernorm_host(rows, cols, eps, x.clone(), gamma.clone(), beta.clone(), y)
            else:
                y = dev(torch.full((rows, cols), float("nan")))
                getattr(k, name)(rows, cols, eps, dev(x), dev(gamma), dev(beta), y)
                y = back(y)
            outs[name] = y
            ok, err = close(y, ref, 1e-5, 2e-5)
            want(ok, "%s %dx%d: max |y - layer_norm| %.3g over rtol 1e-5, atol 2e-5" % (name, rows, cols, err))
        want(torch.equal(outs["layernorm"], outs["layernorm_host"]),
             "layernorm %dx%d: the device lanes and host threads differ in %d elements"
             % (rows, cols, int((outs["layernorm"] != outs["layernorm_host"]).sum())))
    return 3


def hashed(n, mod):
    """(i * 2654435761 % 4294967291) % mod for i in 0..n: uneven counts, no simple pattern."""
    return (torch.arange(n, dtype=torch.int64) * 2654435761 % 4294967291) % mod


def check_histogram(k):
    # exact: integer counts equal torch.bincount's; every bin starts as garbage (the kernels zero)
    for n, nbins in ((10007, 37), (1037, 300), (1, 5)):
        v = hashed(n, nbins)
        ref = torch.bincount(v, minlength=nbins)
        junk = (torch.arange(nbins, dtype=torch.int64) * 1000 + 7).to(torch.uint32)
        bins = dev(junk)
        k.histogram(n, nbins, dev(v.to(torch.uint32)), bins)
        got = back(bins).to(torch.int64)
        want(torch.equal(got, ref), "histogram n=%d nbins=%d: %d bins differ" % (n, nbins, int((got != ref).sum())))
        hb = junk.clone()
        k.histogram_host(n, nbins, v.to(torch.uint32), hb)
        got = hb.to(torch.int64)
        want(torch.equal(got, ref), "histogram_host n=%d nbins=%d: %d bins differ" % (n, nbins, int((got != ref).sum())))
    # bytes: a skewed distribution (squares mod 251, with runs of 0 and 255), grids smaller than n
    # (grid-stride), larger than n (empty blocks) and of one block
    for n, g in ((10007, 3), (1037, 9), (1037, 1), (300, 50)):
        i = torch.arange(n, dtype=torch.int64)
        v = (i * i + 3 * i) % 251
        v[::97] = 255
        v[5::89] = 0
        ref = torch.bincount(v, minlength=256)
        bins = dev((torch.arange(256, dtype=torch.int64) * 3 + 1).to(torch.uint32))
        k.histogram256(n, g, dev(v.to(torch.uint8)), bins)
        got = back(bins).to(torch.int64)
        want(torch.equal(got, ref), "histogram256 n=%d g=%d: %d bins differ (sum %d, n %d)"
             % (n, g, int((got != ref).sum()), int(got.sum()), n))
    return 3


def check_compact(k):
    # exact: the kept values (x[x > t], in order), their count, and out[kept:] untouched
    n = 1037
    x = pattern_f32(n, 37, 101, 0.125, -6.25)
    sentinel = -1234.5
    for t in (0.5, -100.0, 100.0, 6.25):
        mask = x > t
        ref = x[mask]
        for name in ("compact_above", "compact_above_host"):
            if name == "compact_above_host":
                out = torch.full((n,), sentinel)
                kept = k.compact_above_host(n, t, x.clone(), out)
            else:
                d = dev(torch.full((n,), sentinel))
                kept = k.compact_above(n, t, dev(x), d)
                out = back(d)
            if not want(kept == ref.numel(), "%s t=%g: kept %r, torch %d" % (name, t, kept, ref.numel())):
                continue
            want(torch.equal(out[:kept], ref), "%s t=%g: out[:kept] is not x[x > t] in order" % (name, t))
            want(bool(torch.all(out[kept:] == sentinel)), "%s t=%g: out[kept:] was written" % (name, t))
    # indices of the values congruent to r mod m, C's remainder (torch.fmod), negative values too
    v = ((torch.arange(n, dtype=torch.int64) * 7919) % 2003 - 1000).to(torch.int32)
    for m, r in ((7, 3), (7, -3), (16, 0), (1000, 999)):
        ref = torch.nonzero(torch.fmod(v, m) == r).flatten()
        d = dev(torch.full((n,), 4294967295, dtype=torch.int64).to(torch.uint32))
        kept = k.compact_index(n, m, r, dev(v), d)
        got = back(d).to(torch.int64)
        if not want(kept == ref.numel(), "compact_index m=%d r=%d: kept %r, torch %d" % (m, r, kept, ref.numel())):
            continue
        want(torch.equal(got[:kept], ref), "compact_index m=%d r=%d: the indices differ" % (m, r))
        want(bool(torch.all(got[kept:] == 4294967295)), "compact_index m=%d r=%d: idx[kept:] was written" % (m, r))
    return 3


def block_partials(x, g):
    """What block b's grid-stride share sums: the indices i with (i // 256) % g == b."""
    i = torch.arange(x.numel(), dtype=torch.int64)
    return torch.zeros(g, dtype=x.dtype).index_add_(0, (i // 256) % g, x)


def check_block_reduce(k):
    # i64: exact (integer sums); values spread over 2^41 so a 32-bit path would show
    n = 1037
    i = torch.arange(n, dtype=torch.int64)
    x = (i * 7919) % 10007 - 5000
    x[::101] += 1 << 40
    x[50::103] -= 1 << 41
    for g in (3, 1, 7, 0):
        for name in ("block_sum", "block_sum_host"):
            part, out = torch.full((g,), 77, dtype=torch.int64), torch.full((1,), 77, dtype=torch.int64)
            if name == "block_sum":
                dp, do = dev(part), dev(out)
                k.block_sum(n, g, dev(x), dp, do)
                part, out = back(dp), back(do)
            else:
                k.block_sum_host(n, g, x.clone(), part, out)
            ref = int(x.sum()) if g else 0   # no blocks: the finish adds no partials
            want(int(out[0]) == ref, "%s n=%d g=%d: %d, torch %d" % (name, n, g, int(out[0]), ref))
            if g:
                want(torch.equal(part, block_partials(x, g)), "%s n=%d g=%d: the partials differ" % (name, n, g))
    # f32 on multiples of 0.25 with |sum| < 2^22 at every step: every rounding is exact, so the sum
    # and partials equal the f64 ones exactly whatever the tree's order
    xf = pattern_f32(n, 37, 101, 0.25, -12.5)
    for g in (3, 5):
        dp, do = dev(torch.full((g,), float("nan"))), dev(torch.full((1,), float("nan")))
        k.block_sum_f32(n, g, dev(xf), dp, do)
        part, out = back(dp), back(do)
        want(float(out[0]) == float(xf.double().sum()), "block_sum_f32 exact g=%d: %r, f64 %r"
             % (g, float(out[0]), float(xf.double().sum())))
        want(torch.equal(part.double(), block_partials(xf.double(), g)), "block_sum_f32 exact g=%d: partials" % g)
    # f32 on values that round: within the bound of any summation order, (n - 1) * 2^-24 * sum |x|
    m = 4099
    xr = ((torch.arange(m, dtype=torch.float64) * 0.7311) % 1.0 - 0.37).to(torch.float32)
    ref = float(xr.double().sum())
    bound = (m - 1) * 2.0 ** -24 * float(xr.double().abs().sum())
    dp, do = dev(torch.zeros(4)), dev(torch.zeros(1))
    k.block_sum_f32(m, 4, dev(xr), dp, do)
    got = float(back(do)[0])
    want(abs(got - ref) <= bound, "block_sum_f32 n=%d: %r, f64 %r, beyond the bound %.3g" % (m, got, ref, bound))
    return 3


CHECKS = [("saxpy", check_saxpy), ("softmax", check_softmax), ("layernorm", check_layernorm),
          ("histogram", check_histogram), ("compact", check_compact), ("block_reduce", check_block_reduce)]

mode = "CUDA, target %s" % TARGET if CUDA else "emulated sm_90a, CPU tensors"
start = time.time()
for name, check in CHECKS:
    t0 = time.time()
    before = len(bad)
    try:
        k = load(name)
        fns = check(k)
    except Exception as e:   # noqa: BLE001 - a build or call error is one failure of this example
        bad.append("%s: %s: %s" % (name, type(e).__name__, str(e).strip().splitlines()[0] if str(e).strip() else ""))
        fns = 0
    print("examples: %-12s %s (%d functions, %d failures, %.1f s)" % (
        name, "ok" if len(bad) == before else "FAILED", fns, len(bad) - before, time.time() - t0))
for b in bad:
    print("FAIL examples: " + b)
print("examples: %s, %.1f s" % (mode, time.time() - start))
print("check_examples: %d failed" % len(bad))
sys.exit(1 if bad else 0)
