"""``x[key]`` and ``x[key] = v``.

Basic keys (ints, slices, None, Ellipsis) decompose into select / slice / unsqueeze views,
exactly the node chain PyTorch records.  Keys with integer or boolean arrays go through
the ``index`` primitive, whose dual is ``index_backward`` (scatter-add into zeros).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._common import to_tensor
from ._registry import apply, apply_inplace, primitive
from .shape import select, slice_dim, unsqueeze

__all__ = ["getitem", "setitem", "nonzero", "index_put_"]


def _index_bw_fw(g, *, shape, key):
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, key, g)
    return out


_index = primitive("index", lambda a, *, key: a[key], node="IndexBackward0",
                   a=lambda g, a_shape, key: apply(_index_backward, (g,), {"shape": a_shape, "key": key}))
_index_backward = primitive("index_backward", _index_bw_fw, node="IndexPutBackward0",
                            g=lambda g, key: apply(_index, (g,), {"key": key}))


def _put_fw(a, v, *, key, accumulate):
    out = a.copy()
    if accumulate:
        np.add.at(out, key, v)
    else:
        out[key] = v
    return out


_index_put = primitive("index_put", _put_fw, node="IndexPutBackward0",
                       a=lambda g, key, accumulate: g if accumulate else _zero_at(g, key),
                       v=lambda g, key: apply(_index, (g,), {"key": key}))


def _zero_at(g: Tensor, key) -> Tensor:
    zero = Tensor._wrap(np.zeros((), dtype=g._data.dtype), False, None, 0)
    return apply(_index_put, (g, zero), {"key": key, "accumulate": False})


def _is_advanced(k) -> bool:
    return isinstance(k, (Tensor, np.ndarray, list, bool, np.bool_)) or (
        isinstance(k, tuple))


def _normalize_advanced(key: tuple, shape) -> tuple:
    """Tensors/lists in ``key`` -> NumPy arrays, checking bounds with PyTorch's messages."""
    out = []
    dim = 0
    for k in key:
        if isinstance(k, Tensor):
            k = k._data
        elif isinstance(k, (list, tuple)):
            k = np.asarray(k)
            if k.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if isinstance(k, np.ndarray):
            if k.dtype.kind == "f":
                raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
            if k.dtype.kind == "b" or k.dtype == np.uint8:
                k = k.astype(bool)
                for j, s in enumerate(k.shape):
                    if dim + j < len(shape) and s != shape[dim + j]:
                        raise IndexError(
                            f"The shape of the mask [{', '.join(map(str, k.shape))}] at index {j} does not match "
                            f"the shape of the indexed tensor [{', '.join(map(str, shape))}] at index {dim + j}")
                dim += k.ndim
            else:
                if dim < len(shape) and k.size:
                    size = shape[dim]
                    bad = k[(k >= size) | (k < -size)]
                    if bad.size:
                        raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {dim} with size {size}")
                dim += 1
        elif k is None:
            pass
        elif k is Ellipsis:
            dim = len(shape) - sum(1 for x in key[key.index(Ellipsis) + 1:] if x is not None)
        else:
            dim += 1
        out.append(k)
    return tuple(out)


def getitem(self: Tensor, key) -> Tensor:
    """``self[key]`` with PyTorch's semantics (views for basic keys)."""
    if not isinstance(key, tuple):
        key = (key,)
    if any(_is_advanced(k) for k in key):
        return apply(_index, (self,), {"key": _normalize_advanced(key, self._data.shape)})
    n_real = sum(1 for k in key if k is not None and k is not Ellipsis)
    if n_real > self._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim}")
    if sum(1 for k in key if k is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")
    out = self
    dim = 0
    did = False
    for k in key:
        if k is Ellipsis:
            dim += self._data.ndim - n_real
        elif k is None:
            out = unsqueeze(out, dim)
            dim += 1
            did = True
        elif isinstance(k, slice):
            if k != slice(None) and k != slice(None, None, None):
                out = slice_dim(out, dim, k.start, k.stop, 1 if k.step is None else k.step)
                did = True
            dim += 1
        else:
            try:
                i = k.__index__()
            except AttributeError:
                raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                                 "are valid indices (got " + type(k).__name__ + ")") from None
            out = select(out, dim, i)
            did = True
    if not did:
        out = slice_dim(self, 0, None, None, 1) if self._data.ndim else apply(_index, (self,), {"key": ()})
    return out


def index_put_(self: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """``self[indices] = values`` (or ``+=`` with accumulate) in place, differentiable."""
    key = indices if isinstance(indices, tuple) else (indices,)
    key = _normalize_advanced(key, self._data.shape) if any(_is_advanced(k) for k in key) else key
    v = to_tensor(values, dtype=self.dtype)
    return apply_inplace(_index_put, self, (v,), {"key": key, "accumulate": accumulate})


def setitem(self: Tensor, key, value) -> None:
    """``self[key] = value``: an in-place write that keeps the graph correct."""
    k = key if isinstance(key, tuple) else (key,)
    if any(_is_advanced(x) for x in k):
        k = _normalize_advanced(k, self._data.shape)
    else:
        for x in k:
            if not isinstance(x, slice) and x is not None and x is not Ellipsis:
                x.__index__()
        n_real = sum(1 for x in k if x is not None and x is not Ellipsis)
        if n_real > self._data.ndim:
            raise IndexError(f"too many indices for tensor of dimension {self._data.ndim}")
    if isinstance(value, Tensor):
        v = value
    else:
        v = Tensor._wrap(np.asarray(value, dtype=self._data.dtype), False, None, 0)
    target_shape = np.empty(self._data.shape, dtype=bool)[k].shape
    try:
        np.broadcast_to(v._data, target_shape)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, v._data.shape))}] cannot be broadcast to "
            f"indexing result of shape [{', '.join(map(str, target_shape))}]") from None
    apply_inplace(_index_put, self, (v,), {"key": k, "accumulate": False})


def nonzero(input: Tensor, *, as_tuple: bool = False):
    """Indices of non-zero elements: an (n, ndim) int64 tensor, or a tuple of 1-d tensors."""
    idx = np.nonzero(input._data if input._data.ndim else input._data.reshape(1))
    if as_tuple:
        return tuple(Tensor._wrap(i.astype(np.int64), False, None, 0) for i in idx)
    return Tensor._wrap(np.stack(idx, axis=1).astype(np.int64) if idx else np.zeros((0, 0), np.int64),
                        False, None, 0)
