"""Tests of the solvers ops (src/retrograd/_ops/linalg/solvers.py), checked against PyTorch."""
from __future__ import annotations


import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._helpers import assert_same, both, same_error, t  # noqa: E402
from ._error_helpers import _pair, _same_error  # noqa: E402


RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- _ex variants
def test_ex_variants_info_and_values():
    sing = [[1., 2.], [2., 4.]]

    def batch(L):
        return L.stack([L.eye(2, dtype=L.float64), t(L, sing)])

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


torch.set_default_dtype(torch.float32)


# ------------------------------------------------------------------ errors
SINGULAR = [[1., 2.], [2., 4.]]


@pytest.mark.parametrize("fn", [
    lambda L, A: L.linalg.inv(A),
    lambda L, A: L.inverse(A),
    lambda L, A: L.linalg.inv(L.stack([L.eye(2, dtype=A.dtype), A])),
    lambda L, A: L.linalg.inv(A * 0),
    lambda L, A: L.linalg.solve(A, L.ones(2, dtype=A.dtype)),
    lambda L, A: L.linalg.solve(L.stack([A, A]), L.ones(2, 2, dtype=A.dtype)),
])
def test_singular_matrix_errors_match_torch(fn):
    ours, theirs = _pair(SINGULAR)
    _same_error(lambda: fn(retrograd, ours), lambda: fn(torch, theirs))


@pytest.mark.parametrize("fn,shape,dtype", [
    (lambda L, A: L.linalg.inv(A), (2, 3), "float32"),
    (lambda L, A: L.linalg.inv(A), (3,), "float32"),
    (lambda L, A: L.linalg.inv(A), (2, 2), "int64"),
    (lambda L, A: L.linalg.inv(A), (2, 2), "float16"),
    (lambda L, A: L.linalg.det(A), (2, 3), "float32"),
    (lambda L, A: L.linalg.slogdet(A), (2, 2), "int64"),
    (lambda L, A: L.linalg.solve(A, L.ones(2, dtype=L.float64)), (3, 3), "float32"),
    (lambda L, A: L.linalg.solve(A, L.ones(2, dtype=A.dtype)), (3, 3), "float32"),
    (lambda L, A: L.linalg.solve(A, L.ones(3, dtype=A.dtype), left=False), (3, 3), "float32"),
    (lambda L, A: L.linalg.matrix_power(A, 2), (2, 3), "float32"),
    (lambda L, A: L.linalg.matrix_power(A, -1), (2, 2), "int64"),
    (lambda L, A: L.linalg.cross(A, L.ones(3, 2, dtype=A.dtype)), (3, 2), "float32"),
    (lambda L, A: L.linalg.cross(A, L.ones(3, dtype=A.dtype)), (2, 3), "float32"),
    (lambda L, A: L.trace(A), (3,), "float32"),
    (lambda L, A: L.addmm(L.ones(2, dtype=A.dtype), A, L.ones(3, 3, dtype=A.dtype)), (2, 3), "float32"),
    (lambda L, A: L.addmm(A, L.ones(3, dtype=A.dtype), A), (3, 3), "float32"),
    (lambda L, A: L.addmm(L.ones(3), L.ones(2, 3), A), (3, 3), "float64"),
    (lambda L, A: L.addbmm(A, L.ones(2, 2, 3), L.ones(3, 3, 2)), (2, 2), "float32"),
    (lambda L, A: L.addmv(A[0], A, L.ones(2)), (2, 3), "float32"),
    (lambda L, A: L.addr(A, A, L.ones(2)), (2, 3), "float32"),
    (lambda L, A: A.addmm_(L.ones(2, 3), L.ones(3, 3)), (3,), "float32"),
    (lambda L, A: L.vdot(A, A), (2, 2), "float32"),
    (lambda L, A: L.vdot(A, L.ones(3, dtype=L.float64)), (3,), "float32"),
    (lambda L, A: L.inner(A, L.ones(2, 2)), (2, 3), "float32"),
    (lambda L, A: L.tensordot(A, A, dims=1), (2, 3), "float32"),
    (lambda L, A: L.tensordot(A, L.ones(3, 2, dtype=L.float64), dims=1), (2, 3), "float32"),
    (lambda L, A: L.cdist(A, A), (2, 2), "int64"),
    (lambda L, A: L.cdist(A, L.ones(2, 3)), (2, 2), "float32"),
    (lambda L, A: L.cdist(A, A, p=-1), (2, 2), "float32"),
    (lambda L, A: L.linalg.multi_dot([A]), (2, 2), "float32"),
    (lambda L, A: L.linalg.multi_dot([A, L.ones(2, 2, dtype=L.float64)]), (2, 2), "float32"),
    (lambda L, A: L.linalg.multi_dot([A, L.ones(2), A]), (2, 2), "float32"),
    (lambda L, A: L.linalg.multi_dot([A, A]), (2, 3), "float32"),
    (lambda L, A: L.linalg.vector_norm(A), (3,), "int64"),
    (lambda L, A: L.linalg.matrix_norm(A, 3), (3, 3), "float32"),
    (lambda L, A: L.linalg.matrix_norm(A, "foo"), (3, 3), "float32"),
    (lambda L, A: L.linalg.matrix_norm(A), (3,), "float32"),
    (lambda L, A: L.linalg.norm(A, 2), (2, 2, 2), "float32"),
    (lambda L, A: L.linalg.norm(A, dim=(0, 1, 2)), (2, 2, 2), "float32"),
    (lambda L, A: L.linalg.qr(A, mode="x"), (3, 2), "float32"),
    (lambda L, A: L.linalg.eigh(A, UPLO="X"), (2, 2), "float32"),
    (lambda L, A: L.einsum("i,i->", A), (2,), "float32"),
    (lambda L, A: L.einsum("i->", A, A), (2,), "float32"),
    (lambda L, A: L.einsum("i1->", A), (2, 2), "float32"),
    (lambda L, A: L.einsum("ij,jk->ik", A, A), (2, 3), "float32"),
    (lambda L, A: L.einsum("ij->ik", A), (2, 3), "float32"),
    (lambda L, A: L.einsum("ijk->ij", A), (2, 3), "float32"),
    (lambda L, A: L.einsum("ij->ii", A), (2, 2), "float32"),
    (lambda L, A: L.einsum("i,i->", A, L.ones(2, dtype=L.float64)), (2,), "float32"),
    (lambda L, A: L.mm(A, L.ones(3, 2, dtype=L.float64)), (2, 3), "float32"),
    (lambda L, A: L.matmul(A, L.ones(3, dtype=L.float64)), (3,), "float32"),
    (lambda L, A: L.mv(A, L.ones(3, dtype=L.float64)), (2, 3), "float32"),
    (lambda L, A: L.mv(A, A), (3,), "float32"),
    (lambda L, A: L.bmm(A, L.ones(2, 3, 2, dtype=L.float64)), (2, 2, 3), "float32"),
    (lambda L, A: L.matmul(A, L.ones(3, 2, dtype=L.float64)), (2, 2, 3), "float32"),
])
def test_argument_errors_match_torch(fn, shape, dtype):
    ours = retrograd.ones(*shape, dtype=getattr(retrograd, dtype))
    theirs = torch.ones(*shape, dtype=getattr(torch, dtype))
    _same_error(lambda: fn(retrograd, ours), lambda: fn(torch, theirs))


