"""Cat/stack/hstack/vstack/dstack/column_stack, split/chunk/unbind/tensor_split,
hsplit/vsplit/dsplit, split_with_sizes, unsafe_split/chunk, block_diag, cartesian_prod,
combinations."""
from __future__ import annotations

import inspect
import itertools

import numpy as np

from .. import _dtype as D
from .._layout import contiguous_format, relaid, suggest_format
from .._tensor import Tensor
from ..autograd import grad_mode
from ._common import shape_str, wrap_dim
from ._composite import _R
from ._out import with_out
from ._registry import apply, primitive

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack", "column_stack",
           "split", "chunk", "unbind", "tensor_split", "cartesian_prod", "combinations", "block_diag", "dsplit",
           "hsplit", "vsplit", "split_with_sizes", "unsafe_chunk", "unsafe_split", "unsafe_split_with_sizes"]


_wrap = Tensor._wrap
_P = inspect.Parameter


# ---------------------------------------------------------------- variable-arity table entries
_ARITY: dict = {}


def _variadic(kind: str, n: int, forward, rule_for, node: str, statics: tuple, n_out: int = 1,
              n_in: int | None = None, batch: str | None = None):
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
    op = primitive(f"{kind}_{n}", fw, node=node, n_out=n_out, batch=batch,
                   **{x: rule_for(i) for i, x in enumerate(names)})
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
    out = np.concatenate([a for a, s in zip(arrays, spans) if s[1] is not None], axis=dim)
    # PyTorch's layout: the inputs' common suggested memory format (channels_last(_3d)), else contiguous
    fmts = {suggest_format(a) for a in arrays}
    return relaid(out, fmts.pop() if len(fmts) == 1 else contiguous_format)


def cat(tensors, dim: int = 0, *, out=None) -> Tensor:
    """Join tensors along an existing dim (PyTorch's type promotion; empty 1-d tensors are skipped).

    >>> import retrograd as torch
    >>> torch.cat([torch.zeros(1, 2), torch.ones(1, 2)]).shape
    torch.Size([2, 2])
    """
    if out is not None:  # (PyTorch's out= rules, shared with the matrix products)
        from .linalg.products import _check_out, _write_out

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
    d = wrap_dim(dim, nd) if real else 0  # (only legacy empty 1-d inputs: PyTorch ignores the dim)
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
    op = _variadic("cat", len(ts), _cat_fw, _cat_rule, "CatBackward0", ("dim", "spans"), batch="join")
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
        from .linalg.products import _check_out, _write_out

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
    op = _variadic("stack", len(ts), lambda arrays, *, dim: np.ascontiguousarray(np.stack(arrays, axis=dim)), _stack_rule,
                   "StackBackward0", ("dim",), batch="join:stack")
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


# the split families' table names, by (with sizes, one piece, views)
_SPLIT_KINDS = {
    (False, False, True): "split", (False, True, True): "split_one",
    (False, False, False): "split_unsafe", (False, True, False): "split_one_unsafe",
    (True, False, True): "split_sizes", (True, True, True): "split_sizes_one",
    (True, False, False): "split_sizes_unsafe", (True, True, False): "split_sizes_one_unsafe",
}


def _split_views(input: Tensor, d: int, sizes: list, node: str, views: bool = True) -> tuple:
    """split's pieces: views (SplitBackward0 / SplitWithSizesBackward0), or with ``views=False``
    the copies of torch's unsafe_split / unsafe_split_with_sizes (Unsafe*Backward0, no view tracking)."""
    bounds, off = [], 0
    for s in sizes:
        bounds.append((off, off + s))
        off += s
    kind = _SPLIT_KINDS[("WithSizes" in node, len(bounds) == 1, views)]
    op = _variadic(kind, len(bounds), _split_fw if views else _split_copies_fw, _split_rule, node, ("dim", "bounds"),
                   n_out=len(bounds), n_in=1, batch="join")
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
    op = _variadic("unbind", n, _unbind_fw, _unbind_rule, "UnbindBackward0", ("dim", "n"), n_out=n, n_in=1,
                   batch="join")
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


def _cat_cast(result: Tensor, out: Tensor) -> None:
    """The stack family writes through cat: its dtype rule and message."""
    if not D.can_cast(result.dtype, out.dtype):
        from .._tensor import _scalar_type_name

        raise TypeError(f"torch.cat(): input types can't be cast to the desired output type "
                        f"{_scalar_type_name(out.dtype)}")


def cartesian_prod(*tensors: Tensor) -> Tensor:
    """Cartesian product of 1-D tensors (rows of combinations).

    >>> import retrograd as torch
    >>> torch.cartesian_prod(torch.tensor([1, 2]), torch.tensor([3, 4]))
    tensor([[1, 3],
            [1, 4],
            [2, 3],
            [2, 4]])
    """
    R = _R()
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    if len({t.dtype for t in tensors}) > 1:
        raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    grids = R.meshgrid(*tensors, indexing="ij")
    return R.stack([g.flatten() for g in grids], 1)


def combinations(input: Tensor, r: int = 2, with_replacement: bool = False) -> Tensor:
    """Length-``r`` combinations of a 1-D tensor's elements (rows).

    >>> import retrograd as torch
    >>> torch.combinations(torch.tensor([1, 2, 3]))
    tensor([[1, 2],
            [1, 3],
            [2, 3]])
    """
    R = _R()
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return R.empty(0, dtype=input.dtype)
    gen = itertools.combinations_with_replacement if with_replacement else itertools.combinations
    idx = np.array(list(gen(range(input.shape[0]), r)), dtype=np.int64).reshape(-1, r)
    return R.stack([input[R.from_numpy(idx[:, k].copy())] for k in range(r)], 1)


