"""Elementwise arithmetic of two inputs: add/sub/mul/div/pow (+ in-place), floor_divide, remainder,
fmod, float_power, atan2, hypot, logaddexp, xlogy, copysign, heaviside, nextafter, ldexp."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._blas import fused_add, int_scalar
from .._tensor import Tensor, _scalar_type_name
from ._common import _it, _tensor_operands, binary_operands, number_arg, tensor_args
from ._composite import _R, _inplace, _out, _supports_out, _tname
from ._deprecated_overloads import NO_ARG, scalar_first
from ._registry import apply, apply_binary, apply_inplace, check_inplace_cast, primitive
from .unary import _nie, _quiet, _zero_rule


__all__ = ["add", "sub", "rsub", "mul", "div", "true_divide", "neg", "negative", "pow", "add_", "sub_", "mul_",
           "div_", "neg_", "pow_", "subtract", "multiply", "divide", "floor_divide", "remainder", "fmod",
           "float_power", "atan2", "arctan2", "hypot", "xlogy", "copysign", "logaddexp", "logaddexp2", "xlogy_",
           "heaviside", "ldexp", "nextafter", "ldexp_", "divide_", "multiply_", "subtract_", "true_divide_",
           "negative_"]


# ---------------------------------------------------------------- binary arithmetic
_add = primitive("add", lambda a, b: _it(a + b, a, b), node="AddBackward0",
                 fast=dict(a=lambda g: g, b=lambda g: g),
                 a=lambda g: g,
                 b=lambda g: g, batch="elementwise")
_add_alpha = primitive("add_alpha", lambda a, b, *, alpha: fused_add(a, b, alpha), node="AddBackward0",
                       fast=dict(a=lambda g: g, b=lambda g, alpha: g * alpha),
                       a=lambda g: g,
                       b=lambda g, alpha: g * alpha, batch="elementwise")
_sub = primitive("sub", lambda a, b: _it(a - b, a, b), node="SubBackward0",
                 fast=dict(a=lambda g: g, b=lambda g: -g),
                 a=lambda g: g,
                 b=lambda g: -g, batch="elementwise")
_sub_alpha = primitive("sub_alpha", lambda a, b, *, alpha: fused_add(a, b, -alpha), node="SubBackward0",
                       fast=dict(a=lambda g: g, b=lambda g, alpha: g * -alpha),
                       a=lambda g: g,
                       b=lambda g, alpha: g * -alpha, batch="elementwise")
# rsub(input, other, alpha) = other - alpha * input.  A tensor ``other`` is an input of the
# node (RsubBackward0); a number is not (RsubBackward1 has one edge), as in PyTorch.
_rsub = primitive("rsub", lambda a, b, *, alpha: b - int_scalar(alpha, a.dtype) * a, node="RsubBackward0",
                  fast=dict(a=lambda g, alpha: g * -alpha, b=lambda g: g),
                  a=lambda g, alpha: g * -alpha,
                  b=lambda g: g, batch="elementwise")
_rsub_scalar = primitive("rsub_scalar", lambda a, *, other, alpha: other - int_scalar(alpha, a.dtype) * a,
                         node="RsubBackward1", fast=dict(a=lambda g, alpha: g * -alpha),
                         a=lambda g, alpha: g * -alpha, batch="elementwise")
_mul = primitive("mul", lambda a, b: _it(a * b, a, b), node="MulBackward0",
                 fast=dict(a=lambda g, b: g * b, b=lambda g, a: g * a),
                 a=lambda g, b: g * b,
                 b=lambda g, a: g * a, batch="elementwise")
# d/db a/b = -(a/b)/b, in PyTorch's order: b * b would overflow (or underflow to 0) first
_div = primitive("div", _quiet(lambda a, b: _it(a / b, a, b)), node="DivBackward0",
                 fast=dict(a=lambda g, b: g / b, b=lambda g, a, b: -g * ((a / b) / b)),
                 a=lambda g, b: g / b,
                 b=lambda g, a, b: -g * ((a / b) / b), batch="elementwise")
# float16 tensor (*|/) CPU scalar: PyTorch's CPU kernels compute in float32 with the scalar
# unrounded (``x * 1e5`` for x = 1e-5 is 1.0, not inf), then round the result to float16
_mul_opmath = primitive("mul_opmath", lambda a, *, other: (a.astype(np.float32) * np.float32(other)).astype(a.dtype),
                        node="MulBackward0", a=lambda g, other: g * other, batch="elementwise")
_div_opmath = primitive("div_opmath", _quiet(lambda a, *, other: (a.astype(np.float32) / np.float32(other)).astype(a.dtype)),
                        node="DivBackward0", a=lambda g, other: g / other, batch="elementwise")


def _half_scalar(input, other):
    """``other`` as a float when ``input`` is a float16 tensor and ``other`` a CPU scalar (a real
    Python number, or a 0-dim tensor without grad that does not promote the result), else None."""
    if not isinstance(input, Tensor) or input._data.dtype != np.float16:
        return None
    if isinstance(other, (int, float, np.integer, np.floating)) and not isinstance(other, (bool, np.bool_)):
        return float(other)
    if isinstance(other, Tensor) and other._data.ndim == 0 and not other.requires_grad and \
            other._data.dtype.kind in "fiu" and D.result_type(input, other) is D.float16:
        return float(other._data)
    return None


_neg = primitive("neg", lambda a: -a, node="NegBackward0", fast=dict(a=lambda g: -g), a=lambda g: -g,
                 batch="elementwise")


def _is_bool(x) -> bool:
    return isinstance(x, (bool, np.bool_)) or (isinstance(x, Tensor) and x._data.dtype.kind == "b")


def _bool_sub_check(a, b) -> None:
    """PyTorch refuses subtraction with a bool operand (tensor or Python bool) on either side."""
    ab, bb = _is_bool(a), _is_bool(b)
    if ab and bb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if ab or bb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _check_alpha(a: Tensor, cast, alpha, name: str = "add"):
    """PyTorch's checks of ``alpha`` against the result type (``cast`` or ``a``'s dtype).

    Returns alpha as the kernel uses it (for a bool result it is a bool: ``a or b``)."""
    if isinstance(alpha, Tensor):  # only a 0-dim tensor without grad binds as a number
        alpha = number_arg(name, "alpha", alpha)
    elif not isinstance(alpha, (int, float, complex, bool, np.number, np.bool_)):
        number_arg(name, "alpha", alpha)
    rt = cast or a.dtype
    is_float = isinstance(alpha, (float, np.floating)) or (
        isinstance(alpha, Tensor) and alpha.dtype.is_floating_point)
    if isinstance(alpha, (bool, np.bool_)):
        if rt is not D.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif not rt.is_floating_point and is_float:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    return bool(alpha) if rt is D.bool else alpha


def add(input, other, _other=NO_ARG, *, alpha=1, out=None) -> Tensor:
    """input + alpha * other, with broadcasting and type promotion.

    (``_other``: PyTorch's deprecated ``add(input, alpha, other)`` form, with a warning.)

    >>> import retrograd as torch
    >>> torch.add(torch.tensor([1., 2.]), 1)
    tensor([2., 3.])
    """
    # (add/sub/mul/div run for every operator and inside every backward rule: keep them lean;
    # two plain Tensors of one dtype need no promotion, so skip binary_operands)
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and \
            type(alpha) is int and alpha == 1 and out is None and _other is NO_ARG:
        return apply_binary(_add, input, other)
    if _other is not NO_ARG:
        alpha, other = scalar_first("add", False, other, (_other,), alpha != 1 or alpha is True), _other
    a, b, cast = binary_operands(input, other, "add")
    if type(alpha) is not int or alpha != 1:  # (an int 1 is the common case: nothing to check)
        alpha = _check_alpha(a, cast, alpha, "add")
    if alpha == 1:
        r = apply_binary(_add, a, b) if cast is None else apply(_add, (a, b), None, cast)
    else:
        r = apply(_add_alpha, (a, b), {"alpha": alpha}, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


def sub(input, other, _other=NO_ARG, *, alpha=1, out=None) -> Tensor:
    """input - alpha * other (``_other``: the deprecated ``sub(input, alpha, other)`` form)."""
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and \
            type(alpha) is int and alpha == 1 and out is None and input._data.dtype.kind != "b" and _other is NO_ARG:
        return apply_binary(_sub, input, other)
    if _other is not NO_ARG:
        alpha, other = scalar_first("sub", False, other, (_other,), alpha != 1 or alpha is True), _other
    a, b, cast = binary_operands(input, other, "sub")
    if a._data.dtype.kind == "b" or b._data.dtype.kind == "b" or type(other) is bool or type(input) is bool:
        _bool_sub_check(input, other)
    if type(alpha) is not int or alpha != 1:
        alpha = _check_alpha(a, cast, alpha, "sub")
    if alpha == 1:
        r = apply_binary(_sub, a, b) if cast is None else apply(_sub, (a, b), None, cast)
    else:
        r = apply(_sub_alpha, (a, b), {"alpha": alpha}, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


def subtract(input, other, *, alpha=1, out=None) -> Tensor:
    """Alias of :func:`sub` (without its deprecated ``sub(input, alpha, other)`` form, as in PyTorch)."""
    return sub(input, other, alpha=alpha, out=out)


def _scalar_first_method(fn, name: str):
    """``x.add(alpha, other)``: the method form of the deprecated overload (messages skip self)."""
    def method(self, other, _other=NO_ARG, *, alpha=1, out=None):
        if _other is not NO_ARG:
            alpha, other = scalar_first(name, True, other, (_other,), alpha != 1 or alpha is True), _other
        return fn(self, other, alpha=alpha, out=out)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    return method


add.method_form = _scalar_first_method(add, "add")
sub.method_form = _scalar_first_method(sub, "sub")


def rsub(input, other, *, alpha=1) -> Tensor:
    """other - alpha * input (what ``2 - x`` calls)."""
    _bool_sub_check(input, other)
    a, b, cast = binary_operands(input, other, "rsub")
    if type(alpha) is not int or alpha != 1:
        alpha = _check_alpha(a, cast, alpha, "rsub")
    if isinstance(other, Tensor):
        return apply(_rsub, (a, b), {"alpha": alpha}, cast)
    # the number, already converted to the promoted dtype, is a static of the node
    other_np = b._data if cast is None else b._data.astype(cast.np)
    return apply(_rsub_scalar, (a,), {"other": other_np, "alpha": alpha}, cast)


def mul(input, other, *, out=None) -> Tensor:
    """Elementwise product with broadcasting."""
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and out is None:
        return apply_binary(_mul, input, other)
    if type(input) is Tensor and input._data.dtype is _F16:  # (one identity test on the hot path)
        h = _half_scalar(input, other)
        if h is not None:
            return _out(apply(_mul_opmath, (input,), {"other": h}), out, inputs=(input, other))
    a, b, cast = binary_operands(input, other, "mul")
    r = apply_binary(_mul, a, b) if cast is None else apply(_mul, (a, b), None, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


multiply = mul


def div(input, other, *, rounding_mode: str | None = None, out=None) -> Tensor:
    """True division (integers give floats) or ``rounding_mode='trunc'|'floor'``."""
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and \
            out is None and rounding_mode is None and input._data.dtype.kind == "f":
        return apply_binary(_div, input, other)
    a, b, cast = binary_operands(input, other, "div")
    if rounding_mode is not None:

        return _out(_rounded_div(a, b, cast, rounding_mode), out, inputs=(input, other))
    if type(input) is Tensor and input._data.dtype is _F16:
        h = _half_scalar(input, other)
        if h is not None:
            return _out(apply(_div_opmath, (input,), {"other": h}), out, inputs=(input, other))
    if (a._data.dtype.kind != "f") if cast is None else not cast.is_floating_point:
        cast = D.get_default_dtype()  # integer / integer is a float division
    r = apply_binary(_div, a, b) if cast is None else apply(_div, (a, b), None, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


divide = div
true_divide = div


def neg(input, *, out=None) -> Tensor:
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _out(apply(_neg, (input,)), out, same=True)


negative = neg


# ---------------------------------------------------------------- pow
def _pow_fw(a, b):
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        neg = b < 0
        if neg.any():  # PyTorch's integer pow: 1 ** -n = 1, (-1) ** -n = +-1, anything else 0
            r = np.power(a, np.where(neg, 0, b))
            odd = (b & 1).astype(bool)
            return np.where(neg, np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)), r).astype(
                r.dtype, copy=False)
    with _np_err():
        return _it(np.power(a, b), a, b)


# PyTorch's pow_backward_self / pow_backward_exponent: a zero exponent gives a zero gradient
# (also at a NaN or 0 base), and 0 ** b for b >= 0 has a zero gradient w.r.t. b
_pow = primitive("pow", _pow_fw, node="PowBackward1",
                 a=lambda g, a, b: where(b == 0, 0.0, g * (b * pow(a, b - 1))),
                 b=lambda g, a, b, out: g * where((a == 0) & (b >= 0), 0.0, out * log(a)), batch="elementwise")


def _pow_scalar_fw(a, *, exponent):
    if a.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    with _np_err():
        if a.dtype.kind == "f" and a.dtype.itemsize >= 4:
            # PyTorch's float/double kernel (not half's: it calls pow) turns these exponents
            # into sqrt, rsqrt, reciprocal and products, which differ from C's pow at -0
            # and -inf (sqrt(-0) = -0, rsqrt(-inf) = nan)
            if exponent == 0.5:
                return np.sqrt(a)
            if exponent == -0.5:
                return 1 / np.sqrt(a)
            if exponent == 2:  # NumPy < 2.1 computes a float32 square through powf
                return a * a
            if exponent == 3:
                return a * a * a
            if exponent == -2:
                return 1 / (a * a)
        r = np.power(a, exponent)
    return r.astype(a.dtype, copy=False) if a.dtype.kind in "fiub" else r


def _log_number(base) -> float:
    """log of a Python number as PyTorch's scalar log: -inf at 0, NaN below."""
    return math.log(base) if base > 0 else (-math.inf if base == 0 else math.nan)


def _rpow_rule(g, a, out, base):
    if base == 0:  # PyTorch: 0 ** x has a zero gradient for x >= 0, else out * log(0)
        return g * where(a >= 0, 0.0, out * -math.inf)
    return g * (out * _log_number(base))


_pow_scalar = primitive("pow_scalar", _pow_scalar_fw, node="PowBackward0",
                        fast={"a": lambda g, a, exponent: g * (exponent * _pow_scalar_fw(a, exponent=exponent - 1))
                              if exponent != 0 else np.zeros_like(g)},
                        a=lambda g, a, exponent: g * (exponent * pow(a, exponent - 1)) if exponent != 0
                        else zeros_like_grad(g), batch="elementwise")
_rpow_scalar = primitive("rpow_scalar", lambda a, *, base: _pow_fw(np.asarray(base, a.dtype), a),
                         node="PowBackward2", a=_rpow_rule, batch="elementwise")


def _pow_scalar_args(input: Tensor, exponent):
    """(exponent as a Python number, the result dtype if it differs from input's) for tensor ** number."""
    bool_exp = isinstance(exponent, (bool, np.bool_))
    if bool_exp:
        exponent = int(exponent)
    cast = None
    if isinstance(exponent, float) and input._data.dtype.kind in "iub":
        cast = D.get_default_dtype()
    elif input._data.dtype.kind == "b" and not bool_exp:  # (bool ** True stays bool)
        cast = D.int64
    if isinstance(exponent, np.generic):
        exponent = exponent.item()
    return exponent, cast


def pow(input, exponent, *, out=None) -> Tensor:
    """input ** exponent; either side may be a Python number.

    >>> import retrograd as torch
    >>> torch.pow(torch.tensor([1., 2.]), 2)
    tensor([1., 4.])
    """
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        exponent, cast = _pow_scalar_args(input, exponent)
        return _out(apply(_pow_scalar, (input,), {"exponent": exponent}, cast), out, inputs=(input,))
    if not isinstance(input, Tensor):
        rt = D.result_type(input, exponent)
        if rt is D.bool:
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        cast = rt if rt.np != exponent._data.dtype else None
        return _out(apply(_rpow_scalar, (exponent,), {"base": input}, cast), out, inputs=(exponent,))
    a, b, cast = binary_operands(input, exponent, "pow")
    if (cast or a.dtype) is D.bool:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    return _out(apply(_pow, (a, b), None, cast), out, inputs=(input, exponent))


# ---------------------------------------------------------------- in-place variants
def _check_inplace_result(self: Tensor, result_dtype, *others) -> None:
    """PyTorch refuses in-place ops whose (promoted) result cannot be cast to self's dtype."""
    if result_dtype is not None:
        check_inplace_cast(result_dtype, self, others)


def _inplace_binary(op_plain, op_alpha=None, name=""):
    def fn(self: Tensor, other, _other=NO_ARG, *, alpha=1) -> Tensor:
        if _other is not NO_ARG:  # the deprecated x.add_(alpha, other)
            alpha, other = scalar_first(name, True, other, (_other,), alpha != 1 or alpha is True), _other
        a, b, cast = binary_operands(self, other, name)
        _check_inplace_result(self, cast, b)
        if name == "sub_":
            _bool_sub_check(self, other)
        if type(alpha) is not int or alpha != 1:
            alpha = _check_alpha(a, cast, alpha, name)
        if alpha != 1:
            return apply_inplace(op_alpha, self, (b,), {"alpha": alpha})
        return apply_inplace(op_plain, self, (b,))
    fn.__name__ = name
    return fn


add_ = _inplace_binary(_add, _add_alpha, "add_")
sub_ = _inplace_binary(_sub, _sub_alpha, "sub_")


def mul_(self: Tensor, other) -> Tensor:
    if self._data.dtype is _F16:
        h = _half_scalar(self, other)
        if h is not None:
            return apply_inplace(_mul_opmath, self, (), {"other": h})
    a, b, cast = binary_operands(self, other, "mul_")
    _check_inplace_result(self, cast, b)
    return apply_inplace(_mul, self, (b,))


def div_(self: Tensor, other, *, rounding_mode=None) -> Tensor:
    if rounding_mode is not None:
        return _rebind(self, lambda x: div(x, other, rounding_mode=rounding_mode), other)
    if self._data.dtype is _F16:
        h = _half_scalar(self, other)
        if h is not None:
            return apply_inplace(_div_opmath, self, (), {"other": h})
    a, b, cast = binary_operands(self, other, "div_")
    rt = cast or a.dtype
    _check_inplace_result(self, rt if rt.is_floating_point else D.get_default_dtype(), b)
    return apply_inplace(_div, self, (b,))


def neg_(self: Tensor) -> Tensor:
    """In-place :func:`neg` (refused on bool, as the out-of-place op)."""
    if self._data.dtype.kind == "b":
        neg(self)  # raises PyTorch's bool-negation error
    return apply_inplace(_neg, self, ())


def pow_(self: Tensor, exponent) -> Tensor:
    """In-place :func:`pow`; refused when the power's type can't be stored in ``self``."""
    if isinstance(exponent, Tensor):
        a, b, cast = binary_operands(self, exponent, "pow_")
        return apply_inplace(_pow, self, (exponent,), None, cast)
    exponent, cast = _pow_scalar_args(self, exponent)
    return apply_inplace(_pow_scalar, self, (), {"exponent": exponent}, cast)


def _rebind(self: Tensor, compute, *others) -> Tensor:
    """Generic in-place: ``compute(self)`` out of place, then self takes its value and node."""
    from ._inplace import inplace_via

    return inplace_via(self, compute, others)


# ================================================================ binary ops
def _result_dtype(a: Tensor, cast) -> D.dtype:
    return cast if cast is not None else a.dtype


def _float_cast(a: Tensor, cast):
    """Integer results become the default float dtype (atan2, xlogy, copysign)."""
    if not _result_dtype(a, cast).is_floating_point:
        return D.get_default_dtype()
    return cast


def _require_float(kernel: str, a: Tensor, cast) -> None:
    rt = _result_dtype(a, cast)
    if not rt.is_floating_point:
        raise _not_implemented(kernel, rt)


def _check_int_zero(b: Tensor, rt: D.dtype) -> None:
    if not rt.is_floating_point and not b._data.all():
        raise RuntimeError("ZeroDivisionError")


def _invalid_combination(name: str, got: tuple, overloads: list[str]) -> TypeError:
    lines = "\n".join(f" * ({o})" for o in overloads)
    names = ", ".join(type(g).__name__ if not isinstance(g, Tensor) else "Tensor" for g in got)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({names}), but expected one "
                     f"of:\n{lines}\n")


