"""More shape ops: joining (cat, stack), splitting (split, chunk, unbind), flips and rolls,
repeats, triangles and diagonals, broadcasting helpers.

Views (split, chunk, unbind, tensor_split, diagonal, unflatten, broadcast_to, meshgrid,
atleast_*d, ravel when possible) share memory and the version counter with their input.
Ops over a variable number of tensors (cat, stack) or with a variable number of outputs
(split, unbind) get one table entry per arity, made on first use.
Duals: cat <-> narrow, stack <-> select, split/unbind <-> cat/stack, diagonal <-> diagonal_backward,
flip/roll/rot90/tril/triu are their own duals.
"""
from __future__ import annotations

import inspect
import warnings

import numpy as np

from .. import _dtype as D
from .._size import Size
from .._tensor import Tensor
from ..autograd import grad_mode
from ._common import broadcast_error, int_tuple_arg, shape_str, wrap_dim, wrap_dims
from ._out import with_out
from ._registry import apply, apply_inplace, primitive
from .shape import _as_view, contiguous, expand, narrow, reshape, select, slice_dim, unsqueeze, view

__all__ = ["unflatten", "repeat", "repeat_interleave", "tile", "flip", "fliplr", "flipud", "roll", "rot90",
           "cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack", "split",
           "chunk", "unbind", "tensor_split", "tril", "triu", "diag", "diagonal", "diag_embed", "diagflat",
           "broadcast_to", "broadcast_tensors", "broadcast_shapes", "meshgrid", "atleast_1d", "atleast_2d",
           "atleast_3d", "ravel", "tril_", "triu_"]
METHODS = ["unflatten", "repeat", "repeat_interleave", "tile", "flip", "fliplr", "flipud", "roll", "rot90",
           "split", "chunk", "unbind", "tensor_split", "tril", "triu", "diag", "diagonal", "diag_embed",
           "diagflat", "broadcast_to", "ravel", "tril_", "triu_"]

_wrap = Tensor._wrap
_P = inspect.Parameter


# ---------------------------------------------------------------- variable-arity table entries
_ARITY: dict = {}


def _variadic(kind: str, n: int, forward, rule_for, node: str, statics: tuple, n_out: int = 1,
              n_in: int | None = None):
    """The table entry ``<kind>_<n>``: ``forward(arrays, **statics)``; input i's rule is ``rule_for(i)``."""
    key = (kind, n)
    op = _ARITY.get(key)
    if op is not None:
        return op
    n_in = n if n_in is None else n_in
    names = [f"t{i}" for i in range(n_in)]

    def fw(*arrays, **static):
        r = forward(arrays, **static)
        return r[0] if n_out == 1 and isinstance(r, tuple) else r

    fw.__signature__ = inspect.Signature([_P(x, _P.POSITIONAL_ONLY) for x in names]
                                         + [_P(s, _P.KEYWORD_ONLY) for s in statics])
    op = primitive(f"{kind}_{n}", fw, node=node, n_out=n_out, **{x: rule_for(i) for i, x in enumerate(names)})
    _ARITY[key] = op
    return op


def _mark_multi(outs: tuple, input: Tensor) -> tuple:
    """Views from ops with several view outputs: PyTorch forbids writing them in place."""
    for o in outs:
        _as_view(o, input)
        if o._requires_grad or grad_mode.state.enabled:  # (PyTorch marks them so in grad mode, even without grad)
            o.__dict__["_view_meta"] = "multi"
        elif input._requires_grad and not grad_mode.state.enabled:
            o.__dict__["_view_meta"] = "no_grad"
    return outs


def _promoted(tensors) -> D.dtype | None:
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = D.promote_types(dt, t.dtype)
    return None if all(t.dtype is dt for t in tensors) else dt


def _tensor_list(tensors, name: str) -> list:
    if isinstance(tensors, Tensor):
        raise TypeError(f"{name}(): argument 'tensors' (position 1) must be tuple of Tensors, not Tensor")
    return list(tensors)


