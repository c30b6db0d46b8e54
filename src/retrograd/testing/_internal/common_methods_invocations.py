"""The few helpers of PyTorch's ``common_methods_invocations`` that plain tests import.

The OpInfo database itself is not provided (``@ops`` is unsupported, see docs/testing.md).

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_methods_invocations import mask_not_all_zeros
>>> bool(mask_not_all_zeros((3, 4)).any())
True
"""
from __future__ import annotations

import retrograd

__all__ = ["mask_not_all_zeros"]


def mask_not_all_zeros(shape) -> "retrograd.Tensor":
    """A random boolean mask of ``shape`` with at least one True element (resampled until so)."""
    if retrograd.Size(shape).numel() == 0:
        raise ValueError("mask_not_all_zeros needs a non-empty shape")
    while True:
        result = retrograd.randn(shape).gt(0)
        if result.sum() > 0:
            return result