# ---------------------------------------------------------------- rounding division family
def _trunc_div_np(a, b):
    if a.dtype.kind in "iu":
        q = np.floor_divide(a, b)
        # floor -> toward zero: add one where the division was inexact and the signs differ
        return q + ((q * b != a) & ((a < 0) != (b < 0)))
    return np.trunc(a / b)


_div_trunc = primitive("div_trunc", _quiet(_trunc_div_np), node="DivBackward2", a=_zero_rule, b=_zero_rule, batch="elementwise")
_floordiv_fw = _quiet(lambda a, b: np.floor_divide(a, b))
_div_floor = primitive("div_floor", _floordiv_fw, node="DivBackward2", a=_zero_rule, b=_zero_rule, batch="elementwise")


def _rounded_div(a: Tensor, b: Tensor, cast, rounding_mode) -> Tensor:
    """``div(a, b, rounding_mode='trunc'|'floor')``: integer inputs stay integer; zero grads."""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented(f"div_{rounding_mode}_cpu", rt)
    _check_int_zero(b, rt)
    return apply(_div_trunc if rounding_mode == "trunc" else _div_floor, (a, b), None, cast)


_floor_divide = primitive("floor_divide", _floordiv_fw, node="NotImplemented",
                          a=_nie("floor_divide"), b=_nie("floor_divide"), batch="elementwise")


