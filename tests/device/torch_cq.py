"""PyTorch calls CAIRN's cq_ entry on its current stream (devices.md, "C headers").

Run by tests/device/run.sh on a machine with a GPU and torch:
    python3 tests/device/torch_cq.py LIB.so
LIB.so is the smoothlib library of run.sh (cq_smooth, cf_smooth, cf_total), compiled shared.

Checks, on a torch stream that is not the default one:
  - torch work queued before cq_smooth, cq_smooth, and torch work queued after it, with no wait
    between them, give the plain-loop answer: the entry ran in stream order on torch's stream;
  - cq_smooth made no wait: the host returns while a long torch kernel queued before it still runs;
  - cf_total, with the calling thread bound to torch's stream, agrees with a double sum.
Measures the host cost of one call (median of 2000, small n so the launch dominates): cq_smooth on
torch's stream, cf_smooth, and torch's own out-of-place add (one launch) as the anchor.
Exit 0 when every check passes; 1 otherwise; 3 when there is no torch or no GPU (a skip)."""
import ctypes
import statistics
import sys
import time

try:
    import torch
except ImportError:
    print("torch_cq: SKIP: torch is not installed")
    sys.exit(3)
if not torch.cuda.is_available():
    print("torch_cq: SKIP: torch sees no GPU")
    sys.exit(3)

lib = ctypes.CDLL(sys.argv[1])
vp, sz = ctypes.c_void_p, ctypes.c_size_t
lib.cq_smooth.argtypes = [vp, sz, vp, vp, vp]
lib.cf_smooth.argtypes = [sz, vp, vp, vp]
lib.cf_total.argtypes = [sz, vp, vp]
lib.cairn_smoothlib_device_stream.argtypes = [vp]

fails = 0


def check(name, ok, detail=""):
    global fails
    print(("PASS " if ok else "FAIL ") + name + (": " + detail if detail else ""))
    if not ok:
        fails += 1


dev = torch.device("cuda")
s = torch.cuda.Stream()
n = (1 << 22) + 5
with torch.cuda.stream(s):
    raw = s.cuda_stream
    x0 = torch.arange(n, device=dev, dtype=torch.float32) % 13 - 6
    x = x0 * 0.5                      # torch, queued before
    out = torch.empty_like(x)
    tmp = torch.empty_like(x)
    lib.cq_smooth(raw, n, out.data_ptr(), x.data_ptr(), tmp.data_ptr())
    y = out * 3                       # torch, queued after, no wait between
s.synchronize()
want = (2 * (x0.double() * 0.5) + 1) * 3
check("torch -> cq_smooth -> torch in stream order", bool(torch.equal(y.double(), want)),
      "%d of %d wrong" % (int((y.double() != want).sum()), n))

# No wait inside cq_: a long torch kernel first, then the call returns before the kernel ends.
with torch.cuda.stream(s):
    big = torch.randn(4096, 4096, device=dev)
    s.synchronize()
    for _ in range(20):
        big = big @ big / 64
    t0 = time.perf_counter()
    lib.cq_smooth(raw, n, out.data_ptr(), x.data_ptr(), tmp.data_ptr())
    t1 = time.perf_counter()
    busy = not s.query()
s.synchronize()
check("cq_smooth returns without waiting", busy, "call took %.1f us, stream busy after it: %s" % ((t1 - t0) * 1e6, busy))

# cf_total on torch's stream, bound to the thread.
lib.cairn_smoothlib_device_stream(ctypes.c_void_p(raw))
tot = torch.zeros(1, device=dev)
with torch.cuda.stream(s):
    lib.cf_total(n, x.data_ptr(), tot.data_ptr())
lib.cairn_smoothlib_device_stream(None)
exact = float(x.double().sum())
got = float(tot.item())
check("cf_total on a bound torch stream", abs(got - exact) <= 1e-5 * abs(exact) + 1e-3, "%r vs %r" % (got, exact))


def per_call(f, reps=2000):
    for _ in range(50):
        f()
    times = []
    for _ in range(reps):
        t0 = time.perf_counter()
        f()
        times.append(time.perf_counter() - t0)
    return statistics.median(times) * 1e6


m = 1024
a = torch.ones(m, device=dev)
b = torch.ones(m, device=dev)
c = torch.empty(m, device=dev)
with torch.cuda.stream(s):
    cq = per_call(lambda: lib.cq_smooth(raw, m, c.data_ptr(), a.data_ptr(), b.data_ptr()))
    s.synchronize()
    th = per_call(lambda: torch.add(a, b, out=c))
    s.synchronize()
cf = per_call(lambda: lib.cf_smooth(m, c.data_ptr(), a.data_ptr(), b.data_ptr()))
print("call cost (host us, median of 2000, n=%d): cq_smooth on torch's stream %.2f (2 launches), "
      "torch.add %.2f (1 launch), cf_smooth %.2f (2 launches and a wait)" % (m, cq, th, cf))
sys.exit(1 if fails else 0)
