"""Clamp/clip (scalar and tensor bounds), clamp_min/clamp_max (+ in-place)."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._out import declares_out, same_dtype_found
from ._common import checked_scalar
from ._composite import _out
from ._registry import apply, apply_inplace, primitive
from .binary import _invalid_combination, _rebind
from .masked import where
from .unary import _np_err

__all__ = ["clamp", "clip", "clamp_", "clip_", "clamp_min", "clamp_max", "clamp_min_", "clamp_max_"]


def _clamp_fw(a, *, min, max):
    # PyTorch's min(max(a, lo), hi) keeps ``a`` on ties (clamp(0., min=-0.) is 0.) and a NaN
    # input stays NaN; min > max gives max everywhere
    if a.dtype.kind == "f" and any(isinstance(v, float) and math.isnan(v) for v in (min, max)):
        return np.full(a.shape, np.nan, a.dtype)  # a NaN bound makes every element NaN
    with _np_err():
        r = a
        if min is not None:
            r = np.where(r < min, min, r)
        if max is not None:
            r = np.where(r > max, max, r)
        return np.asarray(r, a.dtype)


_clamp = primitive("clamp", _clamp_fw, node="ClampBackward1",
                   a=lambda g, a, min, max: where(_clamp_mask(a, min, max), g, 0.0))


def _clamp_mask(a: Tensor, lo, hi) -> Tensor:
    d = a._data
    m = np.ones(d.shape, dtype=bool)
    if lo is not None:
        m &= d >= lo
    if hi is not None:
        m &= d <= hi
    return Tensor._wrap(m, False, None, 0)


def clamp(input: Tensor, min=None, max=None, *, out=None) -> Tensor:
    """Limit values to [min, max]; scalar or tensor bounds."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):

        return _out(_clamp_tensor(input, min, max), out, same=True, inputs=(input, min, max))
    cast = None
    if input._data.dtype.kind in "iub":  # clamp(int tensor, 1.5) is float, as in PyTorch
        rt = D.result_type(input, *[v for v in (min, max) if v is not None])
        cast = rt if rt.np != input._data.dtype else None
        if rt is D.bool:
            kernel = "clamp_scalar_cpu" if min is not None and max is not None else (
                "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if rt.np.kind in "iu":  # integer bounds are converted to the result type first (they may wrap)
            min = None if min is None else int(checked_scalar(min, rt))
            max = None if max is None else int(checked_scalar(max, rt))
    return _out(apply(_clamp, (input,), {"min": min, "max": max}, cast), out, same=True, inputs=(input,))


clip = clamp


_C_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def clamp_(self: Tensor, min=None, max=None) -> Tensor:
    """In-place :func:`clamp`; an integer tensor refuses a float bound, as in PyTorch."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _rebind(self, lambda x: clamp(x, min, max), min, max)
    if self._data.dtype.kind in "iub":
        rt = D.result_type(self, *[v for v in (min, max) if v is not None])
        if not D.can_cast(rt, self.dtype):
            from .._tensor import _scalar_type_name

            # (PyTorch's clamp_ names the output type by its C name here: "long int", "bool")
            raise RuntimeError(f"result type {_scalar_type_name(rt)} can't be cast to the desired "
                               f"output type {_C_TYPE_NAMES[self._data.dtype.name]}")
    return apply_inplace(_clamp, self, (), {"min": min, "max": max})


clip_ = clamp_


# ================================================================ clamp with tensor bounds
def _clamp_rule_a(g, a, lo, hi):
    return where((a >= lo) & (a <= hi), g, 0.0)


def _clamp_rule_lo(g, a, lo, hi):
    return where((lo > a) & (lo < hi), g, 0.0)


def _clamp_rule_hi(g, a, lo, hi):
    return where((hi < a) | (hi < lo), g, 0.0)  # min > max: the result is max


_clamp_t = primitive("clamp_tensor", lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi), node="ClampBackward0",
                     a=_clamp_rule_a, lo=_clamp_rule_lo, hi=_clamp_rule_hi)
_clamp_min_t = primitive("clamp_min_tensor", lambda a, lo: np.maximum(a, lo), node="ClampBackward0",
                         a=lambda g, a, lo: where(a >= lo, g, 0.0),
                         lo=lambda g, a, lo: where(a < lo, g, 0.0))
_clamp_max_t = primitive("clamp_max_tensor", lambda a, hi: np.minimum(a, hi), node="ClampBackward0",
                         a=lambda g, a, hi: where(a <= hi, g, 0.0),
                         hi=lambda g, a, hi: where(a > hi, g, 0.0))


def _clamp_tensor(input: Tensor, min, max) -> Tensor:
    """clamp(input, min, max) where the bounds are tensors (or None), with type promotion."""
    if (min is not None and not isinstance(min, Tensor)) or (max is not None and not isinstance(max, Tensor)):
        raise _invalid_combination("clamp", (input, min, max), [
            "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
            "Tensor input, Number min = None, Number max = None, *, Tensor out = None"])
    bounds = tuple(t for t in (min, max) if t is not None)
    rt = D.result_type(input, *bounds)
    cast = None if all(t._data.dtype == rt.np for t in (input,) + bounds) else rt
    op = _clamp_t if len(bounds) == 2 else (_clamp_min_t if min is not None else _clamp_max_t)
    return apply(op, (input,) + bounds, None, cast)


def _clamp_bound_fw(a, *, bound, upper):
    r = np.minimum(a, bound) if upper else np.maximum(a, bound)  # NaN propagates, as in PyTorch
    return np.asarray(r).astype(a.dtype, copy=False)


# PyTorch's own nodes for a Python-number bound: the gradient passes where the bound is not active
_clamp_min = primitive("clamp_min", _clamp_bound_fw, node="ClampMinBackward0",
                       a=lambda g, a, bound: g * (a >= bound).to(g.dtype))
_clamp_max = primitive("clamp_max", _clamp_bound_fw, node="ClampMaxBackward0",
                       a=lambda g, a, bound: g * (a <= bound).to(g.dtype))


_clamp_min_bound = primitive("clamp_min_tensor_bound", lambda a, b: np.asarray(np.maximum(a, b)), node="ClampMinBackward1",
                         a=lambda g, a, b: g * (a >= b).to(g.dtype),
                         b=lambda g, a, b: g * (a < b).to(g.dtype))
_clamp_max_bound = primitive("clamp_max_tensor_bound", lambda a, b: np.asarray(np.minimum(a, b)), node="ClampMaxBackward1",
                         a=lambda g, a, b: g * (a <= b).to(g.dtype),
                         b=lambda g, a, b: g * (a > b).to(g.dtype))


def _tensor_bound(input: Tensor, v) -> bool:
    return isinstance(v, Tensor) and v._data.dtype == input._data.dtype and input._data.dtype.kind == "f"


def _scalar_bound(input: Tensor, v) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool) and input._data.dtype.kind == "f"


def _clamp_out(args, kwargs):
    # out='s rule for clamp_min / clamp_max: a tensor bound follows the binary ops' cast rule, a
    # number bound wants out's dtype exactly
    bound = args[1] if len(args) > 1 else next(iter(kwargs.values()), None)
    return "cast" if isinstance(bound, Tensor) else same_dtype_found


@declares_out("cast", select=_clamp_out)
def clamp_min(input: Tensor, min) -> Tensor:
    """``clamp(input, min=min)``.

    >>> import retrograd as torch
    >>> torch.tensor([-1., 2.]).clamp_min(0)
    tensor([0., 2.])
    """
    if _scalar_bound(input, min):
        return apply(_clamp_min, (input,), {"bound": float(min), "upper": False})
    if _tensor_bound(input, min):
        return apply(_clamp_min_bound, (input, min))
    return clamp(input, min=min)


@declares_out("cast", select=_clamp_out)
def clamp_max(input: Tensor, max) -> Tensor:
    """``clamp(input, max=max)``."""
    if _scalar_bound(input, max):
        return apply(_clamp_max, (input,), {"bound": float(max), "upper": True})
    if _tensor_bound(input, max):
        return apply(_clamp_max_bound, (input, max))
    return clamp(input, max=max)


def clamp_min_(self: Tensor, min) -> Tensor:
    """In-place :func:`clamp_min` (its own node, ClampMinBackward0/1, as in PyTorch)."""
    from ._inplace import inplace_via

    if not isinstance(min, Tensor) and self._data.dtype.kind in "iub":
        return clamp_(self, min=min)  # (integer self: clamp_'s own bound checks; no grad to record)
    return inplace_via(self, lambda x: clamp_min(x, min), (min,))


def clamp_max_(self: Tensor, max) -> Tensor:
    """In-place :func:`clamp_max`."""
    from ._inplace import inplace_via

    if not isinstance(max, Tensor) and self._data.dtype.kind in "iub":
        return clamp_(self, max=max)  # (integer self: clamp_'s own bound checks; no grad to record)
    return inplace_via(self, lambda x: clamp_max(x, max), (max,))