def _floor_divide_args(input, other, name: str):
    a, b, cast = binary_operands(input, other, name)
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented("div_floor_cpu", rt)
    _check_int_zero(b, rt)
    return a, b, cast


def floor_divide(input, other, *, out: Tensor | None = None) -> Tensor:
    """Division rounded toward minus infinity (``//``); integers stay integers.

    >>> import retrograd as torch
    >>> torch.floor_divide(torch.tensor([7, -7]), 2)
    tensor([ 3, -4])
    """
    a, b, cast = _floor_divide_args(input, other, "floor_divide")
    return _out(apply(_floor_divide, (a, b), None, cast), out)


def floor_divide_(self: Tensor, other) -> Tensor:
    """In-place :func:`floor_divide`."""
    a, b, _ = _floor_divide_args(self, other, "floor_divide_")
    return apply_inplace(_floor_divide, self, (b,))


def _remainder_np(a, b):
    if a.dtype.kind in "iu":
        return np.remainder(a, b)
    # PyTorch: fmod, then shifted by b where the signs of the result and b differ
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


_remainder_fw = _quiet(_remainder_np)
_remainder = primitive("remainder", _remainder_fw, node="RemainderBackward1",
                       a=lambda g: g,
                       b=lambda g, a, b: -g * div(a, b, rounding_mode="floor"), batch="elementwise")
