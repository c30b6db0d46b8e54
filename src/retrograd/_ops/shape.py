"""Reshape/view/transpose/permute/squeeze/unsqueeze/expand/select/narrow/movedim, broadcast_*,
meshgrid, atleast_*, ravel, unflatten, in-place t_/transpose_/squeeze_/unsqueeze_."""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._layout import check_memory_format, contiguous_format, preserve_format, relaid
from .._size import Size
from .._tensor import Tensor, bump_version, check_inplace
from .._views import register_view as _register_view
from ._common import _tensor_arg, broadcast_error, parse_shape, shape_str, tensor_args, wrap_dim, wrap_dims
from ._registry import apply, primitive

__all__ = ["reshape", "view", "transpose", "swapaxes", "swapdims", "t", "permute", "expand", "expand_as",
           "unsqueeze", "squeeze", "sum_to", "select", "narrow", "flatten", "contiguous", "view_as", "reshape_as",
           "movedim", "moveaxis", "slice_dim", "adjoint", "unflatten", "broadcast_to", "broadcast_tensors",
           "broadcast_shapes", "meshgrid", "atleast_1d", "atleast_2d", "atleast_3d", "ravel", "t_", "transpose_",
           "swapaxes_", "swapdims_", "squeeze_", "unsqueeze_", "slice_inverse"]


def _as_view(out: Tensor, base: Tensor) -> Tensor:
    """Mark ``out`` as a view of ``base`` when NumPy gave a view (shares memory).

    ``register_view`` shares the version counter, marks views made under no_grad or
    inference mode, and lets in-place writes find the base's live views.
    """
    d = out._data
    if d.base is not None:
        if not d.size or np.may_share_memory(d, base._data):  # PyTorch: empty views are views too
            _register_view(out, base)
    elif d is base._data:  # NumPy handed back the input array itself (a no-op view)
        _register_view(out, base)
    return out


def _sum_to_fw(a, *, shape):
    lead = a.ndim - len(shape)
    axes = tuple(range(lead)) + tuple(i + lead for i, s in enumerate(shape) if s == 1 and a.shape[i + lead] != 1)
    r = a.sum(axis=axes, keepdims=True) if axes else a
    return np.asarray(r).reshape(shape) if lead or r.shape != tuple(shape) else np.asarray(r)


_sum_to = primitive("sum_to", _sum_to_fw, node="SumBackward1",
                    fast={"a": lambda g, a_shape: g if g.shape == a_shape else _broadcast_fw(g, shape=a_shape)},
                    a=lambda g, a_shape: expand_grad(g, a_shape), batch="sum_to")
# The gradient of a reduction is a broadcast of the incoming gradient.  As this private op
# (not the public view op ``expand``) it is a plain read-only broadcast of the gradient's
# data: no view bookkeeping (shared version counter, the base's list of live views) on the
# backward's hot path.  A leaf's .grad copies it (AccumulateGrad copies read-only data).
def _broadcast_fw(a, *, shape):
    return np.broadcast_to(a, shape)


def _expand_rule(g, a_shape):
    return sum_to(g, a_shape)


def _expand_fast(g, a_shape):
    return g if g.shape == a_shape else _sum_to_fw(g, shape=a_shape)


_expand_grad = primitive("expand_grad", _broadcast_fw, node="ExpandBackward0", a=_expand_rule,
                         fast={"a": _expand_fast}, batch="view")


def expand_grad(g: Tensor, shape) -> Tensor:
    """``g`` broadcast to ``shape`` for a backward rule (not a view in autograd's sense)."""
    shape = tuple(shape)
    if g._data.shape == shape:
        return g
    return apply(_expand_grad, (g,), {"shape": shape})
