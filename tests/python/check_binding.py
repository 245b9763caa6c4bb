"""The Python binding (python/cairn) on host functions, with array.array arguments (no torch or
numpy needed). Run by tests/python/test_python.sh: python3 check_binding.py KERNELS.cairn.
Checks values against plain Python loops, every refusal's exception class and the argument it
names, and that a second load of the same source reuses the cache. Prints FAIL lines and exits 1
on any."""
import array
import os
import sys

import cairn

bad = []


def want(ok, what):
    if not ok:
        bad.append(what)


def refused(call, cls, *words):
    try:
        call()
    except cls as e:
        msg = str(e)
        want(all(w in msg for w in words), "message %r lacks %r" % (msg, words))
        want(isinstance(e, cairn.CairnError), "%s is not a CairnError" % type(e).__name__)
        return
    except Exception as e:   # noqa: BLE001 - the wrong class is what is being tested
        bad.append("expected %s with %r, got %s: %s" % (cls.__name__, words, type(e).__name__, e))
        return
    bad.append("expected %s with %r, got no error" % (cls.__name__, words))


k = cairn.load(sys.argv[1])
want(k.add3(7, -2, 40) == 45, "add3(7, -2, 40) = %r" % k.add3(7, -2, 40))
n = 1037
x = array.array("f", [float((i * 7) % 13) - 6.0 for i in range(n)])
y = array.array("f", [float(i % 5) * 0.5 for i in range(n)])
expect = [2.5 * a + b for a, b in zip(x, y)]
k.axpy(n, 2.5, x, y)
want(list(y) == expect, "axpy: first differences %r" % [(i, a, b) for i, (a, b) in enumerate(zip(y, expect)) if a != b][:3])
rows, cols = 5, 3
m = array.array("d", [float(i * i) - 3.0 for i in range(rows * cols)])
out = array.array("d", [99.0] * rows)
k.rowsum(rows, cols, m, out)
want(list(out) == [sum(m[r * cols:(r + 1) * cols]) for r in range(rows)], "rowsum: %r" % list(out))
k.rowsum(0, 3, array.array("d"), array.array("d"))   # empty arrays are fine

refused(lambda: k.axpy(n + 1, 2.0, x, y), cairn.ArgumentValueError, "argument x", "1038 elements are required, 1037")
refused(lambda: k.axpy(n, 2.0, array.array("d", x), y), cairn.ArgumentTypeError, "argument x", "f32")
refused(lambda: k.axpy(n, 2.0, y, y), cairn.ArgumentValueError, "argument y", "overlaps argument x")
refused(lambda: k.axpy(n, 2.0, x, bytes(4 * n)), cairn.ArgumentTypeError, "argument y")
refused(lambda: k.axpy(n, 2.0, x, [0.0] * n), cairn.ArgumentTypeError, "argument y", "list")
refused(lambda: k.axpy(-1, 2.0, x, y), cairn.ArgumentValueError, "argument n", "-1 does not fit")
refused(lambda: k.add3(1, 2, 1 << 31), cairn.ArgumentValueError, "argument c", "does not fit")
refused(lambda: k.add3(1, 2), cairn.ArgumentTypeError, "takes 3 arguments", "2 given")
refused(lambda: k.add3(1.5, 2, 3), cairn.ArgumentTypeError, "argument a", "int is required")
refused(lambda: k.add3(True, 2, 3), cairn.ArgumentTypeError, "argument a")
refused(lambda: k.rowsum(2, 3, m, out), cairn.ArgumentValueError, "argument m", "6 elements are required, 15")
want(isinstance(cairn.ArgumentValueError("x"), ValueError) and isinstance(cairn.ArgumentTypeError("x"), TypeError),
     "the exception classes must be ValueError and TypeError")

# a second load is the cached build, and a broken source is a BuildError with cairn's diagnostic
again = cairn.load(sys.argv[1])
want(again.directory == k.directory, "the second load built again: %s, %s" % (again.directory, k.directory))
broken = os.path.join(os.path.dirname(k.directory), "..", "broken.cairn")
with open(broken, "w") as f:
    f.write("fn f(n:usize) -> i32 { return n; }\n")
refused(lambda: cairn.load(broken), cairn.BuildError, "broken.cairn:1:", "E-")
for x in bad:
    print("FAIL python: " + x)
print("binding: %d failed" % len(bad))
sys.exit(1 if bad else 0)
