"""Comparison, logical and bitwise ops: isclose / allclose / equal, logical_*, is* predicates,
bitwise_* and shifts, and the Tensor operators ``& | ^ ~ << >>``.

None of these is differentiable: their primitives declare no rules, so outputs never
require grad.
"""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _scalar_type_name
from ._common import binary_operands
from ._out import need_dtype, with_out
from ._registry import apply, apply_inplace, primitive
from .pointwise import _out

__all__ = ["isclose", "allclose", "equal", "logical_and", "logical_or", "logical_xor", "logical_not",
           "isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal", "bitwise_and", "bitwise_or",
           "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift"]
METHODS = __all__ + ["logical_and_", "logical_or_", "logical_xor_", "logical_not_", "bitwise_and_",
                     "bitwise_or_", "bitwise_xor_", "bitwise_not_", "bitwise_left_shift_", "bitwise_right_shift_"]


def _need_tensor(name: str, x, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _doc(fn, text: str, example: str):
    call, result = example.split(" -> ")
    fn.__doc__ = f"{text}\n\n>>> import retrograd as torch\n>>> {call}\n{result}\n"
    return fn


# ---------------------------------------------------------------- predicates
def _is_float(a: np.ndarray) -> bool:
    return a.dtype.kind == "f"


def _predicate(name: str, f, example: str):
    op = primitive(name, f)

    def fn(input: Tensor) -> Tensor:
        _need_tensor(name, input)
        return apply(op, (input,))

    fn.__name__ = fn.__qualname__ = name
    return _doc(fn, f"Elementwise ``{name}``: a bool tensor (integer inputs are never NaN or infinite).", example)


def _all(value: bool):
    return lambda a: np.full(a.shape, value, dtype=bool)


isnan = _predicate("isnan", lambda a: np.isnan(a) if _is_float(a) else _all(False)(a),
                   "torch.isnan(torch.tensor([1., float('nan')])) -> tensor([False,  True])")
isinf = _predicate("isinf", lambda a: np.isinf(a) if _is_float(a) else _all(False)(a),
                   "torch.isinf(torch.tensor([1., float('-inf')])) -> tensor([False,  True])")
isposinf = _predicate("isposinf", lambda a: a == np.inf if _is_float(a) else _all(False)(a),
                      "torch.isposinf(torch.tensor([float('inf'), float('-inf')])) -> tensor([ True, False])")
isneginf = _predicate("isneginf", lambda a: a == -np.inf if _is_float(a) else _all(False)(a),
                      "torch.isneginf(torch.tensor([float('inf'), float('-inf')])) -> tensor([False,  True])")
isposinf = with_out("isposinf", need_dtype(lambda o: "isposinf does not support non-boolean outputs.", D.bool),
                    grad_check=False)(isposinf)
isneginf = with_out("isneginf", need_dtype(lambda o: "isneginf does not support non-boolean outputs.", D.bool),
                    grad_check=False)(isneginf)
isfinite = _predicate("isfinite", lambda a: np.isfinite(a) if _is_float(a) else _all(True)(a),
                      "torch.isfinite(torch.tensor([1., float('nan')])) -> tensor([ True, False])")
isreal = _predicate("isreal", _all(True), "torch.isreal(torch.tensor([1., 2.])) -> tensor([True, True])")


# ---------------------------------------------------------------- logical
def _logical(name: str, f, example: str):
    op = primitive(name, f)

    def fn(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
        _need_tensor(name, input)
        _need_tensor(name, other, "other", 2)
        return _out(apply(op, (input, other)), out, inputs=(input, other))

    def fn_(self: Tensor, other: Tensor) -> Tensor:
        _need_tensor(name + "_", other, "other", 2)
        return _inplace_nondiff(op, self, (other,))

    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place :func:`{name}` (the result is written as 0/1 in self's dtype)."
    return _doc(fn, f"Elementwise ``{name}`` of the truth values (nonzero = True): a bool tensor.", example), fn_


def _inplace_nondiff(op, self: Tensor, others: tuple, static=None) -> Tensor:
    """apply_inplace for ops without a derivative: a plain write that leaves self's history
    alone, even on a leaf that requires grad (what PyTorch does for ``x.logical_not_()``)."""
    from ..autograd import grad_mode

    with grad_mode.no_grad():
        return apply_inplace(op, self, others, static)


logical_and, logical_and_ = _logical("logical_and", lambda a, b: np.logical_and(a, b),
                                     "torch.logical_and(torch.tensor([1, 0]), torch.tensor([2, 2])) -> "
                                     "tensor([ True, False])")
logical_or, logical_or_ = _logical("logical_or", lambda a, b: np.logical_or(a, b),
                                   "torch.logical_or(torch.tensor([1, 0]), torch.tensor([0, 0])) -> "
                                   "tensor([ True, False])")
logical_xor, logical_xor_ = _logical("logical_xor", lambda a, b: np.logical_xor(a, b),
                                     "torch.logical_xor(torch.tensor([1, 0]), torch.tensor([1, 1])) -> "
                                     "tensor([False,  True])")
_logical_not = primitive("logical_not", lambda a: np.logical_not(a))


def logical_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise NOT of the truth values: a bool tensor.

    >>> import retrograd as torch
    >>> torch.logical_not(torch.tensor([0., 2.]))
    tensor([ True, False])
    """
    _need_tensor("logical_not", input)
    return _out(apply(_logical_not, (input,)), out)


def logical_not_(self: Tensor) -> Tensor:
    """In-place :func:`logical_not` (the result is written as 0/1 in self's dtype)."""
    return _inplace_nondiff(_logical_not, self, ())


# ---------------------------------------------------------------- closeness and equality
def _isclose_np(a, b, *, rtol, atol, equal_nan):
    close = a == b
    if equal_nan and _is_float(a):
        close = close | (np.isnan(a) & np.isnan(b))
    if rtol == 0 and atol == 0:
        return close
    if a.dtype.kind == "b":  # PyTorch measures bools in the default float dtype
        a = a.astype(D.get_default_dtype().np)
        b = b.astype(a.dtype)
    with np.errstate(invalid="ignore", over="ignore"):
        allowed = atol + np.abs(rtol * b)
        actual = np.abs(a - b)
        return close | (np.isfinite(actual) & (actual <= allowed))


_isclose = primitive("isclose", _isclose_np)


def _float_arg(name: str, arg: str, pos: int, v) -> float:
    """PyTorch's parsing of a ``float`` argument: a real number, or a one-element tensor that does
    not require grad (read as its value); anything else is a TypeError."""
    import numbers

    if isinstance(v, numbers.Real):
        return float(v)
    if isinstance(v, Tensor) and v.numel() == 1 and not v.requires_grad and not v.is_complex():
        return float(v.item())
    raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be float, not {type(v).__name__}")


def _close_args(name: str, input, other, rtol, atol) -> tuple[float, float]:
    _need_tensor(name, input)
    _need_tensor(name, other, "other", 2)
    rtol, atol = _float_arg(name, "rtol", 3, rtol), _float_arg(name, "atol", 4, atol)
    if input.dtype is not other.dtype:
        raise RuntimeError(f"{_scalar_type_name(input.dtype)} did not match {_scalar_type_name(other.dtype)}")
    if rtol < 0:
        raise RuntimeError(f"rtol must be greater than or equal to zero, but got {rtol:g}")
    if atol < 0:
        raise RuntimeError(f"atol must be greater than or equal to zero, but got {atol:g}")
    return rtol, atol


def isclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> Tensor:
    """|input - other| <= atol + rtol * |other|, elementwise (equal infinities are close).

    >>> import retrograd as torch
    >>> torch.isclose(torch.tensor([1., 2.]), torch.tensor([1. + 1e-6, 2.1]))
    tensor([ True, False])
    """
    rtol, atol = _close_args("isclose", input, other, rtol, atol)
    return apply(_isclose, (input, other), {"rtol": rtol, "atol": atol, "equal_nan": bool(equal_nan)})


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08, equal_nan: bool = False) -> bool:
    """Whether every element is :func:`isclose` (a Python bool).

    >>> import retrograd as torch
    >>> torch.allclose(torch.tensor([1., 2.]), torch.tensor([1., 2. + 1e-7]))
    True
    """
    rtol, atol = _close_args("allclose", input, other, rtol, atol)
    return bool(_isclose_np(input._data, other._data, rtol=rtol, atol=atol, equal_nan=bool(equal_nan)).all())


def equal(input: Tensor, other: Tensor) -> bool:
    """True when both have the same shape and elements (NaN is never equal).

    >>> import retrograd as torch
    >>> torch.equal(torch.tensor([1, 2]), torch.tensor([1., 2.]))
    True
    """
    _need_tensor("equal", input)
    _need_tensor("equal", other, "other", 2)
    return input._data.shape == other._data.shape and bool(np.array_equal(input._data, other._data))


# ---------------------------------------------------------------- bitwise and shifts
def _shift_np(left: bool):
    def fw(a, b):
        bits = a.dtype.itemsize * 8
        out_of_range = (b < 0) | (b >= bits) if left else (b < 0) | (b >= bits - (a.dtype.kind == "i"))
        safe = np.where(out_of_range, 0, b).astype(a.dtype, copy=False)
        if left:
            return np.where(out_of_range, np.zeros_like(a), np.left_shift(a, safe))
        # right shifts past the width keep only the sign (0 or -1), as PyTorch
        fill = np.right_shift(a, bits - 1) if a.dtype.kind == "i" else np.zeros_like(a)
        return np.where(out_of_range, fill, np.right_shift(a, safe))
    return fw


def _bitwise(name: str, kernel: str, f, example: str, *, bool_ok: bool = True):
    op = primitive(name, f)

    def operands(input, other, fname):
        a, b, cast = binary_operands(input, other, fname)
        rt = cast if cast is not None else a.dtype
        if rt.is_floating_point or (rt is D.bool and not bool_ok):
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(rt)}\'')
        return a, b, cast

    def fn(input, other, *, out: Tensor | None = None) -> Tensor:
        a, b, cast = operands(input, other, name)
        return _out(apply(op, (a, b), None, cast), out)

    def fn_(self: Tensor, other) -> Tensor:
        a, b, cast = operands(self, other, name + "_")
        if self._data.dtype.kind == "f":
            raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(self.dtype)}\'')
        return _inplace_nondiff(op, self, (b,))

    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn_.__doc__ = f"In-place :func:`{name}`."
    return _doc(fn, f"Elementwise ``{name}`` of integer or bool tensors (Python ints allowed on either side).",
                example), fn_


