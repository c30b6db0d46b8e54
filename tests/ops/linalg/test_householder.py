"""Tests of the householder ops (src/retrograd/_ops/linalg/householder.py), checked against PyTorch."""
from __future__ import annotations


import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from ._helpers import LIBS, assert_same, both, same_error, t  # noqa: E402
from .._nn_linalg_helpers import _close, _np as _np_nn_linalg, _pair  # noqa: E402


RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- Householder / geqrf
@pytest.mark.parametrize("shape", [(5, 3), (3, 3), (2, 4, 2), (0, 0), (4, 0)])
def test_geqrf_and_householder_product_match_torch(shape):
    a = RNG.standard_normal(shape)
    theirs, ours = both(lambda L: L.geqrf(t(L, a)))
    assert_same(tuple(ours), tuple(theirs))
    theirs, ours = both(lambda L: L.linalg.householder_product(*L.geqrf(t(L, a))))
    assert_same(ours, theirs)


def test_geqrf_has_no_derivative():
    for lib in LIBS:
        x = lib.eye(3, requires_grad=True)
        a, _tau = lib.geqrf(x)
        assert type(a.grad_fn).__name__ == "GeqrfBackward0"
        with pytest.raises(NotImplementedError, match="the derivative for 'geqrf' is not implemented."):
            a.sum().backward()


@pytest.mark.parametrize("call,exc", [
    (lambda L: L.linalg.householder_product(L.ones(2, 3), L.ones(2)), RuntimeError),
    (lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(3)), RuntimeError),
    (lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(2, dtype=L.float64)), RuntimeError),
    (lambda L: L.linalg.householder_product(L.ones(3), L.ones(2)), RuntimeError),
    (lambda L: L.linalg.householder_product(L.ones(3, 2), L.ones(1, 2)), RuntimeError),
    (lambda L: L.linalg.householder_product(L.ones(2, 3, 2), L.ones(3, 2)), RuntimeError),
    (lambda L: L.linalg.householder_product(L.ones(3, 2, dtype=L.int64), L.ones(2, dtype=L.int64)),
     NotImplementedError),
    (lambda L: L.geqrf(L.ones(3)), RuntimeError),
    (lambda L: L.geqrf(L.ones(3, 3, dtype=L.int64)), NotImplementedError),
])
def test_householder_errors(call, exc):
    same_error(call, exc)


def test_householder_product_no_reflectors():
    res = []
    for lib in (torch, rg):
        a = lib.ones(3, 2, dtype=lib.float64, requires_grad=True)
        tau = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        q = lib.linalg.householder_product(a, tau)
        # (torch's graph does not reach ``a`` then: None; retrograd's gives zeros)
        ga, gt = lib.autograd.grad(q.sum(), (a, tau), allow_unused=True)
        res.append((q.tolist(), [[0.0] * 2] * 3 if ga is None else ga.tolist(), 0 if gt is None else gt.numel()))
    assert res[0] == res[1]


# ------------------------------------------------------- ormqr, cov, matrix_exp
@pytest.mark.parametrize("shape,other", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 4), (2, 4, 3))])
@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr(shape, other, left, transpose):
    a = np.random.default_rng(1).standard_normal(shape)
    at, tt = torch.geqrf(torch.tensor(a))
    if not left:
        other = other[:-2] + other[-2:][::-1]
    ct, cr = _pair(other, 2)
    res = []
    for lib, c in ((torch, ct), (rg, cr)):
        A = lib.tensor(_np_nn_linalg(at), requires_grad=True)
        tau = lib.tensor(_np_nn_linalg(tt), requires_grad=True)
        out = lib.ormqr(A, tau, c, left=left, transpose=transpose)
        res.append((out, lib.autograd.grad((out * out.detach()).sum() + out.sum(), (A, tau, c))))
    _close(res[0][0], res[1][0])
    for a_, b_ in zip(res[0][1], res[1][1]):
        _close(a_, b_, 1e-8)


@pytest.mark.parametrize("src", [
    "T.ormqr(T.zeros(5, 3), T.zeros(3), T.zeros(4, 2))",
    "T.ormqr(T.zeros(5, 3), T.zeros(3), T.zeros(2, 4), left=False)",
    "T.ormqr(T.zeros(5, 3), T.zeros(4), T.zeros(5, 2))",
    "T.ormqr(T.zeros(5), T.zeros(3), T.zeros(5, 2))",
    "T.ormqr(T.zeros(5, 3), T.zeros(3), T.zeros(5))",
    "T.ormqr(T.zeros(2, 5, 3), T.zeros(3), T.zeros(2, 5, 2))",
    "T.ormqr(T.zeros(2, 5, 3), T.zeros(2, 3), T.zeros(5, 2))",
    "T.ormqr(T.zeros(2, 5, 3), T.zeros(2, 3), T.zeros(3, 5, 2))",
    "T.ormqr(T.zeros(5, 3, dtype=T.float64), T.zeros(3, dtype=T.float64), T.zeros(5, 2))",
])
def test_ormqr_errors(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]
