"""Diagonal, diag, diag_embed, diagflat, tril/triu, tril_indices/triu_indices."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._common import wrap_dim
from ._out import with_out
from ._registry import apply, apply_inplace, primitive
from .reduction import _const
from .shape import _as_view, reshape

__all__ = ["tril", "triu", "diag", "diagonal", "diag_embed", "diagflat", "tril_", "triu_", "tril_indices",
           "triu_indices"]


# ---------------------------------------------------------------- triangles
def _tri(name: str, fn):
    op = primitive(name, lambda a, *, diagonal: fn(a, diagonal), node=name.capitalize() + "Backward0",
                   a=lambda g, diagonal: apply(op, (g,), {"diagonal": diagonal}))

    @with_out(name, "same")
    def f(input: Tensor, diagonal: int = 0) -> Tensor:
        if input._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply(op, (input,), {"diagonal": int(diagonal)})

    def f_(self: Tensor, diagonal: int = 0) -> Tensor:
        if self._data.ndim < 2:
            raise RuntimeError(f"{name}: input tensor must have at least 2 dimensions")
        return apply_inplace(op, self, (), {"diagonal": int(diagonal)})

    f.__name__, f_.__name__ = name, name + "_"
    side = "lower" if name == "tril" else "upper"
    f.__doc__ = f"The {side} triangle of the last two dims (others zeroed), offset by ``diagonal``."
    return f, f_


# (PyTorch's result is contiguous whatever the input's layout)
tril, tril_ = _tri("tril", lambda a, k: np.asarray(np.tril(a, k), order="C"))
triu, triu_ = _tri("triu", lambda a, k: np.asarray(np.triu(a, k), order="C"))


# ---------------------------------------------------------------- diagonals
def _diag_view(a: np.ndarray, offset: int, dim1: int, dim2: int) -> np.ndarray:
    """A writable strided view of the diagonal (NumPy's own diagonal view is read-only)."""
    idx = [slice(None)] * a.ndim
    if offset >= 0:
        idx[dim2] = slice(offset, None)
    else:
        idx[dim1] = slice(-offset, None)
    b = a[tuple(idx)]
    n = max(0, min(b.shape[dim1], b.shape[dim2]))
    keep = [i for i in range(a.ndim) if i not in (dim1, dim2)]
    shape = [b.shape[i] for i in keep] + [n]
    strides = [b.strides[i] for i in keep] + [b.strides[dim1] + b.strides[dim2]]
    return np.lib.stride_tricks.as_strided(b, shape, strides, writeable=b.flags.writeable)


def _diag_bw_fw(grad, *, shape, offset, dim1, dim2):
    out = np.zeros(shape, dtype=grad.dtype)
    _diag_view(out, offset, dim1, dim2)[...] = grad
    return out


_diagonal = primitive("diagonal", lambda a, *, offset, dim1, dim2: _diag_view(a, offset, dim1, dim2),
                      node="DiagonalBackward0",
                      a=lambda g, a_shape, offset, dim1, dim2: apply(
                          _diagonal_backward, (g,), {"shape": a_shape, "offset": offset, "dim1": dim1, "dim2": dim2}), batch="diagonal")
_diagonal_backward = primitive("diagonal_backward", _diag_bw_fw, node="DiagonalBackwardBackward0",
                               grad=lambda g, offset, dim1, dim2: apply(
                                   _diagonal, (g,), {"offset": offset, "dim1": dim1, "dim2": dim2}))
# torch.diag on a matrix returns a copy; PyTorch names its node this way.
_diag_copy = primitive("diag_copy", lambda a, *, offset, dim1, dim2: _diag_view(a, offset, dim1, dim2).copy(),
                       node="DiagonalBackward0_copy",
                       a=lambda g, a_shape, offset, dim1, dim2: apply(
                           _diagonal_backward, (g,), {"shape": a_shape, "offset": offset, "dim1": dim1, "dim2": dim2}))


def _diag_dims(n: int, dim1: int, dim2: int):
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return d1, d2


def diagonal(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """The diagonal of the (dim1, dim2) planes, appended as the last dim (a view).

    >>> import retrograd as torch
    >>> torch.arange(9.).reshape(3, 3).diagonal()
    tensor([0., 4., 8.])
    """
    d1, d2 = _diag_dims(input._data.ndim, dim1, dim2)
    return _as_view(apply(_diagonal, (input,), {"offset": int(offset), "dim1": d1, "dim2": d2}), input)


def _diag_embed_fw(a, *, offset, dim1, dim2):
    n = a.shape[-1] + abs(offset) if a.ndim else abs(offset) + 1
    lead = list(a.shape[:-1])
    shape = []
    it = iter(lead)
    for k in range(len(lead) + 2):
        shape.append(n if k in (dim1, dim2) else next(it))
    out = np.zeros(shape, dtype=a.dtype)
    _diag_view(out, offset, dim1, dim2)[...] = a
    return out


_diag_embed = primitive("diag_embed", _diag_embed_fw, node="DiagEmbedBackward0",
                        a=lambda g, offset, dim1, dim2: apply(_diagonal, (g,), {"offset": offset, "dim1": dim1,
                                                                                 "dim2": dim2}))


def diag_embed(input: Tensor, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """Matrices (in dims ``dim1``, ``dim2``) whose diagonal is ``input``'s last dim."""
    d1, d2 = _diag_dims(input._data.ndim + 1, dim1, dim2)
    return apply(_diag_embed, (input,), {"offset": int(offset), "dim1": d1, "dim2": d2})


@with_out("diag", "same", grad_check=False)
def diag(input: Tensor, diagonal: int = 0, *, out=None) -> Tensor:
    """1-d input: a square matrix with it on a diagonal; 2-d input: a copy of that diagonal."""
    n = input._data.ndim
    if n == 1:
        return apply(_diag_embed, (input,), {"offset": int(diagonal), "dim1": 0, "dim2": 1})
    if n == 2:
        return apply(_diag_copy, (input,), {"offset": int(diagonal), "dim1": 0, "dim2": 1})
    raise RuntimeError(f"diag(): Supports 1D or 2D tensors. Got {n}D")


def diagflat(input: Tensor, offset: int = 0) -> Tensor:
    """A square matrix with the flattened input on diagonal ``offset``."""
    flat = input if input._data.ndim == 1 else reshape(input, (-1,))
    return apply(_diag_embed, (flat,), {"offset": int(offset), "dim1": 0, "dim2": 1})


# ================================================================ index helpers
def _tri_indices(fn, row: int, col: int, offset: int, dtype) -> Tensor:
    dt = (dtype or D.int64)
    if dt.np.kind not in "iu":
        from .._tensor import _scalar_type_name

        name = "tril_indices" if fn is np.tril_indices else "triu_indices"
        raise NotImplementedError(f'"{name}" not implemented for \'{_scalar_type_name(dt)}\'')
    for what, n in (("row", row), ("col", col)):
        if n < 0:
            raise RuntimeError(f"{what} must be non-negative, got{n}")  # (sic: PyTorch's text has no space)
    r, c = fn(row, offset, col)
    return _const(np.stack([r, c]).reshape(2, -1).astype(dt.np))


def tril_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Indices of the lower triangle of a row x col matrix (2 x N).

    >>> import retrograd as torch
    >>> torch.tril_indices(2, 2)
    tensor([[0, 1, 1],
            [0, 0, 1]])
    """
    return _tri_indices(np.tril_indices, row, col, offset, dtype)


def triu_indices(row: int, col: int, offset: int = 0, *, dtype=None, device=None, layout=None,
                 pin_memory: bool = False, requires_grad: bool = False) -> Tensor:
    """Indices of the upper triangle of a row x col matrix (2 x N).

    >>> import retrograd as torch
    >>> torch.triu_indices(2, 2)
    tensor([[0, 0, 1],
            [0, 1, 1]])
    """
    return _tri_indices(np.triu_indices, row, col, offset, dtype)
