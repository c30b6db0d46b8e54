"""The reduction ops (src/retrograd/_ops/reduction.py): dtype= and keepdim rules, named-tuple results,
NaN handling, empty and 0-d inputs, errors and call forms, against torch."""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._reduce_shape_helpers import _grads_match, _np, _raises_same, _same  # noqa: E402
from ._reduction_helpers import LIBS, _both as _both_reduce, _np as _np_reduce  # noqa: E402
from ._ties_helpers import CASES, _both as _both_ties, _dims  # noqa: E402
from ._expression_helpers import F, FG, I, _pair as _pair_expr, _same_error  # noqa: E402
from ._differential_helpers import assert_same_derivatives, assert_same_layout  # noqa: E402
from parity import same_error  # noqa: E402


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


# ---------------------------------------------------------------------------- NaN
NAN = [[1., float("nan"), 2.], [3., 0.5, 4.]]


@pytest.mark.parametrize("fn", [
    lambda lib, x: x.max(), lambda lib, x: x.max(1), lambda lib, x: x.amin(1), lambda lib, x: x.argmax(1),
    lambda lib, x: x.median(), lambda lib, x: x.median(1), lambda lib, x: x.nanmedian(),
    lambda lib, x: x.nanmedian(1), lambda lib, x: x.sort(1, descending=True), lambda lib, x: x.topk(2),
    lambda lib, x: x.kthvalue(3), lambda lib, x: x.cummax(1), lambda lib, x: x.cummin(1),
    lambda lib, x: x.nansum(1), lambda lib, x: x.nanmean(), lambda lib, x: lib.aminmax(x, dim=1),
    lambda lib, x: lib.logsumexp(x, 1)])
def test_nan_handling_like_torch(fn):
    (_, a), (_, b) = _both_reduce(fn, NAN)
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_allclose(_np_reduce(u), _np_reduce(v), equal_nan=True)


# ---------------------------------------------------------------------------- named tuples
@pytest.mark.parametrize("name,call", [
    ("max", lambda lib, x: x.max(1)), ("min", lambda lib, x: lib.min(x, 0)),
    ("median", lambda lib, x: x.median(1)), ("nanmedian", lambda lib, x: x.nanmedian(0)),
    ("mode", lambda lib, x: x.mode()), ("sort", lambda lib, x: lib.sort(x)),
    ("topk", lambda lib, x: x.topk(1)), ("kthvalue", lambda lib, x: x.kthvalue(1)),
    ("cummax", lambda lib, x: x.cummax(1)), ("cummin", lambda lib, x: x.cummin(0)),
    ("aminmax", lambda lib, x: lib.aminmax(x))])
def test_named_tuple_results(name, call):
    data = [[1., 5., 3.], [4., 2., 6.]]
    ours = call(retrograd, retrograd.tensor(data))
    theirs = call(torch, torch.tensor(data))
    assert type(ours).__name__ == name and type(ours).__module__ == "retrograd.return_types"
    assert isinstance(ours, tuple) and len(ours) == 2
    assert repr(ours) == repr(theirs)
    fields = ("min", "max") if name == "aminmax" else ("values", "indices")
    for k, f in enumerate(fields):
        assert getattr(ours, f) is ours[k]
        np.testing.assert_array_equal(_np_reduce(getattr(ours, f)), _np_reduce(getattr(theirs, f)))
    a, b = ours
    assert a is ours[0] and b is ours[1]
    assert ours.n_fields == theirs.n_fields
    back = pickle.loads(pickle.dumps(ours))
    assert type(back) is type(ours)
    assert str(ours) == repr(ours)


def test_return_types_module():
    rt = retrograd.return_types
    r = rt.max((1, 2))
    assert (r.values, r.indices) == (1, 2) and r == (1, 2)
    with pytest.raises(TypeError, match=r"torch.return_types.max\(\) takes a 2-sequence \(1-sequence given\)"):
        rt.max((1,))
    assert rt.linalg_slogdet((1, 2)).logabsdet == 2
    assert rt.svd((1, 2, 3)).V == 3
    assert set(t.__name__ for t in torch.return_types.all_return_types) <= set(t.__name__ for t in rt.all_return_types)


