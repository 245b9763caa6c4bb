#!/usr/bin/env python3
"""derive grad held to torch.autograd (issue 19): tests/grad/torch_grad.cairn's functions, loaded with
the Python binding (python/cairn), called on float64 tensors, and each gradient compared with what
torch.autograd computes for the same formula, within 1e-10 relative. Exits 0 when all agree, 1
otherwise; prints `SKIP` and exits 77 without torch.

    python3 tests/grad/check_torch_grad.py
"""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "python"))
try:
    import torch
except ImportError:
    print("SKIP check_torch_grad: no torch")
    sys.exit(77)
import cairn

HERE = os.path.dirname(os.path.abspath(__file__))
k = cairn.load(os.path.join(HERE, "torch_grad.cairn"))
torch.manual_seed(7)
failed = 0


def close(name, got, want):
    global failed
    ok = torch.allclose(got, want, rtol=1e-10, atol=1e-12)
    print("%s %s" % ("PASS" if ok else "FAIL", name))
    if not ok:
        failed += 1
        print("  got ", got)
        print("  want", want)


n = 37
d = torch.float64
w = torch.randn(n, dtype=d)
x = torch.randn(n, dtype=d)
# loss: w and bias
sc = torch.tensor([0.3, 1.7], dtype=d)
dw = torch.zeros(n, dtype=d)
out = torch.zeros(2, dtype=d)
k.loss_g(n, w, x, sc, dw, out)
wt, bt = w.clone().requires_grad_(), sc[0].clone().requires_grad_()
e = (wt * x).sum() + bt - sc[1]
(e * e + torch.log(bt * bt + 1)).backward()
close("loss d_w", dw, wt.grad)
close("loss d_bias", out[1:2], bt.grad.reshape(1))
# lin: a region, J^T u for x, scalars w and b through part buffers
u = torch.randn(n, dtype=d)
sc = torch.tensor([0.8, -0.4], dtype=d)
o = torch.zeros(n, dtype=d)
dx = torch.zeros(n, dtype=d)
ds = torch.zeros(2, dtype=d)
k.lin_g(n, x, sc, o, dx, u, ds)
xt, wt2, bt2 = x.clone().requires_grad_(), sc[0].clone().requires_grad_(), sc[1].clone().requires_grad_()
m = torch.exp(wt2 * 0.5)
ot = torch.sqrt(xt * xt + 1) * wt2 + bt2 * torch.abs(xt) + m / (xt * xt + 2)
ot.backward(u)
close("lin out", o, ot.detach())
close("lin d_x", dx, xt.grad)
close("lin d_w d_b", ds, torch.stack([wt2.grad, bt2.grad]))
# dot: a let mut summed in a loop
sc = torch.tensor([0.6], dtype=d)
dw = torch.zeros(n, dtype=d)
out = torch.zeros(2, dtype=d)
k.dot_g(n, w, x, sc, dw, out)
wt, ct = w.clone().requires_grad_(), sc[0].clone().requires_grad_()
t = wt * x
acc = ct * ct + (t * t + ct * torch.exp(wt * 0.25)).sum()
(acc * 0.5 - ct).backward()
close("dot d_w", dw, wt.grad)
close("dot d_c", out[1:2], ct.grad.reshape(1))
print("check_torch_grad: %d failed" % failed)
sys.exit(1 if failed else 0)
