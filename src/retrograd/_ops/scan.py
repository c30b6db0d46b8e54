"""Cumsum/cumprod (+ in-place), cummax/cummin, logcumsumexp."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D, return_types as RT
from .._tensor import Tensor, _scalar_type_name
from ._out import declares_out
from ._common import grad_dtype, wrap_dim
from ._composite import _R, _supports_out, _tname
from ._registry import apply, apply_inplace, on_arrays, primitive
from .reduction import _selecting

__all__ = ["cumsum", "cumprod", "cummax", "cummin", "cumsum_", "cumprod_", "logcumsumexp", "signbit"]


_cummax = _selecting("cummax", "CummaxBackward0")
_cummin = _selecting("cummin", "CumminBackward0")


# ---------------------------------------------------------------- cumulative ops
def _cum_fw(f, from_zero=False):
    def fw(a, *, dim):
        # integers keep the dtype they arrive in (the callers cast to int64 when no dtype= was
        # given): numpy would widen int8/int16/int32 to the platform int on its own
        dt = a.dtype if a.dtype.kind in "iub" else None
        if a.ndim == 0:
            r = a.astype(dt or a.dtype, copy=True)
        else:
            r = f(a, axis=dim, dtype=dt)
        if from_zero and r.dtype.kind in "fc":
            r += 0.0  # PyTorch's running sum starts at +0: -0 entries come out as +0
        return np.asarray(r, order="C")  # (PyTorch's result is contiguous whatever the input's layout)
    return fw


def _cumprod_bw(g: Tensor, a: Tensor, out: Tensor, dim: int) -> Tensor:
    if a._data.ndim == 0 or a._data.size <= 1 or a._data.shape[dim] == 1:
        return g
    if not (a._data == 0).any():
        return flip(cumsum(flip(g * out, dim), dim), dim) / a
    # With zeros: grad[k] = sum_{j >= k} g[j] * prod_{i <= j, i != k} a[i], as a (k, j) table.
    x = movedim(a, dim, -1)
    gg = movedim(g, dim, -1)
    n = x.shape[-1]
    table = expand(unsqueeze(x, -2), tuple(x.shape[:-1]) + (n, n))
    table = masked_fill(table, _const(np.eye(n, dtype=bool)), 1)
    partial = cumprod(table, -1)
    contrib = masked_fill(unsqueeze(gg, -2) * partial, _const(~np.triu(np.ones((n, n), dtype=bool))), 0)
    return movedim(_sum(contrib, -1), -1, dim)


def _cumprod_first_order(g: Tensor, a: Tensor, out: Tensor, dim: int) -> Tensor:
    """PyTorch's first-order cumprod backward (the fast path): with zeros, _cumprod_bw_zeros."""
    if a._data.ndim and a._data.size > 1 and a._data.shape[dim] > 1 and (a._data == 0).any():
        return _cumprod_bw_zeros(g, a, dim)
    return _cumprod_bw(g, a, out, dim)


def _cumprod_bw_zeros(g: Tensor, a: Tensor, dim: int) -> Tensor:
    """PyTorch's first-order cumprod backward with zeros: only the terms before the second zero of each
    slice are summed (the later ones are zero in exact arithmetic), so NaN / inf there do not leak."""
    z = a._data == 0
    cs = np.cumsum(z, axis=dim)
    before = cs == 0                                   # [0, z1)
    first = z & (cs == 1)                              # z1
    between = (cs == 1) & ~first                       # (z1, z2)
    # k < z1: sum_{z1 > j >= k} g_j out_j / a_k, with out computed from the masked input
    a0 = masked_fill(a, _const(~before), 1)
    w = masked_fill(g * cumprod(a0, dim), _const(~before), 0)
    part_before = masked_fill(flip(cumsum(flip(w, dim), dim), dim) / a0, _const(~before), 0)
    # k = z1: prod_{i < z1} a_i * sum_{z1 <= j < z2} g_j prod_{z1 < i <= j} a_i
    tail = cumprod(masked_fill(a, _const(~between), 1), dim)
    s = _sum(masked_fill(g * tail, _const(cs != 1), 0), dim, keepdim=True)
    head = prod(a0, dim, keepdim=True)
    part_first = masked_fill(s * head, _const(~first), 0)
    return part_before + part_first