bitwise_and, bitwise_and_ = _bitwise("bitwise_and", "bitwise_and_cpu", lambda a, b: np.bitwise_and(a, b),
                                     "torch.bitwise_and(torch.tensor([12, 10]), 6) -> tensor([4, 2])")
bitwise_or, bitwise_or_ = _bitwise("bitwise_or", "bitwise_or_cpu", lambda a, b: np.bitwise_or(a, b),
                                   "torch.bitwise_or(torch.tensor([12, 10]), 6) -> tensor([14, 14])")
bitwise_xor, bitwise_xor_ = _bitwise("bitwise_xor", "bitwise_xor_cpu", lambda a, b: np.bitwise_xor(a, b),
                                     "torch.bitwise_xor(torch.tensor([12, 10]), 6) -> tensor([10, 12])")
bitwise_left_shift, bitwise_left_shift_ = _bitwise(
    "bitwise_left_shift", "lshift_cpu", _shift_np(True),
    "torch.bitwise_left_shift(torch.tensor([1, 3]), 2) -> tensor([ 4, 12])", bool_ok=False)
bitwise_right_shift, bitwise_right_shift_ = _bitwise(
    "bitwise_right_shift", "rshift_cpu", _shift_np(False),
    "torch.bitwise_right_shift(torch.tensor([-8, 8]), 2) -> tensor([-2,  2])", bool_ok=False)

