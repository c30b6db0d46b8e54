"""DistributedDataParallel runs under mpiexec: training, no_sync, unused parameters, syncing at construction."""
from __future__ import annotations

import numpy as np

import retrograd as torch
import retrograd.distributed as dist
from retrograd.nn.parallel import DistributedDataParallel as DDP

from dist_inputs import mlp_data

STEPS, PER_RANK, LR = 20, 8, 0.1


def make_mlp():
    torch.manual_seed(1)
    return torch.nn.Sequential(torch.nn.Linear(5, 16), torch.nn.Tanh(), torch.nn.Linear(16, 16), torch.nn.Tanh(),
                               torch.nn.Linear(16, 3))


class TwoBranch(torch.nn.Module):
    """``b`` is used only when asked; ``never`` never is."""

    def __init__(self) -> None:
        super().__init__()
        torch.manual_seed(2)
        self.a = torch.nn.Linear(4, 2)
        self.b = torch.nn.Linear(4, 2)
        self.never = torch.nn.Linear(4, 2)

    def forward(self, x, use_b: bool):
        y = self.a(x)
        return y + self.b(x) if use_b else y


def params(m) -> list[np.ndarray]:
    return [p.detach().numpy().copy() for p in m.parameters()]


def grads(m) -> list:
    return [None if p.grad is None else p.grad.numpy().copy() for p in m.parameters()]


def run(out: dict) -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    X, Y = mlp_data(n * PER_RANK)
    x, y = torch.from_numpy(X[r::n]), torch.from_numpy(Y[r::n])

    # training: every rank starts from a different model; DDP broadcasts rank 0's
    m = make_mlp()
    with torch.no_grad():
        m[0].weight.add_(float(r))
    ddp = DDP(m, bucket_cap_mb=0.0005)  # ~500 bytes: several buckets, so several all-reduces overlap
    out["ddp/after_init"] = params(m)
    out["ddp/n_buckets"] = len(ddp.reducer.buckets)
    out["ddp/state_dict_keys"] = list(ddp.state_dict())
    opt = torch.optim.SGD(ddp.parameters(), lr=LR)
    for _ in range(STEPS):
        opt.zero_grad()
        torch.nn.functional.mse_loss(ddp(x), y).backward()
        opt.step()
    out["ddp/trained"] = params(m)

    # no_sync: the first micro-batch accumulates locally, the second backward averages both
    m = make_mlp()
    ddp = DDP(m)
    half = PER_RANK // 2
    with ddp.no_sync():
        torch.nn.functional.mse_loss(ddp(x[:half]), y[:half], reduction="sum").backward()
    out["ddp/no_sync_local"] = grads(m)
    torch.nn.functional.mse_loss(ddp(x[half:]), y[half:], reduction="sum").backward()
    out["ddp/no_sync_total"] = grads(m)

    # find_unused_parameters: `never` is unused everywhere, `b` only on rank 0
    m = TwoBranch()
    ddp = DDP(m, find_unused_parameters=True)
    xb = torch.from_numpy(X[r::n, :4].copy())
    for _ in range(2):  # twice: the second iteration must not complain about the first
        m.zero_grad()
        ddp(xb, use_b=(r == 0)).sum().backward()
    out["ddp/unused"] = grads(m)

    # without find_unused_parameters an unused parameter makes the next forward fail, as torch's
    m = TwoBranch()
    ddp = DDP(m)
    ddp(xb, use_b=False).sum().backward()
    try:
        ddp(xb, use_b=False)
        out["ddp/unfinished_error"] = None
    except RuntimeError as e:
        out["ddp/unfinished_error"] = str(e)

    # buffers: BatchNorm's running statistics come from rank 0 at construction and before each forward
    torch.manual_seed(3)
    bn = torch.nn.BatchNorm1d(5)
    with torch.no_grad():
        bn.running_mean.fill_(float(r + 1))
    ddp = DDP(torch.nn.Sequential(torch.nn.Linear(5, 5), bn))
    out["ddp/buffer_after_init"] = bn.running_mean.numpy().copy()
    ddp(x).sum().backward()  # each rank's batch moves its own running mean ...
    out["ddp/buffer_after_local_step"] = bn.running_mean.numpy().copy()
    ddp.eval()
    with torch.no_grad():
        ddp(x[:2])  # ... and the next forward (eval: no update) starts from rank 0's again
    out["ddp/buffer_after_next_forward"] = bn.running_mean.numpy().copy()

    # errors raised on every rank alike
    try:
        DDP(torch.nn.Linear(2, 2).requires_grad_(False))
    except RuntimeError as e:
        out["ddp/no_grad_params_error"] = str(e)
