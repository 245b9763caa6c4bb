"""The Python binding with CUDA torch tensors (run on a machine with a GPU and torch:
python3 tests/python/check_torch.py tests/python/device_kernels.cairn TARGET). Checks that saxpy goes
through cq_ on torch's current stream (a side stream here) without a wait and gives the plain
answer, that total (E-ENQUEUE: it returns a value) runs through cf_ bound to that stream and agrees
with a float64 sum, and that a CPU tensor, a wrong dtype and a non-contiguous tensor are refused
with the argument named. Exit 0: all pass; 1: a failure; 3: no torch or no GPU (a skip)."""
import sys
import time

try:
    import torch
except ImportError:
    print("check_torch: SKIP: torch is not installed")
    sys.exit(3)
if not torch.cuda.is_available():
    print("check_torch: SKIP: torch sees no GPU")
    sys.exit(3)
import cairn

bad = []
k = cairn.load(sys.argv[1], target=sys.argv[2])
n = (1 << 22) + 3
s = torch.cuda.Stream()
with torch.cuda.stream(s):
    x = torch.arange(n, device="cuda", dtype=torch.float32).remainder_(977).sub_(488)
    y = torch.arange(n, device="cuda", dtype=torch.float32).remainder_(31).mul_(0.25)
    want = 1.5 * x + y
    k.saxpy(n, 1.5, x, y)
    d = torch.arange(n, device="cuda", dtype=torch.float64).remainder_(1009).mul_(0.125)
    got = k.total(n, d)
s.synchronize()
if not torch.equal(y, want):
    bad.append("saxpy: %d elements differ" % int((y != want).sum()))
ref = float(d.double().sum())
if abs(got - ref) > 1e-9 * abs(ref):
    bad.append("total: %r, torch's sum %r" % (got, ref))
# no wait: a long torch kernel queued before the call is still running when it returns
with torch.cuda.stream(s):
    big = torch.randn(4096, 4096, device="cuda")
    for _ in range(20):
        big = big @ big / 64.0
    t0 = time.perf_counter()
    k.saxpy(n, 1.0, x, y)
    returned = time.perf_counter() - t0
    busy = not s.query()
s.synchronize()
if not busy:
    bad.append("the stream was idle when saxpy returned (%.3f ms): the call waited" % (returned * 1e3))


def refused(call, cls, *words):
    try:
        call()
    except cls as e:
        if not all(w in str(e) for w in words):
            bad.append("message %r lacks %r" % (str(e), words))
        return
    except Exception as e:  # noqa: BLE001
        bad.append("expected %s, got %s: %s" % (cls.__name__, type(e).__name__, e))
        return
    bad.append("expected %s with %r, got no error" % (cls.__name__, words))


refused(lambda: k.saxpy(n, 1.0, x.cpu(), y), cairn.ArgumentTypeError, "argument x", "CUDA tensor")
refused(lambda: k.saxpy(n, 1.0, x.double(), y), cairn.ArgumentTypeError, "argument x", "f32")
refused(lambda: k.saxpy(n // 2, 1.0, x[::2], y[: n // 2]), cairn.ArgumentValueError, "argument x", "contiguous")
refused(lambda: k.saxpy(n, 1.0, y, y), cairn.ArgumentValueError, "overlaps")
refused(lambda: k.saxpy(n - 1, 1.0, x, y[:-1]), cairn.ArgumentValueError, "argument x", "%d elements are required" % (n - 1))

# CUDA graph capture: the cq_ entry queues on the capturing stream, so the graph holds the kernel
# and each replay runs it again on whatever the tensors then hold
gx = torch.arange(n, device="cuda", dtype=torch.float32).remainder_(101).sub_(50)
gy = torch.arange(n, device="cuda", dtype=torch.float32).remainder_(7)
g = torch.cuda.CUDAGraph()
with torch.cuda.graph(g):
    k.saxpy(n, 0.5, gx, gy)
want = gy.clone()
for _ in range(3):
    g.replay()
    want = 0.5 * gx + want
torch.cuda.synchronize()
if not torch.equal(gy, want):
    bad.append("graph replay: %d elements differ" % int((gy != want).sum()))
# a function that waits (E-ENQUEUE) is refused inside a capture, not left to fail in CUDA
g2 = torch.cuda.CUDAGraph()
try:
    with torch.cuda.graph(g2):
        k.total(n, d)
    bad.append("total inside a graph capture: no error")
except cairn.CairnError as e:
    if "E-ENQUEUE" not in str(e) or "CUDA graph" not in str(e):
        bad.append("total inside a capture: %s" % e)
except Exception as e:  # noqa: BLE001
    bad.append("total inside a capture: %s: %s" % (type(e).__name__, e))


# torch.compile: saxpy is one opaque op in the graph (fullgraph fails on a break), and under
# mode="reduce-overhead" (CUDA graphs of torch's own) the values are the eager ones
def fused(x, y):
    k.saxpy(n, 2.0, x.abs(), y)
    return y * 3


for mode in ("default", "reduce-overhead"):
    f = torch.compile(fused, fullgraph=True, mode=mode)
    cy, ey = gy.clone(), gy.clone()
    for _ in range(3):
        r = f(gx, cy)
    for _ in range(3):
        er = fused(gx, ey)
    torch.cuda.synchronize()
    if not (torch.equal(cy, ey) and torch.equal(r, er)):
        bad.append("torch.compile mode=%s: results differ from eager (%d elements)" % (mode, int((cy != ey).sum())))
breaks = torch._dynamo.utils.counters["graph_break"]
if breaks:
    bad.append("torch.compile broke the graph: %r" % dict(breaks))

# a failed guard in queued work: the call returns, torch's next synchronization raises, and the
# device printed the guard's message (in a process of its own, since the trap poisons the context)
child = r"""
import sys, torch, cairn
k = cairn.load(sys.argv[1], target=sys.argv[2])
n = 4096
idx = torch.arange(n, device="cuda", dtype=torch.int64).to(torch.uint32)
idx[4000] = n + 7
x = torch.ones(n, device="cuda"); y = torch.zeros(n, device="cuda")
k.gather(n, idx, x, y)
print("returned", flush=True)
try:
    torch.cuda.synchronize()
    print("synchronized")
except RuntimeError as e:
    print("raised at synchronize:", str(e).splitlines()[0])
"""
import subprocess
r = subprocess.run([sys.executable, "-c", child, sys.argv[1], sys.argv[2]], capture_output=True, text=True, timeout=300)
# the device prints the guard's line with printf, which reaches the process's stdout
want = "device_kernels.cairn:12:28: guard failed: index 4103 out of bounds for x of length 4096"
if "returned" not in r.stdout or "raised at synchronize" not in r.stdout or want not in r.stdout + r.stderr:
    bad.append("a failed guard: expected the call to return, the synchronize to raise and the guard's message; "
               "stdout %r, stderr %r" % (r.stdout[-300:], r.stderr[-300:]))

for b in bad:
    print("FAIL torch binding: " + b)
print("check_torch: %d failed" % len(bad))
sys.exit(1 if bad else 0)
