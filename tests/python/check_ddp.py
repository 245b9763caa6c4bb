"""examples/ddp (issue 20) on the CPU: its CAIRN layer norm against torch, then the data-parallel runs
test_ddp.sh made, compared. Exit 0: all hold; 1: a failure; 3: torch is not installed (a skip).

    python3 check_ddp.py OUTDIR     (OUTDIR holds one_cpu.json, two_cpu_a.json, two_cpu_b.json,
                                     two_emulate.json and one_torch.json from train.py --out)

What holds, each a FAIL line when it does not:
  - the autograd.Function (host and emulated device functions) on a 37 x 70 matrix whose rows differ:
    forward within 1e-5 of torch's layer_norm, and d_x, d_gamma, d_beta within 1e-4 of
    torch.autograd's (f32: other sum orders, and 1 / sqrt where torch uses rsqrt);
  - training converges: the last step's loss under half the first's;
  - two processes over the same global batch as one: every parameter within 1e-5, the final loss
    within 1e-5 relative (DDP averages the ranks' gradients: other roundings, same math);
  - two 2-process runs give the same bits (CAIRN's sums are deterministic; gloo's sum of two ranks
    is one addition, which commutes);
  - the emulated device functions give the host functions' bits;
  - CAIRN's layer norm trains as torch's own does: parameters within 1e-5.
"""
import json
import os
import sys

try:
    import torch
    import torch.nn.functional as F
except ImportError:
    print("check_ddp: SKIP: torch is not installed")
    sys.exit(3)

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "examples", "ddp"))
sys.path.insert(0, os.path.join(ROOT, "python"))
import cairn  # noqa: E402
from train import CairnLayerNorm  # noqa: E402

bad = []


def want(ok, what):
    if not ok:
        bad.append(what)


lib = cairn.load(os.path.join(ROOT, "examples", "ddp", "layer.cairn"), target="sm_90a", emulate=True)
rows, cols = 37, 70
g = torch.Generator().manual_seed(5)
x = torch.randn(rows, cols, generator=g) * torch.arange(1, rows + 1).reshape(rows, 1) * 0.3 + \
    torch.arange(rows).reshape(rows, 1) * 0.1
gamma = torch.randn(cols, generator=g)
beta = torch.randn(cols, generator=g)
dy = torch.randn(rows, cols, generator=g)
ref_in = [t.clone().requires_grad_() for t in (x, gamma, beta)]
ref = F.layer_norm(ref_in[0], (cols,), ref_in[1], ref_in[2], 1e-5)
ref.backward(dy)
for suffix in ("", "_dev"):
    ins = [t.clone().requires_grad_() for t in (x, gamma, beta)]
    y = CairnLayerNorm.apply(ins[0], ins[1], ins[2], lib, suffix, 1e-5)
    y.backward(dy)
    name = "host" if suffix == "" else "emulated device"
    want((y - ref).abs().max().item() <= 1e-5, "%s forward: %g from torch" % (name, (y - ref).abs().max().item()))
    for t, r, what in zip(ins, ref_in, ("d_x", "d_gamma", "d_beta")):
        err = (t.grad - r.grad).abs().max().item()
        want(err <= 1e-4 * (1 + r.grad.abs().max().item()), "%s %s: %g from torch.autograd" % (name, what, err))

out = sys.argv[1]
runs = {}
for name in ("one_cpu", "two_cpu_a", "two_cpu_b", "two_emulate", "one_torch"):
    try:
        with open(os.path.join(out, name + ".json")) as f:
            runs[name] = json.load(f)
    except (OSError, ValueError) as e:
        bad.append("run %s: no result (%s)" % (name, e))
if len(runs) == 5:
    one, a, b, emu, tor = (runs[k] for k in ("one_cpu", "two_cpu_a", "two_cpu_b", "two_emulate", "one_torch"))
    want(a["world"] == 2 and one["world"] == 1, "worlds: %s and %s" % (one["world"], a["world"]))
    want(one["losses"][-1] < 0.5 * one["losses"][0], "no convergence: %s" % one["losses"][::10])

    def pdiff(p, q):
        return max(abs(u - v) for u, v in zip(p["params"], q["params"]))

    d = pdiff(one, a)
    want(d <= 1e-5, "1 vs 2 processes: a parameter %g apart" % d)
    want(abs(one["final_loss"] - a["final_loss"]) <= 1e-5 * abs(one["final_loss"]),
         "1 vs 2 processes: final loss %r vs %r" % (one["final_loss"], a["final_loss"]))
    want(a["params_sha256"] == b["params_sha256"] and a["losses"] == b["losses"],
         "two 2-process runs differ: %s vs %s" % (a["params_sha256"][:12], b["params_sha256"][:12]))
    want(emu["params_sha256"] == a["params_sha256"], "emulated device functions differ from the host's")
    d = pdiff(tor, one)
    want(d <= 1e-5, "CAIRN vs torch layer norm in training: a parameter %g apart" % d)
    print("check_ddp: loss %.4f -> %.4f in %d steps; 1 vs 2 processes: parameters within %g, final loss %r vs %r"
          % (one["losses"][0], one["losses"][-1], one["steps"], pdiff(one, a), one["final_loss"], a["final_loss"]))
for b_ in bad:
    print("FAIL ddp: " + b_)
print("check_ddp: %d failed" % len(bad))
sys.exit(1 if bad else 0)
