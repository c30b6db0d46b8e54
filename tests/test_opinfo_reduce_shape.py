"""Regressions from running torch's OpInfo samples (reductions, shape / index / creation ops)
through retrograd: values, dtypes, shapes, grads and errors against torch 2.13."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy() if isinstance(t, (torch.Tensor, rg.Tensor)) else np.asarray(t)


def _dt(t) -> str:
    return str(t.dtype).split(".")[-1]


def _same(a, b, *, tol=1e-12):
    """a: retrograd result, b: torch result (tensors, or tuples of them)."""
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol=tol)
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert _dt(a) == _dt(b)
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol, equal_nan=True)


def _both(fn, *arrays, grad=True):
    """fn(lib, *tensors) on retrograd and torch (float64 leaves requiring grad); returns both results
    and both lists of input tensors."""
    outs, ins = [], []
    for lib in (rg, torch):
        ts = [lib.tensor(np.asarray(a), requires_grad=grad and np.asarray(a).dtype.kind == "f") for a in arrays]
        outs.append(fn(lib, *ts))
        ins.append(ts)
    return outs, ins


def _grads_match(fn, *arrays, second=True):
    """Values, first grads (weighted sum) and, with ``second``, grads of the grads' sum."""
    (r, t), (ri, ti) = _both(fn, *arrays)
    _same(r, t)
    w = np.random.default_rng(0).normal(size=tuple(t.shape))
    gr = rg.autograd.grad((r * rg.tensor(w)).sum(), ri, create_graph=second, allow_unused=True)
    gt = torch.autograd.grad((t * torch.tensor(w)).sum(), ti, create_graph=second, allow_unused=True)
    for a, b in zip(gr, gt):
        assert (a is None) == (b is None)
        if b is not None:
            _same(a, b, tol=1e-10)
    if second:
        hr = [g for g in gr if g is not None and g.requires_grad]
        ht = [g for g in gt if g is not None and g.requires_grad]
        assert len(hr) == len(ht)
        if ht:
            g2r = rg.autograd.grad(sum(g.sum() for g in hr), ri, allow_unused=True)
            g2t = torch.autograd.grad(sum(g.sum() for g in ht), ti, allow_unused=True)
            for a, b in zip(g2r, g2t):
                if b is None or b._is_zerotensor():
                    assert a is None or not _np(a).any()
                else:
                    _same(a, b, tol=1e-10)
    return r, t


def _raises_same(fn):
    errs = []
    for lib in (rg, torch):
        with pytest.raises(Exception) as e:
            fn(lib)
        errs.append((type(e.value).__name__, str(e.value).replace("torch.", "").replace("retrograd.", "")))
    assert errs[0] == errs[1]


# ------------------------------------------------------------------ reductions on 0-d tensors
@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("dim,keepdim", [(0, True), (-1, False), ((), False)])
def test_logical_reductions_accept_dim_0_of_a_scalar(name, dim, keepdim):
    for v in (2.5, 0.0):
        r = getattr(rg, name)(rg.tensor(v), dim=dim, keepdim=keepdim)
        t = getattr(torch, name)(torch.tensor(v), dim=dim, keepdim=keepdim)
        _same(r, t)
    _raises_same(lambda lib: getattr(lib, name)(lib.tensor(1.0), 1))


@pytest.mark.parametrize("ord", [2, 1, 0, 6, float("inf"), -float("inf")])
def test_vector_norm_of_a_scalar_over_dim_0(ord):
    _grads_match(lambda lib, x: lib.linalg.vector_norm(x, ord, dim=0, keepdim=True), -4.5)
    _grads_match(lambda lib, x: lib.linalg.vector_norm(x, ord, dim=-1), 3.0)


def test_vector_norm_half_accumulates_in_float():
    x = np.array([-8.4765625, -1.765625])
    for ord in (6, 2, 4):
        r = rg.linalg.vector_norm(rg.tensor(x, dtype=rg.float16), ord)
        t = torch.linalg.vector_norm(torch.tensor(x, dtype=torch.float16), ord)
        assert np.isfinite(_np(r)).all()
        _same(r, t, tol=1e-3)


# ------------------------------------------------------------------ dtype= on accumulating ops
@pytest.mark.parametrize("call", [
    lambda lib, x: lib.sum(x, dtype=lib.int8),
    lambda lib, x: lib.sum(x, 1, dtype=lib.int16),
    lambda lib, x: lib.prod(x, dtype=lib.int8),
    lambda lib, x: lib.prod(x, 1, dtype=lib.int32),
    lambda lib, x: lib.cumsum(x, 1, dtype=lib.int8),
    lambda lib, x: lib.cumprod(x, 0, dtype=lib.int8),
    lambda lib, x: lib.nansum(x, dtype=lib.int32),
    lambda lib, x: x.sum(0, dtype=lib.int32),
])
def test_integer_dtype_argument_is_the_result_dtype(call):
    a = np.array([[100, 100, 3], [7, -100, 100]])
    _same(call(rg, rg.tensor(a)), call(torch, torch.tensor(a)))


