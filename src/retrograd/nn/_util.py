"""Small helpers shared by the nn modules."""
from __future__ import annotations

import numpy as np

from .. import _ops as O
from .._tensor import Tensor


def cat(tensors, dim: int = 0) -> Tensor:
    return O.cat(list(tensors), dim)


def stack(tensors, dim: int = 0) -> Tensor:
    return O.stack(list(tensors), dim)


def chunk(t: Tensor, n: int, dim: int) -> tuple:
    """``n`` equal chunks along ``dim`` (the nn uses divide evenly): one split node, whose
    backward concatenates the chunks' gradients (``n`` narrows would each pad theirs with
    zeros to the full size, and the engine would add the ``n`` padded copies)."""
    return O.chunk(t, n, dim)


def const(a) -> Tensor:
    """A constant tensor (no grad) around a NumPy array."""
    return Tensor._wrap(np.asarray(a), False, None, 0)