_remainder_s = primitive("remainder_scalar", _remainder_fw, node="RemainderBackward0", a=lambda g: g, batch="elementwise")
_rremainder = primitive("remainder_scalar_self", _remainder_fw, node="NotImplemented", b=_nie("remainder"), batch="elementwise")


def _remainder_args(input, other, name: str):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other",
            "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented("remainder_cpu", rt)
    _check_int_zero(b, rt)
    op = _remainder if isinstance(other, Tensor) and isinstance(input, Tensor) else (
        _remainder_s if isinstance(input, Tensor) else _rremainder)
    return op, a, b, cast


def remainder(input, other, *, out: Tensor | None = None) -> Tensor:
    """Python's modulus (``%``): the result has the sign of ``other``.

    >>> import retrograd as torch
    >>> torch.remainder(torch.tensor([-3., 3.]), 2)
    tensor([1., 1.])
    """
    op, a, b, cast = _remainder_args(input, other, "remainder")
    return _out(apply(op, (a, b), None, cast), out, inputs=(input, other))


def remainder_(self: Tensor, other) -> Tensor:
    """In-place :func:`remainder`."""
    op, a, b, _ = _remainder_args(self, other, "remainder_")
    return apply_inplace(op, self, (b,))


_fmod = primitive("fmod", _quiet(lambda a, b: np.fmod(a, b)), node="FmodBackward1",
                  a=lambda g: g,
                  b=lambda g, a, b: -g * div(a, b, rounding_mode="trunc"), batch="elementwise")
