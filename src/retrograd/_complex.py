"""Functions that exist only for complex tensors: retrograd has none, so on its (real) tensors
they raise PyTorch's own errors, after PyTorch's own argument checks.

>>> import retrograd as torch
>>> torch.view_as_real(torch.ones(2))
Traceback (most recent call last):
RuntimeError: view_as_real is only supported for complex tensors
"""
from __future__ import annotations

import numpy as np

from ._tensor import Tensor

__all__ = ["imag", "view_as_real", "view_as_complex", "conj_physical_"]


def imag(input: Tensor) -> Tensor:
    """Imaginary part: only complex tensors have one (retrograd has none), so this raises torch's error.

    >>> import retrograd as torch
    >>> torch.imag(torch.ones(2))
    Traceback (most recent call last):
    RuntimeError: imag is not implemented for tensors with non-complex dtypes.
    """
    raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")


def view_as_real(input: Tensor) -> Tensor:
    """A complex tensor's (real, imag) pairs; retrograd has no complex tensors, so this raises torch's error."""
    raise RuntimeError("view_as_real is only supported for complex tensors")


def view_as_complex(input: Tensor) -> Tensor:
    """Pairs along a last dim of size 2 read as complex numbers: torch's checks on ``input``, then a
    TypeError (complex tensors are out of retrograd's scope)."""
    if input._data.ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if input._data.shape[-1] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if input.stride(-1) != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    if any(st % 2 for st in input.stride()[:-1]):
        raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
    if input._data.dtype not in (np.float32, np.float64, np.float16):
        from ._tensor import _scalar_type_name

        raise RuntimeError("view_as_complex is only supported for half, float and double tensors, but got a tensor "
                           f"of scalar type: {_scalar_type_name(input.dtype)}")
    raise TypeError("retrograd does not support complex tensors (view_as_complex)")


def _conj_physical_(self: Tensor) -> Tensor:
    """In-place conjugation: nothing to do on real tensors (returns ``self``)."""
    return self


def conj_physical_(input: Tensor) -> Tensor:
    """In-place conjugation: nothing to do on real tensors (returns ``input``).

    >>> import retrograd as torch
    >>> torch.conj_physical_(torch.tensor([1.]))
    tensor([1.])
    """
    return input


_conj_physical_.__name__ = _conj_physical_.__qualname__ = "conj_physical_"
