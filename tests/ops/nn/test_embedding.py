"""Tests of the embedding ops (src/retrograd/_ops/nn/embedding.py), checked against PyTorch."""

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


def test_embedding_bag_bookkeeping_outputs():
    w = np.random.default_rng(1).standard_normal((10, 3))
    idx, off = [1, 2, 4, 5, 4, 3], [0, 3]
    for dt in ("float32", "float64"):
        for mode in (0, 1, 2):
            r = retrograd.embedding_bag(retrograd.tensor(w, dtype=getattr(retrograd, dt)), retrograd.tensor(idx),
                                        retrograd.tensor(off), False, mode)
            t = torch.embedding_bag(torch.tensor(w, dtype=getattr(torch, dt)), torch.tensor(idx),
                                    torch.tensor(off), False, mode)
            for a, b in zip(r[1:], t[1:]):
                assert a.tolist() == b.tolist(), (dt, mode)