def test_plain_tuples_where_torch_has_them():
    x = retrograd.tensor([[1., 2.], [3., 5.]])
    assert type(retrograd.var_mean(x)) is tuple and type(retrograd.std_mean(x, 1)) is tuple
    assert type(retrograd.unique(x, return_counts=True)) is tuple


# ---------------------------------------------------------------------------- dtypes
@pytest.mark.parametrize("dtype", ["int64", "int32", "uint8", "bool"])
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.prod(), lambda lib, x: x.prod(0), lambda lib, x: x.cumsum(0), lambda lib, x: x.cumprod(0),
    lambda lib, x: x.amax(), lambda lib, x: x.max(), lambda lib, x: x.all(), lambda lib, x: x.any(0),
    lambda lib, x: x.nansum(), lambda lib, x: x.count_nonzero(), lambda lib, x: x.sort().values,
    lambda lib, x: x.cummax(0).values, lambda lib, x: lib.aminmax(x).max, lambda lib, x: x.logsumexp(0),
    lambda lib, x: x.mode().values])
def test_integer_and_bool_result_dtypes(fn, dtype):
    (_, a), (_, b) = _both_reduce(fn, [1, 0, 1, 1], dtype)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(_np_reduce(a).astype(float), _np_reduce(b).astype(float), rtol=1e-6)


def test_dtype_keyword():
    for lib in LIBS:
        x = lib.tensor([1, 2, 3])
        assert x.cumsum(0, dtype=lib.float64).dtype == lib.float64
        assert x.prod(dtype=lib.float32).dtype == lib.float32
        assert lib.tensor([1., 2.]).norm(dtype=lib.float64).dtype == lib.float64


# ---------------------------------------------------------------------------- errors
ERRORS = [
    lambda lib: lib.zeros(0).max(),
    lambda lib: lib.zeros(0).amax(),
    lambda lib: lib.zeros(0, 3).max(0),
    lambda lib: lib.zeros(0).argmax(),
    lambda lib: lib.tensor([True, False]).argmax(),
    lambda lib: lib.zeros(2, 3).kthvalue(4),
    lambda lib: lib.zeros(2, 3).topk(4),
    lambda lib: lib.tensor([1, 2]).var(),
    lambda lib: lib.tensor([1, 2]).std(),
    lambda lib: lib.tensor([1, 2]).norm(),
    lambda lib: lib.tensor([1, 2]).nanmean(),
    lambda lib: lib.zeros(2, 3).norm(p="abc"),
    lambda lib: lib.zeros(2, 3).sum(2),
    lambda lib: lib.zeros(2, 3).amax(-3),
    lambda lib: lib.zeros(2, 3).max(2),
    lambda lib: lib.zeros(2, 3).cumsum(5),
    lambda lib: lib.zeros(2, 3).prod((0, 1)),
    lambda lib: lib.max(lib.zeros(2, 3), 1.0),
    lambda lib: lib.zeros(2, 3).max(keepdim=True),
    lambda lib: lib.max(lib.zeros(2, 3), lib.zeros(3, 2)),
    lambda lib: lib.zeros(2, 3).amax((0, 0)),
]


@pytest.mark.parametrize("k", range(len(ERRORS)))
def test_errors_match_torch(k):
    with pytest.raises(Exception) as theirs:
        ERRORS[k](torch)
    with pytest.raises(type(theirs.value)) as ours:
        ERRORS[k](retrograd)
    if not isinstance(theirs.value, TypeError):
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------------------- signatures and odd corners
@pytest.mark.parametrize("fn", [
    lambda lib, x: x.var(False), lambda lib, x: x.var(1, True, True), lambda lib, x: x.std(dim=(0, 1)),
    lambda lib, x: lib.var(x, 0, correction=2), lambda lib, x: x.sum(()), lambda lib, x: x.mean(()),
    lambda lib, x: x.amax(()), lambda lib, x: x.all(()), lambda lib, x: x.argmax(keepdim=True),
    lambda lib, x: x.argmin(1, True), lambda lib, x: lib.norm(x, None), lambda lib, x: x.norm(2, 1, True),
    lambda lib, x: lib.aminmax(x, keepdim=True), lambda lib, x: x.count_nonzero(()),
    lambda lib, x: lib.tensor(3.).max(0), lambda lib, x: lib.tensor(3.).sort(), lambda lib, x: lib.tensor(3.).topk(1),
    lambda lib, x: lib.tensor(3.).median(0, True), lambda lib, x: lib.tensor(3.).kthvalue(1),
    lambda lib, x: lib.tensor(3.).cumsum(0), lambda lib, x: lib.tensor(3.).logsumexp(0)])
