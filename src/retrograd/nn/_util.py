"""Small helpers nn needs from ops that may not exist yet in every build (cat, stack)."""
from __future__ import annotations

import numpy as np

from .. import _ops
from .._tensor import Tensor
from ..autograd import grad_mode


def cat(tensors, dim: int = 0) -> Tensor:
    """``torch.cat``; falls back to a balanced tree of pairwise concatenations."""
    fn = getattr(_ops, "cat", None)
    if fn is not None:
        return fn(list(tensors), dim)
    from .._ops.nn_ops import _cat_pair

    ts = list(tensors)
    if not ts:
        raise RuntimeError("torch.cat(): expected a non-empty list of Tensors")
    d = dim % ts[0].ndim
    while len(ts) > 1:
        ts = [_cat_pair(ts[i], ts[i + 1], d) if i + 1 < len(ts) else ts[i] for i in range(0, len(ts), 2)]
    return ts[0]


def stack(tensors, dim: int = 0) -> Tensor:
    """``torch.stack`` via unsqueeze + cat."""
    fn = getattr(_ops, "stack", None)
    if fn is not None:
        return fn(list(tensors), dim)
    ts = list(tensors)
    d = dim % (ts[0].ndim + 1)
    return cat([t.unsqueeze(d) for t in ts], d)


def chunk(t: Tensor, n: int, dim: int) -> list:
    """Equal chunks along dim (sizes divide evenly in the nn uses)."""
    size = t.shape[dim] // n
    return [t.narrow(dim, i * size, size) for i in range(n)]


def const(a: np.ndarray) -> Tensor:
    """A constant tensor around a NumPy array."""
    return Tensor._wrap(np.asarray(a), False, None, 0)


def no_grad():
    return grad_mode.no_grad()
