"""``torch._utils``: the few private helpers that code outside PyTorch calls.

>>> import retrograd as torch
>>> torch._utils._element_size(torch.float64)
8
"""
from __future__ import annotations

from . import _dtype as D

__all__: list[str] = []


def _element_size(dtype: D.dtype) -> int:
    """Bytes per element of ``dtype`` as PyTorch counts them (bfloat16: 2, complex64: 8)."""
    if not isinstance(dtype, D.dtype):
        raise RuntimeError(f"expected a dtype, but got {type(dtype).__name__}")
    return dtype.itemsize
