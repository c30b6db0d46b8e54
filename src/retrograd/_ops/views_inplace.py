"""CopySlices: the graph surgery after an in-place write through a view.

``y = x.clone(); y[0].mul_(w)`` changes ``y``.  The view's own node records the write;
then ``y`` gets a new grad_fn, CopySlices(old y, new view value), whose rules route the
gradient of the written region through the view's history and the rest to the old ``y``.
Regions are described by flat element indices into the (contiguous) base, so any
strided view works, overlapping ones included.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._registry import apply, primitive
from .indexing import _index, _zero_at
from .shape import reshape

__all__ = ["rebase_history", "region_indices"]


def region_indices(base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """Flat indices into C-contiguous ``base`` of each element of ``view`` (view's shape)."""
    item = base.itemsize
    offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // item
    idx = np.full(view.shape, offset, dtype=np.int64)
    for d, (n, st) in enumerate(zip(view.shape, view.strides)):
        shape = [1] * view.ndim
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * (st // item)).reshape(shape)
    return idx


_copy_slices = primitive(
    "copy_slices", lambda a, v, *, idx: a, node="CopySlices",
    a=lambda g, a_shape, idx: reshape(_zero_at(reshape(g, -1), (idx,)), a_shape),
    v=lambda g, idx: apply(_index, (reshape(g, -1),), {"key": (idx,)}))
_as_strided = primitive(
    "as_strided", lambda a, *, idx: a.reshape(-1)[idx], node="AsStridedBackward0",
    a=lambda g, a_shape, idx: _scatter_flat(g, a_shape, idx))
_as_strided_scatter = primitive(
    "as_strided_backward", lambda g, *, shape, idx: _scatter_np(g, shape, idx),
    node="AsStridedBackwardBackward0",
    g=lambda g, idx: apply(_as_strided, (g,), {"idx": idx}))


def _scatter_np(g, shape, idx):
    out = np.zeros(int(np.prod(shape)), dtype=g.dtype)
    np.add.at(out, idx, g)
    return out.reshape(shape)


def _scatter_flat(g, shape, idx):
    return apply(_as_strided_scatter, (g,), {"shape": shape, "idx": idx})


def rebase_history(base: Tensor, view: Tensor) -> None:
    """Give ``base`` a CopySlices grad_fn after ``view`` (one of its views) changed in place."""
    if not base._data.flags.c_contiguous:
        raise RuntimeError("retrograd: in-place writes through a view of a non-contiguous tensor that is part "
                           "of a graph are not supported; call .contiguous() on the base first")
    idx = region_indices(base._data, view._data)
    new_value = Tensor._wrap(view._data, True, view._grad_fn, view._output_nr)
    old_base = Tensor._wrap(base._data, base._requires_grad, base._grad_fn, base._output_nr, base._vc)
    old_base._accum = base._accum
    res = apply(_copy_slices, (old_base, new_value), {"idx": idx})
    base._grad_fn = res._grad_fn
    base._output_nr = 0
    base._requires_grad = True
    # The view now reads the new base: its history is "region of the new base".
    strided = apply(_as_strided, (base,), {"idx": idx})
    view._grad_fn = strided._grad_fn
    view._output_nr = 0
