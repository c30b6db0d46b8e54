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
import gc
import time
from typing import Callable

import numpy as np

import retrograd

try:
    import torch as real_torch
except ImportError:  # torch is optional for benchmarks
    real_torch = None

try:
    from threadpoolctl import threadpool_info, threadpool_limits
except ImportError:  # then the BLAS thread count is left as it is
    threadpool_info = threadpool_limits = None

SIZES = (784, 512, 512, 10)
LR = 0.01
TARGET = 1.10


# ---------------------------------------------------------------------- measurement helpers (shared)
def blas_threads(requested: int | None):
    """(threads, context manager): the NumPy BLAS thread count to use, torch set to match."""
    if threadpool_info is None:
        n = requested or 1
        ctx = _nullcontext()
    else:
        current = [i["num_threads"] for i in threadpool_info() if i["user_api"] == "blas"]
        n = requested or (current[0] if current else 1)
        ctx = threadpool_limits(limits=n, user_api="blas")
    if real_torch is not None:
        real_torch.set_num_threads(n)
    return n, ctx


def steady_allocator() -> bool:
    """Ask glibc malloc to keep freed memory instead of returning it to the OS (all three alike).

    By default glibc hands large freed blocks back (mmap threshold and heap trimming), so an
    implementation that frees its big temporaries at the end of a step page-faults them back in
    at the next one (thousands of minor faults, milliseconds of kernel time per CNN step), while
    one that happens to keep a reference across steps does not: that measures the allocator,
    not the implementations.  A long training run settles into the steady state this sets.
    Returns False where it does not apply (no glibc).
    """
    try:
        import ctypes
        import ctypes.util

        libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
        m_trim_threshold, m_mmap_threshold = -1, -3
        return bool(libc.mallopt(m_trim_threshold, 1 << 30)) and bool(libc.mallopt(m_mmap_threshold, 32 << 20))
    except (OSError, AttributeError):
        return False


class _nullcontext:
    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return False


def _clock(name: str) -> Callable[[], float]:
    return time.perf_counter if name == "wall" else time.process_time


def time_interleaved(steps: dict[str, Callable[[], object]], n_steps: int, warmup: int = 10,
                     block: int = 10, clock: str = "wall") -> dict[str, float]:
    """Median seconds per call of each function, run in interleaved blocks of ``block`` calls.

    ``clock``: "wall" (perf_counter) or "cpu" (the process's CPU time: with one BLAS thread it
    is the step's own cost, unaffected by other processes competing for the cores).
    """
    for fn in steps.values():
        for _ in range(warmup):
            fn()
    times: dict[str, list[float]] = {k: [] for k in steps}
    gc.collect()
    perf = _clock(clock)
    for _ in range(max(1, n_steps // block)):
        for name, fn in steps.items():
            for _ in range(block):
                t0 = perf()
                fn()
                times[name].append(perf() - t0)
    return {k: float(np.median(v)) for k, v in times.items()}


def print_table(title: str, rows: list[tuple], target: float) -> None:
    """rows: (workload, t_numpy, t_retrograd, t_torch) in seconds."""
    print(title)
    head = f"{'workload':<22}{'numpy ms':>10}{'retrograd ms':>14}{'torch ms':>10}{'rg/numpy':>10}{'rg/torch':>10}"
    print(head)
    print("-" * len(head))
    for name, t_np, t_rg, t_t in rows:
        tt = f"{t_t * 1e3:>10.3f}" if t_t == t_t else f"{'-':>10}"
        rt = f"{t_rg / t_t:>10.2f}" if t_t == t_t else f"{'-':>10}"
        flag = "" if t_rg / t_np <= target else "  (over target)"
        print(f"{name:<22}{t_np * 1e3:>10.3f}{t_rg * 1e3:>14.3f}{tt}{t_rg / t_np:>10.2f}{rt}{flag}")


def cross_entropy_grad(z: np.ndarray, y: np.ndarray) -> tuple[float, np.ndarray]:
    """Mean softmax cross-entropy of logits ``z`` (overwritten) and its gradient."""
    n = z.shape[0]
    rows = np.arange(n)
    z -= z.max(axis=1, keepdims=True)
    e = np.exp(z)
    s = e.sum(axis=1, keepdims=True)
    loss = float(np.log(s).mean() - z[rows, y].mean())
    e /= s
    e[rows, y] -= 1.0
    e *= np.float32(1.0 / n)
    return loss, e


class Trainer:
    """Ordinary PyTorch training code; ``torch`` is the retrograd module or the real torch.

    ``build(torch)`` makes the model; ``params`` (NumPy arrays, in ``model.parameters()``
    order) are copied in so every implementation starts from the same weights.
    """

    def __init__(self, torch, build: Callable, params: list[np.ndarray], x: np.ndarray, y: np.ndarray) -> None:
        self.model = build(torch)
        with torch.no_grad():
            for p, a in zip(self.model.parameters(), params):
                p.copy_(torch.from_numpy(a.copy()))
        self.loss_fn = torch.nn.CrossEntropyLoss()
        self.opt = torch.optim.SGD(self.model.parameters(), lr=LR)
        self.x, self.y = torch.from_numpy(x), torch.from_numpy(y)

    def step(self):
        self.opt.zero_grad()
        loss = self.loss_fn(self.model(self.x), self.y)
        loss.backward()
        self.opt.step()
        return loss

    def phases(self, n: int, clock: str = "cpu") -> dict[str, float]:
        """Median seconds of each phase of ``step`` over ``n`` steps."""
        perf = _clock(clock)
        acc: dict[str, list[float]] = {k: [] for k in ("zero_grad", "forward", "loss", "backward", "opt.step")}
        for _ in range(n):
            t0 = perf()
            self.opt.zero_grad()
            t1 = perf()
            out = self.model(self.x)
            t2 = perf()
            loss = self.loss_fn(out, self.y)
            t3 = perf()
            loss.backward()
            t4 = perf()
            self.opt.step()
            t5 = perf()
            for k, a, b in zip(acc, (t0, t1, t2, t3, t4), (t1, t2, t3, t4, t5)):
                acc[k].append(b - a)
        return {k: float(np.median(v)) for k, v in acc.items()}


def print_profile(label: str, trainer: Trainer, n: int, clock: str) -> None:
    """retrograd's time per phase, then the cProfile functions with the most own time."""
    import cProfile
    import pstats

    for _ in range(5):
        trainer.step()
    ph = trainer.phases(n, clock)
    print(f"{label}: retrograd per phase (median ms, {clock} clock): "
          + ", ".join(f"{k} {v * 1e3:.3f}" for k, v in ph.items()))
    prof = cProfile.Profile(_clock(clock))
    prof.enable()
    for _ in range(n):
        trainer.step()
    prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(12)


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
    worst = 0.0
    for mod in (retrograd, real_torch):
        if mod is None:
            continue
        tr = Trainer(mod, mlp, params, x, y)
        loss = float(tr.step().detach())
        assert abs(loss - ref_loss) < 1e-4, (mod.__name__, loss, ref_loss)
        for p, r in zip(tr.model.parameters(), ref.params):
            worst = max(worst, float(np.abs(p.detach().numpy() - r).max()))
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
