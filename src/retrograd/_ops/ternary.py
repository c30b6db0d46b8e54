"""Elementwise ops of three inputs: lerp, addcmul, addcdiv."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._common import number_arg
from ._composite import _out
from ._deprecated_overloads import NO_ARG, scalar_first
from ._registry import apply, apply_inplace, primitive
from .binary import _invalid_combination
from .unary import _need_tensor, _not_implemented, _quiet

__all__ = ["lerp", "addcmul", "addcdiv"]


# ---------------------------------------------------------------- lerp
def _lerp_np(a, e, w):
    # PyTorch's two-sided formula: exact at both ends (w = 0 gives a, w = 1 gives e).
    if a.dtype == np.float16:  # PyTorch's CPU kernel computes float16 in float32, rounding once
        r = _lerp_np(a.astype(np.float32), np.asarray(e, np.float32), np.asarray(w, np.float32))
        return r.astype(np.float16)
    return np.where(np.abs(w) < 0.5, a + w * (e - a), e - (e - a) * (1 - w))


_lerp_s = primitive("lerp_scalar", lambda a, e, *, weight: _lerp_np(a, e, weight), node="LerpBackward0",
                    a=lambda g, weight: g * (1 - weight),
                    e=lambda g, weight: g * weight)
_lerp_t = primitive("lerp", _lerp_np, node="LerpBackward1",
                    a=lambda g, w: g * (1 - w),
                    e=lambda g, w: g * w,
                    w=lambda g, a, e: g * (e - a))

_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _lerp_args(input, end, weight, name: str):
    if not isinstance(input, Tensor) or not isinstance(end, Tensor) or not (
            isinstance(weight, (Tensor, int, float, np.number))):
        raise _invalid_combination(name, (input, end, weight), [
            "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
            "Tensor input, Tensor end, Number weight, *, Tensor out = None"])
    dt = input.dtype
    if end.dtype is not dt:
        raise RuntimeError(f"expected dtype {_CPP_NAMES[dt.name]} for `end` but got dtype {_CPP_NAMES[end.dtype.name]}")
    if isinstance(weight, Tensor):
        if weight.dtype is not dt and weight.ndim != 0:
            raise RuntimeError(f"expected dtype {_CPP_NAMES[dt.name]} for `weight` but got dtype "
                               f"{_CPP_NAMES[weight.dtype.name]}")
        if not dt.is_floating_point:
            raise _not_implemented("lerp_kernel_tensor", dt)
        if weight.dtype is not dt:
            weight = weight.to(dt)
        return _lerp_t, (end, weight), None
    if not dt.is_floating_point:
        raise _not_implemented("lerp_kernel_scalar", dt)
    return _lerp_s, (end,), {"weight": float(weight)}


def lerp(input: Tensor, end: Tensor, weight, *, out: Tensor | None = None) -> Tensor:
    """input + weight * (end - input); ``weight`` a number or a tensor.

    >>> import retrograd as torch
    >>> torch.lerp(torch.tensor([0., 10.]), torch.tensor([10., 20.]), 0.25)
    tensor([ 2.5000, 12.5000])
    """
    op, others, static = _lerp_args(input, end, weight, "lerp")
    return _out(apply(op, (input,) + others, static), out)


def lerp_(self: Tensor, end: Tensor, weight) -> Tensor:
    """In-place :func:`lerp`."""
    op, others, static = _lerp_args(self, end, weight, "lerp_")
    return apply_inplace(op, self, others, static)


# ---------------------------------------------------------------- addcmul / addcdiv
_addcmul = primitive("addcmul", lambda a, t1, t2, *, value: a + value * t1 * t2, node="AddcmulBackward0",
                     a=lambda g: g,
                     t1=lambda g, t2, value: g * (t2 * value),
                     t2=lambda g, t1, value: g * (t1 * value))
_addcdiv = primitive("addcdiv", _quiet(lambda a, t1, t2, *, value: a + value * t1 / t2), node="AddcdivBackward0",
                     a=lambda g: g,
                     t1=lambda g, t2, value: g * (value / t2),
                     t2=lambda g, t1, t2, value: -g * (value * t1 / (t2 * t2)))

_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _addc_args(name: str, input, tensor1, tensor2, value):
    for arg, pos, x in (("input", 1, input), ("tensor1", 2, tensor1), ("tensor2", 3, tensor2)):
        _need_tensor(name, x, arg, pos)
    if name.startswith("addcdiv") and tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError(_ADDCDIV_INT)
    rt = D.result_type(input, tensor1, tensor2)
    if rt is D.bool:
        raise _not_implemented(f"{name.rstrip('_')}_cpu_out", rt)
    value = number_arg(name, "value", value)
    # the scalar is converted to the result type (2.5 -> 2 for integer tensors)
    value = float(value) if rt.is_floating_point else int(value)
    return rt, {"value": value}


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
            out: Tensor | None = None) -> Tensor:
    """input + value * tensor1 * tensor2.

    >>> import retrograd as torch
    >>> torch.addcmul(torch.tensor([1.]), torch.tensor([2.]), torch.tensor([3.]), value=0.5)
    tensor([4.])
    """
    if _tensor2 is not NO_ARG:  # the deprecated addcmul(input, value, tensor1, tensor2)
        value, tensor1, tensor2 = scalar_first("addcmul", False, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    rt, static = _addc_args("addcmul", input, tensor1, tensor2, value)
    return _out(apply(_addcmul, (input, tensor1, tensor2), static, rt), out)


def _addcmul_method(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
                    out: Tensor | None = None) -> Tensor:
    if _tensor2 is not NO_ARG:  # x.addcmul(value, tensor1, tensor2): messages do not count self
        value, tensor1, tensor2 = scalar_first("addcmul", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    return addcmul(self, tensor1, tensor2, value=value, out=out)


addcmul.method_form = _addcmul_method


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
            out: Tensor | None = None) -> Tensor:
    """input + value * tensor1 / tensor2 (integer tensor1 and tensor2 are refused, as in PyTorch).

    >>> import retrograd as torch
    >>> torch.addcdiv(torch.tensor([1.]), torch.tensor([2.]), torch.tensor([4.]), value=2)
    tensor([2.])
    """
    if _tensor2 is not NO_ARG:  # the deprecated addcdiv(input, value, tensor1, tensor2)
        value, tensor1, tensor2 = scalar_first("addcdiv", False, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    rt, static = _addc_args("addcdiv", input, tensor1, tensor2, value)
    return _out(apply(_addcdiv, (input, tensor1, tensor2), static, rt), out)


def _addcdiv_method(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
                    out: Tensor | None = None) -> Tensor:
    if _tensor2 is not NO_ARG:  # x.addcdiv(value, tensor1, tensor2): messages do not count self
        value, tensor1, tensor2 = scalar_first("addcdiv", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    return addcdiv(self, tensor1, tensor2, value=value, out=out)


addcdiv.method_form = _addcdiv_method


def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1) -> Tensor:
    """In-place :func:`addcmul` (``_tensor2``: the deprecated ``x.addcmul_(value, tensor1, tensor2)`` form)."""
    if _tensor2 is not NO_ARG:
        value, tensor1, tensor2 = scalar_first("addcmul_", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    _, static = _addc_args("addcmul_", self, tensor1, tensor2, value)
    return apply_inplace(_addcmul, self, (tensor1, tensor2), static)


def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1) -> Tensor:
    """In-place :func:`addcdiv` (``_tensor2``: the deprecated ``x.addcdiv_(value, tensor1, tensor2)`` form)."""
    if _tensor2 is not NO_ARG:
        value, tensor1, tensor2 = scalar_first("addcdiv_", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    _, static = _addc_args("addcdiv_", self, tensor1, tensor2, value)
    return apply_inplace(_addcdiv, self, (tensor1, tensor2), static)