def _expand_fw(a, *, shape):
    # torch's strides (inferExpandGeometry), not NumPy's broadcast ones: a dim that keeps its size
    # keeps its stride, an expanded dim gets 0, a new leading dim of size 1 gets size * stride of
    # the dim after it (x.expand(1, 1, 5) has x.unsqueeze(0).unsqueeze(0)'s strides)
    nd = len(shape)
    lead = nd - a.ndim
    st = [0] * nd
    for i in range(nd - 1, -1, -1):
        if i >= lead:
            if a.shape[i - lead] == shape[i]:
                st[i] = a.strides[i - lead]
        elif shape[i] == 1 and i + 1 < nd:
            st[i] = shape[i + 1] * st[i + 1]
    if a.flags.writeable and (0 in shape or not any(s == 0 and n > 1 for s, n in zip(st, shape))):
        # no two elements share memory: torch allows writing through this view (x.expand(x.shape).add_(1))
        return np.lib.stride_tricks.as_strided(a, shape, st)
    out = np.broadcast_to(a, shape)  # (the usual case: NumPy's strides are already torch's)
    return out if out.strides == tuple(st) else np.lib.stride_tricks.as_strided(a, shape, st, writeable=False)


_expand = primitive("expand", _expand_fw, node="ExpandBackward0", a=_expand_rule, fast={"a": _expand_fast},
                   batch="view")


def sum_to(input: Tensor, shape) -> Tensor:
    """Sum ``input`` down to ``shape`` (the reverse of broadcasting)."""
    shape = tuple(shape)
    if input._data.shape == shape:
        return input
    return apply(_sum_to, (input,), {"shape": shape})


def expand(input: Tensor, *sizes, size=None) -> Tensor:
    """A broadcast view of ``input`` with ``sizes`` (-1 keeps a dim)."""
    if not sizes and size is None:
        raise TypeError('expand() missing 1 required positional arguments: "size"')
    sizes = parse_shape(sizes if size is None else (size,))
    src = input._data.shape
    if len(sizes) < len(src):
        from .._tensor import _legacy_type_name

        raise RuntimeError(
            f"expand({_legacy_type_name(input._data.dtype)}{{[{', '.join(map(str, src))}]}}, "
            f"size=[{', '.join(map(str, sizes))}]): the number of sizes provided ({len(sizes)}) must be greater or "
            f"equal to the number of dimensions in the tensor ({len(src)})")
    lead = len(sizes) - len(src)
    target = []
    for i in range(len(sizes) - 1, -1, -1):  # (PyTorch checks from the last dim: it names the trailing mismatch)
        s = sizes[i]
        if i < lead:
            if s < 0:
                raise RuntimeError(f"The expanded size of the tensor ({s}) isn't allowed in a leading, non-existing dimension {i}")
            target.append(s)
            continue
        cur = src[i - lead]
        if s == -1:
            target.append(cur)
        elif cur == 1 or cur == s:
            target.append(s)
        else:
            raise RuntimeError(
                f"The expanded size of the tensor ({s}) must match the existing size ({cur}) at non-singleton "
                f"dimension {i}.  Target sizes: {shape_str(sizes)}.  Tensor sizes: {shape_str(src)}")
    target = tuple(target[::-1])
    return _as_view(apply(_expand, (input,), {"shape": target}), input)


@tensor_args("expand_as", True, other=1)
def expand_as(input: Tensor, other: Tensor) -> Tensor:
    return expand(input, other.shape)


def _infer_shape(shape, numel: int) -> tuple:
    """PyTorch's infer_size: checks in its order, with its messages."""
    shape = list(shape)
    infer = None
    known = 1
    for i, s in enumerate(shape):
        if s == -1:
            if infer is not None:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif s >= 0:
            known *= s
        else:
            raise RuntimeError(f"invalid shape dimension {s} at index {i} of shape {shape_str(shape)}")
    if infer is None:
        if known != numel:
            raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
        return tuple(shape)
    if known == 0 and numel == 0:
        raise RuntimeError(f"cannot reshape tensor of 0 elements into shape {shape_str(shape)} because the "
                           "unspecified dimension size -1 can be any value and is ambiguous")
    if known == 0 or numel % known:
        raise RuntimeError(f"shape '{shape_str(shape)}' is invalid for input of size {numel}")
    shape[infer] = numel // known
    return tuple(shape)


_view = primitive("view", lambda a, *, shape: a.reshape(shape), node="ViewBackward0",
                  a=lambda g, a_shape: reshape(g, a_shape), batch="view")