_cumsum = primitive("cumsum", _cum_fw(np.cumsum, True), node="CumsumBackward0",
                    a=lambda g, dim: flip(cumsum(flip(g, dim), dim), dim) if g.ndim else g, batch="dim")
_cumprod = primitive("cumprod", _cum_fw(np.cumprod), node="CumprodBackward0",
                     fast={"a": on_arrays(lambda g, a, out, dim: _cumprod_first_order(g, a, out, dim))},
                     a=lambda g, a, out, dim: _cumprod_bw(g, a, out, dim), batch="dim")


def cumsum(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    """Running sum along ``dim`` (integers accumulate in int64).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).cumsum(0)
    tensor([1., 3., 6.])
    """
    if out is not None:
        return _cum_out(cumsum, "cumsum", input, dim, dtype, out)
    _no_bool_cum("cumsum", dtype)
    return apply(_cumsum, (input,), {"dim": wrap_dim(dim, input._data.ndim)}, _cum_dtype(input, dtype))


def _cum_dtype(input: Tensor, dtype):
    """The dtype cumsum/cumprod compute in: ``dtype=`` if given, else int64 for integers and bool."""
    if dtype is not None:
        return grad_dtype(input, dtype)
    return D.int64 if input._data.dtype.kind in "iub" else None


def _no_bool_cum(name: str, dtype) -> None:
    # PyTorch runs cumsum/cumprod(dtype=) through its out= kernel, which has no bool version.
    if dtype is D.bool:
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")


def _cum_out(fn, name: str, input: Tensor, dim, dtype, out) -> Tensor:
    """cumsum/cumprod ``out=``: PyTorch computes in ``out``'s dtype (bool has no kernel)."""
    from ._out import write_out
    from .linalg.products import _check_out

    _check_out(name, out, input)
    if out._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
    return write_out(name, fn(input, dim, dtype=dtype or out.dtype), out, "same")


def cumprod(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    """Running product along ``dim``; the gradient is exact with zeros in the input."""
    if out is not None:
        return _cum_out(cumprod, "cumprod", input, dim, dtype, out)
    _no_bool_cum("cumprod", dtype)
    return apply(_cumprod, (input,), {"dim": wrap_dim(dim, input._data.ndim)}, _cum_dtype(input, dtype))


def _cum_inplace(op, name: str, self: Tensor, dim, dtype) -> Tensor:
    if dtype is not None and dtype is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {_C_NAME[self.dtype.name]} and output "
                           f"tensor dtype {_C_NAME[dtype.name]} should match")
    if self._data.dtype.kind == "b":  # the int64 running sum of bools has nowhere to go
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
    return apply_inplace(op, self, (), {"dim": wrap_dim(dim, self._data.ndim)})


# C type names, as PyTorch's "Bad in-place call" message spells them
_C_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
           "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool"}


def cumsum_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    """In-place :func:`cumsum` (``dtype``, if given, must be ``self``'s dtype).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).cumsum_(0)
    tensor([1., 3., 6.])
    """
    return _cum_inplace(_cumsum, "cumsum", self, dim, dtype)


def cumprod_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    """In-place :func:`cumprod` (``dtype``, if given, must be ``self``'s dtype).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).cumprod_(0)
    tensor([1., 2., 6.])
    """
    return _cum_inplace(_cumprod, "cumprod", self, dim, dtype)


def _cum_ext_idx(a: np.ndarray, d: int, larger: bool) -> np.ndarray:
    m = np.moveaxis(a, d, -1)
    idx = np.zeros(m.shape, dtype=np.int64)
    if m.shape[-1] == 0:
        return np.moveaxis(idx, -1, d)
    cur = m[..., 0].copy()
    ci = np.zeros(cur.shape, dtype=np.int64)
    for i in range(1, m.shape[-1]):
        x = m[..., i]
        better = (x >= cur) if larger else (x <= cur)
        take = _isnan(x) | (~_isnan(cur) & better)
        cur = np.where(take, x, cur)
        ci = np.where(take, i, ci)
        idx[..., i] = ci
    return np.moveaxis(idx, -1, d)


