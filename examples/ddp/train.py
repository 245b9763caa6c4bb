#!/usr/bin/env python3
"""A data-parallel training step with CAIRN kernels (issue 20): torch.distributed, one process per
device, DistributedDataParallel, and a layer norm whose forward and backward are CAIRN functions
(examples/ddp/layer.cairn: the backward written by `derive grad`), loaded with `cairn.load` and wrapped
as a torch.autograd.Function.

    # two GPUs, NCCL (one process each):
    torchrun --nproc_per_node 2 examples/ddp/train.py --device cuda
    # the same on the CPU: two processes, gloo, CPU tensors through the host functions
    python3 examples/ddp/train.py --nproc 2 --device cpu
    # ... or through the device functions, emulated on the host
    python3 examples/ddp/train.py --nproc 2 --device emulate

The model: Linear(32, 64) -> CAIRN layer norm (gamma, beta trained) -> tanh -> Linear(64, 5), cross
entropy, SGD with momentum, on a synthetic classification set made from a fixed seed. Every step takes
the next global batch of --batch rows; rank r of W takes its W-th share, so a run on W processes
computes the same global-batch gradient as a run on one (DDP averages the ranks' gradients of their
mean losses), up to rounding.

--impl torch puts torch's own layer_norm where the CAIRN one is: the reference the tests compare with.

Rank 0 writes --out (JSON): the global loss after each step, the loss of the final model on the whole
set, a SHA-256 of the final parameters' bytes, and the median step time (after 3 warm-up steps).
NVLink multicast stays off (NCCL_NVLS_ENABLE=0 and the others), as the GPU machines require.
"""
import argparse
import hashlib
import json
import os
import socket
import statistics
import sys
import time

# never NVLink multicast: it can take a shared host's GPUs out of service
os.environ["NCCL_NVLS_ENABLE"] = "0"
os.environ["TORCH_SYMM_MEM_DISABLE_MULTICAST"] = "1"
os.environ["NVSHMEM_DISABLE_NVLS"] = "1"

import torch  # noqa: E402
import torch.distributed as dist  # noqa: E402
import torch.nn as nn  # noqa: E402
import torch.nn.functional as F  # noqa: E402
from torch.nn.parallel import DistributedDataParallel  # noqa: E402

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import cairn  # noqa: E402


class CairnLayerNorm(torch.autograd.Function):
    """y = layer_norm(x) * gamma + beta over the last dimension, by layer.cairn's functions; the
    backward by the functions derive grad wrote. `suffix` picks the host ("") or device ("_dev")
    functions."""

    @staticmethod
    def forward(ctx, x, gamma, beta, lib, suffix, eps):
        rows, cols = x.shape
        x = x.contiguous()
        xhat, y = torch.empty_like(x), torch.empty_like(x)
        getattr(lib, "norm" + suffix)(rows, cols, eps, x, xhat)
        getattr(lib, "affine" + suffix)(rows, cols, xhat, gamma, beta, y)
        ctx.save_for_backward(x, xhat, gamma, beta)
        ctx.lib, ctx.suffix, ctx.eps = lib, suffix, eps
        return y

    @staticmethod
    def backward(ctx, dy):
        x, xhat, gamma, beta = ctx.saved_tensors
        lib, sfx = ctx.lib, ctx.suffix
        rows, cols = x.shape
        dy = dy.contiguous()
        again = torch.empty_like(x)   # f_grad runs f again: where its output goes
        d_xhat, d_x = torch.zeros_like(x), torch.zeros_like(x)
        d_gamma, d_beta = torch.zeros_like(gamma), torch.zeros_like(beta)
        getattr(lib, "affine" + sfx + "_grad")(rows, cols, xhat, gamma, beta, again, d_xhat, d_gamma, d_beta, dy)
        getattr(lib, "norm" + sfx + "_grad")(rows, cols, ctx.eps, x, again, d_x, d_xhat)
        return d_x, d_gamma, d_beta, None, None, None


class Net(nn.Module):
    def __init__(self, lib, suffix, d_in=32, hidden=64, classes=5, eps=1e-5):
        super().__init__()
        self.fc1 = nn.Linear(d_in, hidden)
        self.gamma = nn.Parameter(torch.ones(hidden))
        self.beta = nn.Parameter(torch.zeros(hidden))
        self.fc2 = nn.Linear(hidden, classes)
        self.lib, self.suffix, self.eps = lib, suffix, eps

    def forward(self, x):
        h = self.fc1(x)
        if self.lib is None:
            h = F.layer_norm(h, (h.shape[1],), self.gamma, self.beta, self.eps)
        else:
            h = CairnLayerNorm.apply(h, self.gamma, self.beta, self.lib, self.suffix, self.eps)
        return self.fc2(torch.tanh(h))


