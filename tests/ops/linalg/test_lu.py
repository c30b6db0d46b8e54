"""The LU family (src/retrograd/_ops/linalg/lu.py): lu_factor(_ex), lu, lu_unpack, lu_solve, values,
pivots, gradients and errors, against torch (the oracle)."""
from __future__ import annotations


import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._helpers import LIBS, _np, assert_same, both, same_error, t  # noqa: E402


RNG = np.random.default_rng(0)
SINGULAR = [[0., 1., 2.], [0., 3., 4.], [0., 5., 7.]]


# ---------------------------------------------------------------- LU values and pivots
@pytest.mark.parametrize("shape", [(4, 4), (3, 5), (5, 3), (2, 3, 4, 4), (1, 1), (0, 0), (0, 3), (3, 0), (2, 0, 0)])
def test_lu_factor_ex_and_lu_match_torch(shape):
    a = RNG.standard_normal(shape)
    theirs, ours = both(lambda L: L.linalg.lu_factor_ex(t(L, a)))
    assert_same(tuple(ours), tuple(theirs))
    assert ours.pivots.dtype == retrograd.int32 and ours.info.dtype == retrograd.int32
    theirs, ours = both(lambda L: L.linalg.lu(t(L, a)))
    assert_same(tuple(ours), tuple(theirs))
    P, L_, U = ours
    np.testing.assert_allclose(_np(P @ L_ @ U), a, atol=1e-12)


def test_float32_results_and_pivots():
    a = RNG.standard_normal((3, 3)).astype(np.float32)
    (tLU, tp), (rLU, rp) = both(lambda L: L.linalg.lu_factor(L.from_numpy(a.copy())))
    assert rLU.dtype == retrograd.float32 and rp.dtype == retrograd.int32
    np.testing.assert_allclose(_np(rLU), _np(tLU), atol=1e-6)
    assert _np(rp).tolist() == _np(tp).tolist()


@pytest.mark.parametrize("a", [SINGULAR, [[1., 2., 3.], [2., 4., 6.], [1., 0., 1.]], np.zeros((2, 3, 3)),
                               [[float("nan"), 1.], [2., 3.]]])
def test_singular_input_gives_info_and_torch_factors(a):
    theirs, ours = both(lambda L: L.linalg.lu_factor_ex(t(L, a)))
    assert_same(tuple(ours), tuple(theirs))
    assert _np(ours.info).any() == _np(theirs.info).any()


def test_lu_factor_raises_on_singular_like_torch():
    same_error(lambda L: L.linalg.lu_factor(t(L, SINGULAR)))
    same_error(lambda L: L.linalg.lu_factor(L.stack([L.eye(3, dtype=L.float64), t(L, SINGULAR)])))
    same_error(lambda L: L.linalg.lu_factor_ex(t(L, SINGULAR), check_errors=True))
    theirs, ours = both(lambda L: L.lu(t(L, SINGULAR)))  # torch.lu does not raise
    assert_same(ours, theirs)
    theirs, ours = both(lambda L: L.lu(t(L, SINGULAR), get_infos=True))  # no error with get_infos
    assert_same(tuple(ours), tuple(theirs))
    assert type(ours).__name__ == "_lu_with_info" and ours.info.item() == 1


@pytest.mark.parametrize("call,exc", [
    (lambda L: L.linalg.lu_factor(L.ones(3)), RuntimeError),
    (lambda L: L.linalg.lu(L.ones(3)), RuntimeError),
    (lambda L: L.linalg.lu_factor(L.ones(3, 3, dtype=L.int64)), NotImplementedError),
    (lambda L: L.linalg.lu(L.ones(2, 2, dtype=L.float16)), NotImplementedError),
    (lambda L: L.linalg.lu_factor(L.eye(2), pivot=False), RuntimeError),
    (lambda L: L.linalg.lu(L.eye(2), pivot=False), RuntimeError),
    (lambda L: L.linalg.lu_factor([[1.]]), TypeError),
    (lambda L: L.lu(L.ones(2)), RuntimeError),
])
def test_lu_argument_errors(call, exc):
    same_error(call, exc)


def test_torch_lu_warns_and_returns_pair():
    # (torch warns once per process, and so does retrograd: only ours is checked, from a clean slate)
    import retrograd._ops.linalg.lu as lu_mod

    lu_mod._warned.clear()
    with pytest.warns(UserWarning, match="torch.lu is deprecated in favor of torch.linalg.lu_factor"):
        res = retrograd.lu(retrograd.eye(2))
    assert type(res) is tuple and len(res) == 2
    with pytest.warns(UserWarning, match="torch.lu_solve is deprecated"):
        retrograd.lu_solve(retrograd.ones(2, 1), *retrograd.linalg.lu_factor(retrograd.eye(2)))


