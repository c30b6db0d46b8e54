"""Activation checkpointing: peak memory of forward+backward on a deep MLP, with and without.

Each layer is built from plain ops: z = h @ W + b; h = z * sigmoid(1.702 z) (a GELU-like
activation, so a layer saves several activation-sized tensors).  Peak memory is
tracemalloc's peak (NumPy reports its array allocations to tracemalloc), measured from
just before the forward to the end of backward (parameters excluded, their gradients
included).  Gradients must be identical.

    .venv/bin/python bench/bench_checkpoint.py [--depth 32] [--width 128] [--batch 2048] [--segments 6]
"""
from __future__ import annotations

import argparse
import gc
import time
import tracemalloc

import numpy as np

import retrograd as torch
from retrograd.utils.checkpoint import checkpoint, checkpoint_sequential


def make_params(depth: int, width: int):
    rng = np.random.default_rng(0)
    params = []
    for _ in range(depth):
        w = torch.tensor((rng.standard_normal((width, width)) / np.sqrt(width)).astype(np.float32),
                         requires_grad=True)
        b = torch.tensor((rng.standard_normal(width) * 0.1).astype(np.float32), requires_grad=True)
        params.append((w, b))
    return params


def layer(w, b):
    def f(h):
        z = h @ w + b
        return z * (z * 1.702).sigmoid()
    return f


def run(mode: str, params, x, segments: int):
    for w, b in params:
        w.grad = b.grad = None
    layers = [layer(w, b) for w, b in params]
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    t0 = time.perf_counter()
    h = x
    if mode == "plain":
        for f in layers:
            h = f(h)
    elif mode == "per-layer":
        for f in layers:
            h = checkpoint(f, h, use_reentrant=False)
    else:
        h = checkpoint_sequential(layers, segments, x, use_reentrant=False)
    loss = (h * h).mean()
    loss.backward()
    elapsed = time.perf_counter() - t0
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    grads = [p.grad._data.copy() for wb in params for p in wb]
    return peak, elapsed, grads


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--depth", type=int, default=32)
    ap.add_argument("--width", type=int, default=128)
    ap.add_argument("--batch", type=int, default=2048)
    ap.add_argument("--segments", type=int, default=6)
    args = ap.parse_args()
    params = make_params(args.depth, args.width)
    x = torch.tensor(np.random.default_rng(1).standard_normal((args.batch, args.width)).astype(np.float32))
    act_mb = args.batch * args.width * 4 / 2**20
    print(f"deep MLP: depth={args.depth} width={args.width} batch={args.batch} (float32; one activation = "
          f"{act_mb:.2f} MiB)")
    base_peak, base_t, base_grads = run("plain", params, x, args.segments)
    print(f"{'mode':<28}{'peak MiB':>10}{'vs plain':>10}{'time s':>9}{'max |dgrad|':>13}")
    print(f"{'no checkpoint':<28}{base_peak / 2**20:>10.1f}{'1.00x':>10}{base_t:>9.2f}{0.0:>13.1e}")
    for mode, label in (("per-layer", "checkpoint every layer"),
                        ("sequential", f"checkpoint_sequential({args.segments})")):
        peak, t, grads = run(mode, params, x, args.segments)
        diff = max(float(np.abs(a - b).max()) for a, b in zip(grads, base_grads))
        print(f"{label:<28}{peak / 2**20:>10.1f}{base_peak / peak:>9.2f}x{t:>9.2f}{diff:>13.1e}")


if __name__ == "__main__":
    main()