_unsafe_view = primitive("reshape_copy", lambda a, *, shape: a.reshape(shape), node="UnsafeViewBackward0",
                         a=lambda g, a_shape: reshape(g, a_shape), batch="view")


def view(input: Tensor, *shape, size=None) -> Tensor:
    """Same data, new shape; fails (like PyTorch) when the memory layout does not allow it."""
    if size is not None:  # x.view(size=(2, 3))
        shape = (size,)
    if len(shape) == 1 and not isinstance(shape[0], (int, np.integer, tuple, list)):
        if isinstance(shape[0], D.dtype):
            return _view_dtype(input, shape[0])
    shape = _infer_shape(parse_shape(shape), input._data.size)
    if not _viewable(input._data, shape):
        raise RuntimeError(
            "view size is not compatible with input tensor's size and stride (at least one dimension "
            "spans across two contiguous subspaces). Use .reshape(...) instead.")
    return _as_view(apply(_view, (input,), {"shape": shape}), input)


def _viewable(a: np.ndarray, shape) -> bool:
    if a.flags.c_contiguous or a.size <= 1:
        return True
    try:
        v = a.view()
        v.shape = shape  # NumPy refuses exactly when a copy would be needed
        return True
    except AttributeError:
        return False


def _view_dtype(input: Tensor, dtype) -> Tensor:
    """``x.view(dtype)``: the same bytes read as another dtype (torch's checks and messages).

    Element sizes are torch's (bfloat16 counts 2 bytes), so the errors match torch's even where
    retrograd's storage differs; the result, as in torch, does not require grad.
    """
    from .._tensor import _scalar_type_name

    src = input.dtype
    old, new = src.itemsize, dtype.itemsize
    if old != new:
        why = f"to view {_scalar_type_name(src)} as {_scalar_type_name(dtype)} (different element sizes)"
        if input._data.ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 {why}")
        if input.stride(-1) != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 {why}, but got {input.stride(-1)}")
        if new > old:
            ratio = new // old
            if input._data.shape[-1] % ratio:
                raise RuntimeError(f"self.size(-1) must be divisible by {ratio} {why}, but got "
                                   f"{input._data.shape[-1]}")
            if input.storage_offset() % ratio:
                raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} {why}, but got "
                                   f"{input.storage_offset()}")
            for i, st in enumerate(input.stride()[:-1]):
                if st % ratio:
                    raise RuntimeError(f"self.stride({i}) must be divisible by {ratio} {why}, but got {st}")
    if (src is D.bfloat16) != (dtype is D.bfloat16):
        # retrograd keeps bfloat16 values in float32 storage: there are no bfloat16 bytes to reinterpret
        raise NotImplementedError("retrograd cannot view a tensor as another dtype to or from bfloat16 "
                                  "(bfloat16 values are stored as float32)")
    data = input._data.view(dtype.np)
    if not data.size and data.ndim:  # (NumPy's strides of an empty array are arbitrary: give torch's)
        ratio_st = [st * old // new for st in input.stride()]
        if old != new:
            ratio_st[-1] = 1
        data = np.lib.stride_tricks.as_strided(data, data.shape, tuple(st * data.itemsize for st in ratio_st))
    return Tensor._wrap(data, False, None, 0, input._vcounter())


def reshape(input: Tensor, *sizes, shape=None) -> Tensor:
    """A view when possible, else a copy (backward node ViewBackward0 / UnsafeViewBackward0)."""
    shape = _infer_shape(parse_shape(sizes if shape is None else (shape,)), input._data.size)
    if _viewable(input._data, shape):
        # (ndarray.reshape of a viewable layout always returns a view: no sharing test needed)
        out = apply(_view, (input,), {"shape": shape})
        _register_view(out, input)
        return out
    return apply(_unsafe_view, (input,), {"shape": shape})


def reshape_to(input: Tensor, shape: tuple) -> Tensor:
    """``reshape(input, shape)`` for internal callers that pass a tuple of Python ints.

    The same nodes, views and errors as ``reshape``; a shape whose product is the input's
    size (the callers' usual case) skips parsing and -1 inference, which on the small
    tensors of an attention block cost as much as the NumPy reshape itself.

    >>> import retrograd as torch
    >>> from retrograd._ops.shape import reshape_to
    >>> reshape_to(torch.ones(2, 3, requires_grad=True), (3, 2)).grad_fn.name()
    'ViewBackward0'
    """
    d = input._data
    n = 1
    for s in shape:
        if s < 0:
            return reshape(input, shape)
        n *= s
    if n != d.size:
        return reshape(input, shape)  # (its checks raise PyTorch's error)
    if _viewable(d, shape):
        out = apply(_view, (input,), {"shape": shape})
        _register_view(out, input)
        return out
    return apply(_unsafe_view, (input,), {"shape": shape})


@tensor_args("view_as", True, other=1)
def view_as(input: Tensor, other: Tensor) -> Tensor:
    return view(input, other.shape)


@tensor_args("reshape_as", True, other=1)
def reshape_as(input: Tensor, other: Tensor) -> Tensor:
    return reshape(input, other.shape)


def flatten(input: Tensor, start_dim: int = 0, end_dim: int = -1) -> Tensor:
    """Merge dims start_dim..end_dim into one."""
    shp = input._data.shape
    if not shp:
        return reshape(input, (1,))
    s = wrap_dim(start_dim, len(shp))
    e = wrap_dim(end_dim, len(shp))
    if s > e:
        raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
    if s == e:
        return input
    n = 1
    for d in shp[s:e + 1]:
        n *= d
    return reshape(input, shp[:s] + (n,) + shp[e + 1:])


_transpose = primitive("transpose", lambda a, *, dim0, dim1: np.swapaxes(a, dim0, dim1) if a.ndim else a.view(),
                       node="TransposeBackward0",
                       a=lambda g, dim0, dim1: transpose(g, dim0, dim1), batch="transpose")
_t = primitive("t", lambda a: a.T, node="TBackward0", a=lambda g: t(g), batch="transpose")
_permute = primitive("permute", lambda a, *, dims: np.transpose(a, dims), node="PermuteBackward0",
                     a=lambda g, dims: permute(g, tuple(np.argsort(dims).tolist())), batch="permute")


def transpose(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """Swap two dims (a view)."""
    n = input._data.ndim
    d0, d1 = wrap_dim(dim0, n), wrap_dim(dim1, n)
    out = apply(_transpose, (input,), {"dim0": d0, "dim1": d1})
    _register_view(out, input)  # (np.swapaxes / ndarray.view always give a view)
    return out


swapaxes = swapdims = transpose


def t(input: Tensor) -> Tensor:
    """Transpose of a tensor with at most 2 dims."""
    if input._data.ndim > 2:
        raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {input._data.ndim}D")
    return _as_view(apply(_t, (input,)), input)


def permute(input: Tensor, *dims_args, dims=None) -> Tensor:
    """Reorder dims (a view); ``dims`` is one tuple (the method also takes them one by one).

    >>> import retrograd as torch
    >>> torch.permute(torch.ones(2, 3), (1, 0)).shape
    torch.Size([3, 2])
    """
    dims = dims_args if dims is None else (dims,)
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    if len(dims) == 1 and isinstance(dims[0], (int, np.integer)):
        # (torch.permute(x, 0) is refused; the method's x.permute(0) is its varargs form)
        raise TypeError("permute(): argument 'dims' (position 2) must be tuple of ints, not int")
    return _permute_dims(input, dims)


def permute_method(self: Tensor, *dims_args, dims=None) -> Tensor:
    """``Tensor.permute``: dims as one tuple or one by one."""
    dims = dims_args if dims is None else (dims,)
    if not dims:
        raise TypeError('permute() missing 1 required positional arguments: "dims"')
    return _permute_dims(self, dims)


def _permute_dims(input: Tensor, dims) -> Tensor:
    dims = parse_shape(dims)
    n = input._data.ndim
    if len(dims) != n:
        raise RuntimeError(
            "permute(sparse_coo): number of dimensions in the tensor input does not match the length of "
            f"the desired ordering of dimensions i.e. input.dim() = {n} is not equal to len(dims) = {len(dims)}")
    dims = tuple(wrap_dim(d, n) for d in dims)
    if len(set(dims)) != n:
        raise RuntimeError("permute(): duplicate dims are not allowed.")
    return _as_view(apply(_permute, (input,), {"dims": dims}), input)


def movedim(input: Tensor, source, destination) -> Tensor:
    """Move dims ``source`` to positions ``destination`` (a view)."""
    n = input._data.ndim
    src = [source] if isinstance(source, (int, np.integer)) else list(source)
    dst = [destination] if isinstance(destination, (int, np.integer)) else list(destination)
    if len(src) != len(dst):
        raise RuntimeError(f"movedim: Invalid source or destination dims: source ({shape_str(src)} dims) should "
                           f"contain the same number of dims as destination ({shape_str(dst)} dims)")
    raw_src, raw_dst = src, dst
    src = [wrap_dim(s, n) for s in src]
    dst = [wrap_dim(d, n) for d in dst]
    if len(set(src)) != len(src):
        raise RuntimeError(f"movedim: repeated dim in `source` ({shape_str(raw_src)})")
    if len(set(dst)) != len(dst):
        raise RuntimeError(f"movedim: repeated dim in `destination` ({shape_str(raw_dst)})")
    if n == 0:  # (dims 0 / -1 of a 0-d tensor: nothing moves; PyTorch returns an alias)
        from .indexing import _alias

        return _as_view(apply(_alias, (input,)), input)
    order = [i for i in range(n) if i not in src]
    for d, s in sorted(zip(dst, src)):
        order.insert(d, s)
    return _permute_dims(input, order)


def adjoint(input: Tensor) -> Tensor:
    """The conjugate transpose of the last two dims (a view; real tensors: the transpose).

    >>> import retrograd as torch
    >>> torch.adjoint(torch.ones(2, 3)).shape
    torch.Size([3, 2])
    """
    if input._data.ndim == 0:  # deprecated in PyTorch, which then returns the tensor itself
        import warnings

        warnings.warn("adjoint() is deprecated on 0-D tensors. Consider using x.conj().", UserWarning, stacklevel=2)
        return input
    if input._data.ndim == 1:
        raise RuntimeError("tensor.adjoint() is only supported on matrices or batches of matrices. Got 1-D tensor.")
    return transpose(input, -2, -1)


moveaxis = movedim

_unsqueeze = primitive("unsqueeze", lambda a, *, dim: np.expand_dims(a, dim), node="UnsqueezeBackward0",
                       a=lambda g, dim: squeeze(g, dim), batch="unsqueeze")
_squeeze = primitive("squeeze", lambda a: a.reshape([s for s in a.shape if s != 1]), node="SqueezeBackward0",
                     a=lambda g, a_shape: reshape(g, a_shape), batch="squeeze")
_squeeze_dim = primitive("squeeze_dim", lambda a, *, dims: np.squeeze(a, dims), node="SqueezeBackward1",
                         a=lambda g, a_shape: reshape(g, a_shape), batch="squeeze")
_squeeze_dims = primitive("squeeze_dims", lambda a, *, dims: np.squeeze(a, dims), node="SqueezeBackward2",
                          a=lambda g, a_shape: reshape(g, a_shape), batch="squeeze")
# matmul's 1-d @ 2-d path squeezes through this overload in PyTorch.
squeeze_matmul = primitive("squeeze_matmul", lambda a, *, dims: np.squeeze(a, dims), node="SqueezeBackward4",
                           a=lambda g, a_shape: reshape(g, a_shape), batch="squeeze")


def unsqueeze(input: Tensor, dim: int) -> Tensor:
    """Insert a size-1 dim at ``dim`` (a view)."""
    if type(dim) is not int and not isinstance(dim, np.integer):
        raise TypeError(f"unsqueeze(): argument 'dim' (position 1) must be int, not {type(dim).__name__}")
    d = wrap_dim(dim, input._data.ndim + 1)
    return _as_view(apply(_unsqueeze, (input,), {"dim": d}), input)


def squeeze(input: Tensor, dim=None) -> Tensor:
    """Remove size-1 dims (all, or only ``dim``)."""
    shp = input._data.shape
    if dim is None:
        return _as_view(apply(_squeeze, (input,)), input)
    op = _squeeze_dim if isinstance(dim, (int, np.integer)) else _squeeze_dims
    dims = wrap_dims(dim, len(shp))  # a 0-d tensor accepts dims 0 and -1
    dims = tuple(d for d in dims if shp and shp[d] == 1)
    return _as_view(apply(op, (input,), {"dims": dims}), input)


def contiguous(input: Tensor, memory_format=None) -> Tensor:
    """Self when already contiguous (in ``memory_format``); else such a copy (CloneBackward0)."""
    if memory_format is None or memory_format is contiguous_format:
        if input._data.flags.c_contiguous:
            return input
        memory_format = contiguous_format
    else:
        check_memory_format("contiguous", memory_format)
        if memory_format is preserve_format:
            raise RuntimeError("preserve memory format is unsupported by the contiguous operator")
        if relaid(input._data, memory_format) is input._data:  # (also checks the rank)
            return input
    from .conversion import clone

    return clone(input, memory_format=memory_format)


# ---------------------------------------------------------------- select / slice (basic indexing)
def _select_bw_fw(g, *, shape, dim, index):
    out = np.zeros(shape, dtype=g.dtype)
    idx = [slice(None)] * len(shape)
    idx[dim] = index
    out[tuple(idx)] = g
    return out


def _select_fw(a, *, dim, index):
    idx = [slice(None)] * a.ndim
    idx[dim] = index
    return a[tuple(idx) + (Ellipsis,)]  # the Ellipsis keeps a 0-d result a view (not a NumPy scalar copy)


_select = primitive("select", _select_fw, node="SelectBackward0",
                    fast={"a": lambda g, a_shape, dim, index: _select_bw_fw(g, shape=a_shape, dim=dim, index=index)},
                    a=lambda g, a_shape, dim, index: _sel_bw(g, a_shape, dim, index), batch="select")
_select_backward = primitive("select_backward", _select_bw_fw, node="SelectBackwardBackward0",
                             g=lambda g, dim, index: select(g, dim, index), batch="select_backward")


def _sel_bw(g, shape, dim, index):
    return apply(_select_backward, (g,), {"shape": shape, "dim": dim, "index": index})


def select(input: Tensor, dim: int, index: int) -> Tensor:
    """The slice at ``index`` along ``dim`` (a view with one dim fewer)."""
    shp = input._data.shape
    if not shp:
        raise IndexError("select() cannot be applied to a 0-dim tensor.")
    d = wrap_dim(dim, len(shp))
    size = shp[d]
    i = int(index)
    if i < -size or i >= size:
        raise IndexError(f"select(): index {i} out of range for tensor of size {shape_str(shp)} at dimension {d}")
    return _as_view(apply(_select, (input,), {"dim": d, "index": i % size}), input)


def _slice_fw(a, *, dim, start, stop, step):
    idx = [slice(None)] * a.ndim
    idx[dim] = slice(start, stop, step)
    return a[tuple(idx)]


def _slice_bw_fw(g, *, shape, dim, start, stop, step):
    out = np.zeros(shape, dtype=g.dtype)
    idx = [slice(None)] * len(shape)
    idx[dim] = slice(start, stop, step)
    out[tuple(idx)] = g
    return out


_slice = primitive("slice", _slice_fw, node="SliceBackward0",
                   a=lambda g, a_shape, dim, start, stop, step: apply(
                       _slice_backward, (g,), {"shape": a_shape, "dim": dim, "start": start, "stop": stop, "step": step}), batch="select")
_slice_backward = primitive("slice_backward", _slice_bw_fw, node="SliceBackwardBackward0",
                            g=lambda g, dim, start, stop, step: slice_dim(g, dim, start, stop, step), batch="select_backward")


def slice_dim(input: Tensor, dim: int, start, stop, step: int = 1) -> Tensor:
    """input[..., start:stop:step, ...] along ``dim`` (a view)."""
    if step is not None and step <= 0:
        raise ValueError("step must be greater than zero")
    d = wrap_dim(dim, input._data.ndim)
    start, stop, step = slice(start, stop, step).indices(input._data.shape[d])
    return _as_view(apply(_slice, (input,), {"dim": d, "start": start, "stop": max(stop, start), "step": step}),
                    input)


def narrow(input: Tensor, dim: int, start: int, length: int) -> Tensor:
    """``length`` elements from ``start`` along ``dim`` (a view)."""
    if not input._data.ndim:
        raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
    if length < 0:
        raise RuntimeError("narrow(): length must be non-negative.")
    d = wrap_dim(dim, input._data.ndim)
    size = input._data.shape[d]
    if isinstance(start, Tensor):
        if start._data.ndim or start._data.dtype.kind not in "iu":
            raise RuntimeError("start must be an 0-dim integral Tensor.")
        start = int(start.item())
    if start < -size or start > size:
        raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], but got {start})")
    if start < 0:
        start += size
    if start + length > size:
        raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
    return slice_dim(input, d, start, start + length, 1)


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


