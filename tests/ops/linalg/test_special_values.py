"""Linear algebra, norms and misc ops against PyTorch on special values and edge shapes: NaN, +-inf,
zero / singular matrices, ties in inf-norms, empty dims, mixed and bool dtypes.

Each case runs the same call on torch and retrograd and compares forward values (NaN placement
included), dtypes, shapes, grad_fn names, first-order gradients and exception types / messages.
Decompositions are compared only through invariant quantities (no singular-vector signs)."""
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

nan, inf = float("nan"), float("inf")
F32, F64, I64 = np.float32, np.float64, np.int64
RNG = np.random.default_rng(0)


def _r(*shape, dt=F64):
    return RNG.standard_normal(shape).astype(dt)


def _as(lib, a, grad):
    t = lib.tensor(a)
    if grad and a.dtype.kind == "f":
        t.requires_grad_(True)
    return t


def _run(lib, fn, arrays, grad):
    ts = [_as(lib, a, grad) for a in arrays]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(lib, *ts)
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            name = type(e).__name__.lstrip("_")  # torch's class is _LinAlgError
            return ("error", (name, str(e).split("\n")[0])), None
    outs = list(out) if isinstance(out, tuple) else [out]
    info = [(o.detach().numpy(), str(o.dtype).split(".")[-1], tuple(o.shape),
             type(o.grad_fn).__name__ if o.grad_fn is not None else None) for o in outs]
    grads = None
    leaves = [t for t in ts if t.requires_grad]
    diff = [o for o in outs if o.requires_grad]
    if leaves and diff:
        # a non-uniform output weight, so a wrong gradient cannot hide behind a symmetric one
        tot = sum((o * lib.tensor(np.linspace(0.5, 1.5, max(o.numel(), 1))[:o.numel()].reshape(tuple(o.shape)),
                                  dtype=o.dtype)).sum() for o in diff)
        gs = lib.autograd.grad(tot, leaves, allow_unused=True)
        grads = [None if g is None else g.numpy() for g in gs]
    return ("ok", info), grads


def _close(x, y, tol):
    assert x.shape == y.shape
    if x.dtype.kind in "biu":
        np.testing.assert_array_equal(x, y)
    else:
        np.testing.assert_allclose(y.astype(F64), x.astype(F64), rtol=tol, atol=tol, equal_nan=True)


def check(fn, *arrays, grad=True, tol=1e-6):
    (st, it), gt = _run(torch, fn, arrays, grad)
    (sr, ir), gr = _run(rg, fn, arrays, grad)
    assert st == sr
    if st == "error":
        assert ir == it
        return
    assert len(it) == len(ir)
    for x, y in zip(it, ir):
        assert x[1:] == y[1:], (x[1:], y[1:])  # dtype, shape, grad_fn name
        _close(x[0], y[0], tol)
    assert (gt is None) == (gr is None)
    for x, y in zip(gt or [], gr or []):
        assert (x is None) == (y is None)
        if x is not None:
            _close(x, y, tol * 10)


def check_error(fn, *arrays):
    (st, it), _ = _run(torch, fn, arrays, False)
    (sr, ir), _ = _run(rg, fn, arrays, False)
    assert st == "error"
    assert (sr, ir) == (st, it)


# ------------------------------------------------------------------ norms
NORM_X = {
    "nan": np.array([[1., nan, 2.], [3., -3., 1.], [0., 0., 0.]]),
    "ties": np.array([[1., -1., 1.], [2., 2., -2.], [0., 0., 0.]]),
    "signed0": np.array([[0., -0., 0.], [1., 2., 3.], [-1., -2., -3.]]),
    "inf": np.array([[inf, 1., 2.], [-inf, 0., 1.], [0., 0., 5.]]),
}
ORDS = [2, 1, 0, inf, -inf, 3, 0.5, -1, -0.5, 1.5]


