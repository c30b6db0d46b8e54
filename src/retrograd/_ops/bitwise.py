"""Bitwise_and/or/xor/not, shifts."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _scalar_type_name
from ._common import binary_operands, tensor_args
from ._composite import _R, _inplace, _out, _supports_out
from ._registry import apply, check_inplace_cast, primitive
from .comparison import _doc, _inplace_nondiff, _need_tensor
from .reduction import _const

__all__ = ["bitwise_and", "bitwise_or", "bitwise_xor", "bitwise_not", "bitwise_left_shift", "bitwise_right_shift",
           "gcd", "lcm", "gcd_", "lcm_"]


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


def _int_binary(name: str, npf):
    @tensor_args(name, input=1, other=2)
    def fn(input: Tensor, other: Tensor, *, out=None) -> Tensor:
        R = _R()
        dt = R.result_type(input, other)
        if dt.np.kind not in "iu":  # (PyTorch dispatches on the promoted type: no kernel for it)
            raise NotImplementedError(f'"{name}_cpu" not implemented for \'{_scalar_type_name(dt)}\'')
        return _const(np.asarray(npf(input._data, other._data)).astype(dt.np))

    @tensor_args(name + "_", other=2)
    def fn_(self: Tensor, other: Tensor) -> Tensor:
        from ._inplace import check_inplace_shape

        check_inplace_shape(self, np.broadcast_shapes(self._data.shape, other._data.shape))
        check_inplace_cast(_R().result_type(self, other), self)
        return _inplace(self, lambda x: fn(x, other), other)

    fn = _supports_out(fn)
    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn.__doc__ = (f"Elementwise ``{name}`` of integer tensors.\n\n>>> import retrograd as torch\n"
                  f">>> torch.{name}(torch.tensor([4, 6]), torch.tensor([6, 4]))\n"
                  f"tensor([{', '.join(str(int(v)) for v in npf(np.array([4, 6]), np.array([6, 4])))}])\n")
    fn_.__doc__ = f"In-place :func:`{name}`."
    return fn, fn_


gcd, gcd_ = _int_binary("gcd", np.gcd)
lcm, lcm_ = _int_binary("lcm", np.lcm)
