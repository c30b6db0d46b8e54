"""Small helpers shared by the nn modules."""
from __future__ import annotations

import numpy as np

from .. import _ops as O
from .._tensor import Tensor


def cat(tensors, dim: int = 0) -> Tensor:
    return O.cat(list(tensors), dim)


def stack(tensors, dim: int = 0) -> Tensor:
    return O.stack(list(tensors), dim)


def chunk(t: Tensor, n: int, dim: int) -> list:
    """``n`` equal chunks along ``dim`` as views (the nn uses divide evenly)."""
    size = t.shape[dim] // n
    return [t.narrow(dim, i * size, size) for i in range(n)]


def const(a) -> Tensor:
    """A constant tensor (no grad) around a NumPy array."""
    return Tensor._wrap(np.asarray(a), False, None, 0)