def _cum_ext(input: Tensor, dim: int, larger: bool):
    a = input._data
    name = "cummax" if larger else "cummin"
    if a.size == 0:  # (PyTorch checks no dim on an empty input)
        cls, op = (RT.cummax, _cummax) if larger else (RT.cummin, _cummin)
        idx = np.zeros(a.shape, dtype=np.int64)
        return cls((apply(op, (input,), {"dim": 0, "idx": idx, "out_shape": a.shape}), _long(idx)))
    if a.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    idx = _cum_ext_idx(a1, d, larger)
    cls, op = (RT.cummax, _cummax) if larger else (RT.cummin, _cummin)
    return _values_indices(cls, op, input, d, idx, True)


def _scalar_type_out(result: Tensor, out: Tensor) -> None:
    # cummax / cummin: each of (values, indices) must have exactly the result's dtype
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"expected scalar_type {_scalar_type_name(result.dtype)} but found "
                           f"{_scalar_type_name(out.dtype)}")


@declares_out("same", tuple_mode=_scalar_type_out)
def cummax(input: Tensor, dim: int):
    """Running maximum along ``dim`` and where it was found, as ``(values, indices)``."""
    return _cum_ext(input, dim, True)


@declares_out("same", tuple_mode=_scalar_type_out)
def cummin(input: Tensor, dim: int):
    """Running minimum along ``dim`` and where it was found, as ``(values, indices)``."""
    return _cum_ext(input, dim, False)


def _lcse_fw(a, *, dim):
    with np.errstate(invalid="ignore"):
        # (contiguous, as PyTorch's result whatever the input's layout)
        return np.asarray(np.logaddexp.accumulate(a, axis=dim), order="C") if a.size and a.ndim else a.copy()


def _lcse_rule(g, a, out, dim):
    # d out_k / d a_j = exp(a_j - out_k) for j <= k (each exponent <= 0, so no overflow).  The
    # (n, n) pairing along ``dim`` keeps every term finite, so the rule differentiates again
    # without the NaNs that a log-space form produces for all -inf sums.
    R = _R()
    if a.dim() == 0:
        return g
    n = a.shape[dim]
    am, om, gm = R.movedim(a, dim, -1), R.movedim(out, dim, -1), R.movedim(g, dim, -1)
    diff_kj = am.unsqueeze(-2) - om.unsqueeze(-1)
    mask = _const(np.tril(np.ones((n, n), dtype=bool)))
    w = R.exp(R.where(mask, diff_kj, _const(np.array(-math.inf, dtype=a._data.dtype))))
    return R.movedim((gm.unsqueeze(-1) * w).sum(-2), -1, dim)


_logcumsumexp = primitive("logcumsumexp", _lcse_fw, node="LogcumsumexpBackward0", a=_lcse_rule, batch="dim")


@_supports_out
def logcumsumexp(input: Tensor, dim: int, *, out=None) -> Tensor:
    """log(cumsum(exp(input))) along ``dim``, computed stably.

    >>> import retrograd as torch
    >>> torch.logcumsumexp(torch.tensor([0., 0.]), 0)
    tensor([0.0000, 0.6931])
    """
    if not (input.is_floating_point() or input.is_complex()):
        raise NotImplementedError(f'"logcumsumexp_out_cpu" not implemented for \'{_tname(input)}\'')
    d = wrap_dim(dim, max(input.dim(), 1))
    return apply(_logcumsumexp, (input,), {"dim": d})


# ================================================================ elementwise
@_supports_out
def signbit(input: Tensor, *, out=None) -> Tensor:
    """Whether the sign bit is set (True for -0.0).

    >>> import retrograd as torch
    >>> torch.signbit(torch.tensor([-1., 0., -0.]))
    tensor([ True, False,  True])
    """
    a = input._data
    if a.dtype.kind == "c":
        raise RuntimeError("signbit is not implemented for complex tensors.")
    return _const(np.signbit(a) if a.dtype.kind != "b" else np.zeros(a.shape, bool))


# Run-time references to modules that import this one (bound last, so either import order works)
from .masked import masked_fill  # noqa: E402
from .rearrange import flip_method as flip  # noqa: E402
from .reduction import _const, _isnan, _long, _values_indices, prod, sum as _sum  # noqa: E402
from .shape import expand, movedim, unsqueeze  # noqa: E402
