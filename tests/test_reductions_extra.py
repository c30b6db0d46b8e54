"""Reductions beyond the generic table: ties, NaN, named-tuple results, dtypes, errors.

torch is the oracle: every check runs the same code on both libraries.
"""
from __future__ import annotations

import pickle
import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

LIBS = (retrograd, torch)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _both(fn, values, dtype="float64"):
    """fn(lib, x) for both libraries on a leaf ``x`` built from ``values``; returns the pairs."""
    res = []
    for lib in LIBS:
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=dtype.startswith("float"))
        res.append((x, fn(lib, x)))
    return res


def _first(out):
    return out[0] if isinstance(out, tuple) else out


# ---------------------------------------------------------------------------- ties
TIED = [[1., 3., 3.], [2., 2., 0.5]]
TIED_FLAT = [1., 3., 0.5, 3., 3.]
TIE_CASES = {
    "max": lambda lib, x: x.max(),
    "min": lambda lib, x: x.min(),
    "amax_dim": lambda lib, x: x.amax(1),
    "amax_all": lambda lib, x: x.amax(),
    "amin_dims": lambda lib, x: lib.amin(x, (0, 1), keepdim=True),
    "aminmax": lambda lib, x: lib.aminmax(x, dim=1).max,
    "aminmax_min": lambda lib, x: lib.aminmax(x).min,
    "max_dim": lambda lib, x: x.max(1).values,
    "min_dim": lambda lib, x: x.min(1, keepdim=True).values,
    "median_all": lambda lib, x: x.median(),
    "median_dim": lambda lib, x: x.median(1).values,
    "nanmedian_all": lambda lib, x: x.nanmedian(),
    "mode": lambda lib, x: x.mode(1).values,
    "sort": lambda lib, x: x.sort(1, descending=True).values,
    "sort_stable": lambda lib, x: x.sort(dim=1, stable=True).values,
    "topk": lambda lib, x: x.topk(1, 1).values,
    "cummax": lambda lib, x: x.cummax(1).values,
    "cummin": lambda lib, x: x.cummin(0).values,
    "norm_inf": lambda lib, x: x.norm(float("inf"), 1),
    "maximum": lambda lib, x: lib.max(x, lib.full_like(x, 2.0)),
    "minimum_self": lambda lib, x: lib.min(x, x),
}


@pytest.mark.parametrize("name", sorted(TIE_CASES))
def test_ties_gradient_like_torch(name):
    fn = TIE_CASES[name]
    (x, ours), (tx, theirs) = _both(fn, TIED)
    np.testing.assert_allclose(_np(ours), _np(theirs))
    w = np.arange(1., 1. + np.size(_np(ours))).reshape(np.shape(_np(ours)))
    (ours * retrograd.tensor(w)).sum().backward()
    (theirs * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(_np(x.grad), _np(tx.grad), err_msg=name)


@pytest.mark.parametrize("name", ["max", "amax_all", "median_all", "max_dim", "sort", "cummax", "topk"])
def test_ties_second_derivative_like_torch(name):
    fn = TIE_CASES[name]
    grads = []
    for lib in LIBS:
        x = lib.tensor(TIED, dtype=lib.float64, requires_grad=True)
        y = _first(fn(lib, x * x))
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        grads.append((_np(g), _np(gg)))
    np.testing.assert_allclose(grads[0][0], grads[1][0])
    np.testing.assert_allclose(grads[0][1], grads[1][1])


def test_tied_indices_match_torch():
    for fn in (lambda lib, x: x.max(0), lambda lib, x: x.min(0), lambda lib, x: x.cummax(0),
               lambda lib, x: x.cummin(0), lambda lib, x: x.mode(0), lambda lib, x: x.median(0),
               lambda lib, x: x.sort(0, descending=True), lambda lib, x: x.sort(0),
               lambda lib, x: x.argmax(), lambda lib, x: x.argmin()):  # topk: torch leaves the tie order open
        (_, a), (_, b) = _both(fn, TIED_FLAT)
        for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            np.testing.assert_array_equal(_np(u), _np(v))


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
    (_, a), (_, b) = _both(fn, NAN)
    for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
        np.testing.assert_allclose(_np(u), _np(v), equal_nan=True)


def test_all_nan_slice_nanmedian():
    (_, a), (_, b) = _both(lambda lib, x: x.nanmedian(1), [[float("nan")] * 2, [1., 2.]])
    np.testing.assert_allclose(_np(a.values), _np(b.values), equal_nan=True)
    np.testing.assert_array_equal(_np(a.indices), _np(b.indices))


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
        np.testing.assert_array_equal(_np(getattr(ours, f)), _np(getattr(theirs, f)))
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
    (_, a), (_, b) = _both(fn, [1, 0, 1, 1], dtype)
    assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
    np.testing.assert_allclose(_np(a).astype(float), _np(b).astype(float), rtol=1e-6)


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
        (_, a), (_, b) = _both(fn, [[1., -2., 3.], [0.5, 4., -1.]])
    a = a if isinstance(a, tuple) else (a,)
    b = b if isinstance(b, tuple) else (b,)
    for u, v in zip(a, b):
        assert tuple(u.shape) == tuple(v.shape)
        np.testing.assert_allclose(_np(u), _np(v), equal_nan=True)


def test_var_with_too_large_correction():
    for lib in LIBS:
        with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
            lib.tensor([1., 2.]).var(correction=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (_, a), (_, b) = _both(lambda lib, x: (x.var(correction=5), x.std(correction=2), lib.tensor(2.).var()),
                               [1., 2., 4.])
    for u, v in zip(a, b):
        np.testing.assert_allclose(_np(u), _np(v), equal_nan=True)


def test_prod_and_cumprod_zeros_second_derivative():
    for vals in ([2., 0., 3., 0.5], [0., 0., 3., 2.]):
        out = []
        for lib in LIBS:
            x = lib.tensor(vals, dtype=lib.float64, requires_grad=True)
            y = x.prod() + x.cumprod(0).sum() + x.reshape(2, 2).prod(1).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            (gg,) = lib.autograd.grad((g * lib.tensor([1., 2., 3., 4.], dtype=lib.float64)).sum(), x)
            out.append((_np(g), _np(gg)))
        np.testing.assert_allclose(out[0][0], out[1][0])
        np.testing.assert_allclose(out[0][1], out[1][1])
