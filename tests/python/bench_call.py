"""The host cost of one call through the Python binding (issue 15's speed item), on a machine with
a GPU and torch: python3 tests/python/bench_call.py tests/python/device_kernels.cairn TARGET.
Small tensors (n = 1024), so the launch and the Python work dominate; each figure is the median
of 15 batches of 200 calls (after 200 warm-up calls), in microseconds a call: k.saxpy (the
binding, checks included), the same cq_saxpy through bare ctypes (no checks), and torch's own
out-of-place add (one launch) as the anchor."""
import ctypes
import statistics
import sys
import time

import torch

import cairn

k = cairn.load(sys.argv[1], target=sys.argv[2])
n = 1024
x = torch.randn(n, device="cuda")
y = torch.randn(n, device="cuda")
raw = k.functions["saxpy"].cq
stream = torch.cuda.current_stream().cuda_stream
xp, yp = x.data_ptr(), y.data_ptr()


def per_call(f, batches=15, calls=200):
    for _ in range(calls):
        f()
    torch.cuda.synchronize()
    out = []
    for _ in range(batches):
        t0 = time.perf_counter()
        for _ in range(calls):
            f()
        out.append((time.perf_counter() - t0) / calls * 1e6)
        torch.cuda.synchronize()
    return statistics.median(out)


b = per_call(lambda: k.saxpy(n, 1.0001, x, y))
r = per_call(lambda: raw(stream, n, 1.0001, xp, yp))
t = per_call(lambda: torch.add(x, y))
print("call cost (host us, median of 15 x 200, n=1024): k.saxpy %.2f, bare ctypes cq_saxpy %.2f, torch.add %.2f"
      % (b, r, t))
print("binding / torch.add %.2f, binding / bare ctypes %.2f" % (b / t, b / r))
