"""Measurement helpers shared by ``bench_mlp.py`` and ``bench_cnn.py``.

BLAS thread control, a steady allocator, interleaved timing, the result table, the ordinary
PyTorch training step (``Trainer``, run with ``torch = retrograd`` and with the real torch)
and the one-step check against a NumPy reference.  Not a benchmark itself (``run_all.py``
only runs ``bench_*.py``).
"""
from __future__ import annotations

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

LR = 0.01  # plain SGD learning rate of the training benchmarks


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


def max_weight_diff(build: Callable, params: list[np.ndarray], x: np.ndarray, y: np.ndarray, ref_loss: float,
                    ref_params: list[np.ndarray], worst: float = 0.0) -> float:
    """One ``Trainer`` step with retrograd and with torch (if installed) from ``params``: check the loss
    against ``ref_loss`` and return the max |difference| of the weights from ``ref_params`` (at least ``worst``)."""
    for mod in (retrograd, real_torch):
        if mod is None:
            continue
        tr = Trainer(mod, build, params, x, y)
        loss = float(tr.step().detach())
        assert abs(loss - ref_loss) < 1e-4, (mod.__name__, loss, ref_loss)
        for p, r in zip(tr.model.parameters(), ref_params):
            worst = max(worst, float(np.abs(p.detach().numpy() - r).max()))
    return worst