# ---------------------------------------------------------------------------- in-place view ops
def _restride(self: Tensor, res: Tensor) -> Tensor:
    """Make ``self`` take ``res``'s geometry and history (``res`` is a view op applied to self)."""
    check_inplace(self)
    self._data = res._data
    if res._grad_fn is not None:
        self._grad_fn = res._grad_fn
        self._output_nr = res._output_nr
    bump_version(self)  # (torch counts t_/transpose_/squeeze_/unsqueeze_ as in-place writes)
    root = self if self._base is None else self._base
    if res._grad_fn is not None and "_views" in root.__dict__:
        # as after any recorded in-place change: the family's other live views read their
        # region of the root's history (and views made under no_grad / inference mode refuse)
        from .._views import _regenerate, live_views

        for v in live_views(root):
            if v is not self:
                _regenerate(v, root)
    return self


def t_(self: Tensor) -> Tensor:
    """In-place ``t()``: self's dims are swapped (same memory).

    >>> import retrograd as torch
    >>> torch.zeros(2, 3).t_().shape
    torch.Size([3, 2])
    """
    if self._data.ndim > 2:
        raise RuntimeError(f"t_() expects a tensor with <= 2 dimensions, but self is {self._data.ndim}D")
    return _restride(self, t(self))


def transpose_(self: Tensor, dim0: int, dim1: int) -> Tensor:
    """In-place ``transpose``.

    >>> import retrograd as torch
    >>> torch.zeros(2, 3).transpose_(0, 1).shape
    torch.Size([3, 2])
    """
    return _restride(self, transpose(self, dim0, dim1))


