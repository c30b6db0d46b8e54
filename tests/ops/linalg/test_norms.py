"""Tests of the norms ops (src/retrograd/_ops/linalg/norms.py), checked against PyTorch."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._helpers import _np, assert_same, both, same_error, t  # noqa: E402
from .._compare_helpers import _raises_like  # noqa: E402


RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- cond
@pytest.mark.parametrize("p", ["fro", math.inf, -math.inf, 1, -1])
def test_cond_inverse_norm_gradients(p):
    # torch 2.13 cannot backpropagate through these (an in-place fill of a saved tensor):
    # compare with torch's gradient of the same formula, norm(A) * norm(inv(A))
    a = RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3)
    A = retrograd.tensor(a, requires_grad=True)
    ours = retrograd.linalg.cond(A, p)
    assert type(ours.grad_fn).__name__ == "NanToNumBackward0"
    ta = torch.tensor(a, requires_grad=True)
    ref = torch.linalg.matrix_norm(ta, p) * torch.linalg.matrix_norm(torch.linalg.inv(ta), p)
    np.testing.assert_allclose(_np(ours), _np(torch.linalg.cond(torch.tensor(a), p)), rtol=1e-10)
    (g,) = retrograd.autograd.grad(ours.sum(), A)
    (tg,) = torch.autograd.grad(ref.sum(), ta)
    np.testing.assert_allclose(_np(g), _np(tg), rtol=1e-8, atol=1e-10)
    assert retrograd.autograd.gradgradcheck(lambda x: retrograd.linalg.cond(x, p), (A,))


def test_cond_singular_and_empty():
    for p in ("fro", 1, -1, math.inf):  # exactly singular: inf
        theirs, ours = both(lambda L: L.linalg.cond(L.stack([L.eye(2), L.tensor([[1., 2.], [2., 4.]])]), p))
        assert_same(ours, theirs)
    for p in (None, 2, -2, "fro", "nuc", 1, math.inf):
        theirs, ours = both(lambda L: L.linalg.cond(L.zeros(2, 0, 0), p))
        assert_same(ours, theirs)
    theirs, ours = both(lambda L: L.linalg.cond(L.stack([L.eye(2), L.zeros(2, 2)]), "nuc"))
    assert_same(ours, theirs)  # 0 * inf: NaN, as in torch


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.cond(L.ones(2, 2), 3),
    lambda L: L.linalg.cond(L.ones(2, 2), "foo"),
    lambda L: L.linalg.cond(L.ones(2, 3), "fro"),
    lambda L: L.linalg.cond(L.ones(2, 3), math.inf),
    lambda L: L.linalg.cond(L.ones(2, 3), -1),
    lambda L: L.linalg.cond(L.ones(3)),
    lambda L: L.linalg.cond(L.ones(2, 2, dtype=L.int64)),
    lambda L: L.linalg.cond(L.ones(2, 2, dtype=L.int64), "fro"),
])
def test_cond_errors(call):
    same_error(call)


def test_deprecated_norms_warn_and_check_dims():
    import retrograd._ops.linalg.lu as lu_mod

    x = RNG.standard_normal((2, 3, 4))
    lu_mod._warned.clear()  # (torch warns once per process; so does retrograd)
    with pytest.warns(UserWarning, match="at::frobenius_norm is deprecated"):
        retrograd.frobenius_norm(t(retrograd, x), (1, 2))
    with pytest.warns(UserWarning, match="at::nuclear_norm is deprecated"):
        retrograd.nuclear_norm(t(retrograd, x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second call is silent
        retrograd.frobenius_norm(t(retrograd, x), (1, 2))
    theirs, ours = both(lambda L: L.nuclear_norm(t(L, x)))  # 3-d input: the last two dims
    assert_same(ours, theirs)
    same_error(lambda L: L.frobenius_norm(L.ones(2, 2, 2), (0, 1, 2)))
    same_error(lambda L: L.frobenius_norm(L.ones(2, 2), (0, 0)))
    same_error(lambda L: L.nuclear_norm(L.ones(3)))


def test_renorm_errors():
    _raises_like(lambda L: L.renorm(L.ones(2, 2, dtype=L.long), 2, 0, 1))
    _raises_like(lambda L: L.renorm(L.ones(3), 2, 0, 1))
    _raises_like(lambda L: L.renorm(L.ones(2, 2), -1, 0, 1))
