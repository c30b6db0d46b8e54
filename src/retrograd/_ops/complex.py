"""Conj, conj_physical, resolve_conj, resolve_neg, real, is_conj, is_neg."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._out import same_dtype_found, with_out
from ._registry import _wrap
from .copies import _tensor_arg

__all__ = ["conj", "resolve_conj", "resolve_neg", "conj_physical", "real", "is_conj", "is_neg"]


def conj(input: Tensor) -> Tensor:
    """Complex conjugate; real tensors are returned as is (as PyTorch)."""
    return conj_physical(input)


def resolve_conj(input: Tensor) -> Tensor:
    """No lazy conjugation in retrograd: returns ``input``."""
    return input


def resolve_neg(input: Tensor) -> Tensor:
    """No lazy negation in retrograd: returns ``input``."""
    return input


@with_out("conj_physical", same_dtype_found)
def conj_physical(input: Tensor) -> Tensor:
    """Conjugate (a copy for complex tensors; real tensors returned as is, as PyTorch)."""
    if input._data.dtype.kind == "c":
        return _wrap(np.conj(input._data), False, None, 0)
    return input


def real(input: Tensor) -> Tensor:
    """Real part; real tensors are returned as is (as PyTorch)."""
    if input._data.dtype.kind == "c":
        return _wrap(input._data.real, False, None, 0)
    return input


def is_conj(input: Tensor) -> bool:
    """False: retrograd has no lazily conjugated (complex) tensors.

    >>> import retrograd as torch
    >>> torch.is_conj(torch.ones(1))
    False
    """
    _tensor_arg("is_conj", input)
    return False


def is_neg(input: Tensor) -> bool:
    """False: retrograd has no lazily negated (complex) tensors.

    >>> import retrograd as torch
    >>> torch.is_neg(torch.ones(1))
    False
    """
    _tensor_arg("is_neg", input)
    return False
