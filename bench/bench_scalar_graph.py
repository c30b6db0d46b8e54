"""Benchmark: the seed's scalar graphs, scaled to 10,000 ops on 0-d tensors.

The seed (``/work/shared/seed/autograd-blog.txt``) builds ``y = (x + 1) * (x + 2)`` and
``z = x * x * y`` on 0-d tensors.  Here one *block* chains both patterns through a
running value ``h``::

    a = add(h, 1); b = add(h, 2); c = mul(a, b); d = mul(c, x); h = mul(d, y)

(5 ops; ``x`` and ``y`` are leaves that require grad, so their gradients accumulate over
every block).  2,000 blocks give 10,000 ops; then ``h.backward()``.  ``h`` stays bounded
(``h -> 0.1 (h + 1)(h + 2)`` has a stable fixed point near 0.3), so no value overflows.

Three implementations run the same graph in one process:

* retrograd (``import retrograd as torch``),
* torch 2.13 CPU (skipped when not installed),
* plain NumPy: the forward on 0-d float32 arrays with a hand-written tape and backward.

Each is timed forward + backward (best of ``repeats``) and reported as microseconds per
op and as a ratio to torch.  Run ``python bench/bench_scalar_graph.py`` or
``python bench/run_all.py``.
"""
from __future__ import annotations

import time

import numpy as np

WORKLOAD = "scalar graph (seed), 10k ops on 0-d, fwd+bwd"
N_BLOCKS = 2000
OPS_PER_BLOCK = 5
N_OPS = N_BLOCKS * OPS_PER_BLOCK
X0, Y0, H0 = 0.2, 0.5, 1.0


def graph_torchlike(torch, n_blocks: int = N_BLOCKS):
    """Forward + backward with a torch-like module; returns (h, x.grad, y.grad) as floats."""
    x = torch.tensor(X0, requires_grad=True)
    y = torch.tensor(Y0, requires_grad=True)
    h = torch.tensor(H0, requires_grad=True)
    add, mul = torch.add, torch.mul
    for _ in range(n_blocks):
        a = add(h, 1)
        b = add(h, 2)
        c = mul(a, b)
        d = mul(c, x)
        h = mul(d, y)
    h.backward()
    return float(h.detach()), float(x.grad), float(y.grad)


def graph_numpy(n_blocks: int = N_BLOCKS):
    """The same graph by hand: forward with a tape of what backward needs, then backward."""
    f32 = np.float32
    x = np.array(X0, dtype=f32)
    y = np.array(Y0, dtype=f32)
    h = np.array(H0, dtype=f32)
    one, two = np.array(1, dtype=f32), np.array(2, dtype=f32)
    tape = []
    append = tape.append
    for _ in range(n_blocks):
        a = h + one
        b = h + two
        c = a * b
        d = c * x
        append((a, b, c, d))
        h = d * y
    # backward: dh/dh = 1; walk the blocks newest first.
    gh = np.array(1, dtype=f32)
    gx = np.array(0, dtype=f32)
    gy = np.array(0, dtype=f32)
    for a, b, c, d in reversed(tape):
        gy = gy + gh * d
        gd = gh * y
        gx = gx + gd * c
        gc = gd * x
        ga = gc * b
        gb = gc * a
        gh = ga + gb
    return float(h), float(gx), float(gy)


def _best(fn, repeats: int) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        best = min(best, time.perf_counter() - t0)
    return best


def run(repeats: int = 5) -> list[dict]:
    """Time every implementation; rows of {workload, impl, us_per_op, ratio_to_torch}."""
    import retrograd

    impls = {"retrograd": lambda: graph_torchlike(retrograd)}
    try:
        import torch
    except ImportError:  # torch is a test-only dependency
        torch = None
    if torch is not None:
        torch.set_num_threads(1)
        impls["torch"] = lambda: graph_torchlike(torch)
    impls["numpy (by hand)"] = graph_numpy

    # Same numbers everywhere, or the timing compares different work.
    ref = graph_numpy()
    for name, fn in impls.items():
        got = fn()
        if not np.allclose(got, ref, rtol=1e-4):
            raise AssertionError(f"{name} computed {got}, expected {ref}")

    times = {name: _best(fn, repeats) for name, fn in impls.items()}
    t_torch = times.get("torch")
    return [{"workload": WORKLOAD, "impl": name, "us_per_op": t / N_OPS * 1e6,
             "ratio_to_torch": (t / t_torch) if t_torch else None}
            for name, t in times.items()]


def main() -> None:
    from run_all import print_table  # noqa: PLC0415 - bench/ is the script directory

    print_table(run())


if __name__ == "__main__":
    main()
