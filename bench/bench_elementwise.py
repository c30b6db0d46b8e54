"""Elementwise and reduction ops on 1,000,000-element float32 arrays: retrograd vs bare NumPy vs torch.

Reports the median time of each op and the ratio retrograd / NumPy (target <= 1.15x).
Run: python bench/bench_elementwise.py
"""
from __future__ import annotations

import time

import numpy as np

import retrograd as rg

try:
    import torch
except ImportError:  # torch is optional for benchmarks
    torch = None

N = 1_000_000
REPEAT = 30


def _median_time(fn) -> float:
    fn()
    times = []
    for _ in range(REPEAT):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return float(np.median(times))


def main() -> list[dict]:
    rng = np.random.default_rng(0)
    a = rng.uniform(0.5, 2.0, N).astype(np.float32)
    b = rng.uniform(0.5, 2.0, N).astype(np.float32)
    ra, rb = rg.from_numpy(a), rg.from_numpy(b)
    ta, tb = (torch.from_numpy(a), torch.from_numpy(b)) if torch else (None, None)
    cases = [
        ("add", lambda: np.add(a, b), lambda: ra + rb, lambda: ta + tb),
        ("mul", lambda: np.multiply(a, b), lambda: ra * rb, lambda: ta * tb),
        ("div", lambda: np.divide(a, b), lambda: ra / rb, lambda: ta / tb),
        ("exp", lambda: np.exp(a), lambda: rg.exp(ra), lambda: torch.exp(ta)),
        ("log", lambda: np.log(a), lambda: rg.log(ra), lambda: torch.log(ta)),
        ("sqrt", lambda: np.sqrt(a), lambda: rg.sqrt(ra), lambda: torch.sqrt(ta)),
        ("tanh", lambda: np.tanh(a), lambda: rg.tanh(ra), lambda: torch.tanh(ta)),
        ("sum", lambda: a.sum(), lambda: ra.sum(), lambda: ta.sum()),
        ("mean", lambda: a.mean(), lambda: ra.mean(), lambda: ta.mean()),
        ("amax", lambda: a.max(), lambda: ra.amax(), lambda: ta.amax()),
    ]
    rows = []
    print(f"{'op':<8}{'numpy ms':>10}{'retrograd ms':>14}{'torch ms':>10}{'rg/numpy':>10}{'rg/torch':>10}")
    for name, f_np, f_rg, f_t in cases:
        t_np, t_rg = _median_time(f_np), _median_time(f_rg)
        t_t = _median_time(f_t) if torch else float("nan")
        rows.append(dict(op=name, numpy=t_np, retrograd=t_rg, torch=t_t))
        print(f"{name:<8}{t_np * 1e3:>10.3f}{t_rg * 1e3:>14.3f}{t_t * 1e3:>10.3f}{t_rg / t_np:>10.2f}{t_rg / t_t:>10.2f}")
    return rows


if __name__ == "__main__":
    main()