def test_bool_dtype_argument():
    a = np.array([[True, True, False], [True, True, True]])
    for call in (lambda lib, x: lib.prod(x, 1, dtype=lib.bool), lambda lib, x: lib.sum(x, dtype=lib.bool),
                 lambda lib, x: lib.prod(x.double(), dtype=lib.bool), lambda lib, x: lib.prod(x, 0)):
        _same(call(rg, rg.tensor(a)), call(torch, torch.tensor(a)))
    for name in ("cumsum", "cumprod"):
        _raises_same(lambda lib: getattr(lib, name)(lib.tensor(a), 1, dtype=lib.bool))


# ------------------------------------------------------------------ quantile: differentiable in q
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_gradient_flows_into_q(fn):
    x = np.array([[-4.8, -7.5, 1.0, 3.0], [0.5, np.nan if fn == "nanquantile" else 2.0, 1.5, -1.0]])
    q = np.array([0.2318, 0.0788, 0.9])
    _grads_match(lambda lib, a, b: getattr(lib, fn)(a, b), x[0], q)
    _grads_match(lambda lib, a, b: getattr(lib, fn)(a, b, dim=1, keepdim=True), x, q)
    _grads_match(lambda lib, a, b: getattr(lib, fn)(a, b), 2.5, q)  # a 0-d input


@pytest.mark.parametrize("interp", ["lower", "higher", "midpoint", "nearest"])
def test_quantile_other_interpolations_leave_q_without_grad(interp):
    _grads_match(lambda lib, a, b: lib.quantile(a, b, interpolation=interp), [-4.8, -7.5, 1.0, 3.0],
                 [0.2318, 0.5])


# ------------------------------------------------------------------ creation ops
ARANGE = [(0.0, -8.000001, -4.0), (1.0, 5.000001, 2.0), (-0.9, 2.1, 2.0), (2.1, -2.9, -1.0), (0.1, -7.9, -4.0),
          (-3.5, 3.2, 1.3), (0.5, 3.7, 0.6), (3, 10.5, 1), (0.5, 0.9, -1), (-0.5, 0.5, 0.5), (5, 0, -0.5),
          (2 ** 40 + 0.5, 2 ** 40 + 3, 1), (0, 1, 0), (0, float("inf"), 0.5), (0, 5.5, float("nan"))]


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
def test_arange_with_fractional_bounds_in_integer_dtypes(dtype):
    for args in ARANGE:
        outs = []
        for lib in (rg, torch):
            try:
                outs.append(lib.arange(*args, dtype=getattr(lib, dtype)).tolist())
            except Exception as e:  # noqa: BLE001 - compared across libraries
                outs.append((type(e).__name__, str(e)))
        assert outs[0] == outs[1], args


@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8"])
def test_linspace_integer_dtypes_truncate_bounds_first(dtype):
    for start, end, steps in [(4.3, -3, 50), (4.3, 0, 50), (4.3, 1, 5), (4.3, -3, 5), (4.3, 10, 5), (-2.7, 9.9, 7),
                              (4.3, -3, 1), (4.3, -3, 0)]:
        if dtype == "uint8" and start < 0:
            _raises_same(lambda lib: lib.linspace(start, end, steps, dtype=lib.uint8))
            continue
        r = rg.linspace(start, end, steps, dtype=getattr(rg, dtype))
        t = torch.linspace(start, end, steps, dtype=getattr(torch, dtype))
        _same(r, t)


def test_scalar_creation_wraps_or_refuses_like_torch():
    for call in (lambda lib: lib.full_like(lib.zeros(3, dtype=lib.uint8), -9),
                 lambda lib: lib.scalar_tensor(-5, dtype=lib.uint8),
                 lambda lib: lib.index_add(lib.zeros(3, dtype=lib.uint8), 0, lib.tensor([0, 1]),
                                           lib.tensor([1, 2], dtype=lib.uint8), alpha=-1),
                 lambda lib: lib.index_add(lib.zeros(3, dtype=lib.uint8), 0, lib.tensor([0, 1]),
                                           lib.tensor([1, 2], dtype=lib.uint8), alpha=2.5)):
        _same(call(rg), call(torch))
    for call in (lambda lib: lib.full_like(lib.zeros(3, dtype=lib.uint8), 300),
                 lambda lib: lib.scalar_tensor(-5.5, dtype=lib.uint8),
                 lambda lib: lib.full_like(lib.zeros(2, dtype=lib.int8), 200)):
        _raises_same(call)