def _block_diag_fw(arrays, *, blocks, size, dtype):
    out = np.zeros(size, dtype=dtype)
    for a, (r0, c0, h, w, _) in zip(arrays, blocks):
        out[r0:r0 + h, c0:c0 + w] = np.reshape(a, (h, w))
    return out


def _block_diag_rule(i: int):
    def rule(g, blocks):
        r0, c0, h, w, shape = blocks[i]
        return g[r0:r0 + h, c0:c0 + w].reshape(shape)
    return rule


def block_diag(*tensors: Tensor) -> Tensor:
    """Block-diagonal matrix from the given tensors (0-D, 1-D or 2-D).

    >>> import retrograd as torch
    >>> torch.block_diag(torch.tensor([[1, 2]]), torch.tensor([[3]]))
    tensor([[1, 2, 0],
            [0, 0, 3]])
    """

    R = _R()
    blocks, r0, c0 = [], 0, 0
    for i, t in enumerate(tensors):
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer dimensions. Input {i} has "
                               f"{t.dim()} dimensions")
        h, w = (1, 1) if t.dim() == 0 else ((1, t.shape[0]) if t.dim() == 1 else tuple(t.shape))
        blocks.append((r0, c0, h, w, tuple(t.shape)))
        r0, c0 = r0 + h, c0 + w
    if not tensors:
        return R.empty(1, 0)
    dt = tensors[0].dtype
    for t in tensors[1:]:
        dt = R.promote_types(dt, t.dtype)
    op = _variadic("block_diag", len(tensors), _block_diag_fw, _block_diag_rule, "BlockDiagBackward0",
                   ("blocks", "size", "dtype"))
    return apply(op, tuple(tensors), {"blocks": tuple(blocks), "size": (r0, c0), "dtype": dt.np}, dt)


# ================================================================ split / scatter / copy helpers
def _split_along(name: str, input: Tensor, indices_or_sections, d: int, need: int) -> tuple:
    R = _R()
    if input.dim() < need:
        raise RuntimeError(f"torch.{name} requires a tensor with at least {need} dimension, but got a tensor "
                           f"with {input.dim()} dimensions!")
    if isinstance(indices_or_sections, int):
        s = indices_or_sections
        if s == 0 or input.shape[d] % s != 0:
            raise RuntimeError(f"torch.{name} attempted to split along dimension {d}, but the size of the "
                               f"dimension {input.shape[d]} is not divisible by the split_size {s}!")
    return R.tensor_split(input, indices_or_sections, d)


def hsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along dim 1 (dim 0 for 1-D tensors).

    >>> import retrograd as torch
    >>> [t.tolist() for t in torch.hsplit(torch.arange(4), 2)]
    [[0, 1], [2, 3]]
    """
    return _split_along("hsplit", input, indices_or_sections, 1 if input.dim() > 1 else 0, 1)


def vsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along dim 0 (tensors of 2 or more dims).

    >>> import retrograd as torch
    >>> [t.shape[0] for t in torch.vsplit(torch.zeros(4, 2), 2)]
    [2, 2]
    """
    return _split_along("vsplit", input, indices_or_sections, 0, 2)


def dsplit(input: Tensor, indices_or_sections) -> tuple:
    """Split along dim 2 (tensors of 3 or more dims).

    >>> import retrograd as torch
    >>> [t.shape[2] for t in torch.dsplit(torch.zeros(1, 1, 4), [1])]
    [1, 3]
    """
    return _split_along("dsplit", input, indices_or_sections, 2, 3)


def split_with_sizes(self: Tensor, split_sizes, dim: int = 0) -> tuple:
    """Split into pieces of the listed sizes along ``dim`` (views)."""

    sizes = [int(s) for s in split_sizes]
    n = self._data.shape[wrap_dim(dim, self._data.ndim)]
    if sum(sizes) != n:
        raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {n} (input tensor's size at "
                           f"dimension {dim}), but got split_sizes=[{', '.join(map(str, sizes))}]")
    return split(self, sizes, dim)


def unsafe_split(tensor: Tensor, split_size: int, dim: int = 0) -> tuple:
    """``split`` into copies, not views (node UnsafeSplitBackward0, as PyTorch's)."""

    if not isinstance(split_size, (int, np.integer)) or isinstance(split_size, bool):
        raise TypeError(f"unsafe_split(): argument 'split_size' (position 2) must be int, not "
                        f"{type(split_size).__name__}")
    return _unsafe_split(tensor, int(split_size), dim)


def unsafe_split_with_sizes(tensor: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``split`` with a list of sizes, into copies (node UnsafeSplitWithSizesBackward0)."""

    return _unsafe_split(tensor, 0, dim, [int(s) for s in split_sizes])


def unsafe_chunk(input: Tensor, chunks: int, dim: int = 0) -> tuple:
    """``chunk`` into copies, not views (node UnsafeSplitBackward0, as PyTorch's)."""

    pieces = chunk(input, chunks, dim)  # (the checks, and the piece sizes)
    d = dim % input._data.ndim
    if len({p._data.shape[d] for p in pieces[:-1]}) > 1 or input._data.shape[d] == 0:
        return pieces
    return _unsafe_split(input, pieces[0]._data.shape[d], dim)


# Run-time references to modules that import this one (bound last, so either import order works)
from .shape import _as_view, atleast_1d, atleast_2d, atleast_3d, narrow, reshape, select, slice_dim  # noqa: E402
