"""Linear algebra beyond the op table: errors, singular-matrix gradients, return types, the
``retrograd.linalg`` namespace, matmul dispatch details; torch 2.13 is the oracle."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
from op_db import all_specs

torch = pytest.importorskip("torch")
torch.set_default_dtype(torch.float32)


def _pair(value, dtype="float64", requires_grad=False):
    a = np.array(value, dtype=dtype)
    return (retrograd.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def _same_error(f_ours, f_theirs):
    """Both raise; same message; ours is of torch's exception type (or a subclass of its base)."""
    with pytest.raises(Exception) as theirs:
        f_theirs()
    with pytest.raises(Exception) as ours:
        f_ours()
    assert str(ours.value) == str(theirs.value)
    if type(theirs.value).__name__ == "_LinAlgError":
        assert isinstance(ours.value, retrograd.linalg.LinAlgError)
        assert isinstance(ours.value, RuntimeError)
    else:
        assert type(ours.value) is type(theirs.value)


# ------------------------------------------------------------------ errors
SINGULAR = [[1., 2.], [2., 4.]]
NOT_PD = [[1., 2.], [2., 1.]]


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


@pytest.mark.parametrize("fn", [
    lambda L, A: L.linalg.cholesky(A),
    lambda L, A: L.linalg.cholesky(L.stack([L.eye(2, dtype=A.dtype), -A])),
    lambda L, A: L.cholesky(A),
])
def test_not_positive_definite_errors_match_torch(fn):
    ours, theirs = _pair(NOT_PD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
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


def test_qr_backward_refusals_match_torch():
    for mode, shape in (("r", (3, 2)), ("complete", (3, 2))):
        msgs = []
        for lib in (retrograd, torch):
            A = lib.ones(*shape, dtype=lib.float64).requires_grad_()
            with pytest.raises(RuntimeError) as err:
                lib.linalg.qr(A + lib.eye(*shape, dtype=lib.float64), mode=mode).R.sum().backward()
            msgs.append(str(err.value))
        assert msgs[0] == msgs[1]


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


# ------------------------------------------------------------------ return types, namespace
def test_named_results():
    A = retrograd.tensor([[2., 1.], [1., 3.]])
    r = retrograd.linalg.slogdet(A)
    assert r.sign.item() == 1.0 and r[1] is r.logabsdet
    assert repr(r).startswith("torch.return_types.linalg_slogdet(\nsign=tensor(1.)")
    assert type(retrograd.slogdet(A)).__name__ == "slogdet"
    assert retrograd.linalg.eigh(A).eigenvectors.shape == (2, 2)
    assert retrograd.linalg.svd(A).Vh.shape == (2, 2)
    assert type(retrograd.svd(A)).__name__ == "svd" and retrograd.svd(A).V.shape == (2, 2)
    assert retrograd.linalg.qr(A).Q.shape == (2, 2)
    assert set(retrograd.linalg.lstsq(A, A)._fields) == {"solution", "residuals", "rank", "singular_values"}
    q = retrograd.linalg.qr(retrograd.ones(3, 2), mode="r")
    assert tuple(q.Q.shape) == (0,) and tuple(q.R.shape) == (2, 2)


def test_every_linalg_name_exists_in_torch_and_has_a_spec():
    specs = {s.name for s in all_specs()}
    for name in retrograd.linalg.__all__:
        assert hasattr(torch.linalg, name), name
        if name != "LinAlgError":
            assert f"linalg.{name}" in specs, name
    assert retrograd.linalg.LinAlgError.__mro__[1] is RuntimeError


def test_linalg_is_the_namespace_module():
    import retrograd.linalg as L

    assert retrograd.linalg is L and retrograd.linalg.inv is L.inv


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


def test_cross_without_dim_warns_like_torch():
    a = np.arange(12.).reshape(4, 3)
    with pytest.warns(UserWarning, match="Using torch.cross without specifying the dim arg is deprecated"):
        r = retrograd.cross(retrograd.tensor(a), retrograd.tensor(a[::-1].copy()))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t = torch.cross(torch.tensor(a), torch.tensor(a[::-1].copy()))
    np.testing.assert_array_equal(r.numpy(), t.numpy())


def test_inplace_add_family_records_the_op_node():
    for lib in (retrograd, torch):
        w = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        x = (w * 1).addmm_(lib.ones(2, 2, dtype=lib.float64), w, beta=2)
        assert type(x.grad_fn).__name__ == "AddmmBackward0"
        x.sum().backward()
        if lib is retrograd:
            ours = w.grad.numpy()
    np.testing.assert_allclose(ours, w.grad.numpy())


@pytest.mark.parametrize("shapes,grad", [(((3,), (2, 3, 4)), (True, False)), (((2, 3, 4), (4,)), (False, True)),
                                         (((2, 3), (2, 3, 2)), (True, True)), (((2, 3), (2, 3, 2)), (False, True)),
                                         (((2, 1, 2, 3), (3, 3, 2)), (True, True))])
def test_matmul_batched_dispatch_matches_torch(shapes, grad):
    """grad_fn names and values of the >= 3-d matmul paths (folded mm / mv, bmm)."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s) for s in shapes]
    res = []
    for lib in (retrograd, torch):
        xs = [lib.tensor(a, requires_grad=g) for a, g in zip(arrays, grad)]
        out = lib.matmul(*xs)
        out.backward(lib.ones(tuple(out.shape), dtype=out.dtype))
        res.append((type(out.grad_fn).__name__, out.detach().numpy(), [x.grad for x in xs]))
    assert res[0][0] == res[1][0]
    np.testing.assert_allclose(res[0][1], res[1][1], atol=1e-12)
    for a, b in zip(res[0][2], res[1][2]):
        assert (a is None) == (b is None)
        if a is not None:
            np.testing.assert_allclose(a.numpy(), b.numpy(), atol=1e-12)


def test_einsum_gradient_of_a_three_operand_chain_twice():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in ((2, 3), (3, 3), (3, 2))]
    res = []
    for lib in (retrograd, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = lib.einsum("ij,jj,jk->ik", *xs).sin().sum()
        gs = lib.autograd.grad(y, xs, create_graph=True)
        g2 = lib.autograd.grad(sum((g * g).sum() for g in gs), xs)
        res.append([g.detach().numpy() for g in gs] + [g.numpy() for g in g2])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, atol=1e-10)


def test_matrix_power_zero_is_a_copy_with_zero_gradient():
    A = retrograd.ones(2, 2, requires_grad=True)
    P = retrograd.linalg.matrix_power(A, 0)
    assert P.requires_grad and type(P.grad_fn).__name__ == "CopyBackwards"
    P.sum().backward()
    assert A.grad.tolist() == [[0.0, 0.0], [0.0, 0.0]]


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 1.5, float("inf")])
def test_cdist_is_twice_differentiable(p):
    """torch cannot differentiate _cdist_backward (so the op table checks first order only); we can."""
    rng = np.random.default_rng(3)
    a = retrograd.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = retrograd.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    f = lambda x, y: retrograd.cdist(x, y, p=p)  # noqa: E731
    assert retrograd.autograd.gradgradcheck(f, (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)
