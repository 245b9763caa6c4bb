#!/usr/bin/env python3
"""derive grad held to torch.autograd (issue 19): tests/grad/torch_grad.cairn's functions, loaded with
the Python binding (python/cairn), called on float64 tensors, and each gradient compared with what
torch.autograd computes for the same formula on the same tensors, within 1e-10 relative.

Each comparison is made where the function runs:
  host      a sequential sum (loss) and a summing let mut (dot), on the calling thread
  pool      the region (lin) and the pooled sum (ploss) over host views, on the host pool
  emulated  their @device twins (tests/grad/torch_grad_dev.cairn) built with --emulate, CPU tensors
  device    the same twins built for the GPU (TARGET, default sm_90a) on CUDA tensors, torch.autograd
            on the same CUDA tensors; a `SKIP ...: no CUDA` line each where torch has no CUDA
One PASS, FAIL or SKIP line per comparison. Exits 0 when all agree, 1 otherwise; prints `SKIP` and
exits 77 without torch.

    python3 tests/grad/check_torch_grad.py [TARGET]
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
TARGET = sys.argv[1] if len(sys.argv) > 1 else "sm_90a"   # the device target (the suite passes $ARCH)
d = torch.float64
failed = 0


def close(name, got, want):
    global failed
    ok = torch.allclose(got, want, rtol=1e-10, atol=1e-12)
    print("%s %s" % ("PASS" if ok else "FAIL", name))
    if not ok:
        failed += 1
        print("  got ", got)
        print("  want", want)


def loss_want(w, x, sc):
    """loss and ploss: (sum w x + bias - target)^2 + log(bias^2 + 1); d_w and d_bias."""
    wt, bt = w.clone().requires_grad_(), sc[0].clone().requires_grad_()
    e = (wt * x).sum() + bt - sc[1]
    r = e * e + torch.log(bt * bt + 1)
    r.backward()
    return r.detach(), wt.grad, bt.grad


def check_loss(name, fn, place, w, x, sc):
    """fn(n, w, x, sc, dw, out) writes d_w into dw and (result, d_bias) into out, a host view."""
    n = w.numel()
    dw = torch.zeros(n, dtype=d, device=w.device)
    out = torch.zeros(2, dtype=d)
    fn(n, w, x, sc, dw, out)
    r, gw, gb = loss_want(w, x, sc.to(w.device))
    close("%s %s result" % (name, place), out[0:1], r.reshape(1).cpu())
    close("%s %s d_w" % (name, place), dw, gw)
    close("%s %s d_bias" % (name, place), out[1:2], gb.reshape(1).cpu())


def check_lin(name, fn, place, x, u, sc):
    """lin: out = sqrt(x^2 + 1) w + b |x| + exp(w / 2) / (x^2 + 2); J^T u for x, w and b (ds, a host view)."""
    n = x.numel()
    o = torch.zeros(n, dtype=d, device=x.device)
    dx = torch.zeros(n, dtype=d, device=x.device)
    ds = torch.zeros(2, dtype=d)
    fn(n, x, sc, o, dx, u, ds)
    s = sc.to(x.device)
    xt, wt, bt = x.clone().requires_grad_(), s[0].clone().requires_grad_(), s[1].clone().requires_grad_()
    m = torch.exp(wt * 0.5)
    ot = torch.sqrt(xt * xt + 1) * wt + bt * torch.abs(xt) + m / (xt * xt + 2)
    ot.backward(u)
    close("%s %s out" % (name, place), o, ot.detach())
    close("%s %s d_x" % (name, place), dx, xt.grad)
    close("%s %s d_w d_b" % (name, place), ds, torch.stack([wt.grad, bt.grad]).cpu())


def check_dot(fn, place, w, x, sc):
    """dot: a let mut summing (w x)^2 + c exp(w / 4) over a loop, from c^2; d_w and d_c."""
    n = w.numel()
    dw = torch.zeros(n, dtype=d)
    out = torch.zeros(2, dtype=d)
    fn(n, w, x, sc, dw, out)
    wt, ct = w.clone().requires_grad_(), sc[0].clone().requires_grad_()
    t = wt * x
    acc = ct * ct + (t * t + ct * torch.exp(wt * 0.25)).sum()
    r = acc * 0.5 - ct
    r.backward()
    close("dot %s result" % place, out[0:1], r.detach().reshape(1))
    close("dot %s d_w" % place, dw, wt.grad)
    close("dot %s d_c" % place, out[1:2], ct.grad.reshape(1))


torch.manual_seed(7)
n = 1000   # enough lanes that the pool splits them among its workers
w = torch.randn(n, dtype=d)
x = torch.randn(n, dtype=d)
u = torch.randn(n, dtype=d)
loss_sc = torch.tensor([0.3, 1.7], dtype=d)
lin_sc = torch.tensor([0.8, -0.4], dtype=d)
dot_sc = torch.tensor([0.6], dtype=d)

k = cairn.load(os.path.join(HERE, "torch_grad.cairn"))
check_loss("loss", k.loss_g, "host", w, x, loss_sc)
check_dot(k.dot_g, "host", w, x, dot_sc)
check_loss("ploss", k.ploss_g, "pool", w, x, loss_sc)
check_lin("lin", k.lin_g, "pool", x, u, lin_sc)

dev_path = os.path.join(HERE, "torch_grad_dev.cairn")
ke = cairn.load(dev_path, target=TARGET, emulate=True)
check_loss("ploss_dev", ke.ploss_dev_g, "emulated", w, x, loss_sc)
check_lin("lin_dev", ke.lin_dev_g, "emulated", x, u, lin_sc)

if torch.cuda.is_available():
    kd = cairn.load(dev_path, target=TARGET)
    wc, xc, uc = w.cuda(), x.cuda(), u.cuda()
    check_loss("ploss_dev", kd.ploss_dev_g, "device", wc, xc, loss_sc)
    check_lin("lin_dev", kd.lin_dev_g, "device", xc, uc, lin_sc)
else:
    for name in ("ploss_dev", "lin_dev"):
        print("SKIP %s device: no CUDA" % name)
print("check_torch_grad: %d failed" % failed)
sys.exit(1 if failed else 0)