@pytest.mark.parametrize("dt", [F32, F64])
@pytest.mark.parametrize("ord_", ORDS)
@pytest.mark.parametrize("name", sorted(NORM_X))
def test_vector_norm_special(name, ord_, dt):
    x = NORM_X[name].astype(dt)
    check(lambda t, a: t.linalg.vector_norm(a, ord_, dim=1), x, tol=1e-5)
    check(lambda t, a: t.linalg.vector_norm(a, ord_, dim=(0, 1), keepdim=True), x, tol=1e-5)


@pytest.mark.parametrize("ord_", [o for o in ORDS if o != 0])  # p=0: torch's own backward fails on `other`
@pytest.mark.parametrize("name", sorted(NORM_X))
def test_dist_special(name, ord_):
    x = NORM_X[name]
    check(lambda t, a, b: t.dist(a, b, p=ord_), x, np.ones(3))


@pytest.mark.parametrize("ord_", [inf, -inf, -1, -0.5, 0, 1, 2])
@pytest.mark.parametrize("shape,dim", [((0, 3), 1), ((0, 3), 0), ((0, 3), None), ((0, 3), ()), ((2, 0, 3), (0, 1)),
                                       ((2, 0, 3), -2), ((3, 0), (1, 0))])
def test_vector_norm_empty(shape, dim, ord_):
    check(lambda t, a: t.linalg.vector_norm(a, ord_, dim), np.zeros(shape))


@pytest.mark.parametrize("ord_", [inf, -1, 2, 0])
def test_dist_empty(ord_):
    check(lambda t, a, b: t.dist(a, b, ord_), np.zeros((0, 3)), np.zeros(3), grad=False)


@pytest.mark.parametrize("ord_", [1, -1, 2, -2, inf, -inf, "fro", "nuc"])
@pytest.mark.parametrize("shape", [(0, 3), (3, 0), (0, 0), (2, 0, 3)])
def test_matrix_norm_empty(shape, ord_):
    check(lambda t, a: t.linalg.matrix_norm(a, ord_), np.zeros(shape))


@pytest.mark.parametrize("ord_", ["nuc", 2, -2])
def test_matrix_norm_nan_raises_svd_error(ord_):
    check_error(lambda t, a: t.linalg.matrix_norm(a, ord_), np.array([[1., nan], [0., 1.]]))
    check_error(lambda t, a: t.linalg.svdvals(a), np.stack([np.eye(2), np.array([[1., nan], [0., 1.]])]))


def test_svd_inf_gives_nan():
    check(lambda t, a: t.linalg.svd(a).S, np.array([[1., inf], [0., 1.]]), grad=False)


@pytest.mark.parametrize("call", [
    lambda t, a: t.linalg.vector_norm(a, dtype=t.float32),
    lambda t, a: t.linalg.vector_norm(a, dtype=t.int64),
    lambda t, a: t.linalg.matrix_norm(a, dim=(0,)),
    lambda t, a: t.linalg.matrix_norm(a, dim=(0, 1, 0)),
    lambda t, a: t.linalg.norm(a, "fro", dim=1),
    lambda t, a: t.renorm(a, 2, 0, -1.5),
    lambda t, a: t.dist(a, a[0]),  # fine, then bool / broadcast errors below
])
def test_norm_errors(call):
    check(call, _r(2, 3), grad=False)


@pytest.mark.parametrize("a,b", [
    (np.ones(3, bool), np.ones(3, bool)), (np.ones(3, bool), np.ones(3)), (np.arange(3), np.arange(3)),
    (_r(3), _r(4)),
])
def test_dist_dtype_errors(a, b):
    check_error(lambda t, x, y: t.dist(x, y), a, b)


@pytest.mark.parametrize("p", [2, 1, inf, 3, 0.5, 1.5])
@pytest.mark.parametrize("name", sorted(NORM_X))
def test_renorm_special(name, p):
    x = NORM_X[name]
    check(lambda t, a: t.renorm(a, p, 0, 1.0), x)
    check(lambda t, a: t.renorm(a, p, 1, 0.5), x)


