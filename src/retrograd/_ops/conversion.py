"""Clone, to_dtype, copy_/zero_/fill_/fill, resize_as_, is_same_size, is_nonzero."""
from __future__ import annotations

import numpy as np

from .._layout import check_memory_format, copied, like_input, preserve_format
from .._tensor import Tensor
from ._common import to_tensor
from ._registry import apply, apply_inplace, primitive
from .copies import _tensor_arg
from .unary import zeros_like_grad

__all__ = ["is_same_size", "is_nonzero", "resize_as_", "fill", "clone", "to_dtype", "copy_", "zero_", "fill_"]


def resize_as_(input: Tensor, the_template: Tensor, *, memory_format=None) -> Tensor:
    """``torch.resize_as_(x, t)``: ``x.resize_as_(t)`` (x takes t's shape in place; kept data first).

    >>> import retrograd as torch
    >>> tuple(torch.resize_as_(torch.zeros(2, 3), torch.ones(3)).shape)
    (3,)
    """
    return input.resize_as_(the_template, memory_format=memory_format)


# ---------------------------------------------------------------------------- small ones
def is_same_size(input: Tensor, other: Tensor) -> bool:
    """Whether the two shapes are equal."""
    return tuple(input._data.shape) == tuple(other._data.shape)


def is_nonzero(input: Tensor) -> bool:
    """The truth value of a one-element tensor (PyTorch's errors otherwise).

    >>> import retrograd as torch
    >>> torch.is_nonzero(torch.tensor([1.]))
    True
    """
    if not isinstance(input, Tensor):
        raise TypeError(f"is_nonzero(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")
    n = input._data.size
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    return bool(np.asarray(input._data).reshape(-1)[0])


def fill(input: Tensor, value) -> Tensor:
    """Out-of-place ``fill_``: a tensor like ``input`` filled with ``value``.

    >>> import retrograd as torch
    >>> torch.fill(torch.zeros(2), 3.)
    tensor([3., 3.])
    """
    _tensor_arg("fill", input)
    return input.clone().fill_(value)


_clone = primitive("clone", lambda a, *, memory_format=None: copied(a, memory_format), node="CloneBackward0",
                   a=lambda g: g, batch="elementwise")
def _astype(a, *, npd):
    if npd.kind in "iub" and a.dtype.kind == "f":
        with np.errstate(invalid="ignore", over="ignore"):  # nan/inf -> int: PyTorch is silent
            return like_input(a.astype(npd), a)
    return like_input(a.astype(npd), a)  # (an expanded input's copy: laid out as PyTorch's)


_to_dtype = primitive("to_dtype", _astype, node="ToCopyBackward0",
                      a=lambda g, a_dtype: to_dtype(g, a_dtype), batch="elementwise")
# copy_(self, src): self's old value gets no gradient; src gets g (summed, cast by the engine).
# The overwritten values get zeros_like(g), as in PyTorch (g * 0 would turn an infinite g into NaN).
_copy = primitive("copy_", lambda a, b: np.broadcast_to(b, a.shape).astype(a.dtype, copy=True),
                  node="torch::autograd::CopyBackwards", a=lambda g: zeros_like_grad(g), b=lambda g: g)
# fill_ is only in-place; PyTorch numbers its in-place overloads' nodes 2 (Scalar) and 3 (Tensor)
_fill = primitive("fill_", lambda a, *, value: np.full(a.shape, value, dtype=a.dtype), node="FillBackward2",
                  a=lambda g: zeros_like_grad(g), batch="elementwise")
_fill_t = primitive("fill_tensor", lambda a, v: np.full(a.shape, v, dtype=a.dtype), node="FillBackward3",
                    a=lambda g: zeros_like_grad(g), v=lambda g: g.sum(), batch="elementwise")
_zero = primitive("zero_", lambda a: np.zeros(a.shape, dtype=a.dtype), node="ZeroBackward0",
                  a=lambda g: zeros_like_grad(g), batch="elementwise")


def clone(input: Tensor, *, memory_format=None) -> Tensor:
    """A copy that stays in the graph (CloneBackward0); by default with ``input``'s own strides.

    >>> import retrograd as torch
    >>> torch.zeros(2, 3).t().clone().stride()
    (1, 3)
    """
    if memory_format is None or memory_format is preserve_format:
        return apply(_clone, (input,))
    check_memory_format("clone", memory_format)
    return apply(_clone, (input,), {"memory_format": memory_format})


def to_dtype(input: Tensor, dtype) -> Tensor:
    """Cast to ``dtype`` (ToCopyBackward0); grads are cast back."""
    if input._data.dtype == dtype.np:
        return input
    if not dtype.is_floating_point and input._requires_grad:
        from ..autograd import grad_mode

        with grad_mode.no_grad():
            return apply(_to_dtype, (input,), {"npd": dtype.np})
    return apply(_to_dtype, (input,), {"npd": dtype.np})


def copy_(self: Tensor, src, non_blocking: bool = False) -> Tensor:
    """Copy ``src`` (broadcast, cast) into self in place; differentiable w.r.t. src."""
    src = to_tensor(src)
    try:
        np.broadcast_to(src._data, self._data.shape)
    except ValueError:
        raise RuntimeError(
            f"The size of tensor a ({self._data.shape[-1] if self._data.ndim else 1}) must match the size of "
            f"tensor b ({src._data.shape[-1] if src._data.ndim else 1}) at non-singleton dimension "
            f"{max(self._data.ndim - 1, 0)}") from None
    if self._data.dtype.kind != "f" and src._requires_grad:
        from ..autograd import grad_mode

        with grad_mode.no_grad():
            return apply_inplace(_copy, self, (src,))
    return apply_inplace(_copy, self, (src,))


def zero_(self: Tensor) -> Tensor:
    """Fill with zeros in place."""
    return apply_inplace(_zero, self, ())


def fill_(self: Tensor, value) -> Tensor:
    """Fill with ``value`` (a number or a 0-d tensor) in place."""
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with {value._data.ndim} dimensions.")
        return apply_inplace(_fill_t, self, (value,))
    from ._common import checked_scalar

    return apply_inplace(_fill, self, (), {"value": checked_scalar(value, self.dtype)})
