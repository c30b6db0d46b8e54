"""Tests of the matrix functions ops (src/retrograd/_ops/linalg/matrix_functions.py), checked against PyTorch."""

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from .._compare_helpers import _both, _raises_like, _same  # noqa: E402


def test_matrix_exp_float32_accuracy():
    a = np.random.default_rng(0).uniform(-9, 9, (3, 5, 5)).astype(np.float32)
    ref = torch.matrix_exp(torch.tensor(a, dtype=torch.float64)).numpy()
    got = rg.matrix_exp(rg.tensor(a))
    assert got.dtype == rg.float32
    scale = np.abs(ref).max(axis=(-2, -1), keepdims=True)
    assert (np.abs(got.numpy() - ref) / scale).max() < 1e-6


def test_matrix_exp_large_norm_and_grad():
    a = np.random.default_rng(3).uniform(-4, 4, (2, 3, 3))
    r, t = _both(a)
    r.requires_grad_(True)
    t.requires_grad_(True)
    _same(retrograd.linalg.matrix_exp(r), torch.linalg.matrix_exp(t), atol=1e-8)
    g = retrograd.autograd.grad(retrograd.matrix_exp(r).sum(), r)[0]
    tg = torch.autograd.grad(torch.matrix_exp(t).sum(), t)[0]
    _same(g, tg, atol=1e-7)
    _raises_like(lambda L: L.matrix_exp(L.ones(2, 3)))