# ------------------------------------------------------------------ singular determinants
@pytest.mark.parametrize("value,second", [(SINGULAR, True), ([[1., 2., 0.], [2., 4., 0.], [0., 0., 3.]], True),
                                          ([[0., 0.], [0., 0.]], False)])
def test_det_gradient_at_a_singular_matrix_matches_torch(value, second):
    """A^-T does not exist: the gradient is the cofactor matrix (torch: nan 2nd derivative at 0)."""
    grads = []
    for A in _pair(value, requires_grad=True):
        lib = retrograd if isinstance(A, retrograd.Tensor) else torch
        d = lib.linalg.det(A)
        assert d.item() == 0.0
        (g,) = lib.autograd.grad(d, A, create_graph=True)
        (gg,) = lib.autograd.grad((g * lib.arange(g.numel(), dtype=g.dtype).reshape(g.shape)).sum(), A)
        grads.append((g.detach().numpy(), gg.numpy()))
    np.testing.assert_allclose(grads[0][0], grads[1][0], atol=1e-12)
    if second:
        np.testing.assert_allclose(grads[0][1], grads[1][1], atol=1e-12)


# ------------------------------------------------------------------ forward details vs torch
def test_pinv_cutoffs_match_torch():
    a = np.diag([1.0, 1e-3, 0.5])
    for kwargs in ({"atol": 1e-2}, {"rtol": 0.6}, {}, {"atol": 0.0, "rtol": 1e-2}):
        r, t = retrograd.linalg.pinv(retrograd.tensor(a), **kwargs), torch.linalg.pinv(torch.tensor(a), **kwargs)
        np.testing.assert_allclose(r.numpy(), t.numpy(), atol=1e-12)
    np.testing.assert_allclose(retrograd.pinverse(retrograd.tensor(a), 0.1).numpy(),
                               torch.pinverse(torch.tensor(a), 0.1).numpy(), atol=1e-12)


def test_lstsq_rank_deficient_matches_torch():
    a = np.array([[1., 1.], [1., 1.], [2., 2.]])
    b = np.array([[1.], [2.], [3.]])
    for driver in (None, "gelsd", "gelss"):
        r = retrograd.linalg.lstsq(retrograd.tensor(a), retrograd.tensor(b), driver=driver)
        t = torch.linalg.lstsq(torch.tensor(a), torch.tensor(b), driver=driver)
        np.testing.assert_allclose(r.solution.numpy(), t.solution.numpy(), atol=1e-10)
        assert r.rank.tolist() == t.rank.tolist()
        assert tuple(r.residuals.shape) == tuple(t.residuals.shape)


def test_matrix_power_zero_is_a_copy_with_zero_gradient():
    A = retrograd.ones(2, 2, requires_grad=True)
    P = retrograd.linalg.matrix_power(A, 0)
    assert P.requires_grad and type(P.grad_fn).__name__ == "CopyBackwards"
    P.sum().backward()
    assert A.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]
