"""The Python binding with CPU torch tensors (host functions), eagerly, as a torch.library custom
op and under torch.compile (run by tests/python/test_python.sh: python3 check_torch_cpu.py
KERNELS.cairn). Checks values against torch's own arithmetic, that a compiled function calling
k.axpy holds it as one opaque op (fullgraph, so a graph break fails the test), that a wrong tensor
is refused when the graph is traced with the binding's exception as the cause, and that a function
returning a value has no op and says why. Exit 0: all pass; 1: a failure; 3: no torch (a skip)."""
import sys

try:
    import torch
except ImportError:
    print("check_torch_cpu: SKIP: torch is not installed")
    sys.exit(3)
import cairn

bad = []


def want(ok, what):
    if not ok:
        bad.append(what)


def raised(call):
    try:
        call()
    except Exception as e:   # noqa: BLE001 - the chain is what is checked
        return e
    return None


k = cairn.load(sys.argv[1])
n = 1037
x = torch.arange(n, dtype=torch.float32).remainder_(97).sub_(48)
y0 = torch.arange(n, dtype=torch.float32).remainder_(13).mul_(0.5)

# eagerly, the direct call and the op
y = y0.clone()
k.axpy(n, 2.5, x, y)
want(torch.equal(y, 2.5 * x + y0), "eager axpy: %d elements differ" % int((y != 2.5 * x + y0).sum()))
y = y0.clone()
k.axpy.op(n, 2.5, x, y)
want(torch.equal(y, 2.5 * x + y0), "axpy.op: wrong values")
rows, cols = 7, 13
m = torch.arange(rows * cols, dtype=torch.float64).remainder_(11).sub_(5).mul_(0.125)
out = torch.full((rows,), 99.0, dtype=torch.float64)
k.rowsum(rows, cols, m, out)
want(torch.equal(out, m.view(rows, cols).sum(1)), "rowsum: %r" % out.tolist())


# compiled: one graph with the op in it, and the eager result
@torch.compile(fullgraph=True)
def step(x, y):
    k.axpy(n, 1.5, x * 2, y)
    return y + 1


y = y0.clone()
r = step(x, y)
ref = 1.5 * (x * 2) + y0
want(torch.equal(y, ref), "compiled axpy: the written view y is wrong")
want(torch.equal(r, ref + 1), "compiled axpy: the result after the op is wrong")
counts = torch._dynamo.utils.counters["graph_break"]
want(not counts, "compiled axpy broke the graph: %r" % dict(counts))

# a wrong tensor is refused while the graph is traced, with the binding's error as the cause
e = raised(lambda: step(x.double(), y))
chain = []
while e is not None:
    chain.append(e)
    e = e.__cause__ or e.__context__
want(any(isinstance(c, cairn.ArgumentTypeError) and "argument x" in str(c) and "f32" in str(c) for c in chain),
     "a float64 x under torch.compile: no ArgumentTypeError naming x in %r" % [type(c).__name__ for c in chain])
e = raised(lambda: k.axpy.op(n, 1.0, x[: n - 1], y))
want(isinstance(e, cairn.ArgumentValueError) and "1037 elements are required, 1036 given" in str(e),
     "a short x through the op: %r" % e)

# a function that returns a value has no op, and says so
e = raised(lambda: k.add3.op(1, 2, 3))
want(isinstance(e, cairn.CairnError) and "returns i32" in str(e), "add3.op: %r" % e)
# loading the same build again reuses its ops (torch keeps one op per name)
want(cairn.load(sys.argv[1]).axpy.op is k.axpy.op, "a second load made a second op")

# emulated device functions (the second file, --emulate): @device views take CPU tensors, queued
# work runs at the call, and an E-ENQUEUE function returns its value
if len(sys.argv) > 2:
    dk = cairn.load(sys.argv[2], target="sm_90a", emulate=True)
    y = y0.clone()
    dk.saxpy(n, -0.75, x, y)
    want(torch.equal(y, -0.75 * x + y0), "emulated saxpy: wrong values")
    d = torch.arange(n, dtype=torch.float64).remainder_(101).mul_(0.125)
    got = dk.total(n, d)
    want(got == float(d.sum()), "emulated total: %r, torch %r" % (got, float(d.sum())))
    e = raised(lambda: dk.saxpy(n, 1.0, x.double(), y))
    want(isinstance(e, cairn.ArgumentTypeError) and "argument x" in str(e), "emulated saxpy, float64 x: %r" % e)
    y = y0.clone()
    torch.compile(lambda: dk.saxpy(n, 2.0, x, y), fullgraph=True)()
    want(torch.equal(y, 2.0 * x + y0), "emulated saxpy under torch.compile: wrong values")
    # a lane that traps: the emulated call reports it at once (the process aborts with the guard)
    import subprocess
    child = ("import sys, torch, cairn\n"
             "k = cairn.load(sys.argv[1], target='sm_90a', emulate=True)\n"
             "n = 64; idx = torch.arange(n, dtype=torch.int64).to(torch.uint32); idx[40] = 999\n"
             "k.gather(n, idx, torch.ones(n), torch.zeros(n))\nprint('returned')\n")
    r = subprocess.run([sys.executable, "-c", child, sys.argv[2]], capture_output=True, text=True, timeout=300)
    want(r.returncode != 0 and "returned" not in r.stdout and "index 999 out of bounds for x of length 64" in r.stderr,
         "emulated trap: rc %d, stderr %r" % (r.returncode, r.stderr[-300:]))

for b in bad:
    print("FAIL torch cpu binding: " + b)
print("check_torch_cpu: %d failed" % len(bad))
sys.exit(1 if bad else 0)
