"""CopySlices: the graph surgery after an in-place write through a view.

``y = x.clone(); y[0].mul_(w)`` changes ``y``.  The view's own node records the write;
then ``y`` gets a new grad_fn, CopySlices(old y, new view value), whose rules route the
gradient of the written region through the view's history and the rest to the old ``y``.
Regions are flat (row-major, logical) element indices into the base, so any strided
view of any strided base works, overlapping views included.  Views whose base changed
get ``AsStridedBackward0`` (their region of the base's new history).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._registry import _record, apply, primitive
from .indexing import _index, _zero_at
from .shape import reshape

__all__ = ["rebase_history", "region_indices", "regenerate_view"]


def _offsets(a: np.ndarray) -> np.ndarray:
    """Memory offset (in elements, from ``a``'s first byte) of each element of ``a``, in a's shape."""
    item = a.itemsize
    idx = np.zeros(a.shape, dtype=np.int64)
    for d, (n, st) in enumerate(zip(a.shape, a.strides)):
        shape = [1] * a.ndim
        shape[d] = n
        idx = idx + (np.arange(n, dtype=np.int64) * (st // item)).reshape(shape)
    return idx


def region_indices(base: np.ndarray, view: np.ndarray) -> np.ndarray:
    """Flat logical indices into ``base`` of each element of ``view`` (view's shape)."""
    shift = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) // base.itemsize
    view_offs = _offsets(view) + shift
    if base.flags.c_contiguous:
        return view_offs
    base_offs = _offsets(base).reshape(-1)
    order = np.argsort(base_offs, kind="stable")
    pos = np.searchsorted(base_offs[order], view_offs)
    return order[pos]


_copy_slices = primitive(
    "copy_slices", lambda a, v, *, idx: a, node="CopySlices",
    a=lambda g, a_shape, idx: reshape(_zero_at(reshape(g, -1), (idx,)), a_shape),
    v=lambda g, idx: apply(_index, (reshape(g, -1),), {"key": (idx,)}))
_copy_slices.node_cls._name = "torch::autograd::CopySlices"  # PyTorch's name(); the class is CopySlices
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
    idx = region_indices(base._data, view._data)
    new_value = Tensor._wrap(view._data, True, view._grad_fn, view._output_nr)
    old_base = Tensor._wrap(base._data, base._requires_grad, base._grad_fn, base._output_nr, base._vcounter())
    old_base._accum = base._accum
    res = apply(_copy_slices, (old_base, new_value), {"idx": idx})
    base._grad_fn = res._grad_fn
    base._output_nr = 0
    base._requires_grad = True
    # The view now reads the new base: its history is "region of the new base".
    _set_region_history(view, base, idx)


def regenerate_view(view: Tensor, root: Tensor) -> None:
    """``view``'s base changed in place: its grad_fn becomes its region of the base's new history."""
    if not root._requires_grad:
        return
    _set_region_history(view, root, region_indices(root._data, view._data))


def _set_region_history(view: Tensor, root: Tensor, idx: np.ndarray) -> None:
    # The node alone is needed (the view already holds the data): record without computing.
    node = _record(_as_strided, (root,), {"idx": idx}, view._data)._grad_fn
    view._grad_fn = node
    view._output_nr = 0
    view._requires_grad = True