_fmod_s = primitive("fmod_scalar", _quiet(lambda a, b: np.fmod(a, b)), node="FmodBackward0", a=lambda g: g, batch="elementwise")


def _fmod_args(input, other, name: str):
    if not isinstance(input, Tensor):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented("fmod_cpu", rt)
    _check_int_zero(b, rt)
    return (_fmod if isinstance(other, Tensor) else _fmod_s), a, b, cast


def fmod(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """C's fmod: the remainder of truncated division (sign of ``input``).

    >>> import retrograd as torch
    >>> torch.fmod(torch.tensor([-3., 3.]), 2)
    tensor([-1.,  1.])
    """
    op, a, b, cast = _fmod_args(input, other, "fmod")
    return _out(apply(op, (a, b), None, cast), out, inputs=(input, other))


def fmod_(self: Tensor, other) -> Tensor:
    """In-place :func:`fmod`."""
    op, a, b, _ = _fmod_args(self, other, "fmod_")
    return apply_inplace(op, self, (b,))


# ---------------------------------------------------------------- float_power (composite)
def float_power(input, exponent, *, out: Tensor | None = None) -> Tensor:
    """``input ** exponent`` computed in float64 (backward nodes are pow's).

    >>> import retrograd as torch
    >>> torch.float_power(torch.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=torch.float64)
    """
    if isinstance(input, Tensor):
        base = input.to(D.float64)
        if isinstance(exponent, Tensor):
            return _out(pow(base, exponent.to(D.float64)), out)
        return _out(pow(base, float(exponent)), out)
    if isinstance(exponent, Tensor):
        return _out(pow(float(input), exponent.to(D.float64)), out)
    raise _invalid_combination("float_power", (input, exponent), [
        "Tensor input, Tensor exponent, *, Tensor out = None", "Number self, Tensor exponent, *, Tensor out = None",
        "Tensor input, Number exponent, *, Tensor out = None"])


def float_power_(self: Tensor, exponent) -> Tensor:
    """In-place :func:`float_power`; ``self`` must already be float64."""
    if self.dtype is not D.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_scalar_type_name(self.dtype)} but the "
                           "operation's result requires dtype Double")
    if isinstance(exponent, Tensor):
        return pow_(self, exponent.to(D.float64))
    return pow_(self, float(exponent))


