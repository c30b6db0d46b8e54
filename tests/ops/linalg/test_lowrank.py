"""Tests of the lowrank ops (src/retrograd/_ops/linalg/lowrank.py), checked against PyTorch."""
from __future__ import annotations


import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._helpers import _np, same_error, t  # noqa: E402


RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- randomised low-rank factorisations
@pytest.mark.parametrize("shape,q", [((8, 5), 3), ((4, 9), 3), ((2, 7, 6), 2)])
def test_svd_lowrank_reconstructs_low_rank_matrix(shape, q):
    retrograd.manual_seed(0)
    *batch, m, n = shape
    a = RNG.standard_normal((*batch, m, q)) @ RNG.standard_normal((*batch, q, n))
    U, S, V = retrograd.svd_lowrank(t(retrograd, a), q=q + 1)
    tU, tS, tV = torch.svd_lowrank(t(torch, a), q=q + 1)
    assert [tuple(x.shape) for x in (U, S, V)] == [tuple(x.shape) for x in (tU, tS, tV)]
    rec = _np(U) @ (_np(S)[..., :, None] * np.swapaxes(_np(V), -1, -2))
    np.testing.assert_allclose(rec, a, atol=1e-9)
    np.testing.assert_allclose(_np(S)[..., :q], _np(tS)[..., :q], rtol=1e-8)  # exact rank: same values


def test_svd_lowrank_with_M_and_pca_lowrank():
    retrograd.manual_seed(1)
    a = RNG.standard_normal((6, 2)) @ RNG.standard_normal((2, 4)) + RNG.standard_normal((1, 4))
    mean = a.mean(0, keepdims=True)
    U, S, V = retrograd.svd_lowrank(t(retrograd, a), q=3, M=t(retrograd, mean))
    np.testing.assert_allclose(_np(U) @ np.diag(_np(S)) @ _np(V).T, a - mean, atol=1e-9)
    U, S, V = retrograd.pca_lowrank(t(retrograd, a), q=3)
    tS = torch.pca_lowrank(t(torch, a), q=3)[1]
    np.testing.assert_allclose(_np(S)[:2], _np(tS)[:2], rtol=1e-8)
    np.testing.assert_allclose(_np(U) @ np.diag(_np(S)) @ _np(V).T, a - mean, atol=1e-9)
    # gradients flow through the (composite) factorisation
    A = t(retrograd, a, requires_grad=True)
    retrograd.pca_lowrank(A, q=2)[1].sum().backward()
    assert A.grad is not None and np.isfinite(_np(A.grad)).all()


@pytest.mark.parametrize("call", [
    lambda L: L.pca_lowrank(L.ones(3, 4), q=5),
    lambda L: L.pca_lowrank(L.ones(3, 4), q=-1),
    lambda L: L.pca_lowrank(L.ones(3, 4), niter=-1),
    lambda L: L.svd_lowrank(L.ones(3)),
    lambda L: L.pca_lowrank(L.ones(3)),
])
def test_lowrank_errors(call):
    same_error(call, ValueError)
