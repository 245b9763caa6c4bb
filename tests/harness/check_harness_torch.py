"""Each format's package, built with CPU torch, run over host views on CPU tensors against the
benchmark's own kind of reference (run by tests/harness/test_harness.sh where torch and ninja are
installed): python3 check_harness_torch.py SOL_DIR GPUMODE_DIR KERNELBENCH_DIR.

- SOL-ExecBench: solution.json's entry point is loaded as SOL-ExecBench loads it (its sources
  written to a directory and built by torch.utils.cpp_extension.load with the solution's
  compile_options), and called in destination-passing style against an rmsnorm reference written
  here in torch, compared as that benchmark compares (f32, atol = rtol = 1e-2, matched ratio 0.99);
- GPU MODE: submission.py's custom_kernel on (A, B, C), against A + B, exactly;
- KernelBench: model_new.py exec'd as KernelBench does, ModelNew()(x) against torch.relu, exactly.
Each also refuses a wrong dtype and a wrong shape with the argument named. Exit 0: all pass; 1: a
failure; 3: no torch or no ninja (a skip)."""
import importlib.util
import json
import os
import shutil
import sys
import tempfile

try:
    import torch
    from torch.utils.cpp_extension import load
except ImportError:
    print("check_harness_torch: SKIP: torch is not installed")
    sys.exit(3)
if shutil.which("ninja") is None:
    print("check_harness_torch: SKIP: ninja is not installed (torch builds extensions with it)")
    sys.exit(3)

bad = []
sol_dir, gm_dir, kb_dir = sys.argv[1:4]
torch.manual_seed(1234)


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


# SOL-ExecBench
sol = json.load(open(os.path.join(sol_dir, "solution.json")))
build = tempfile.mkdtemp()
for s in sol["sources"]:
    with open(os.path.join(build, s["path"]), "w") as f:
        f.write(s["content"])
opts = sol["spec"]["compile_options"]
mod = load(name="benchmark_kernel", sources=[os.path.join(build, s["path"]) for s in sol["sources"]],
           extra_cflags=opts["cflags"], extra_cuda_cflags=opts["cuda_cflags"], extra_ldflags=opts["ld_flags"],
           build_directory=build, verbose=False)
file, fn = sol["spec"]["entry_point"].split("::")
run = getattr(mod, fn)
for batch in (1, 7, 34):
    x = torch.randn(batch, 4096).to(torch.bfloat16)
    w = torch.randn(4096).to(torch.bfloat16)
    out = torch.zeros(batch, 4096, dtype=torch.bfloat16)
    run(x, w, out)
    xf = x.float()
    ref = ((xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)) * w.float()).to(torch.bfloat16)
    err = (out.float() - ref.float()).abs()
    ok = (err <= 1e-2 + 1e-2 * ref.float().abs()).float().mean().item()
    if ok < 0.99 or not torch.isfinite(out.float()).all():
        bad.append("sol-execbench rmsnorm, batch %d: matched ratio %.4f" % (batch, ok))
refused(lambda: run(x.float(), w, out), TypeError, "argument hidden_states", "bfloat16")
refused(lambda: run(x, w[:4095].contiguous(), out), ValueError, "argument weight", "hidden_size")

# GPU MODE
spec = importlib.util.spec_from_file_location("submission", os.path.join(gm_dir, "submission.py"))
sub = importlib.util.module_from_spec(spec)
spec.loader.exec_module(sub)
for size in (127, 129):
    A, B = torch.randn(size, size), torch.randn(size, size)
    C = torch.empty(size, size)
    r = sub.custom_kernel((A, B, C))
    if r is not C or not torch.equal(r, A + B):
        bad.append("gpumode vadd, size %d: wrong result" % size)
refused(lambda: sub.custom_kernel((A.double(), B, C)), TypeError, "argument A", "float32")
refused(lambda: sub.custom_kernel((A, B, A)), ValueError, "overlaps")

# KernelBench: the source exec'd into a namespace, as its evaluator does
ns = {}
exec(open(os.path.join(kb_dir, "model_new.py")).read(), ns)  # noqa: S102 - the package under test
model = ns["ModelNew"]()
x = torch.randn(37, 1031)
y = model(x)
if not torch.equal(y, torch.relu(x)):
    bad.append("kernelbench relu: wrong result")
refused(lambda: model(x.to(torch.float16)), TypeError, "argument x", "float32")
refused(lambda: model(x.reshape(-1)), ValueError, "argument x", "2 dimensions")

for b in bad:
    print("FAIL harness torch: " + b)
print("check_harness_torch: %d failed" % len(bad))
sys.exit(1 if bad else 0)