# ---------------------------------------------------------------- atan2, hypot, logaddexp
def _atan2_recip(a, b):
    # PyTorch's atan2_backward: 1 / (a^2 + b^2), but 0 where that sum is 0 (at the origin,
    # or when both squares underflow) so the gradient there is 0, not NaN
    d = a * a + b * b
    return where(d == 0, 0.0, 1 / d)


def _atan2_rule_a(g, a, b):
    return g * b * _atan2_recip(a, b)


def _atan2_rule_b(g, a, b):
    return g * -a * _atan2_recip(a, b)


_atan2 = primitive("atan2", _quiet(lambda a, b: _it(np.arctan2(a, b), a, b)), node="Atan2Backward0",
                   a=_atan2_rule_a, b=_atan2_rule_b, batch="elementwise")


def atan2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The angle of the point (other, input), quadrant-aware.

    >>> import retrograd as torch
    >>> torch.atan2(torch.tensor([1.]), torch.tensor([-1.]))
    tensor([2.3562])
    """
    a, b, cast = _tensor_operands("atan2", input, other)
    return _out(apply(_atan2, (a, b), None, _float_cast(a, cast)), out, inputs=(input, other))


def atan2_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`atan2`."""
    a, b, cast = _tensor_operands("atan2_", self, other)
    if not self.dtype.is_floating_point:
        raise _cannot_cast(_float_cast(a, cast), self, b)
    return apply_inplace(_atan2, self, (b,))


arctan2, arctan2_ = atan2, atan2_

_hypot = primitive("hypot", _quiet(lambda a, b: _it(np.hypot(a, b), a, b)), node="HypotBackward0",
                   a=lambda g, a, out: g * a / out,
                   b=lambda g, b, out: g * b / out, batch="elementwise")


def hypot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """sqrt(input**2 + other**2) without overflow.

    >>> import retrograd as torch
    >>> torch.hypot(torch.tensor([3.]), torch.tensor([4.]))
    tensor([5.])
    """
    a, b, cast = _tensor_operands("hypot", input, other)
    _require_float("hypot_cpu", a, cast)
    return _out(apply(_hypot, (a, b), None, cast), out, inputs=(input, other))


