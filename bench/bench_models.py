"""Training steps of common small models: retrograd vs torch (spot checks of whole models).

Five workloads, each ``zero_grad(); loss.backward(); opt.step()`` on float32, written once as
ordinary PyTorch code and run with ``torch = retrograd`` and with the real torch:

* transformer: one ``TransformerEncoderLayer(64, 4, 128)`` on (8, 16, 64), SGD;
* cnn-bn-pool: conv 3->16, BatchNorm2d, ReLU, MaxPool2d, conv 16->32, BatchNorm2d, ReLU,
  AdaptiveAvgPool2d, Linear; batch 16 of 3x32x32; SGD with momentum;
* lstm: 2-layer ``LSTM(32, 64)`` over 20 steps, batch 16, then Linear; Adam;
* gru: ``GRU(32, 64)`` over 20 steps, batch 16; Adam;
* embedding: ``Embedding(1000, 64)``, mean over 20 tokens, Linear; AdamW.

Unlike the other benchmarks there is no hand-written NumPy row: writing and checking each
model's backward by hand is out of proportion, and the per-op floor is what
bench_scalar_graph.py / bench_mlp.py / bench_cnn.py measure.  Median CPU time of 15 steps
after warm-up, one BLAS thread for both (NumPy's OpenBLAS via threadpoolctl, torch via
``set_num_threads``).  Run ``python bench/bench_models.py``.
"""
from __future__ import annotations

import time

import numpy as np

import retrograd
from _common import blas_threads, real_torch, steady_allocator


def _transformer(torch):
    layer = torch.nn.TransformerEncoderLayer(64, 4, 128, batch_first=True, dropout=0.0)
    x = torch.randn(8, 16, 64)
    opt = torch.optim.SGD(layer.parameters(), lr=0.01)
    return lambda: (opt.zero_grad(), layer(x).pow(2).mean().backward(), opt.step())


def _cnn(torch):
    nn = torch.nn
    m = nn.Sequential(nn.Conv2d(3, 16, 3, padding=1), nn.BatchNorm2d(16), nn.ReLU(), nn.MaxPool2d(2),
                      nn.Conv2d(16, 32, 3, padding=1), nn.BatchNorm2d(32), nn.ReLU(), nn.AdaptiveAvgPool2d(1),
                      nn.Flatten(), nn.Linear(32, 10))
    x, y = torch.randn(16, 3, 32, 32), torch.randint(0, 10, (16,))
    opt = torch.optim.SGD(m.parameters(), lr=0.01, momentum=0.9)
    return lambda: (opt.zero_grad(), nn.functional.cross_entropy(m(x), y).backward(), opt.step())


def _lstm(torch):
    m, head = torch.nn.LSTM(32, 64, num_layers=2, batch_first=True), torch.nn.Linear(64, 10)
    x, y = torch.randn(16, 20, 32), torch.randint(0, 10, (16,))
    opt = torch.optim.Adam(list(m.parameters()) + list(head.parameters()), lr=1e-3)
    return lambda: (opt.zero_grad(), torch.nn.functional.cross_entropy(head(m(x)[0][:, -1]), y).backward(),
                    opt.step())


def _gru(torch):
    m = torch.nn.GRU(32, 64, batch_first=True)
    x = torch.randn(16, 20, 32)
    opt = torch.optim.Adam(m.parameters())
    return lambda: (opt.zero_grad(), m(x)[0].sum().backward(), opt.step())


def _embedding(torch):
    e, lin = torch.nn.Embedding(1000, 64), torch.nn.Linear(64, 2)
    idx, y = torch.randint(0, 1000, (32, 20)), torch.randint(0, 2, (32,))
    opt = torch.optim.AdamW(list(e.parameters()) + list(lin.parameters()))
    return lambda: (opt.zero_grad(), torch.nn.functional.cross_entropy(lin(e(idx).mean(1)), y).backward(),
                    opt.step())


WORKLOADS = {"transformer": _transformer, "cnn-bn-pool": _cnn, "lstm": _lstm, "gru": _gru, "embedding": _embedding}


def _median_ms(step, n: int = 15) -> float:
    for _ in range(3):
        step()
    times = []
    for _ in range(n):
        t0 = time.process_time()
        step()
        times.append(time.process_time() - t0)
    return float(np.median(times)) * 1e3


def main(argv: list[str] | None = None) -> list[tuple]:
    steady_allocator()
    _, ctx = blas_threads(1)
    rows = []
    with ctx:
        print(f"{'workload':<14}{'retrograd ms':>14}{'torch ms':>10}{'rg/torch':>10}")
        for name, build in WORKLOADS.items():
            retrograd.manual_seed(0)
            t_rg = _median_ms(build(retrograd))
            t_t = float("nan")
            if real_torch is not None:
                real_torch.manual_seed(0)
                t_t = _median_ms(build(real_torch))
            rows.append((name, t_rg, t_t))
            print(f"{name:<14}{t_rg:>14.2f}{t_t:>10.2f}{t_rg / t_t:>10.2f}")
    return rows


if __name__ == "__main__":
    main()
