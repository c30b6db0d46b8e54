"""One training step of a small CNN: retrograd vs torch vs a hand-written NumPy im2col implementation.

Model: conv 1->8 (3x3) + ReLU, conv 8->16 (3x3) + ReLU, flatten, linear 16*24*24 -> 10,
cross-entropy, plain SGD (lr 0.01); 28x28 inputs, batch 32, float32.  As in ``bench_mlp.py``
the retrograd and torch versions are the same ordinary PyTorch code (``_common.Trainer``:
``nn.Sequential`` of ``nn.Conv2d``/``nn.ReLU``/``nn.Flatten``/``nn.Linear``,
``nn.CrossEntropyLoss``, ``optim.SGD``) run with ``torch = retrograd`` and with the real torch.

The NumPy version is im2col written by hand, in two standard layouts (the faster one is the
reference): the classic one (receptive fields gathered with ``sliding_window_view`` into one
(C*9, N*H*W) matrix, one GEMM per convolution, activations kept in the (C, N, H, W) order the
GEMM produces) and per-sample (N, C*9, H*W) matrices with batched GEMMs in (N, C, H, W) order.
Both keep the forward's columns for the weight gradient; col2im is nine strided adds.

Measured as ``bench_mlp.py`` does (same BLAS threads for all, ``--threads``; steady allocator;
interleaved timing; median ms per step after warm-up; ``--clock cpu`` for CPU time); ratios
retrograd/numpy (target <= 1.25) and retrograd/torch.  One step of each is checked to give
the same weights first.

    .venv/bin/python bench/bench_cnn.py [--steps 200] [--threads 1] [--clock cpu] [--profile]
"""
from __future__ import annotations

import argparse

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import retrograd
from _common import (LR, Trainer, blas_threads, cross_entropy_grad, max_weight_diff, print_profile, print_table,
                     real_torch, steady_allocator, time_interleaved)

TARGET = 1.25
BATCH = 32
SHAPES = [(8, 1, 3, 3), (8,), (16, 8, 3, 3), (16,), (10, 16 * 24 * 24), (10,)]


def init_params(seed: int = 0) -> list[np.ndarray]:
    """PyTorch's default init bounds (U(-1/sqrt(fan_in), 1/sqrt(fan_in))) for every tensor."""
    rng = np.random.default_rng(seed)
    params = []
    for i in range(0, len(SHAPES), 2):
        w_shape, b_shape = SHAPES[i], SHAPES[i + 1]
        bound = 1.0 / np.sqrt(int(np.prod(w_shape[1:])))
        params.append(rng.uniform(-bound, bound, w_shape).astype(np.float32))
        params.append(rng.uniform(-bound, bound, b_shape).astype(np.float32))
    return params


def cnn(torch):
    nn = torch.nn
    return nn.Sequential(nn.Conv2d(1, 8, 3), nn.ReLU(), nn.Conv2d(8, 16, 3), nn.ReLU(), nn.Flatten(),
                         nn.Linear(16 * 24 * 24, 10))


# ---------------------------------------------------------------------- NumPy im2col
# Two standard layouts; the benchmark reports against whichever is faster on the machine.
def im2col_cn(x: np.ndarray) -> np.ndarray:
    """(C, N, H, W) -> (C*9, N*Ho*Wo): every 3x3 receptive field as a column (one copy)."""
    c, n, h, w = x.shape
    win = sliding_window_view(x, (3, 3), axis=(2, 3))  # (C, N, Ho, Wo, 3, 3), a view
    return win.transpose(0, 4, 5, 1, 2, 3).reshape(c * 9, n * (h - 2) * (w - 2))


def col2im_cn(cols: np.ndarray, c: int, n: int, h: int, w: int) -> np.ndarray:
    """The adjoint of im2col_cn: (C*9, N*Ho*Wo) -> (C, N, H, W), nine strided adds."""
    ho, wo = h - 2, w - 2
    d = cols.reshape(c, 3, 3, n, ho, wo)
    out = np.zeros((c, n, h, w), dtype=cols.dtype)
    for i in range(3):
        for j in range(3):
            out[:, :, i:i + ho, j:j + wo] += d[:, i, j]
    return out