def test_call_forms_like_torch(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (_, a), (_, b) = _both_reduce(fn, [[1., -2., 3.], [0.5, 4., -1.]])
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    for u, v in zip(a, b):
        assert tuple(u.shape) == tuple(v.shape)
        np.testing.assert_allclose(_np_reduce(u), _np_reduce(v), equal_nan=True)


# ---------------------------------------------------------------- max / min / argmax / argmin / cummax
@pytest.mark.parametrize("case", range(len(CASES)))
def test_extrema(case):
    a, nc = CASES[case]
    for f in ("max", "min", "argmax", "argmin"):
        _both_ties(lambda L, x: getattr(L, f)(x), a, nc, f)
    for d in _dims(a):
        for keepdim in (False, True):
            for f in ("max", "min", "argmax", "argmin"):
                _both_ties(lambda L, x: getattr(L, f)(x, d, keepdim), a, nc, (f, d))
        for f in ("cummax", "cummin"):
            _both_ties(lambda L, x: getattr(L, f)(x, d), a, nc, (f, d))


def _outcome(fn):
    """(kind, payload) of calling fn: its value as nested lists + dtype name, or the exception."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception itself is compared)
        return ("exc", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return ("tensor", str(r.dtype).split(".")[-1], r.tolist())
    return ("value", r)


# ---------------------------------------------------------------- 6. empty reductions are silent
EMPTY_REDUCTIONS = {
    "mean all": lambda T: T.tensor([]).mean(),
    "mean dim 0": lambda T: T.zeros(0, 3).mean(0),
    "mean dim 1": lambda T: T.zeros(0, 3).mean(1),
    "mean keepdim f64": lambda T: T.zeros(0, 3, dtype=T.float64).mean(0, keepdim=True),
    "var": lambda T: T.tensor([]).var(),
    "std": lambda T: T.tensor([]).std(),
    "var dim": lambda T: T.zeros(0, 3).var(0),
    "std dim 1": lambda T: T.zeros(0, 3).std(1),
    "var_mean": lambda T: T.var_mean(T.tensor([]))[1],
    "std_mean dim": lambda T: T.std_mean(T.zeros(0, 2), 0)[1],
    "mean grad": lambda T: (lambda x: (x.mean(0).sum().backward(), x.grad)[1])(T.zeros(0, 3, requires_grad=True)),
}


@pytest.mark.parametrize("case", list(EMPTY_REDUCTIONS))
def test_empty_reductions_are_nan_without_numpy_warnings(case):
    fn = EMPTY_REDUCTIONS[case]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ours = _outcome(lambda: fn(rg))
    assert [str(x.message) for x in w if x.category is RuntimeWarning] == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _outcome(lambda: fn(torch))
    assert str(ours).replace("nan", "NaN") == str(theirs).replace("nan", "NaN")


# ---------------------------------------------------------------- 3. integer dtype= with autograd
@pytest.mark.parametrize("src", [
    f"T.sum({FG}, dtype=T.int64)", f"T.sum({FG}, 0, dtype=T.int64)", f"T.sum({FG}, dtype=T.bool)",
    f"T.prod({FG}, dtype=T.int64)", f"T.prod({FG}, 0, dtype=T.int32)", f"T.nansum({FG}, dtype=T.int64)",
    f"T.cumsum({FG}, 0, dtype=T.int64)", f"T.cumprod({FG}, 0, dtype=T.int64)",
    f"T.nanmean({FG}, dtype=T.int64)", f"T.nanmean({F}, dtype=T.int64)", f"T.nanmean({FG}, 0, dtype=T.int64)",
    f"{FG}.sum(dtype=T.int64)",
])
def test_grad_dtype_errors(src):
    _same_error(src)


def test_integer_dtype_without_grad_still_works():
    for src in (f"T.sum({F}, dtype=T.int64)", f"T.cumsum({FG}.detach(), 0, dtype=T.int64)"):
        t = eval(src, {"T": torch})
        r = eval(src, {"T": retrograd})
        assert str(r.dtype).endswith("int64") and not r.requires_grad
        np.testing.assert_array_equal(r.numpy(), t.numpy())
    with retrograd.no_grad():
        r = retrograd.sum(retrograd.tensor([1.5, 2.], requires_grad=True), dtype=retrograd.int64)
    assert r.item() == 3


def test_float_dtype_with_grad_keeps_graph():
    for lib in (torch, retrograd):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        y = lib.cumprod(x, 0, dtype=lib.float64)
        g, = lib.autograd.grad(y.sum(), x)
        np.testing.assert_allclose(g.numpy(), [1 + 2 + 6, 1 + 3, 2])
        assert type(y.grad_fn).__name__ == "CumprodBackward0"


# ---------------------------------------------------------------- 4. keepdim without dim
@pytest.mark.parametrize("name,src", [
    ("sum", f"{F}.sum(keepdim=True)"), ("mean", f"{F}.mean(keepdim=True)"), ("prod", f"{F}.prod(keepdim=True)"),
    ("mean", f"{I}.mean(keepdim=True)"), ("sum", f"T.sum({F}, keepdim=True)"),
    ("mean", f"T.mean({F}, keepdim=True)"), ("prod", f"T.prod({F}, keepdim=True)"),
])
def test_keepdim_without_dim(name, src):
    with pytest.raises(TypeError) as et:
        eval(src, {"T": torch})
    with pytest.raises(TypeError) as er:
        eval(src, {"T": retrograd})
    assert str(et.value).startswith(f"{name}() received an invalid combination of arguments")
    assert str(er.value).startswith(f"{name}() received an invalid combination of arguments")


def test_keepdim_with_dim_still_works():
    t, r = _pair_expr(lambda L: L.tensor([[1., 2.], [3., 4.]]).mean(1, keepdim=True))
    assert tuple(r.shape) == tuple(t.shape) == (2, 1)
    np.testing.assert_allclose(r.numpy(), t.numpy())


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("name", ["max", "min"])
def test_global_max_min_backward_selects_not_multiplies(name):
    # d sqrt(max)/dx is inf at the max; the other entries must get 0, not 0 * inf = NaN
    assert_same_derivatives(lambda L, x: getattr(x, name)().abs().sqrt(), [0.0, 1.0, -2.0, 0.0])


@pytest.mark.parametrize("values", [[-0.0, 0.0], [0.0, -0.0], [-0.0, -0.0, -1.0], [-1.0, 0.0, -0.0]])
@pytest.mark.parametrize("name", ["amax", "amin"])
def test_amax_amin_keep_the_first_tied_signed_zero(values, name):
    if name == "amin":
        values = [-v for v in values]
    for dims in ((), 0, -1):
        r = getattr(rg.tensor([values]), name)(dims)
        t = getattr(torch.tensor([values]), name)(dims)
        assert np.signbit(r.numpy()).tolist() == torch.signbit(t).tolist()


@pytest.mark.parametrize("op", [lambda L, x: x.sum(0), lambda L, x: x.sum(-1), lambda L, x: x.amax(0),
                                lambda L, x: x.mean(1), lambda L, x: x.logsumexp(0), lambda L, x: x.norm(dim=0),
                                lambda L, x: x.amin((0, -1))])
def test_reductions_are_contiguous_whatever_the_input_layout(op):
    assert_same_layout(op)


@pytest.mark.parametrize("call", [lambda L: L.zeros(2, 0).amax(-1), lambda L: L.zeros(0, 3).amin((-2, 1)),
                                  lambda L: L.zeros(0, 3).norm(float("inf")), lambda L: L.zeros(0, 3).norm(float("inf"), -2)])
def test_empty_reduction_messages_name_the_dim_as_given(call):
    same_error(call)
