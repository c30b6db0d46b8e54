"""Regressions found by running PyTorch's test_reductions.py / test_tensor_creation_ops.py on retrograd.

Every case runs the same code on retrograd and on real torch (the oracle) and compares values,
dtypes (by short name), and exception types and messages.
"""
from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _short(dtype) -> str:
    return str(dtype).split(".")[-1]


def _run(lib, fn):
    """``fn(lib)`` as comparable data: tensors -> (dtype, values), tuples element-wise, errors -> (type, text)."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            res = fn(lib)
    except Exception as e:  # noqa: BLE001 - the exception itself is what is compared
        return type(e).__name__, re.sub(r"(torch|retrograd)\.", "", str(e)).split("\n")[0]
    return _data(lib, res)


def _data(lib, res):
    if isinstance(res, lib.Tensor):
        return _short(res.dtype), np.round(np.asarray(res.detach().tolist(), dtype=float), 6).tolist()
    if isinstance(res, (tuple, list)):
        return [_data(lib, r) for r in res]
    return res


def same(fn):
    got, want = _run(rg, fn), _run(torch, fn)
    assert got == want, f"retrograd: {got}\ntorch:     {want}"
    return got


X = [[1.5, -2.0, 3.0, 0.5], [4.0, 1.0, -1.0, 2.0], [0.0, 2.5, 1.0, -3.0]]


def _x(T, dtype=None):
    return T.tensor(X, dtype=dtype or T.float64)


# ------------------------------------------------------------------ out= of the dtype= reductions
@pytest.mark.parametrize("op", ["sum", "prod", "nansum", "mean"])
@pytest.mark.parametrize("out_dtype", ["float64", "float32", "int64", "int32"])
def test_reduction_out_dtype_follows_out(op, out_dtype):
    def f(T):
        out = T.zeros(4, dtype=getattr(T, out_dtype))
        res = getattr(T, op)(_x(T), 0, out=out)
        assert res is out
        return out
    same(f)


@pytest.mark.parametrize("op", ["sum", "prod", "mean", "cumsum"])
def test_reduction_out_with_mismatched_dtype_kwarg(op):
    def f(T):
        shape = (3, 4) if op == "cumsum" else (4,)
        return getattr(T, op)(_x(T), 0, dtype=T.float32, out=T.zeros(shape, dtype=T.float64))
    assert same(f)[0] == "RuntimeError"


@pytest.mark.parametrize("op", ["sum", "prod"])
def test_reduction_out_needs_dim(op):
    assert same(lambda T: getattr(T, op)(_x(T), out=T.zeros(())))[0] == "TypeError"


def test_sum_method_has_no_out():
    assert same(lambda T: _x(T).sum(0, out=T.zeros(4)))[0] == "TypeError"


def test_reduction_out_refuses_grad():
    assert same(lambda T: T.sum(_x(T).requires_grad_(), 0, out=T.zeros(4, dtype=T.float64)))[0] == "RuntimeError"


def test_sum_out_into_noncontiguous_view():
    def f(T):
        base = T.zeros(4, 3, dtype=T.float64)
        T.sum(_x(T), 0, out=base[:, 1])
        return base
    same(f)


def test_mean_out_all_elements_and_alias():
    def f(T):
        out = T.zeros((), dtype=T.float64)
        r = T.mean(_x(T), out=out)
        assert T._C._is_alias_of(out, r)
        return r
    same(f)


# ------------------------------------------------------------------ (values, indices) out=
@pytest.mark.parametrize("op", ["median", "nanmedian", "mode", "max", "min"])
def test_values_indices_out_into_views(op):
    def f(T):
        values = T.full((3, 3), 7.0, dtype=T.float64)
        indices = T.full((3, 3), -1, dtype=T.int64)
        getattr(T, op)(_x(T), 1, False, out=(values[:, 1], indices[:, 1]))
        return values, indices
    same(f)


@pytest.mark.parametrize("op", ["median", "nanmedian", "mode", "max", "min"])
@pytest.mark.parametrize("which", ["values", "indices"])
def test_values_indices_out_wrong_dtype(op, which):
    def f(T):
        values = T.zeros(3, dtype=T.float32 if which == "values" else T.float64)
        indices = T.zeros(3, dtype=T.int32 if which == "indices" else T.int64)
        return getattr(T, op)(_x(T), 1, out=(values, indices))
    assert same(f)[0] == "RuntimeError"


def test_median_out_without_dim():
    assert same(lambda T: T.median(_x(T), out=T.zeros(())))[0] == "TypeError"


def test_norm_out():
    def f(T):
        out = T.zeros(4, dtype=T.float64)
        T.norm(_x(T), 2, 0, False, out=out)
        return out
    same(f)


# ------------------------------------------------------------------ all / any out=
@pytest.mark.parametrize("op", ["all", "any"])
@pytest.mark.parametrize("case", ["float_in_float_out", "uint8_in_uint8_out", "float_in_bool_out"])
def test_all_any_out(op, case):
    def f(T):
        x = _x(T)
        if case == "uint8_in_uint8_out":
            x, out = x.abs().to(T.uint8), T.zeros(4, dtype=T.uint8)
        elif case == "float_in_float_out":
            out = T.zeros(4, dtype=T.float64)
        else:
            out = T.zeros(4, dtype=T.bool)
        getattr(T, op)(x, 0, out=out)
        return out
    same(f)


# ------------------------------------------------------------------ integer dtype= keeps its width
@pytest.mark.parametrize("op", ["cumsum", "cumprod", "sum", "nansum", "prod"])
@pytest.mark.parametrize("in_dtype", ["int32", "uint8", "bool"])
@pytest.mark.parametrize("dtype", [None, "int16", "int32", "uint8"])
def test_integer_reduction_dtype(op, in_dtype, dtype):
    def f(T):
        x = T.tensor([[100, 27, 3], [90, 5, 1]], dtype=T.int64).to(getattr(T, in_dtype))
        kw = {} if dtype is None else {"dtype": getattr(T, dtype)}
        return getattr(T, op)(x, 1, **kw)
    same(f)


def test_uint8_sum_overflow_wraps():
    same(lambda T: T.tensor([[255, 2, 1], [5, 3, 6]], dtype=T.uint8).sum(dtype=T.uint8))


@pytest.mark.parametrize("op", ["cumsum", "cumprod"])
def test_cum_out_integer(op):
    def f(T):
        out = T.zeros(3, 4, dtype=T.int16)
        getattr(T, op)(_x(T, T.int64), 0, out=out)
        return out
    same(f)


# ------------------------------------------------------------------ histc argument order
@pytest.mark.parametrize("dtype", ["int32", "uint8", "float32"])
def test_histc_min_above_max_before_dtype(dtype):
    assert same(lambda T: T.histc(T.tensor([1, 2, 3], dtype=getattr(T, dtype)), bins=4, min=5, max=1))[0] \
        == "RuntimeError"


def test_histc_integer_input_not_implemented():
    assert same(lambda T: T.histc(T.tensor([1, 2, 3]), bins=4, min=0, max=3))[0] == "NotImplementedError"


# ------------------------------------------------------------------ torch._C._is_alias_of, dlpack
def test_is_alias_of():
    def f(T):
        x = T.zeros(6)
        return [T._C._is_alias_of(x, x[2:]), T._C._is_alias_of(x, x.view(2, 3).t()),
                T._C._is_alias_of(x, x.clone()), T._C._is_alias_of(x[:2], x[3:])]
    same(f)


def test_dlpack_round_trip_shares_memory():
    def f(T):
        from importlib import import_module

        dl = import_module(f"{T.__name__}.utils.dlpack")
        x = T.arange(6.0).view(2, 3).t()
        y = dl.from_dlpack(dl.to_dlpack(x))
        y[0, 1] = 50.0
        return x, list(y.shape), list(y.stride())
    same(f)


def test_dlpack_from_numpy():
    def f(T):
        from importlib import import_module

        return import_module(f"{T.__name__}.utils.dlpack").from_dlpack(np.arange(4))
    same(f)
