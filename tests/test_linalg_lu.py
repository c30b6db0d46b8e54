"""LU family and the other linalg additions against torch (the oracle).

tests/op_db/linalg_lu.py covers values, first / second derivatives, gradcheck and grad_fn names
for every op; this file covers what a spec cannot: singular and empty inputs, info tensors,
pivots, warnings, error types and messages, gradients torch itself cannot take (cond with
inverse-based norms), and the randomised low-rank factorisations.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

LIBS = (torch, retrograd)


def _np(x):
    return x.detach().numpy() if isinstance(x, (torch.Tensor, retrograd.Tensor)) else x


def both(fn):
    """fn(lib) for torch and retrograd, with warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [fn(lib) for lib in LIBS]


def assert_same(ours, theirs, atol=1e-12):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), atol=atol, rtol=1e-9, equal_nan=True)


def same_error(fn, exc=RuntimeError):
    """Both libraries raise ``exc`` (retrograd: the same type or a subclass) with the same message."""
    msgs = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(exc) as info:
                fn(lib)
        msgs.append(str(info.value))
    assert msgs[1] == msgs[0]


def t(lib, a, **kw):
    return lib.tensor(np.asarray(a, dtype=np.float64), **kw)


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


# ---------------------------------------------------------------- _ex variants
def test_ex_variants_info_and_values():
    sing = [[1., 2.], [2., 4.]]
    batch = lambda L: L.stack([L.eye(2, dtype=L.float64), t(L, sing)])
    for fn in (lambda L: L.linalg.inv_ex(batch(L)),
               lambda L: L.linalg.solve_ex(batch(L), L.ones(2, 2, dtype=L.float64)),
               lambda L: L.linalg.solve_ex(t(L, sing), L.ones(3, 2, 1, dtype=L.float64)),
               lambda L: L.linalg.cholesky_ex(L.stack([L.eye(2, dtype=L.float64), -L.eye(2, dtype=L.float64)])),
               lambda L: L.linalg.cholesky_ex(t(L, [[1., 2., 3.], [2., 1., 0.], [3., 0., -5.]]), upper=True),
               lambda L: L.linalg.cholesky_ex(L.zeros(0, 0)),
               lambda L: L.linalg.inv_ex(L.zeros(2, 0, 0))):
        theirs, ours = both(fn)
        assert type(ours).__name__ == type(theirs).__name__
        assert_same(tuple(ours), tuple(theirs))


@pytest.mark.parametrize("call,exc", [
    (lambda L: L.linalg.inv_ex(L.stack([L.eye(2), L.ones(2, 2)]), check_errors=True), RuntimeError),
    (lambda L: L.linalg.solve_ex(L.stack([L.eye(2), L.zeros(2, 2)]), L.ones(2, 2, 1), check_errors=True),
     RuntimeError),
    (lambda L: L.linalg.cholesky_ex(L.stack([L.eye(2), -L.eye(2)]), check_errors=True), RuntimeError),
    (lambda L: L.linalg.inv_ex(L.ones(2, 3)), RuntimeError),
    (lambda L: L.linalg.cholesky_ex(L.ones(2, 2, dtype=L.int64)), RuntimeError),
    (lambda L: L.linalg.solve_ex(L.ones(2, 2), L.ones(3)), RuntimeError),
    (lambda L: L.linalg.solve_ex(L.ones(2, 2, dtype=L.int64), L.ones(2)), RuntimeError),
])
def test_ex_errors(call, exc):
    same_error(call, exc)


def test_ex_errors_are_linalg_errors():
    with pytest.raises(retrograd.linalg.LinAlgError):
        retrograd.linalg.inv_ex(retrograd.zeros(2, 2), check_errors=True)


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


# ---------------------------------------------------------------- tensorinv / tensorsolve / vander
@pytest.mark.parametrize("call", [
    lambda L: L.linalg.tensorinv(L.ones(2, 2), 0),
    lambda L: L.linalg.tensorinv(L.ones(4, 2, 3), 1),
    lambda L: L.linalg.tensorinv(L.ones(4, 4, dtype=L.int64), 1),
    lambda L: L.linalg.tensorsolve(L.ones(2, 3, 5), L.ones(2, 3)),
    lambda L: L.linalg.tensorsolve(L.ones(2, 3, 6), L.ones(2, 3, dtype=L.float64)),
    lambda L: L.linalg.vander(L.tensor([1., 2.]), N=1),
    lambda L: L.linalg.vander(L.tensor([True])),
])
def test_tensor_functions_errors(call):
    same_error(call)


def test_tensorinv_empty_and_vander_dtypes():
    theirs, ours = both(lambda L: L.linalg.tensorinv(L.zeros(0, 0), 1))
    assert_same(ours, theirs)
    for dt in ("int32", "uint8", "int64", "float32"):
        theirs, ours = both(lambda L: L.linalg.vander(L.tensor([1, 2, 3], dtype=getattr(L, dt))))
        assert_same(ours, theirs)
    theirs, ours = both(lambda L: L.linalg.vander(L.tensor(2.), N=3))
    assert_same(ours, theirs)


# ---------------------------------------------------------------- eig / eigvals
def test_eig_raises_clear_error():
    for fn in (retrograd.linalg.eig, retrograd.linalg.eigvals):
        with pytest.raises(RuntimeError, match="complex"):
            fn(retrograd.eye(2))
    same_error(lambda L: L.linalg.eig(L.ones(2)))
    same_error(lambda L: L.linalg.eigvals(L.ones(2, 3)))
    same_error(lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.int64)))


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


# ---------------------------------------------------------------- triangular_solve / norms / matrix_rank
def test_triangular_solve_broadcasts_and_clones():
    a = RNG.uniform(-0.5, 0.5, (4, 1, 3, 3)) + 2 * np.eye(3)
    b = RNG.standard_normal((2, 3, 2))
    theirs, ours = both(lambda L: L.triangular_solve(t(L, b), t(L, a), False, True))
    assert type(ours).__name__ == "triangular_solve"
    assert_same(tuple(ours), tuple(theirs))


@pytest.mark.parametrize("call,exc", [
    (lambda L: L.triangular_solve(L.ones(3), L.eye(3)), RuntimeError),
    (lambda L: L.triangular_solve(L.ones(3, 1), L.ones(3)), RuntimeError),
    (lambda L: L.triangular_solve(L.ones(3, 1), L.ones(2, 3)), RuntimeError),
    (lambda L: L.triangular_solve(L.ones(3, 1, dtype=L.float64), L.eye(3)), RuntimeError),
    (lambda L: L.triangular_solve(L.ones(4, 1), L.eye(3)), RuntimeError),
    (lambda L: L.triangular_solve(L.ones(2, 3, 1), L.ones(4, 3, 3)), RuntimeError),
    (lambda L: L.triangular_solve(L.ones(3, 1, dtype=L.int64), L.ones(3, 3, dtype=L.int64)), NotImplementedError),
])
def test_triangular_solve_errors(call, exc):
    same_error(call, exc)


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


def test_matrix_rank_is_removed_as_in_torch():
    same_error(lambda L: L.matrix_rank(L.eye(2)))
    assert retrograd.linalg.matrix_rank(retrograd.eye(2)).item() == 2  # the linalg one is untouched


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
