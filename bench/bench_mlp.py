"""One training step of a 784-512-512-10 ReLU MLP: retrograd vs torch vs hand-written NumPy.

A step is ``zero_grad(); loss = CrossEntropyLoss()(model(x), y); loss.backward(); opt.step()``
(plain SGD, lr 0.01), float32, at batch 128 and batch 16.  Three implementations run in
the same process from the same initial weights and data:

* retrograd: ordinary PyTorch code (``nn.Sequential`` of ``nn.Linear``/``nn.ReLU``,
  ``nn.CrossEntropyLoss``, ``optim.SGD``) run with ``torch = retrograd``;
* torch 2.13 CPU: *the same code*, run with the real ``torch`` (skipped if absent);
* NumPy: forward, backward and the SGD update written by hand (BLAS GEMMs, in-place
  updates, the fused softmax-cross-entropy gradient ``(softmax(z) - onehot(y)) / N``).

Measurement conditions, the same for all three:

* BLAS threads: NumPy's OpenBLAS is limited with threadpoolctl and torch with
  ``torch.set_num_threads`` to one number (``--threads``; default: NumPy's current setting,
  e.g. from ``OPENBLAS_NUM_THREADS``);
* glibc malloc keeps freed memory (``steady_allocator``), so no implementation pays for
  page-faulting its temporaries back in because of when it happens to free them;
* interleaved rounds (drifting load on a shared machine hits all three alike), median ms per
  step after warm-up; ``--clock cpu`` times this process's CPU time instead of wall time
  (steadier on a loaded machine; with one BLAS thread it is the step's own cost).

The table shows the ratios retrograd/numpy (target <= 1.10) and retrograd/torch.  Before
timing, one step of each is checked to give the same loss and weights.  ``--profile``
adds retrograd's time per phase and its cProfile hot spots.

    .venv/bin/python bench/bench_mlp.py [--steps 200] [--threads 1] [--batch 128 16] [--clock cpu] [--profile]
"""
from __future__ import annotations

import argparse

import numpy as np

import retrograd
from _common import (LR, Trainer, blas_threads, cross_entropy_grad, max_weight_diff, print_profile, print_table,
                     real_torch, steady_allocator, time_interleaved)

SIZES = (784, 512, 512, 10)
TARGET = 1.10


# ---------------------------------------------------------------------- the model and the NumPy version
def mlp(torch):
    nn = torch.nn
    return nn.Sequential(nn.Linear(784, 512), nn.ReLU(), nn.Linear(512, 512), nn.ReLU(), nn.Linear(512, 10))


def init_params(seed: int = 0) -> list[np.ndarray]:
    """PyTorch's default Linear init (U(-1/sqrt(fan_in), 1/sqrt(fan_in))): W, b per layer."""
    rng = np.random.default_rng(seed)
    params = []
    for fan_in, fan_out in zip(SIZES[:-1], SIZES[1:]):
        bound = 1.0 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_out, fan_in)).astype(np.float32))
        params.append(rng.uniform(-bound, bound, fan_out).astype(np.float32))
    return params


class NumpyMLP:
    """Forward, backward and SGD for the ReLU MLP, by hand (weights (out, in) as in PyTorch)."""

    def __init__(self, params: list[np.ndarray]) -> None:
        self.params = [p.copy() for p in params]

    def step(self, x: np.ndarray, y: np.ndarray) -> float:
        w1, b1, w2, b2, w3, b3 = self.params
        h1 = x @ w1.T
        h1 += b1
        np.maximum(h1, 0, out=h1)
        h2 = h1 @ w2.T
        h2 += b2
        np.maximum(h2, 0, out=h2)
        z = h2 @ w3.T
        z += b3
        loss, dz = cross_entropy_grad(z, y)
        grads = [None] * 6
        grads[4] = dz.T @ h2
        grads[5] = dz.sum(axis=0)
        d2 = dz @ w3
        d2 *= h2 > 0
        grads[2] = d2.T @ h1
        grads[3] = d2.sum(axis=0)
        d1 = d2 @ w2
        d1 *= h1 > 0
        grads[0] = d1.T @ x
        grads[1] = d1.sum(axis=0)
        lr = np.float32(LR)
        for p, g in zip(self.params, grads):
            g *= lr
            p -= g
        return loss


# ---------------------------------------------------------------------- check and time
def _data(batch: int, seed: int):
    rng = np.random.default_rng(seed)
    return rng.standard_normal((batch, 784)).astype(np.float32), rng.integers(0, 10, batch).astype(np.int64)


def _check(batch: int) -> float:
    """Max |difference| of the weights after one step, retrograd and torch vs NumPy."""
    params = init_params()
    x, y = _data(batch, 1)
    ref = NumpyMLP(params)
    ref_loss = ref.step(x, y)
    worst = max_weight_diff(mlp, params, x, y, ref_loss, ref.params)
    assert worst < 1e-5, worst
    return worst


def measure(batch: int, n_steps: int, clock: str = "wall", profile: bool = False) -> tuple[float, float, float]:
    params = init_params()
    x, y = _data(batch, 2)
    ref = NumpyMLP(params)
    rg = Trainer(retrograd, mlp, params, x, y)
    steps = {"numpy": lambda: ref.step(x, y), "retrograd": rg.step}
    if real_torch is not None:
        steps["torch"] = Trainer(real_torch, mlp, params, x, y).step
    t = time_interleaved(steps, n_steps, clock=clock)
    if profile:
        print_profile(f"MLP batch {batch}", rg, n_steps, clock)
    return t["numpy"], t["retrograd"], t.get("torch", float("nan"))


def main(argv: list[str] | None = None) -> list[tuple]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200, help="timed steps per implementation and batch size")
    ap.add_argument("--threads", type=int, default=None, help="BLAS threads for all three (default: NumPy's)")
    ap.add_argument("--batch", type=int, nargs="+", default=[128, 16])
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: perf_counter; cpu: this process's CPU time (steadier on a loaded machine)")
    ap.add_argument("--profile", action="store_true", help="also print retrograd's phases and cProfile hot spots")
    args = ap.parse_args(argv if argv is not None else [])
    n, ctx = blas_threads(args.threads)
    steady_allocator()
    rows = []
    with ctx:
        diffs = [_check(b) for b in args.batch]
        for b in args.batch:
            rows.append((f"MLP step, batch {b}",) + measure(b, args.steps, args.clock, args.profile))
    print_table(f"784-512-512-10 ReLU MLP, CE loss, SGD; float32; BLAS threads = {n} (numpy and torch); "
                f"{args.clock} clock, median of {args.steps} steps; one-step weights agree to {max(diffs):.1e}",
                rows, TARGET)
    return rows


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
