"""Views with explicit strides: as_strided/as_strided_, unfold, and empty_permuted."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._common import wrap_dim
from ._registry import _record, _wrap, apply, primitive
from .random import _brange, _state
from .shape import _as_view, _restride

__all__ = ["as_strided", "as_strided_", "unfold", "empty_permuted"]


def _root(x: Tensor) -> Tensor:
    return x if x._base is None else x._base


def _storage_array(root: Tensor) -> np.ndarray:
    """The flat memory ``as_strided`` and ``storage_offset`` address for ``root``.

    A tensor without an autograd base may still view a larger NumPy array (``x[:4].detach()``):
    its storage is that whole array, as in PyTorch.  When ``root`` requires grad the graph
    records indices into ``root`` itself, so its own data is used.
    """
    from .._storage import _root as _np_root

    rd = root._data
    if root._requires_grad or not isinstance(rd, np.ndarray):
        return rd
    r = _np_root(rd)
    if r is rd or r.dtype != rd.dtype or not r.flags.c_contiguous:
        return rd
    return r


def _strided_view(self: Tensor, size, stride, storage_offset):
    root = _root(self)
    rd = _storage_array(root)
    if not isinstance(rd, np.ndarray) or not rd.flags.c_contiguous:
        raise RuntimeError("as_strided: retrograd needs a contiguous base tensor")
    size = tuple(int(s) for s in size)
    stride = tuple(int(s) for s in stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    if storage_offset is None:
        storage_offset = _offset(self, rd)
    if any(s < 0 for s in stride):
        raise RuntimeError("as_strided: Negative strides are not supported at the moment, got strides: "
                           f"[{', '.join(map(str, stride))}]")
    need = storage_offset + 1 + sum((n - 1) * s for n, s in zip(size, stride)) if all(size) else 0
    if need > rd.size:
        raise RuntimeError(f"setStorage: sizes [{', '.join(map(str, size))}], strides [{', '.join(map(str, stride))}],"
                           f" storage offset {storage_offset}, and itemsize {rd.itemsize} requiring a storage size of "
                           f"{need * rd.itemsize} are out of bounds for storage of size {rd.size * rd.itemsize}")
    flat = rd.reshape(-1)[storage_offset:]
    data = np.lib.stride_tricks.as_strided(flat, size, tuple(s * rd.itemsize for s in stride))
    idx = storage_offset + sum(np.arange(n).reshape([-1 if i == k else 1 for i in _brange(len(size))]) * s
                               for k, (n, s) in enumerate(zip(size, stride))) if size else np.array(storage_offset)
    return root, data, np.broadcast_to(idx, size).astype(np.int64)


def as_strided(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A view of ``input``'s storage with the given size, stride and offset (differentiable).

    >>> import retrograd as torch
    >>> torch.arange(6.).as_strided((2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    from .._views import register_view
    from .views_inplace import _as_strided

    root, data, idx = _strided_view(input, size, stride, storage_offset)
    if _state.enabled and root._requires_grad:
        out = _record(_as_strided, (root,), {"idx": idx}, data)
    else:
        out = _wrap(data, False, None, 0)
    register_view(out, root)
    return out


def as_strided_(self: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """In-place ``as_strided``: self takes the new geometry."""
    return _restride(self, as_strided(self, size, stride, storage_offset))


def _offset(x: Tensor, rd: np.ndarray | None = None) -> int:
    """``x``'s storage offset in elements, from the start of ``rd`` (default: its storage)."""
    if rd is None:
        rd = _storage_array(_root(x))
    if not isinstance(x._data, np.ndarray) or rd is x._data:
        return 0
    ptr = x._data.__array_interface__["data"][0] - rd.__array_interface__["data"][0]
    return int(ptr // x._data.itemsize)


# ---------------------------------------------------------------------------- unfold
def _unfold_fw(a, *, dim, size, step):
    if a.ndim == 0:  # a 0-d tensor unfolds into a 1-d one of ``size`` (0 or 1) elements
        return np.lib.stride_tricks.as_strided(np.asarray(a).reshape(1), (size,), (a.itemsize,))
    n = (a.shape[dim] - size) // step + 1
    shape = a.shape[:dim] + (n,) + a.shape[dim + 1:] + (size,)
    strides = a.strides[:dim] + (a.strides[dim] * step,) + a.strides[dim + 1:] + (a.strides[dim],)
    return np.lib.stride_tricks.as_strided(a, shape, strides)


def _unfold_bw_fw(g, *, shape, dim, size, step):
    out = np.zeros(shape, dtype=g.dtype)
    if len(shape) == 0:
        return g.reshape(())
    view = _unfold_fw(out, dim=dim, size=size, step=step)
    n = view.shape[dim]
    for j in _brange(n):  # windows may overlap: add one window position at a time
        sl = [slice(None)] * len(shape)
        sl[dim] = slice(j * step, j * step + size)
        out[tuple(sl)] += np.moveaxis(np.take(g, j, axis=dim), -1, dim)
    return out


_unfold_backward = primitive(
    "unfold_backward", _unfold_bw_fw, node="UnfoldBackwardBackward0",
    g=lambda g, dim, size, step: apply(_unfold, (g,), {"dim": dim, "size": size, "step": step}))
_unfold = primitive(
    "unfold", _unfold_fw, node="UnfoldBackward0",
    a=lambda g, a_shape, dim, size, step: apply(_unfold_backward, (g,),
                                                {"shape": a_shape, "dim": dim, "size": size, "step": step}))


def unfold(self: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """All windows of ``size`` along ``dimension`` taken every ``step`` (a view; new last dim).

    >>> import retrograd as torch
    >>> torch.arange(5.).unfold(0, 2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    nd = self._data.ndim
    d = wrap_dim(dimension, max(nd, 1))
    length = self._data.shape[d] if nd else 1
    if size > length:
        raise RuntimeError(f"maximum size for tensor at dimension {d} is {length} but size is {size}")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    return _as_view(apply(_unfold, (self,), {"dim": d, "size": int(size), "step": int(step)}), self)


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                   pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor of logical shape ``size`` whose memory holds the dimensions in the
    order ``physical_layout`` (outermost first).

    >>> import retrograd as torch
    >>> torch.empty_permuted((2, 3, 4), (0, 2, 1)).stride()
    (12, 1, 3)
    """
    from .._creation import empty

    size, perm = tuple(size), tuple(physical_layout)
    if len(size) != len(perm):
        raise RuntimeError("Number of dimensions in size does not match the length of the physical_layout; i.e. "
                           f"len(size) = {len(size)} is not equal to len(physical_layout) = {len(perm)}")
    if sorted(perm) != list(range(len(perm))):
        raise RuntimeError(f"physical_layout must be a permutation of the dimensions, got {list(perm)}")
    inverse = [0] * len(perm)
    for i, p in enumerate(perm):
        inverse[p] = i
    t = empty(*[size[p] for p in perm], dtype=dtype, device=device).permute(*inverse)
    return t.requires_grad_(True) if requires_grad else t