# ------------------------------------------------------------------ shape ops
def test_sum_to_size_dtype_nodes_and_identity():
    for a, size in [(True, ()), ([True, False], (1,)), ([[1, 2]], (1, 1)), (np.ones((3, 4, 2)) > 0, (4, 1))]:
        _same(rg.tensor(a).sum_to_size(size), torch.tensor(a).sum_to_size(size))
    x = rg.tensor([1.0, 2.0])
    assert x.sum_to_size(2) is x
    for shape, size in [((), ()), ((2, 3), (1, 3)), ((1, 2, 3), (2, 3)), ((2, 3), (2, 1))]:
        r = rg.ones(shape, requires_grad=True).sum_to_size(size)
        t = torch.ones(shape, requires_grad=True).sum_to_size(size)
        _same(r, t)
        assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__


def test_diff_with_n_zero_is_a_copy():
    def f(lib, x, p):
        return lib.diff(x, 0, 0, p, p)
    r, t = _grads_match(f, np.arange(10.0).reshape(2, 5), np.ones((1, 5)))
    assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__ == "CopyBackwards"


def test_gradient_accepts_spacing_none():
    for a in (np.array([-4.8, -7.5, -0.6, -1.5, -1.9]), np.arange(20.0).reshape(4, 5) ** 2):
        r = rg.gradient(rg.tensor(a, requires_grad=True), spacing=None, dim=None, edge_order=1)
        t = torch.gradient(torch.tensor(a, requires_grad=True), spacing=None, dim=None, edge_order=1)
        _same(r, t)


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_empty_tensors(fn):
    for shape, dim in [((5, 0, 0), -1), ((0, 3), 1), ((2, 0), 0)]:
        _grads_match(lambda lib, x: getattr(lib, fn)(x, dim), np.zeros(shape))


def test_matmul_with_empty_batched_operands():
    for a, b in [((5, 5, 0), (0, 5)), ((0, 0), (5, 0, 0)), ((2, 0, 3), (3, 4))]:
        _grads_match(lambda lib, x, y: lib.matmul(x, y), np.zeros(a), np.zeros(b))


def test_select_scatter_of_a_vector():
    _grads_match(lambda lib, x, s: lib.select_scatter(x, s, 0, 2), [-4.8, -7.5, -0.6, -1.5], -4.1)


# ------------------------------------------------------------------ gather / scatter / index ops
def test_gather_scatter_take_empty_indices_of_any_dtype():
    x = np.arange(6.0).reshape(2, 3)
    for dt in ("uint8", "int16", "float32", "bool"):
        calls = [lambda lib, e: lib.gather(lib.tensor(x), 1, e.reshape(1, 0)),
                 lambda lib, e: lib.scatter(lib.tensor(x), 1, e.reshape(1, 0), 1.0),
                 lambda lib, e: lib.scatter_add(lib.tensor(x), 1, e.reshape(1, 0), lib.tensor(x)),
                 lambda lib, e: lib.scatter_reduce(lib.tensor(x), 1, e.reshape(1, 0), lib.tensor(x), "sum"),
                 lambda lib, e: lib.take_along_dim(lib.tensor(x), e),
                 lambda lib, e: lib.gather(lib.arange(5.0), 0, e.reshape(2, 0))]
        for call in calls:
            _same(call(rg, rg.tensor([], dtype=getattr(rg, dt))), call(torch, torch.tensor([], dtype=getattr(torch, dt))))
    _raises_same(lambda lib: lib.gather(lib.arange(5.0), 0, lib.tensor([1], dtype=lib.uint8)))
    _raises_same(lambda lib: lib.take_along_dim(lib.tensor(x), lib.tensor([[1]], dtype=lib.uint8), 1))