swapaxes_ = swapdims_ = transpose_


def squeeze_(self: Tensor, dim=None) -> Tensor:
    """In-place ``squeeze``.

    >>> import retrograd as torch
    >>> torch.zeros(2, 1).squeeze_().shape
    torch.Size([2])
    """
    return _restride(self, squeeze(self, dim))


def unsqueeze_(self: Tensor, dim: int) -> Tensor:
    """In-place ``unsqueeze``.

    >>> import retrograd as torch
    >>> torch.zeros(2).unsqueeze_(0).shape
    torch.Size([1, 2])
    """
    return _restride(self, unsqueeze(self, dim))


def slice_inverse(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """Undo a slice: a view of ``input``'s storage with ``src``'s geometry (``src`` is the base the
    slice ``input`` was taken from; ``dim``/``start``/``end``/``step`` describe that slice).

    >>> import retrograd as torch
    >>> base = torch.arange(6.)
    >>> torch.slice_inverse(base[1:4], base, 0, 1, 4)
    tensor([0., 1., 2., 3., 4., 5.])
    """
    _tensor_arg("slice_inverse", input)
    _tensor_arg("slice_inverse", src, 2, "src")
    return input.as_strided(tuple(src.shape), src.stride(), src.storage_offset())


# Run-time references to modules that import this one (bound last, so either import order works)