# ------------------------------------------------------------------ products
PRODUCTS = {
    "addmm": lambda t, c, x, y: t.addmm(c, x, y),
    "baddbmm": lambda t, c, x, y: t.baddbmm(c, x, y),
    "addbmm": lambda t, c, x, y: t.addbmm(c, x, y),
    "addmv": lambda t, c, x, y: t.addmv(c, x, y),
    "addr": lambda t, c, x, y: t.addr(c, x, y),
}
SHAPES = {"addmm": [(2, 4), (2, 3), (3, 4)], "baddbmm": [(5, 2, 4), (5, 2, 3), (5, 3, 4)],
          "addbmm": [(2, 4), (5, 2, 3), (5, 3, 4)], "addmv": [(2,), (2, 3), (3,)], "addr": [(2, 4), (2,), (4,)]}


@pytest.mark.parametrize("dts", [(F32, F32, F64), (F32, F64, F32), (F64, F32, F32), (F64, F32, F64), (F32, F32, I64)])
@pytest.mark.parametrize("op", sorted(PRODUCTS))
def test_product_dtype_mismatch(op, dts):
    arrays = [np.ones(s, dt) for s, dt in zip(SHAPES[op], dts)]
    check(PRODUCTS[op], *arrays, grad=False)


@pytest.mark.parametrize("op", sorted(PRODUCTS))
def test_product_bool_and_int_scalars(op):
    arrays = [np.ones(s, bool) for s in SHAPES[op]]
    check(PRODUCTS[op], *arrays, grad=False)
    ints = [np.ones(s, I64) for s in SHAPES[op]]
    check(lambda t, *a: PRODUCTS[op](t, *a) if op == "addr" else getattr(t, op)(*a, alpha=0.5, beta=1.5),
          *ints, grad=False)
    check(lambda t, *a: getattr(t, op)(*a, alpha=1.5), *ints, grad=False)


@pytest.mark.parametrize("call,shapes", [
    (lambda t, c, x, y: t.baddbmm(c, x, y), [(5, 2, 4), (4, 2, 3), (5, 3, 4)]),
    (lambda t, c, x, y: t.baddbmm(c, x, y), [(4,), (5, 2, 3), (3, 4)]),
    (lambda t, c, x, y: t.addbmm(c, x, y), [(2, 4), (2, 3), (5, 3, 4)]),
    (lambda t, c, x, y: t.addbmm(c, x, y), [(2, 4), (5, 2, 3), (5, 2, 4)]),
    (lambda t, c, x, y: t.addbmm(c, x, y), [(2, 4), (5, 2, 3), (4, 3, 4)]),
    (lambda t, c, x, y: t.addmv(c, x, y), [(3,), (2, 3), (3,)]),
    (lambda t, c, x, y: t.addmv(c, x, y), [(2, 2), (2, 3), (3,)]),
    (lambda t, c, x, y: t.addmm(c, x, y), [(3, 4), (2, 3), (3, 4)]),
])
def test_product_shape_errors(call, shapes):
    check_error(call, *[np.ones(s) for s in shapes])