def im2col_ns(x: np.ndarray) -> np.ndarray:
    """(N, C, H, W) -> (N, C*9, Ho*Wo): per-sample column matrices (one copy)."""
    n, c, h, w = x.shape
    win = sliding_window_view(x, (3, 3), axis=(2, 3))  # (N, C, Ho, Wo, 3, 3), a view
    return win.transpose(0, 1, 4, 5, 2, 3).reshape(n, c * 9, (h - 2) * (w - 2))


def col2im_ns(cols: np.ndarray, c: int, h: int, w: int) -> np.ndarray:
    """The adjoint of im2col_ns: (N, C*9, Ho*Wo) -> (N, C, H, W), nine strided adds."""
    n, ho, wo = cols.shape[0], h - 2, w - 2
    d = cols.reshape(n, c, 3, 3, ho, wo)
    out = np.zeros((n, c, h, w), dtype=cols.dtype)
    for i in range(3):
        for j in range(3):
            out[:, :, i:i + ho, j:j + wo] += d[:, :, i, j]
    return out


class NumpyCNN:
    """Forward, backward and SGD for the CNN by hand (weights in PyTorch's layouts).

    layout "cn": the classic (CS231n-style) im2col, one (C*9, N*H*W) column matrix and one
    GEMM per convolution, activations kept in the (C, N, H, W) order the GEMM produces.
    layout "ns": per-sample (N, C*9, H*W) column matrices and batched GEMMs (np.matmul),
    activations in (N, C, H, W) order throughout (the flatten is free).
    Both keep the forward's columns for the weight gradient; col2im is nine strided adds.
    """

    def __init__(self, params: list[np.ndarray], layout: str = "ns") -> None:
        self.params = [p.copy() for p in params]
        self.step = self._step_ns if layout == "ns" else self._step_cn

    def _sgd(self, grads) -> None:
        lr = np.float32(LR)
        for p, g in zip(self.params, grads):
            g *= lr
            p -= g

    def _step_cn(self, x: np.ndarray, y: np.ndarray) -> float:
        w1, b1, w2, b2, w3, b3 = self.params
        n = x.shape[0]
        # conv1 + relu: (8, N*26*26)
        c1 = im2col_cn(x.transpose(1, 0, 2, 3))
        h1 = w1.reshape(8, -1) @ c1
        h1 += b1[:, None]
        np.maximum(h1, 0, out=h1)
        # conv2 + relu: (16, N*24*24)
        c2 = im2col_cn(h1.reshape(8, n, 26, 26))
        h2 = w2.reshape(16, -1) @ c2
        h2 += b2[:, None]
        np.maximum(h2, 0, out=h2)
        # flatten in PyTorch's (C, H, W) order, linear
        a2 = h2.reshape(16, n, 576).transpose(1, 0, 2).reshape(n, 16 * 576)
        z = a2 @ w3.T
        z += b3
        loss, dz = cross_entropy_grad(z, y)
        g = [None] * 6
        g[4] = dz.T @ a2
        g[5] = dz.sum(axis=0)
        dh2 = (dz @ w3).reshape(n, 16, 576).transpose(1, 0, 2).reshape(16, -1)
        dh2 *= h2 > 0
        g[2] = (dh2 @ c2.T).reshape(w2.shape)
        g[3] = dh2.sum(axis=1)
        dh1 = col2im_cn(w2.reshape(16, -1).T @ dh2, 8, n, 26, 26).reshape(8, -1)
        dh1 *= h1 > 0
        g[0] = (dh1 @ c1.T).reshape(w1.shape)
        g[1] = dh1.sum(axis=1)
        self._sgd(g)
        return loss

    def _step_ns(self, x: np.ndarray, y: np.ndarray) -> float:
        w1, b1, w2, b2, w3, b3 = self.params
        n = x.shape[0]
        # conv1 + relu: (N, 8, 26*26)
        c1 = im2col_ns(x)
        h1 = np.matmul(w1.reshape(8, -1), c1)
        h1 += b1[:, None]
        np.maximum(h1, 0, out=h1)
        # conv2 + relu: (N, 16, 24*24)
        c2 = im2col_ns(h1.reshape(n, 8, 26, 26))
        h2 = np.matmul(w2.reshape(16, -1), c2)
        h2 += b2[:, None]
        np.maximum(h2, 0, out=h2)
        a2 = h2.reshape(n, 16 * 576)
        z = a2 @ w3.T
        z += b3
        loss, dz = cross_entropy_grad(z, y)
        g = [None] * 6
        g[4] = dz.T @ a2
        g[5] = dz.sum(axis=0)
        dh2 = (dz @ w3).reshape(n, 16, 576)
        dh2 *= h2 > 0
        g[2] = np.matmul(dh2, c2.transpose(0, 2, 1)).sum(axis=0).reshape(w2.shape)
        g[3] = dh2.sum(axis=(0, 2))
        dh1 = col2im_ns(np.matmul(w2.reshape(16, -1).T, dh2), 8, 26, 26).reshape(n, 8, -1)
        dh1 *= h1 > 0
        g[0] = np.matmul(dh1, c1.transpose(0, 2, 1)).sum(axis=0).reshape(w1.shape)
        g[1] = dh1.sum(axis=(0, 2))
        self._sgd(g)
        return loss


