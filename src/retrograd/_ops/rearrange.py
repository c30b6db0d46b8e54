"""Flip/fliplr/flipud, roll, rot90, repeat, tile, repeat_interleave."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._layout import copied
from .._tensor import Tensor
from ._common import int_tuple_arg, shape_str, wrap_dim, wrap_dims
from ._registry import apply, primitive

__all__ = ["repeat", "repeat_interleave", "tile", "flip", "fliplr", "flipud", "roll", "rot90"]


# ---------------------------------------------------------------- flips, rolls, rotations
def _flip_fw(a, *, dims):
    out = copied(a, None)  # (laid out as the input, as PyTorch's empty_like(self) for flip's result)
    if dims:
        out[...] = np.flip(a, dims)
    return out


_flip = primitive("flip", _flip_fw, node="FlipBackward0",
                  a=lambda g, dims: apply(_flip, (g,), {"dims": dims}), batch="reduce")


def flip(input: Tensor, *dims_args, dims=None) -> Tensor:
    """Reverse the order of elements along ``dims`` (one tuple; a copy, as in PyTorch).

    >>> import retrograd as torch
    >>> torch.flip(torch.tensor([1., 2.]), (0,))
    tensor([2., 1.])
    """
    int_tuple_arg("flip", "dims", 2, dims_args)
    return flip_method(input, *dims_args, dims=dims)


def flip_method(self: Tensor, *dims_args, dims=None) -> Tensor:
    """``Tensor.flip``: dims as one tuple or one by one."""
    dims = dims_args if dims is None else (dims,)
    if not dims:  # (flip() needs its dims, even an empty tuple)
        raise TypeError('flip() missing 1 required positional arguments: "dims"')
    if len(dims) == 1 and isinstance(dims[0], (list, tuple)):
        dims = dims[0]
    ds = wrap_dims(tuple(dims), self._data.ndim)  # (a 0-d tensor takes dim 0 / -1 only)
    return apply(_flip, (self,), {"dims": ds if self._data.ndim else ()})


def fliplr(input: Tensor) -> Tensor:
    """Flip left-right (dim 1); needs at least 2 dims."""
    if input._data.ndim < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, (1,))


def flipud(input: Tensor) -> Tensor:
    """Flip up-down (dim 0); needs at least 1 dim."""
    if input._data.ndim < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, (0,))


def _roll_fw(a, *, shifts, dims):
    # (PyTorch's result is contiguous whatever the input's layout)
    if dims is None:
        return np.asarray(np.roll(a, shifts[0]), order="C")
    return np.asarray(np.roll(a, shifts, axis=dims), order="C")


_roll = primitive("roll", _roll_fw, node="RollBackward0",
                  a=lambda g, shifts, dims: apply(_roll, (g,), {"shifts": tuple(-s for s in shifts), "dims": dims}))


def roll(input: Tensor, shifts, dims=None) -> Tensor:
    """Rotate elements along ``dims`` by ``shifts`` (flattened first when ``dims`` is None)."""
    sh = (int(shifts),) if isinstance(shifts, (int, np.integer)) else tuple(int(s) for s in shifts)
    if dims is None:
        if len(sh) != 1:
            raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:0")
        return apply(_roll, (input,), {"shifts": sh, "dims": None})
    ds = (dims,) if isinstance(dims, (int, np.integer)) else tuple(dims)
    if len(sh) != len(ds):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(sh)}, dims:{len(ds)}")
    if len(ds) == 1 and input._data.size == 0:  # (PyTorch returns a copy before looking at the dim)
        return apply(_roll, (input,), {"shifts": sh, "dims": None})
    if input._data.ndim == 0:
        raise IndexError(f"Dimension specified as {ds[0]} but tensor has no dimensions")
    ds = tuple(wrap_dim(d, input._data.ndim) for d in ds)
    return apply(_roll, (input,), {"shifts": sh, "dims": ds})


_rot90 = primitive("rot90", lambda a, *, k, dims: np.rot90(a, k, axes=dims).copy(), node="Rot90Backward0",
                   a=lambda g, k, dims: apply(_rot90, (g,), {"k": -k, "dims": dims}))


def rot90(input: Tensor, k: int = 1, dims=(0, 1)) -> Tensor:
    """Rotate by 90 degrees ``k`` times in the plane ``dims`` (from the first towards the second)."""
    dims = tuple(dims)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    n = input._data.ndim
    if n < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {n}")
    d0, d1 = wrap_dim(dims[0], n), wrap_dim(dims[1], n)
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {dims[0]} and dim1 = {dims[1]}")
    return apply(_rot90, (input,), {"k": int(k) % 4, "dims": (d0, d1)})


# ---------------------------------------------------------------- repeat / tile / repeat_interleave
def _repeat_bw(g: Tensor, a_shape, sizes) -> Tensor:
    padded = (1,) * (len(sizes) - len(a_shape)) + tuple(a_shape)
    inter = []
    for r, s in zip(sizes, padded):
        inter += [r, s]
    from .reduction import sum as _sum

    summed = _sum(reshape(g, tuple(inter)), tuple(range(0, 2 * len(sizes), 2)))
    return reshape(summed, a_shape)


_repeat = primitive("repeat", lambda a, *, sizes: np.asarray(np.tile(a, sizes), order="C"), node="RepeatBackward0",
                    a=lambda g, a_shape, sizes: _repeat_bw(g, a_shape, sizes))


def repeat(input: Tensor, *sizes, repeats=None) -> Tensor:
    """Tile ``input`` ``sizes[i]`` times along each dim (``len(sizes) >= input.dim()``)."""
    if repeats is not None:  # x.repeat(repeats=(2, 1))
        sizes = (repeats,)
    if len(sizes) == 1 and isinstance(sizes[0], (list, tuple)):
        sizes = sizes[0]
    sizes = tuple(int(s) for s in sizes)
    if len(sizes) < input._data.ndim:
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of dimensions of tensor")
    if any(s < 0 for s in sizes):  # PyTorch reports the target shape (input shape times repeats)
        padded = (1,) * (len(sizes) - input._data.ndim) + input._data.shape
        target = [r * s for r, s in zip(sizes, padded)]
        neg = next(s for s in target if s < 0) if any(s < 0 for s in target) else min(sizes)
        raise RuntimeError(f"Trying to create tensor with negative dimension {neg}: {shape_str(target)}")
    return apply(_repeat, (input,), {"sizes": sizes})


def tile(input: Tensor, *sizes, dims=None) -> Tensor:
    """``repeat`` that pads ``dims`` (one tuple) with leading ones when shorter than ``input.dim()``.

    >>> import retrograd as torch
    >>> torch.tile(torch.tensor([1, 2]), (2,))
    tensor([1, 2, 1, 2])
    """
    int_tuple_arg("tile", "dims", 2, sizes)
    return tile_method(input, *sizes, dims=dims)


def tile_method(input: Tensor, *sizes, dims=None) -> Tensor:
    """``Tensor.tile``: a sequence or separate ints (``x.tile(2, 3)``)."""
    if dims is not None:
        sizes = (dims,)
    dims = tuple(sizes[0]) if len(sizes) == 1 and not isinstance(sizes[0], (int, np.integer)) else sizes
    dims = (1,) * (input._data.ndim - len(dims)) + dims
    return repeat(input, dims)


def repeat_interleave(input: Tensor, repeats=None, dim: int | None = None, *, output_size: int | None = None):
    """Repeat each element (or slice along ``dim``) ``repeats`` times, keeping the order."""
    from .conversion import clone
    from .index_dim import index_select

    if repeats is None:  # repeat_interleave(repeats): indices repeated by their counts
        r = input._data
        if r.ndim > 1:
            raise RuntimeError("repeat_interleave only accept 1D vector as repeat")
        _check_repeats(r)
        return _wrap(np.repeat(np.arange(r.size, dtype=np.int64), r.reshape(-1)), False, None, 0)
    x = input
    if dim is None:
        x = reshape(input, (-1,))
        d = 0
    else:
        d = wrap_dim(dim, input._data.ndim)
    if isinstance(repeats, Tensor):
        if repeats._data.ndim > 1:
            raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
        _check_repeats(repeats._data)
        r = repeats._data.reshape(-1)
        n = x._data.shape[d] if x._data.ndim else 1
        if r.size == 1:
            r = np.full(n, r[0])
        if r.size != n:
            raise RuntimeError(f"repeats must have the same size as input along dim, but got repeats.size(0) = "
                               f"{r.size} and input.size({d}) = {n}")
        if (r < 0).any():
            raise RuntimeError("repeats can not be negative")
        idx = _wrap(np.repeat(np.arange(n, dtype=np.int64), r), False, None, 0)
        return index_select(x, d, idx)
    k = int(repeats)
    if k < 0:
        raise RuntimeError("Repeats must be non-negative")
    if x._data.ndim == 0:
        x = reshape(x, (1,))
    shp = list(x._data.shape)
    u = unsqueeze(x, d + 1)
    big = expand(u, shp[:d + 1] + [k] + shp[d + 1:])
    shp[d] *= k
    return reshape(clone(big), tuple(shp))


def _check_repeats(r: np.ndarray) -> None:
    if r.dtype.kind not in "iu":
        from .._tensor import _scalar_type_name

        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for \'{_scalar_type_name(D.from_numpy_dtype(r.dtype))}\'')
    if r.size and (r < 0).any():
        raise RuntimeError("repeats can not be negative")


# Run-time references to modules that import this one (bound last, so either import order works)
_wrap = Tensor._wrap
from .shape import expand, reshape, unsqueeze  # noqa: E402