@pytest.mark.parametrize("call,arrays", [
    (lambda t, x, y: t.linalg.vecdot(x, y), [_r(3), _r(3)]),
    (lambda t, x, y: t.linalg.vecdot(x, y, dim=0), [_r(3), _r(3)]),
    (lambda t, x, y: t.linalg.vecdot(x, y), [_r(2, 3), _r(3)]),
    (lambda t, x, y: t.linalg.vecdot(x, y), [_r(3), _r(1)]),
    (lambda t, x, y: t.linalg.vecdot(x, y), [np.arange(3), np.arange(3)]),
    (lambda t, x, y: t.linalg.vecdot(x, y), [np.arange(3), _r(3)]),
    (lambda t, x, y: t.vdot(x, y), [np.ones(3, bool), np.ones(3, bool)]),
    (lambda t, x, y: t.inner(x, y), [np.ones(3, bool), np.ones(3, bool)]),
    (lambda t, x, y: t.tensordot(x, y, dims=2), [np.ones((2, 3), bool), np.ones((2, 3), bool)]),
    (lambda t, x, y: t.tensordot(x, y, dims=2), [_r(2, 3), _r(4, 3)]),
    (lambda t, x, y: t.tensordot(x, y.float(), dims=2), [_r(2, 3), _r(4, 3)]),
    (lambda t, x, y: t.linalg.multi_dot([x, y]), [_r(3), np.zeros(0)]),
    (lambda t, x, y: t.linalg.multi_dot([x, y]), [_r(2, 3), _r(4)]),
    (lambda t, x, y: t.mv(x, y), [np.array(1.), _r(3)]),
    (lambda t, x, y: t.linalg.cross(x, y), [np.array(1.), np.array(1.)]),
    (lambda t, x, y: t.linalg.cross(x, y), [_r(2, 3), _r(3, 3).astype(F32)]),
    (lambda t, x, y: t.linalg.cross(x, y), [_r(2, 4), _r(1, 3).astype(F32)]),
    (lambda t, x, y: t.linalg.cross(x, y), [np.ones((2, 3), bool), np.ones((1, 3), bool)]),
    (lambda t, x, y: t.linalg.cross(x, y), [_r(2, 1, 3), _r(4, 3)]),
    (lambda t, x, y: t.cross(x, y), [np.array(1.), _r(3)]),
    (lambda t, x, y: t.einsum("ij,jk", x, y), [_r(2, 3), _r(4, 3).astype(F32)]),
    (lambda t, x, y: t.einsum("ij,jk", x, y), [_r(3), _r(3).astype(F32)]),
    (lambda t, x, y: t.einsum("ij,jk", x, y), [np.ones((2, 3), bool), np.ones((3, 3), bool)]),
    (lambda t, x, y: t.cdist(x, y), [_r(3, 2).astype(F32), _r(4, 2)]),
    (lambda t, x, y: t.cdist(x, y, p=0), [_r(3, 2), _r(4, 2)]),
])
def test_product_misc(call, arrays):
    check(call, *arrays)


# ------------------------------------------------------------------ decompositions on singular / non-finite input
SING = {
    "zero": np.zeros((2, 2)),
    "bsing": np.stack([np.eye(2), np.zeros((2, 2))]),
    "1x1z": np.array([[0.]]),
    "upper_zero_diag": np.array([[1., 2.], [0., 0.]]),
}


@pytest.mark.parametrize("a", [np.array([[0.]]), np.array([[1., 2.], [2., 4.]])])
@pytest.mark.parametrize("call", [lambda t, a: t.linalg.slogdet(a), lambda t, a: t.logdet(a)])
def test_slogdet_singular_backward_gives_inf(call, a):
    # PyTorch's LU-based backward returns inf / NaN at a singular matrix; it must not raise.
    # (Which entries are NaN for fully zero rows depends on the LAPACK build, so those are not compared.)
    check(call, a)


@pytest.mark.parametrize("name", sorted(SING))
@pytest.mark.parametrize("call", [
    lambda t, a: t.linalg.eigvalsh(a),
    lambda t, a: t.linalg.qr(a).R.abs(),
    lambda t, a: t.linalg.solve_triangular(a, a * 0 + 1, upper=True),
    lambda t, a: t.cholesky_inverse(a),
    lambda t, a: t.linalg.lstsq(a, a[..., :1] * 0 + 1).solution,
], ids=["eigvalsh", "qr", "solve_tri", "cholesky_inverse", "lstsq"])
def test_singular(call, name):
    check(call, SING[name])