def test_gather_and_scatter_with_0d_operands():
    _grads_match(lambda lib, s: lib.gather(s, 0, lib.tensor([0, 0])), 3.0)
    _grads_match(lambda lib, s: lib.gather(s, 0, lib.tensor([], dtype=lib.long)), 3.0)
    _grads_match(lambda lib, x: lib.gather(x, 0, lib.tensor(1)), [0.0, 1.0, 2.0])
    _grads_match(lambda lib, s, v: lib.scatter_add(s, 0, lib.tensor([0, 0]), v), 3.0, [5.0, 6.0])
    _grads_match(lambda lib, s, v: lib.scatter(s, 0, lib.tensor([0]), v), 3.0, [5.0])
    _same(rg.scatter(rg.tensor(3.0), 0, rg.tensor([0, 0]), 7.0), torch.scatter(torch.tensor(3.0), 0,
                                                                                 torch.tensor([0, 0]), 7.0))
    for red in ("sum", "prod", "mean", "amax", "amin"):
        _grads_match(lambda lib, s, v: lib.scatter_reduce(s, 0, lib.tensor([0, 0]), v, red), 3.0, [5.0, 6.0],
                     second=False)
    _raises_same(lambda lib: lib.gather(lib.tensor(3.0), 0, lib.tensor([[0]])))


def test_take_along_dim_wraps_indices_along_a_dim():
    x = np.arange(10.0).reshape(2, 5)
    for idx, dim in [([[-1, -5]], 1), ([[-1], [-2]], 0), ([[-6, 5, 6, -11, -100]], -1)]:
        r, t = _grads_match(lambda lib, a: lib.take_along_dim(a, lib.tensor(idx), dim), x)
        assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__
    _raises_same(lambda lib: lib.take_along_dim(lib.tensor(x), lib.tensor([-1])))  # (flattened: no wrap)


def test_index_fill_value_grad_counts_each_slice_once():
    x = np.arange(6.0).reshape(2, 3)
    for idx in ([2, 1, 1, 2, 0], [0], [1, 1], [0, 0, 2]):
        _grads_match(lambda lib, a, v: lib.index_fill(a, -1, lib.tensor(idx), v), x, 2.0)


@pytest.mark.parametrize("reduce", ["prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_of_a_scalar(reduce, include_self):
    r, t = _grads_match(lambda lib, a, s: lib.index_reduce(a, 0, lib.tensor([0]), s, reduce,
                                                             include_self=include_self), 7.0, -5.0, second=False)
    assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__


@pytest.mark.parametrize("include_self", [True, False])
def test_index_reduce_prod_gradient_with_zeros(include_self):
    a = [[0.0, 13.0], [0.0, 0.0], [15.0, 19.0]]
    s = [[2.0, 0.0], [0.0, 0.0], [2.0, 3.0], [2.0, 2.0]]
    _grads_match(lambda lib, x, y: lib.index_reduce(x, 0, lib.tensor([0, 1, 2, 0]), y, "prod",
                                                    include_self=include_self), a, s, second=False)


def test_resize_as_function():
    r = rg.resize_as_(rg.zeros(2, 3), rg.ones(3))
    t = torch.resize_as_(torch.zeros(2, 3), torch.ones(3))
    _same(r, t)
    _raises_same(lambda lib: lib.resize_as_(lib.ones(2, 3, requires_grad=True), lib.ones(3)))


# ------------------------------------------------------------------ Tensor.to argument forms
TO_CALLS = [
    lambda lib, x: x.to("cpu", lib.float64, True, True),
    lambda lib, x: x.to("cpu", lib.float64, False, True, memory_format=lib.preserve_format),
    lambda lib, x: x.to(lib.float64, True, True),
    lambda lib, x: x.to(lib.tensor(1, dtype=lib.int32), True, True),
    lambda lib, x: x.to(lib.float32, False, False),
    lambda lib, x: x.to("cpu", None, False, True),
    lambda lib, x: x.to(None, lib.int32),
    lambda lib, x: x.to(tensor=x, copy=True),
    lambda lib, x: x.to(True),
    lambda lib, x: x.to(2.0),
    lambda lib, x: x.to(lib.float64, True, True, lib.preserve_format),
    lambda lib, x: x.to("cpu", lib.float64, True, True, lib.preserve_format),
    lambda lib, x: x.to(lib.float64, "cpu"),
    lambda lib, x: x.to(lib.float64, dtype=lib.float32),
    lambda lib, x: x.to(lib.float64, 1, 0),
    lambda lib, x: x.to(other=x),
    lambda lib, x: x.to([1]),
]


@pytest.mark.parametrize("i", range(len(TO_CALLS)))
def test_to_positional_non_blocking_and_copy(i):
    outs = []
    for lib in (rg, torch):
        x = lib.tensor([1.0, 2.0])
        try:
            y = TO_CALLS[i](lib, x)
            outs.append((_dt(y), y is x, y.tolist()))
        except Exception as e:  # noqa: BLE001 - compared across libraries
            outs.append((type(e).__name__, str(e).replace("torch.", "").replace("retrograd.", "")))
    assert outs[0] == outs[1]