def test_tensor_methods():
    a = RNG.standard_normal((3, 3)) + 3 * np.eye(3)
    b = RNG.standard_normal((3, 2))
    theirs, ours = both(lambda L: t(L, b).lu_solve(*t(L, a).lu()))
    assert_same(ours, theirs)
    theirs, ours = both(lambda L: t(L, b).triangular_solve(t(L, a)).solution)
    assert_same(ours, theirs)
    theirs, ours = both(lambda L: t(L, a).geqrf())
    assert_same(tuple(ours), tuple(theirs))
    theirs, ours = both(lambda L: t(L, a).geqrf()[0].orgqr(t(L, a).geqrf()[1]))
    assert_same(ours, theirs)


# ---------------------------------------------------------------- lu_unpack
def test_lu_unpack_flags():
    a = RNG.standard_normal((4, 3))
    for kw in ({}, {"unpack_data": False}, {"unpack_pivots": False}):
        theirs, ours = both(lambda L: L.lu_unpack(*L.linalg.lu_factor(t(L, a)), **kw))
        assert_same(tuple(ours), tuple(theirs))
        assert not ours.P.requires_grad


def test_lu_unpack_integer_data():
    theirs, ours = both(lambda L: L.lu_unpack(L.zeros(3, 3, dtype=L.int64), L.ones(3, dtype=L.int32)))
    assert_same(tuple(ours), tuple(theirs))


@pytest.mark.parametrize("call", [
    lambda L: L.lu_unpack(L.zeros(3), L.ones(2, dtype=L.int32)),
    lambda L: L.lu_unpack(L.eye(3), L.ones(3, dtype=L.int64)),
    lambda L: L.lu_unpack(L.eye(3), L.tensor([4, 1, 1], dtype=L.int32)),
    lambda L: L.lu_unpack(L.eye(3), L.zeros(3, dtype=L.int32)),
])
def test_lu_unpack_errors(call):
    same_error(call)


# ---------------------------------------------------------------- lu_solve
@pytest.mark.parametrize("left", [True, False])
@pytest.mark.parametrize("adjoint", [True, False])
def test_lu_solve_batched_broadcast_and_grads(left, adjoint):
    a = RNG.uniform(-0.5, 0.5, (2, 1, 3, 3)) + 2 * np.eye(3)
    b = RNG.standard_normal((3, 2) if left else (2, 3))
    b = np.broadcast_to(b, (2, 4) + b.shape).copy()
    res = []
    for lib in LIBS:
        A = t(lib, a, requires_grad=True)
        B = t(lib, b, requires_grad=True)
        X = lib.linalg.lu_solve(*lib.linalg.lu_factor(A), B, left=left, adjoint=adjoint)
        w = t(lib, np.linspace(-1, 1, X.numel()).reshape(X.shape))
        gA, gB = lib.autograd.grad((X * w).sum(), (A, B))
        res.append((X, gA, gB))
    assert_same(res[1], res[0], atol=1e-10)
    Xn = _np(res[1][0])
    A_ = np.swapaxes(a, -1, -2) if adjoint else a
    np.testing.assert_allclose((A_ @ Xn) if left else (Xn @ A_), b, atol=1e-10)


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.lu_solve(L.zeros(2, 3), L.ones(2, dtype=L.int32), L.ones(2, 1)),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(4, 2)),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3)),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3, 2, dtype=L.float64)),
    lambda L: L.linalg.lu_solve(L.eye(3), L.ones(3, dtype=L.int64), L.ones(3, 2)),
    lambda L: L.linalg.lu_solve(L.eye(3).expand(2, 3, 3), L.ones(3, dtype=L.int32), L.ones(3, 2)),
    lambda L: L.linalg.lu_solve(*L.linalg.lu_factor(L.eye(3)), L.ones(3, 4), left=False),
    lambda L: L.linalg.lu_solve(L.zeros(2, 2, dtype=L.int64), L.ones(2, dtype=L.int32), L.ones(2, 1)),
])
def test_lu_solve_errors(call):
    same_error(call)


# ---------------------------------------------------------------- gradients at higher order
def test_lu_second_derivative_wide_and_tall():
    gradgradcheck = retrograd.autograd.gradgradcheck
    for shape in [(2, 4), (4, 2), (2, 3, 3)]:
        a = RNG.standard_normal(shape)
        A = retrograd.tensor(a, requires_grad=True)
        assert gradgradcheck(lambda x: retrograd.linalg.lu(x)[1:], (A,))
        assert gradgradcheck(lambda x: retrograd.linalg.lu_factor(x)[0], (A,))