@pytest.mark.parametrize("call", [
    lambda t, a: t.linalg.det(a),
    lambda t, a: t.linalg.lstsq(a, a[..., :1]).solution,
    lambda t, a: t.cholesky_inverse(a),
    lambda t, a: t.linalg.eigvalsh(a),
])
@pytest.mark.parametrize("shape", [(0, 0), (2, 0, 0)])
def test_empty_matrices(call, shape):
    check(call, np.zeros(shape))


def test_triangular_reads_only_the_triangle():
    L = _r(3, 3)
    check(lambda t, a: t.cholesky_inverse(a), L)
    check(lambda t, a, b: t.cholesky_solve(b, a), L, _r(3, 2))
    check(lambda t, a, b: t.cholesky_solve(b, a, upper=True), L, _r(3, 2))


@pytest.mark.parametrize("call,a", [
    (lambda t, a: t.linalg.pinv(a), np.array([[1., nan], [0., 1.]])),
    (lambda t, a: t.linalg.matrix_rank(a), np.array([[1., nan], [0., 1.]])),
    (lambda t, a: t.linalg.eigvalsh(a), _r(3, 2)),
    (lambda t, a: t.linalg.pinv(a, hermitian=True), _r(3, 2)),
    (lambda t, a: t.cholesky_solve(t.ones(3, 1, dtype=a.dtype), a), _r(3, 2)),
])
def test_decomposition_errors(call, a):
    check_error(call, a)


@pytest.mark.parametrize("a", [np.array([[1., inf], [0., 1.]]), np.array([[nan, 0.], [0., 1.]]),
                               np.array([[-inf, 0.], [0., 1.]])])
def test_matrix_exp_non_finite(a):
    check(lambda t, x: t.linalg.matrix_exp(x), a, grad=False)


# ------------------------------------------------------------------ misc
@pytest.mark.parametrize("call,arrays", [
    (lambda t, a: t.trapezoid(a), [np.zeros((3, 0))]),
    (lambda t, a, b: t.trapezoid(a, b), [_r(3, 4), _r(3)]),
    (lambda t, a: t.cumulative_trapezoid(a), [np.zeros((3, 0))]),
    (lambda t, a, b: t.cumulative_trapezoid(a, b), [_r(3, 4), _r(3)]),
    (lambda t, a: t.linalg.solve_triangular(a, t.ones(2, 3, dtype=a.dtype), upper=False, left=False),
     [np.array([[2., 0., 0.], [1., 3., 0.], [1., 1., 4.]])]),
    (lambda t, a: t.heaviside(a.detach(), t.tensor(0.5, dtype=a.dtype)), [np.array([nan, -1., 0., 2.])]),
    (lambda t, a, b: t.nextafter(a, b), [np.array([1., 2., 0., -0., nan, inf]), np.array([0., 2., 0., 1., 0., 0.])]),
    (lambda t, a: t.frexp(a), [np.array([1., 0., -3.5, 8.])]),
    (lambda t, a: t.i0(a), [np.array([1., nan, inf, -inf, 0.])]),
    (lambda t, a: t.histc(a, 4, 2, 1), [_r(5)]),
    (lambda t, a: t.histc(a, 4), [np.array([1., inf])]),
    (lambda t, a: t.histc(a, 4, nan, 1), [_r(5)]),
    (lambda t, a: t.histc(a, 0), [_r(5)]),
    (lambda t, a: t.histc(a, 4), [np.arange(5)]),
    (lambda t, a: t.bincount(a), [np.array([0., 3.])]),
    (lambda t, a: t.bincount(a), [np.array([True, False])]),
    (lambda t, a, b: t.cartesian_prod(a, b), [_r(2), np.ones(2, I64)]),
    (lambda t, a: t.clamp_min(a, 0.), [np.array([nan, -1., 0., 2.])]),
    (lambda t, a: a.clamp_max(0.), [np.array([nan, -1., 0., 2.])]),
    (lambda t, a: t.clamp_min(a, t.tensor(0., dtype=a.dtype)), [np.array([nan, -1., 0., 2.])]),
])
def test_misc(call, arrays):
    check(call, *arrays)
