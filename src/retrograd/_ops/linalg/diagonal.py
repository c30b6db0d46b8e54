"""``torch.linalg.diagonal``: a view of the diagonals over the last two dims (a primitive whose dual
writes a diagonal back)."""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._common import wrap_dim
from .._registry import apply, primitive

__all__ = []


# ---------------------------------------------------------------- diagonal (linalg.diagonal)
def _diagonal_fw(a, *, offset, dim1, dim2):
    d = np.diagonal(a, offset, dim1, dim2)
    if a.flags.writeable:
        d.flags.writeable = True  # a writable view, as PyTorch's
    return d


def _diagonal_backward_fw(grad, *, shape, offset, dim1, dim2):
    z = np.zeros(shape, dtype=grad.dtype)
    _diagonal_fw(z, offset=offset, dim1=dim1, dim2=dim2)[...] = grad
    return z


_diagonal = primitive("linalg_diagonal", _diagonal_fw, node="DiagonalBackward0",
                      a=lambda g, a_shape, offset, dim1, dim2: apply(
                          _diagonal_backward, (g,), {"shape": a_shape, "offset": offset, "dim1": dim1, "dim2": dim2}))
_diagonal_backward = primitive("linalg_diagonal_backward", _diagonal_backward_fw, node="DiagonalBackwardBackward0",
                               grad=lambda g, offset, dim1, dim2: apply(
                                   _diagonal, (g,), {"offset": offset, "dim1": dim1, "dim2": dim2}))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal (``offset`` above it when > 0) of the matrices over dims dim1, dim2 (a view)."""
    from ..shape import _as_view

    n = A._data.ndim
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _as_view(apply(_diagonal, (A,), {"offset": int(offset), "dim1": d1, "dim2": d2}), A)