# ---------------------------------------------------------------- cat / stack
def _cat_rule(i: int):
    def rule(g, dim, spans):
        start, length = spans[i]
        if length is None:  # a legacy empty 1-d input skipped by cat
            return _wrap(np.zeros((0,), dtype=g._data.dtype), False, None, 0)
        return narrow(g, dim, start, length)
    return rule


def _cat_fw(arrays, *, dim, spans):
    return np.concatenate([a for a, s in zip(arrays, spans) if s[1] is not None], axis=dim)


def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join tensors along an existing dim (PyTorch's type promotion; empty 1-d tensors are skipped).

    >>> import retrograd as torch
    >>> torch.cat([torch.zeros(1, 2), torch.ones(1, 2)]).shape
    torch.Size([2, 2])
    """
    if out is not None:  # (PyTorch's out= rules, shared with the matrix products)
        from .linalg import _check_out, _write_out

        _check_out("cat", out, *tensors)
        return _write_out("cat", cat(tensors, dim), out, cast=True)
    ts = _tensor_list(tensors, "cat")
    if not ts:
        raise ValueError("torch.cat(): expected a non-empty list of Tensors")
    for i, t in enumerate(ts):
        if t._data.ndim == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    real = [t for t in ts if not (t._data.ndim == 1 and t._data.shape[0] == 0)]
    ref = real[0] if real else ts[0]
    nd = ref._data.ndim
    d = wrap_dim(dim, nd)
    spans, off = [], 0
    for i, t in enumerate(ts):
        if t is not ref and t._data.ndim == 1 and t._data.shape[0] == 0:
            spans.append((0, None))
            continue
        sh = t._data.shape
        if len(sh) != nd:
            raise RuntimeError(f"Tensors must have same number of dimensions: got {nd} and {len(sh)}")
        for k in range(nd):
            if k != d and sh[k] != ref._data.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. Expected size "
                                   f"{ref._data.shape[k]} but got size {sh[k]} for tensor number {i} in the list.")
        spans.append((off, sh[d]))
        off += sh[d]
    op = _variadic("cat", len(ts), _cat_fw, _cat_rule, "CatBackward0", ("dim", "spans"))
    return apply(op, tuple(ts), {"dim": d, "spans": tuple(spans)}, _promoted(ts))


def concat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Alias of :func:`cat`."""
    return cat(tensors, dim, out=out)


def concatenate(tensors, axis: int = 0, out=None, *, dim: int | None = None) -> Tensor:
    """Alias of :func:`cat`; the dim is ``axis`` (NumPy's name) or ``dim``.

    >>> import retrograd as torch
    >>> torch.concatenate([torch.ones(1), torch.zeros(1)], dim=0)
    tensor([1., 0.])
    """
    return cat(tensors, axis if dim is None else dim, out=out)


def _stack_rule(i: int):
    return lambda g, dim: select(g, dim, i)


def stack(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join equally shaped tensors along a new dim.

    >>> import retrograd as torch
    >>> torch.stack([torch.zeros(2), torch.ones(2)], 1).shape
    torch.Size([2, 2])
    """
    if out is not None:
        from .linalg import _check_out, _write_out

        _check_out("stack", out, *tensors)
        return _write_out("stack", stack(tensors, dim), out, cast=True)
    ts = _tensor_list(tensors, "stack")
    if not ts:
        raise RuntimeError("stack expects a non-empty TensorList")
    sh = ts[0]._data.shape
    for i, t in enumerate(ts[1:], 1):
        if t._data.shape != sh:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {shape_str(sh)} at entry 0 and "
                               f"{shape_str(t._data.shape)} at entry {i}")
    d = wrap_dim(dim, len(sh) + 1)
    op = _variadic("stack", len(ts), lambda arrays, *, dim: np.stack(arrays, axis=dim), _stack_rule,
                   "StackBackward0", ("dim",))
    return apply(op, tuple(ts), {"dim": d}, _promoted(ts))


@with_out("hstack", lambda r, o: _cat_cast(r, o), grad_name="cat")
def hstack(tensors, *, out=None) -> Tensor:
    """Concatenate column-wise (dim 0 for 1-d inputs, else dim 1)."""
    ts = _nonempty(tensors, "hstack")
    ts = atleast_1d(*ts)
    ts = [ts] if isinstance(ts, Tensor) else list(ts)
    return cat(ts, 0 if ts[0]._data.ndim == 1 else 1)


@with_out("vstack", lambda r, o: _cat_cast(r, o), grad_name="cat")
def vstack(tensors, *, out=None) -> Tensor:
    """Concatenate row-wise after making inputs at least 2-d."""
    ts = atleast_2d(*_nonempty(tensors, "vstack"))
    return cat([ts] if isinstance(ts, Tensor) else list(ts), 0)


@with_out("row_stack", lambda r, o: _cat_cast(r, o), grad_name="cat")
def row_stack(tensors, *, out=None) -> Tensor:
    """Alias of :func:`vstack`.

    >>> import retrograd as torch
    >>> torch.row_stack([torch.ones(2), torch.zeros(2)])
    tensor([[1., 1.],
            [0., 0.]])
    """
    return vstack(tensors, out=out)


def _nonempty(tensors, name: str) -> list:
    ts = _tensor_list(tensors, name)
    if not ts:
        raise RuntimeError(f"{name} expects a non-empty TensorList")
    return ts


@with_out("dstack", lambda r, o: _cat_cast(r, o), grad_name="cat")
def dstack(tensors, *, out=None) -> Tensor:
    """Concatenate depth-wise (dim 2) after making inputs at least 3-d."""
    ts = atleast_3d(*_nonempty(tensors, "dstack"))
    return cat([ts] if isinstance(ts, Tensor) else list(ts), 2)


@with_out("column_stack", lambda r, o: _cat_cast(r, o), grad_name="cat")
def column_stack(tensors, *, out=None) -> Tensor:
    """Stack 0-d/1-d tensors as columns (2-d inputs are concatenated as they are)."""
    ts = [reshape(t, (t._data.size, 1)) if t._data.ndim <= 1 else t for t in _nonempty(tensors, "column_stack")]
    return hstack(ts)


# ---------------------------------------------------------------- split / chunk / unbind / tensor_split
def _split_fw(arrays, *, dim, bounds):
    a = arrays[0]
    pre = (slice(None),) * dim
    return tuple(a[pre + (slice(s, e),)] for s, e in bounds)


def _split_rule(i: int):
    return lambda g, dim: cat(g if isinstance(g, list) else [g], dim)


def _split_copies_fw(arrays, *, dim, bounds):
    return tuple(a.copy() for a in _split_fw(arrays, dim=dim, bounds=bounds))


def _split_views(input: Tensor, d: int, sizes: list, node: str, views: bool = True) -> tuple:
    """split's pieces: views (SplitBackward0 / SplitWithSizesBackward0), or with ``views=False``
    the copies of torch's unsafe_split / unsafe_split_with_sizes (Unsafe*Backward0, no view tracking)."""
    bounds, off = [], 0
    for s in sizes:
        bounds.append((off, off + s))
        off += s
    sized = "WithSizes" in node
    kind = ("split_sizes" if sized else "split") + ("_one" if len(bounds) == 1 else "") + ("" if views else "_unsafe")
    op = _variadic(kind, len(bounds), _split_fw if views else _split_copies_fw, _split_rule, node, ("dim", "bounds"),
                   n_out=len(bounds), n_in=1)
    outs = apply(op, (input,), {"dim": d, "bounds": tuple(bounds)})
    outs = outs if isinstance(outs, tuple) else (outs,)
    return _mark_multi(outs, input) if views else outs


def _unsafe_split(tensor: Tensor, split_size: int, dim: int, sizes: list | None = None) -> tuple:
    """torch.unsafe_split / unsafe_chunk (``sizes``: unsafe_split_with_sizes): split's checks, copies."""
    if sizes is not None:
        d = wrap_dim(dim, tensor._data.ndim)
        if sum(sizes) != tensor._data.shape[d] or any(s < 0 for s in sizes):
            return split(tensor, sizes, dim)  # (split's own errors)
        return _split_views(tensor, d, list(sizes), "UnsafeSplitWithSizesBackward0", views=False)
    pieces = split(tensor, split_size, dim)  # (the checks, and the piece sizes)
    d = wrap_dim(dim, tensor._data.ndim)
    return _split_views(tensor, d, [p._data.shape[d] for p in pieces], "UnsafeSplitBackward0", views=False)


def split(tensor: Tensor, split_size_or_sections, dim: int = 0) -> tuple:
    """Split into chunks of ``split_size`` (last may be smaller) or of the listed sizes (views).

    >>> import retrograd as torch
    >>> [t.shape[0] for t in torch.arange(5).split(2)]
    [2, 2, 1]
    """
    if isinstance(split_size_or_sections, (list, tuple)):
        d = wrap_dim(dim, tensor._data.ndim)
        n = tensor._data.shape[d] if tensor._data.ndim else 1
        sizes = [int(s) for s in split_size_or_sections]
        if any(s < 0 for s in sizes):
            raise RuntimeError("split_with_sizes expects split_sizes have only non-negative entries, but got "
                               f"split_sizes={shape_str(sizes)}")
        if sum(sizes) != n:
            raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                               f"dimension {d}), but got split_sizes={shape_str(sizes)}")
        return _split_views(tensor, d, sizes, "SplitWithSizesBackward0")
    if not tensor._data.ndim:
        raise RuntimeError("split expects at least a 1-dimensional tensor")
    d = wrap_dim(dim, tensor._data.ndim)
    n = tensor._data.shape[d]
    size = int(split_size_or_sections)
    if size < 0:
        raise RuntimeError(f"split expects split_size be non-negative, but got split_size={size}")
    if size == 0:
        if n != 0:
            raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got dimension size of {n}")
        return _split_views(tensor, d, [0], "SplitBackward0")
    sizes = [size] * (n // size) + ([n % size] if n % size else [])
    return _split_views(tensor, d, sizes or [0], "SplitBackward0")


def chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """At most ``chunks`` views of (nearly) equal size along ``dim``."""
    if not input._data.ndim:
        raise RuntimeError("chunk expects at least a 1-dimensional tensor")
    if chunks <= 0:
        raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {chunks}")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if n == 0:
        return split(input, [0] * chunks, d)
    return split(input, -(-n // chunks), d)


def _unbind_fw(arrays, *, dim, n):
    a = arrays[0]
    pre = (slice(None),) * dim
    return tuple(a[pre + (i, Ellipsis)] for i in range(n))  # (the Ellipsis keeps 0-d results views)


def _unbind_rule(i: int):
    return lambda g, dim: stack(g if isinstance(g, list) else [g], dim)


def unbind(input: Tensor, dim: int = 0) -> tuple:
    """The slices along ``dim`` as a tuple of views."""
    if input._data.ndim == 0:
        raise IndexError("Dimension specified as 0 but tensor has no dimensions")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if n == 0:
        return ()
    op = _variadic("unbind", n, _unbind_fw, _unbind_rule, "UnbindBackward0", ("dim", "n"), n_out=n, n_in=1)
    outs = apply(op, (input,), {"dim": d, "n": n})
    return _mark_multi(outs if isinstance(outs, tuple) else (outs,), input)


def tensor_split(input: Tensor, indices_or_sections, dim: int = 0) -> tuple:
    """Split into ``sections`` nearly equal parts or at the given indices (views)."""
    if not input._data.ndim:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a tensor with 0 dims")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    ios = indices_or_sections
    if isinstance(ios, Tensor):
        if ios._data.dtype != np.int64:
            from .._tensor import _scalar_type_name

            raise RuntimeError("tensor_split expected tensor_indices_or_sections to have dtype of long, but got "
                               f"{_scalar_type_name(ios.dtype)}")
        if ios._data.ndim > 1:
            raise RuntimeError("tensor_split expected tensor_indices_or_sections to be a zero-dimensional or "
                               f"one-dimensional tensor, but got a tensor with {ios._data.ndim} dims")
        ios = int(ios._data) if ios._data.ndim == 0 else [int(v) for v in ios._data]
    if isinstance(ios, (list, tuple)):
        cuts = [0] + [int(i) for i in ios] + [n]
        bounds = []
        for s, e in zip(cuts[:-1], cuts[1:]):
            s = min(max(s + n if s < 0 else s, 0), n)
            e = min(max(e + n if e < 0 else e, 0), n)
            bounds.append((s, max(s, e)))
    else:
        k = int(ios)
        if k <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {k}")
        q, r = divmod(n, k)
        bounds, off = [], 0
        for i in range(k):
            sz = q + (1 if i < r else 0)
            bounds.append((off, off + sz))
            off += sz
    return tuple(slice_dim(input, d, s, e) for s, e in bounds)


# ---------------------------------------------------------------- flips, rolls, rotations
_flip = primitive("flip", lambda a, *, dims: np.flip(a, dims).copy() if dims else a.copy(), node="FlipBackward0",
                  a=lambda g, dims: apply(_flip, (g,), {"dims": dims}))


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
    if dims is None:
        return np.roll(a, shifts[0])
    return np.roll(a, shifts, axis=dims)


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
    from .reduce import sum as _sum

    summed = _sum(reshape(g, tuple(inter)), tuple(range(0, 2 * len(sizes), 2)))
    return reshape(summed, a_shape)


_repeat = primitive("repeat", lambda a, *, sizes: np.tile(a, sizes), node="RepeatBackward0",
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
    from .convert import clone
    from .indexing_more import index_select

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


def _cat_cast(result: Tensor, out: Tensor) -> None:
    """The stack family writes through cat: its dtype rule and message."""
    if not D.can_cast(result.dtype, out.dtype):
        from .._tensor import _scalar_type_name

        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{_scalar_type_name(out.dtype)}")


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


tril, tril_ = _tri("tril", lambda a, k: np.tril(a, k))
triu, triu_ = _tri("triu", lambda a, k: np.triu(a, k))


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
                          _diagonal_backward, (g,), {"shape": a_shape, "offset": offset, "dim1": dim1, "dim2": dim2}))
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


# ---------------------------------------------------------------- broadcasting helpers
def broadcast_to(input: Tensor, *size) -> Tensor:
    """A broadcast view of ``input`` with shape ``size`` (-1 keeps a dim)."""
    return expand(input, *size)


def broadcast_shapes(*shapes) -> Size:
    """The shape tensors of these shapes broadcast to (PyTorch's rules and message)."""
    norm = []
    for s in shapes:
        if isinstance(s, (int, np.integer)):
            norm.append((int(s),))
        elif isinstance(s, (tuple, list, Size)):
            norm.append(tuple(int(x) for x in s))
        else:
            raise RuntimeError(f"Input shapes should be of type ints, a tuple of ints, or a list of ints, got {s}")
    n = max((len(s) for s in norm), default=0)
    result = [1] * n
    for j, s in enumerate(norm):
        for i in range(-1, -1 - len(s), -1):
            if s[i] == result[i]:
                continue
            if result[i] == 1 and s[i] < 0:  # (torch's order: a negative size met where the result is still 1)
                raise ValueError("Attempting to broadcast a dimension with negative length!")
            if s[i] == 1:
                continue
            if result[i] != 1:
                raise RuntimeError(
                    f"Attempting to broadcast a dimension of length {s[i]} at {i}! Mismatching argument at index {j} "
                    f"had {tuple(s)}; but expected shape should be broadcastable to {shape_str(result)}")
            result[i] = s[i]
    return Size(result)


def broadcast_tensors(*tensors) -> tuple:
    """Each tensor expanded (as a view) to the common broadcast shape."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    shape: tuple = ()
    for t in tensors:
        try:
            shape = np.broadcast_shapes(shape, t._data.shape)
        except ValueError:
            raise broadcast_error(shape, t._data.shape) from None
    return tuple(t if t._data.shape == shape else expand(t, shape) for t in tensors)


def meshgrid(*tensors, indexing: str | None = None) -> tuple:
    """Coordinate grids from 1-d tensors (``indexing='ij'`` or ``'xy'``); views via expand."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing is None:
        warnings.warn("torch.meshgrid: in an upcoming release, it will be required to pass the indexing argument.",
                      UserWarning, stacklevel=2)
        indexing = "ij"
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f"torch.meshgrid: indexing must be one of \"xy\" or \"ij\", but received: {indexing}")
    if not tensors:
        raise RuntimeError("torch.meshgrid expects a non-empty TensorList")
    for t in tensors:
        if t._data.ndim > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but got: {t!r}")
    order = list(range(len(tensors)))
    if indexing == "xy" and len(tensors) >= 2:
        order[0], order[1] = 1, 0
    sizes = [t._data.size for t in tensors]
    out_shape = [sizes[order[k]] for k in range(len(tensors))]
    pos = {order[k]: k for k in range(len(tensors))}
    res = []
    for i, t in enumerate(tensors):
        shp = [1] * len(tensors)
        shp[pos[i]] = -1
        res.append(expand(view(t, tuple(shp)), tuple(out_shape)))
    return tuple(res)


# ---------------------------------------------------------------- at least N-d, ravel, unflatten
def _atleast(tensors, fn):
    if len(tensors) == 1 and isinstance(tensors[0], Tensor):
        return fn(tensors[0])
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tensors[0]
    return tuple(fn(t) for t in tensors)


def _one_1d(t: Tensor) -> Tensor:
    return reshape(t, (1,)) if t._data.ndim == 0 else t


def _one_2d(t: Tensor) -> Tensor:
    n = t._data.ndim
    return reshape(t, (1, 1)) if n == 0 else unsqueeze(t, 0) if n == 1 else t


def _one_3d(t: Tensor) -> Tensor:
    n = t._data.ndim
    if n == 0:
        return reshape(t, (1, 1, 1))
    if n == 1:
        return unsqueeze(unsqueeze(t, 0), -1)
    return unsqueeze(t, -1) if n == 2 else t


def atleast_1d(*tensors):
    """0-d tensors as 1-d views; others unchanged (a tuple for several inputs)."""
    return _atleast(tensors, _one_1d)


def atleast_2d(*tensors):
    """Inputs with fewer than 2 dims as 2-d views."""
    return _atleast(tensors, _one_2d)


def atleast_3d(*tensors):
    """Inputs with fewer than 3 dims as 3-d views (1-d ``(n)`` becomes ``(1, n, 1)``)."""
    return _atleast(tensors, _one_3d)


def ravel(input: Tensor) -> Tensor:
    """Flattened to 1-d: a view of ``input``, or of a contiguous copy of it."""
    return view(contiguous(input), (-1,))


def unflatten(input: Tensor, dim: int, sizes) -> Tensor:
    """Split dim ``dim`` into ``sizes`` (one entry may be -1), as a view."""
    if isinstance(dim, str):  # a dim name: retrograd has no named tensors
        raise TypeError("unflatten(): argument 'dim' (position 1) must be int, not str")
    sizes = tuple(int(s) for s in sizes)
    if not sizes:
        raise RuntimeError("unflatten: sizes must be non-empty")
    if input._data.ndim == 0:  # PyTorch wraps the dim check's complaint
        raise RuntimeError(f"unflatten got an unexpected error:\nDimension specified as {dim} but tensor has no "
                           "dimensions")
    d = wrap_dim(dim, input._data.ndim)
    n = input._data.shape[d]
    if sizes.count(-1) > 1:  # PyTorch wraps infer_size's complaint
        raise RuntimeError("unflatten got an unexpected error:\nonly one dimension can be inferred")
    known = int(np.prod([s for s in sizes if s != -1]))
    if -1 in sizes and n == 0 and known == 0:
        raise RuntimeError(f"unflatten got an unexpected error:\ncannot reshape tensor of 0 elements into shape "
                           f"{shape_str(sizes)} because the unspecified dimension size -1 can be any value and is "
                           "ambiguous")
    if (-1 in sizes and (known == 0 or n % known)) or (-1 not in sizes and known != n):
        raise RuntimeError(f"unflatten: Provided sizes {shape_str(sizes)} don't multiply up to the size of dim {d} "
                           f"({n}) in the input tensor")
    shp = input._data.shape
    return reshape(input, shp[:d] + sizes + shp[d + 1:])