# ---------------------------------------------------------------------- check and time
def _data(seed: int):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((BATCH, 1, 28, 28)).astype(np.float32)
    y = rng.integers(0, 10, BATCH).astype(np.int64)
    return x, y


def _check() -> float:
    """Max |difference| of the weights after one step: NumPy (other layout), retrograd and torch vs NumPy."""
    params = init_params()
    x, y = _data(1)
    ref = NumpyCNN(params, "ns")
    ref_loss = ref.step(x, y)
    other = NumpyCNN(params, "cn")
    assert abs(other.step(x, y) - ref_loss) < 1e-5
    worst = max(float(np.abs(a - b).max()) for a, b in zip(other.params, ref.params))
    worst = max_weight_diff(cnn, params, x, y, ref_loss, ref.params, worst)
    assert worst < 1e-5, worst
    return worst


def measure(n_steps: int, clock: str = "wall", profile: bool = False) -> dict[str, float]:
    """Median seconds per step of each implementation (both NumPy layouts)."""
    params = init_params()
    x, y = _data(2)
    ns, cn = NumpyCNN(params, "ns"), NumpyCNN(params, "cn")
    rg = Trainer(retrograd, cnn, params, x, y)
    steps = {"numpy ns": lambda: ns.step(x, y), "numpy cn": lambda: cn.step(x, y), "retrograd": rg.step}
    if real_torch is not None:
        steps["torch"] = Trainer(real_torch, cnn, params, x, y).step
    t = time_interleaved(steps, n_steps, clock=clock)
    if profile:
        print_profile(f"CNN batch {BATCH}", rg, n_steps, clock)
    return t


def main(argv: list[str] | None = None) -> list[tuple]:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--steps", type=int, default=200, help="timed steps per implementation")
    ap.add_argument("--threads", type=int, default=None, help="BLAS threads for all three (default: NumPy's)")
    ap.add_argument("--clock", choices=("wall", "cpu"), default="wall",
                    help="wall: perf_counter; cpu: this process's CPU time (steadier on a loaded machine)")
    ap.add_argument("--profile", action="store_true", help="also print retrograd's phases and cProfile hot spots")
    args = ap.parse_args(argv if argv is not None else [])
    n, ctx = blas_threads(args.threads)
    steady_allocator()
    with ctx:
        diff = _check()
        t = measure(args.steps, args.clock, args.profile)
    t_np = min(t["numpy ns"], t["numpy cn"])
    rows = [(f"CNN step, batch {BATCH}", t_np, t["retrograd"], t.get("torch", float("nan")))]
    print(f"NumPy im2col: per-sample layout {t['numpy ns'] * 1e3:.3f} ms, (C, N*H*W) layout "
          f"{t['numpy cn'] * 1e3:.3f} ms; the faster one is the reference")
    print_table(f"CNN conv(1->8,3x3)-relu-conv(8->16,3x3)-relu-linear(9216->10), CE, SGD; float32; "
                f"BLAS threads = {n}; {args.clock} clock, median of {args.steps} steps; one-step weights "
                f"agree to {diff:.1e}", rows, TARGET)
    return rows


if __name__ == "__main__":
    import sys

    main(sys.argv[1:])