_bitwise_not = primitive("bitwise_not", lambda a: np.logical_not(a) if a.dtype.kind == "b" else np.invert(a))


def _check_integral(name: str, t: Tensor) -> None:
    if t._data.dtype.kind == "f":
        raise NotImplementedError(f'"{name}" not implemented for \'{_scalar_type_name(t.dtype)}\'')


def bitwise_not(input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise NOT of the bits (logical NOT for bool tensors).

    >>> import retrograd as torch
    >>> torch.bitwise_not(torch.tensor([0, 5]))
    tensor([-1, -6])
    """
    _need_tensor("bitwise_not", input)
    _check_integral("bitwise_not_cpu", input)
    return _out(apply(_bitwise_not, (input,)), out)


def bitwise_not_(self: Tensor) -> Tensor:
    """In-place :func:`bitwise_not`."""
    _check_integral("bitwise_not_cpu", self)
    return _inplace_nondiff(_bitwise_not, self, ())


def _invert(self: Tensor) -> Tensor:
    if self._data.dtype.kind == "f":
        raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
    return bitwise_not(self)


def _reflected(fn):
    return lambda self, other: fn(other, self)


Tensor.__and__ = bitwise_and
Tensor.__rand__ = _reflected(bitwise_and)
Tensor.__iand__ = bitwise_and_
Tensor.__or__ = bitwise_or
Tensor.__ror__ = _reflected(bitwise_or)
Tensor.__ior__ = bitwise_or_
Tensor.__xor__ = bitwise_xor
Tensor.__rxor__ = _reflected(bitwise_xor)
Tensor.__ixor__ = bitwise_xor_
Tensor.__invert__ = _invert
Tensor.__lshift__ = bitwise_left_shift
Tensor.__rlshift__ = _reflected(bitwise_left_shift)
Tensor.__ilshift__ = bitwise_left_shift_
Tensor.__rshift__ = bitwise_right_shift
Tensor.__rrshift__ = _reflected(bitwise_right_shift)
Tensor.__irshift__ = bitwise_right_shift_