def hypot_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`hypot`."""
    a, b, cast = _tensor_operands("hypot_", self, other)
    _require_float("hypot_cpu", a, cast)
    return apply_inplace(_hypot, self, (b,))


_logaddexp = primitive("logaddexp", _quiet(lambda a, b: np.logaddexp(a, b)), node="LogaddexpBackward0",
                       a=lambda g, a, b: g / (1 + exp(b - a)),
                       b=lambda g, a, b: g / (1 + exp(a - b)), batch="elementwise")
_logaddexp2 = primitive("logaddexp2", _quiet(lambda a, b: np.logaddexp2(a, b)), node="Logaddexp2Backward0",
                        a=lambda g, a, b: g / (1 + exp2(b - a)),
                        b=lambda g, a, b: g / (1 + exp2(a - b)), batch="elementwise")


def logaddexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """log(exp(input) + exp(other)) without overflow.

    >>> import retrograd as torch
    >>> torch.logaddexp(torch.tensor([0.]), torch.tensor([0.]))
    tensor([0.6931])
    """
    a, b, cast = _tensor_operands("logaddexp", input, other)
    _require_float("logaddexp_cpu", a, cast)
    return _out(apply(_logaddexp, (a, b), None, cast), out)


def logaddexp2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """log2(2**input + 2**other) without overflow.

    >>> import retrograd as torch
    >>> torch.logaddexp2(torch.tensor([1.]), torch.tensor([1.]))
    tensor([2.])
    """
    a, b, cast = _tensor_operands("logaddexp2", input, other)
    _require_float("logaddexp2_cpu", a, cast)
    return _out(apply(_logaddexp2, (a, b), None, cast), out)


# ---------------------------------------------------------------- xlogy, copysign
def _xlogy_np(a, b):
    r = a * np.log(b)
    r = np.where(a == 0, np.zeros_like(r), r)  # 0 * log(0) = 0 ...
    return np.where(np.isnan(b), b, r)  # ... but NaN in b wins


def _xlogy_rule_a(g, a, b):
    # PyTorch: xlogy(g, b), but 0 at a == 0 where b <= 0 (see its note on xlogy at x = 0)
    return where((a == 0) & (b <= 0), 0.0, xlogy(g, b))


def _xlogy_rule_a_scalar(g, a, b):
    # a Number ``other``: the mask is a == 0 unless other > 0 (so a NaN other also gives 0)
    if b.item() > 0:
        return xlogy(g, b)
    return where(a == 0, 0.0, xlogy(g, b))


def _xlogy_rule_b(g, a, b):
    return g * a / b


_xlogy_fw = _quiet(_xlogy_np)
_xlogy = primitive("xlogy", _xlogy_fw, node="XlogyBackward0", a=_xlogy_rule_a, b=_xlogy_rule_b, batch="elementwise")
_xlogy_scalar_self = primitive("xlogy_scalar_self", _xlogy_fw, node="XlogyBackward1", b=_xlogy_rule_b, batch="elementwise")
_xlogy_scalar_other = primitive("xlogy_scalar_other", _xlogy_fw, node="XlogyBackward2", a=_xlogy_rule_a_scalar, batch="elementwise")


def _xlogy_args(input, other, name: str):
    ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
    if not (ta or tb):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other, *, Tensor out = None",
            "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    op = _xlogy if ta and tb else (_xlogy_scalar_other if ta else _xlogy_scalar_self)
    return op, a, b, _float_cast(a, cast)


def xlogy(input, other, *, out: Tensor | None = None) -> Tensor:
    """input * log(other), with 0 where input is 0 (unless other is NaN).

    >>> import retrograd as torch
    >>> torch.xlogy(torch.tensor([0., 2.]), torch.tensor([0., 1.]))
    tensor([0., 0.])
    """
    op, a, b, cast = _xlogy_args(input, other, "xlogy")
    return _out(apply(op, (a, b), None, cast), out)


def xlogy_(self: Tensor, other) -> Tensor:
    """In-place :func:`xlogy`."""
    op, a, b, cast = _xlogy_args(self, other, "xlogy_")
    if not self.dtype.is_floating_point:
        raise _cannot_cast(cast, self, b)
    if cast is not None and b.dtype is not cast:
        # the forward runs in the promoted dtype, as the out-of-place op does (NumPy would take
        # the log of an int8 or float16 ``other`` in float16)
        b = b.to(cast)
    return apply_inplace(op, self, (b,))


def _copysign_rule_a(g, a, out):
    # d/da |a| sign(b) = out / a, with 0 at a == 0 (PyTorch's convention)
    return g * where(a == 0, 0.0, out / a)


_copysign_fw = _quiet(lambda a, b: np.copysign(a, b))
_copysign = primitive("copysign", _copysign_fw, node="CopysignBackward0", a=_copysign_rule_a, b=_zero_rule, batch="elementwise")
_copysign_s = primitive("copysign_scalar", _copysign_fw, node="CopysignBackward1", a=_copysign_rule_a, batch="elementwise")


def _copysign_args(input, other, name: str):
    if not isinstance(input, Tensor):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    return (_copysign if isinstance(other, Tensor) else _copysign_s), a, b, _float_cast(a, cast)


def copysign(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """|input| with the sign of ``other`` (-0.0 counts as negative).

    >>> import retrograd as torch
    >>> torch.copysign(torch.tensor([1., -2.]), -0.0)
    tensor([-1., -2.])
    """
    op, a, b, cast = _copysign_args(input, other, "copysign")
    return _out(apply(op, (a, b), None, cast), out)


def copysign_(self: Tensor, other) -> Tensor:
    """In-place :func:`copysign`."""
    op, a, b, cast = _copysign_args(self, other, "copysign_")
    if not self.dtype.is_floating_point:
        raise _cannot_cast(cast, self, b)
    return apply_inplace(op, self, (b,))


def _no_derivative(name: str):
    def rule(g):
        raise RuntimeError(f"the derivative for '{name}' is not implemented.")
    return rule


def _nie_heaviside(g):
    raise RuntimeError("derivative for aten::heaviside is not implemented")


def _heaviside_fw(a, b):
    # PyTorch: a == 0 ? b : a > 0, so NaN gives 0 (np.heaviside gives NaN)
    return np.where(a == 0, b, a > 0).astype(np.result_type(a, b))


_heaviside = primitive("heaviside", _heaviside_fw,
                       node="NotImplemented", a=_nie_heaviside, b=_nie_heaviside, batch="elementwise")
# PyTorch's rule: the step is locally constant, so self gets g (0 where self == other), other 0
_nextafter = primitive("nextafter", lambda a, b: np.nextafter(a, b), node="NextafterBackward0",
                       a=lambda g, a, b: g * (a != b).to(g.dtype),
                       b=lambda g: g * 0, batch="elementwise")


def _same_dtype_operands(name: str, input, other):
    if not isinstance(other, Tensor):
        raise TypeError(f"{name}(): argument 'other' (position 2) must be Tensor, not {type(other).__name__}")
    return input, other


@_supports_out
def heaviside(input: Tensor, values: Tensor, *, out=None) -> Tensor:
    """Heaviside step: 0 below zero, 1 above, ``values`` at zero.

    >>> import retrograd as torch
    >>> torch.heaviside(torch.tensor([-1., 0., 2.]), torch.tensor([0.5]))
    tensor([0.0000, 0.5000, 1.0000])
    """
    if not isinstance(values, Tensor):
        raise TypeError(f"heaviside(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    if input.dtype != values.dtype:
        raise RuntimeError("heaviside is not yet implemented for tensors with different dtypes.")
    if input._data.dtype.kind == "c":
        raise RuntimeError("heaviside is not yet implemented for complex tensors.")
    return apply(_heaviside, (input, values))


def heaviside_(self: Tensor, values: Tensor) -> Tensor:
    """In-place :func:`heaviside`."""
    return _inplace(self, lambda x: heaviside(x, values), values)


@_supports_out
def nextafter(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """The next float after ``input`` towards ``other``.

    >>> import retrograd as torch
    >>> torch.nextafter(torch.tensor([1.]), torch.tensor([2.])) > 1
    tensor([True])
    """
    input, other = _same_dtype_operands("nextafter", input, other)
    for t in (input, other):
        if t._data.dtype.kind != "f":
            raise NotImplementedError(f'"nextafter_cpu" not implemented for \'{_tname(t)}\'')
    if input.dtype != other.dtype:
        raise RuntimeError(f"expected scalar type {_tname(input)} but found {_tname(other)}")
    return apply(_nextafter, (input, other))


def nextafter_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`nextafter`."""
    return _inplace(self, lambda x: nextafter(x, other), other)