def make_data(n, d_in, classes, seed=20):
    """A fixed classification set: labels from a random linear teacher plus noise."""
    g = torch.Generator().manual_seed(seed)
    x = torch.randn(n, d_in, generator=g)
    teacher = torch.randn(d_in, classes, generator=g)
    y = (x @ teacher + 0.5 * torch.randn(n, classes, generator=g)).argmax(1)
    return x, y


def params_sha(model):
    h = hashlib.sha256()
    for p in model.parameters():
        h.update(bytes(p.detach().cpu().contiguous().reshape(-1).view(torch.uint8).tolist()))
    return h.hexdigest()


def worker(rank, world, args):
    torch.set_num_threads(args.threads)
    torch.use_deterministic_algorithms(True)
    cuda = args.device == "cuda"
    if cuda:
        local = int(os.environ.get("LOCAL_RANK", rank))
        torch.cuda.set_device(local)
        dev = torch.device("cuda", local)
    else:
        dev = torch.device("cpu")
    backend = args.backend or ("nccl" if cuda else "gloo")
    dist.init_process_group(backend, rank=rank, world_size=world)
    lib, suffix = None, ""
    if args.impl == "cairn":
        src = os.path.join(HERE, "layer.cairn")
        if cuda:
            lib, suffix = cairn.load(src, target=args.target), "_dev"
        elif args.device == "emulate":
            lib, suffix = cairn.load(src, target=args.target, emulate=True), "_dev"
        else:
            lib = cairn.load(src, target=args.target, emulate=True)
    torch.manual_seed(args.seed)   # the same initial model on every rank (DDP broadcasts rank 0's too)
    model = Net(lib, suffix).to(dev)
    ddp = DistributedDataParallel(model, device_ids=[dev.index] if cuda else None)
    opt = torch.optim.SGD(ddp.parameters(), lr=args.lr, momentum=0.9)
    x_all, y_all = make_data(args.batch * args.batches, 32, 5)
    x_all, y_all = x_all.to(dev), y_all.to(dev)
    share = args.batch // world
    losses, times = [], []
    for step in range(args.steps):
        b = step % args.batches
        lo = b * args.batch + rank * share
        xb, yb = x_all[lo:lo + share], y_all[lo:lo + share]
        if cuda:
            torch.cuda.synchronize()
        t0 = time.perf_counter()
        opt.zero_grad(set_to_none=True)
        loss = F.cross_entropy(ddp(xb), yb)
        loss.backward()
        opt.step()
        if cuda:
            torch.cuda.synchronize()
        times.append(time.perf_counter() - t0)
        g = loss.detach().clone()
        dist.all_reduce(g)
        losses.append(g.item() / world)
    with torch.no_grad():
        final = F.cross_entropy(model(x_all), y_all).item()
    if rank == 0 and args.out:
        with open(args.out, "w") as f:
            json.dump({"world": world, "backend": backend, "device": args.device, "impl": args.impl,
                       "steps": args.steps, "batch": args.batch, "losses": losses, "final_loss": final,
                       "params_sha256": params_sha(model),
                       "params": [v for p in model.parameters() for v in p.detach().cpu().reshape(-1).tolist()],
                       "step_ms_median": 1e3 * statistics.median(times[3:] or times),
                       "gpu": torch.cuda.get_device_name(dev) if cuda else None}, f)
    dist.destroy_process_group()


def spawned(rank, world, args):
    worker(rank, world, args)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--device", choices=("cpu", "emulate", "cuda"), default="cpu")
    ap.add_argument("--backend", choices=("gloo", "nccl"), default=None, help="default: nccl for cuda, else gloo")
    ap.add_argument("--nproc", type=int, default=1, help="processes to spawn (without torchrun)")
    ap.add_argument("--impl", choices=("cairn", "torch"), default="cairn")
    ap.add_argument("--steps", type=int, default=30)
    ap.add_argument("--batch", type=int, default=64, help="the global batch")
    ap.add_argument("--batches", type=int, default=8, help="global batches in the data set")
    ap.add_argument("--lr", type=float, default=0.05)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--threads", type=int, default=1, help="torch's CPU threads a process")
    ap.add_argument("--target", default="sm_90a")
    ap.add_argument("--out", default=None)
    args = ap.parse_args()
    if "RANK" in os.environ and "WORLD_SIZE" in os.environ:   # torchrun
        world = int(os.environ["WORLD_SIZE"])
        if args.batch % world:
            sys.exit("train.py: --batch %d is not a multiple of the %d processes" % (args.batch, world))
        worker(int(os.environ["RANK"]), world, args)
        return
    if args.batch % args.nproc:
        sys.exit("train.py: --batch %d is not a multiple of --nproc %d" % (args.batch, args.nproc))
    os.environ.setdefault("MASTER_ADDR", "127.0.0.1")
    os.environ.setdefault("MASTER_PORT", str(free_port()))
    if args.nproc == 1:
        worker(0, 1, args)
    else:
        import torch.multiprocessing as mp
        mp.spawn(spawned, args=(args.nproc, args), nprocs=args.nproc, join=True)


if __name__ == "__main__":
    main()