_ldexp = primitive("ldexp", lambda a, b: a * np.exp2(b), node="LdexpBackward0",
                   a=lambda g, b: g * _R().exp2(b),
                   b=lambda g, a, b: g * a * _R().exp2(b) * math.log(2.0), batch="elementwise")


@_supports_out
@tensor_args("ldexp", other=2)
def ldexp(input: Tensor, other: Tensor, *, out=None) -> Tensor:
    """input * 2**other.

    >>> import retrograd as torch
    >>> torch.ldexp(torch.tensor([1.]), torch.tensor([3]))
    tensor([8.])
    """
    R = _R()
    if not isinstance(other, Tensor):
        other = R.tensor(other)
    # the operands' promoted type, integral results computed in the default float dtype
    # (float16 with int64 exponents stays float16; int with int is float32)
    dt = R.result_type(input, other)
    if not dt.is_floating_point:
        dt = R.get_default_dtype()
    return apply(_ldexp, (input, other), None, dt)


@tensor_args("ldexp_", other=2)
def ldexp_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`ldexp`."""
    def compute(x: Tensor) -> Tensor:
        res = ldexp(x, other)
        if not self.is_floating_point():
            raise RuntimeError(f"ldexp can't be cast to the desired output type {_tname(self)}")
        return res
    return _inplace(self, compute, other)


divide_ = true_divide_ = div_
multiply_ = mul_
subtract_ = sub_
negative_ = neg_


# Run-time references to modules that import this one (bound last, so either import order works)
from .masked import where  # noqa: E402
from .unary import (_F16, _cannot_cast, _not_implemented, _np_err, exp, exp2, log,  # noqa: E402
                    zeros_like_grad)
