"""Gather, take_along_dim, scatter/scatter_add/scatter_reduce,
select_scatter/slice_scatter/diagonal_scatter/as_strided_scatter."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._common import _const, _contig, _tensor_arg, broadcast_error, shape_str, tensor_args, to_tensor, wrap_dim
from ._composite import _R, _supports_out
from ._out import declares_out, with_out
from ._registry import apply, apply_inplace, primitive

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "take_along_dim", "scatter_", "scatter_add_",
           "scatter_reduce_", "select_scatter", "slice_scatter", "diagonal_scatter", "msort", "as_strided_scatter"]


_wrap = Tensor._wrap


# Which index dtypes each op takes (True: int32 and int64; False: int64 only), and its complaint.
_INDEX_DTYPE_ERR = {
    "gather": (True, RuntimeError, "gather(): Expected dtype int32/int64 for index"),
    "scatter": (True, RuntimeError, "scatter(): Expected dtype int32/int64 for index"),
    "index_select": (True, RuntimeError, "index_select(): Expected dtype int32 or int64 for index"),
    "index_add": (True, RuntimeError, "index_add_(): Expected dtype int32/int64 for index but got: {}"),
    "index_copy": (False, RuntimeError, "index_copy_(): Expected a long tensor for index, but got {}"),
    "index_fill": (False, IndexError, "index_fill_(): Expected dtype int64 for index."),
    "take": (False, RuntimeError, "take(): Expected a long tensor for index, but got {}"),
}


def _np_index(index, name: str) -> np.ndarray:
    """An index argument as an int64 NumPy array, with PyTorch's dtype complaint."""
    arr = index._data if isinstance(index, Tensor) else np.asarray(index)
    dt = arr.dtype
    if dt != np.int64:
        kind = name.rstrip("_")
        kind = "scatter" if kind.startswith("scatter") else kind
        if not arr.size and kind in ("gather", "scatter"):  # PyTorch checks their dtype only when used
            return arr.astype(np.int64)
        int32_ok, exc, msg = _INDEX_DTYPE_ERR[kind]
        if not (int32_ok and dt == np.int32):
            from .. import _dtype as D
            from .._tensor import _scalar_type_name

            raise exc(msg.format(_scalar_type_name(D.from_numpy_dtype(dt))))
        return arr.astype(np.int64)
    return arr


# ---------------------------------------------------------------- gather / scatter (along a dim)
def _along(index: np.ndarray, dim: int) -> tuple:
    """A NumPy key addressing ``t[i][j][index[i][j]]``-style positions (torch's gather layout)."""
    key = list(np.ix_(*[np.arange(s) for s in index.shape])) if index.ndim else []
    if index.ndim:
        key[dim] = index
    return tuple(key)


def _1d(a: np.ndarray) -> np.ndarray:
    """A 0-d array as one element (gather / scatter treat a 0-d tensor or index as size 1)."""
    return a.reshape(1) if a.ndim == 0 else a


def _lead(src: np.ndarray, index: np.ndarray) -> np.ndarray:
    """The block of ``src`` that ``index`` addresses (src may be larger than index)."""
    return _1d(src)[tuple(slice(0, n) for n in index.shape)]


def _gather_np(a, dim, index):
    if not index.size:
        return np.zeros(index.shape, dtype=a.dtype)
    return np.asarray(_1d(a)[_along(_1d(index), dim)].reshape(index.shape), order="C")  # (PyTorch: empty(index.shape))


def _gather_bw_np(grad, *, shape, dim, index):
    out = np.zeros(tuple(shape) or (1,), dtype=grad.dtype)
    if not index.size:
        return out.reshape(shape)
    ix = _1d(index)
    np.add.at(out, _along(ix, dim), grad.reshape(ix.shape))
    return out.reshape(shape)


_gather = primitive("gather", lambda a, *, dim, index: _gather_np(a, dim, index), node="GatherBackward0",
                    a=lambda g, a_shape, dim, index: gather_backward(g, a_shape, dim, index))
_gather_backward = primitive("gather_backward", _gather_bw_np, node="GatherBackwardBackward0",
                             grad=lambda g, dim, index: apply(_gather, (g,), {"dim": dim, "index": index}))


def gather_backward(g: Tensor, shape, dim: int, index: np.ndarray) -> Tensor:
    """Zeros of ``shape`` with ``g`` added at the gathered positions (the dual of gather)."""
    return apply(_gather_backward, (g,), {"shape": tuple(shape), "dim": dim, "index": index})


def _check_gather(name: str, input: Tensor, dim: int, index: np.ndarray, src_shape=None) -> int:
    nd = max(input._data.ndim, 1)
    d = wrap_dim(dim, input._data.ndim)
    if not index.size:  # PyTorch checks nothing else for an empty index (its shape may be any)
        return d
    ishape = input._data.shape or (1,)
    if index.ndim != input._data.ndim and not (index.ndim <= 1 and input._data.ndim <= 1):
        raise RuntimeError("Index tensor must have the same number of dimensions as input tensor")
    ixs = index.shape or (1,)
    for k in range(nd):
        if k != d and ixs[k] > ishape[k]:
            if src_shape is not None:
                raise RuntimeError(
                    f"Expected index {shape_str(index.shape)} to be no larger than self {shape_str(input.shape)} "
                    f"apart from dimension {d} and to be no larger size than src {shape_str(src_shape)}")
            raise RuntimeError(
                f"Size does not match at dimension {k} expected index {shape_str(index.shape)} to be no larger "
                f"than self {shape_str(input.shape)} apart from dimension {d}")
    if src_shape is not None:
        ss = tuple(src_shape) or (1,)
        if any(ixs[k] > ss[k] for k in range(min(len(ixs), len(ss)))):
            raise RuntimeError(
                f"Expected index {shape_str(index.shape)} to be no larger than self {shape_str(input.shape)} "
                f"apart from dimension {d} and to be no larger size than src {shape_str(src_shape)}")
    if index.size:
        size = ishape[d]
        bad = index[(index < 0) | (index >= size)]
        if bad.size:
            raise RuntimeError(f"index {int(bad.flat[0])} is out of bounds for dimension {d} with size {size}")
    return d


@declares_out("same", full_overlap=True)
@tensor_args("gather", index=3)
def gather(input: Tensor, dim: int, index: Tensor, *, sparse_grad: bool = False, out=None) -> Tensor:
    """Values of ``input`` at ``index`` along ``dim``: ``out[i][j] = input[index[i][j]][j]`` (dim 0).

    >>> import retrograd as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).gather(1, torch.tensor([[1], [0]]))
    tensor([[2.],
            [3.]])
    """
    idx = _np_index(index, "gather")
    d = _check_gather("gather", input, dim, idx)
    return apply(_gather, (input,), {"dim": d, "index": idx})


@with_out("take_along_dim", "same", grad_name="gather")
def take_along_dim(input: Tensor, indices: Tensor, dim: int | None = None, *, out=None) -> Tensor:
    """``gather`` with NumPy's take_along_axis broadcasting; ``dim=None`` works on the flattened input.

    Along a ``dim``, indices wrap modulo its size (``-1`` is the last element), as in PyTorch.

    >>> import retrograd as torch
    >>> torch.take_along_dim(torch.tensor([[1., 2., 3.]]), torch.tensor([[-1, 0]]), 1)
    tensor([[3., 1.]])
    """
    if dim is None:  # (PyTorch: a plain gather of the flattened tensors, with gather's checks)
        return gather(reshape(input, (-1,)), 0, reshape(to_tensor(indices), (-1,)))
    if isinstance(indices, Tensor) and indices._data.dtype != np.int64:
        from .._tensor import _scalar_type_name

        raise RuntimeError("torch.take_along_dim(): dtype of indices should be Long but got "
                           f"{_scalar_type_name(indices.dtype)}")
    d = wrap_dim(dim, input._data.ndim)
    ish, xsh = list(input._data.shape), list(indices._data.shape)
    if len(ish) != len(xsh):
        raise RuntimeError("torch.take_along_dim(): input and indices should have the same number of dimensions, "
                           f"but got {len(ish)} dimensions for input, and {len(xsh)} dimensions for indices")
    a_sh, b_sh = list(ish), list(xsh)
    a_sh[d] = b_sh[d] = 1
    try:
        common = list(np.broadcast_shapes(tuple(a_sh), tuple(b_sh)))
    except ValueError:
        raise broadcast_error(tuple(a_sh), tuple(b_sh)) from None
    in_shape, ix_shape = list(common), list(common)
    in_shape[d], ix_shape[d] = ish[d], xsh[d]
    x = input if tuple(in_shape) == tuple(ish) else expand(input, in_shape)
    ix = np.broadcast_to(indices._data, ix_shape)
    if ish and ish[d] and ix.size and (ix.min() < 0 or ix.max() >= ish[d]):
        ix = np.remainder(ix, ish[d])
    return gather(x, d, _const(ix))


def _scatter_src_np(a, src, *, dim, index):
    if not index.size:
        return a.copy()
    out = _1d(a).copy()
    ix = _1d(index)
    out[_along(ix, dim)] = _lead(src, ix)
    return out.reshape(a.shape)


def _scatter_value_np(a, *, dim, index, value):
    if not index.size:
        return a.copy()
    out = _1d(a).copy()
    out[_along(_1d(index), dim)] = value
    return out.reshape(a.shape)


def _embed_np(grad, *, shape):
    out = np.zeros(shape, dtype=grad.dtype)
    out[tuple(slice(0, s) for s in grad.shape)] = grad
    return out


# src may be larger than index: only its leading block is used, the rest gets zero gradient.
_embed = primitive("embed", _embed_np, node="ConstantPadNdBackward0",
                   grad=lambda g, grad_shape: apply(_crop, (g,), {"shape": grad_shape}))
_crop = primitive("crop", lambda a, *, shape: a[tuple(slice(0, s) for s in shape)].copy(), node="SliceBackward0",
                  a=lambda g, a_shape: apply(_embed, (g,), {"shape": a_shape}))


def _src_grad(g: Tensor, dim: int, index: np.ndarray, src_shape, node: str) -> Tensor:
    r = apply(_gather, (g,), {"dim": dim, "index": index})
    if tuple(r.shape) == tuple(src_shape) or not src_shape:
        return r
    _check_src_grad(r.shape, src_shape, node)
    return apply(_embed, (r,), {"shape": tuple(src_shape)})


def _check_src_grad(r_shape, src_shape, node: str) -> None:
    # PyTorch's src gradient has index's shape; its engine refuses it when src is larger
    # (it could only be reduced to src's shape where src has size 1).
    if any(a != b and b != 1 for a, b in zip(r_shape, src_shape)):
        raise RuntimeError(f"Function {node} returned an invalid gradient at index 1 - got {shape_str(r_shape)} but "
                           f"expected shape compatible with {shape_str(src_shape)}")


_scatter_src = primitive("scatter_src", _scatter_src_np, node="ScatterBackward0",
                         a=lambda g, dim, index: _zero_scattered(g, dim, index),
                         src=lambda g, src_shape, dim, index: _src_grad(g, dim, index, src_shape, "ScatterBackward0"))
_scatter_value = primitive("scatter_value", _scatter_value_np, node="ScatterBackward1",
                           a=lambda g, dim, index: _zero_scattered(g, dim, index))


def _zero_scattered(g: Tensor, dim: int, index: np.ndarray) -> Tensor:
    return apply(_scatter_value, (g,), {"dim": dim, "index": index, "value": 0})


def _not_implemented(name: str, exc=RuntimeError):
    def rule(g):
        raise exc(name)
    return rule


def _scatter_legacy_np(a, src, *, dim, index, reduce):
    if not index.size:
        return a.copy()
    out = _1d(a).copy()
    ix = _1d(index)
    vals = _lead(src, ix) if src.ndim else np.broadcast_to(src, ix.shape)  # (0-d src: a value)
    (np.add if reduce == "add" else np.multiply).at(out, _along(ix, dim), vals)
    return out.reshape(a.shape)


# PyTorch has no derivative for scatter(..., reduce=): the node says so when reached.
_scatter_legacy = primitive("scatter_legacy_reduce", _scatter_legacy_np, node="NotImplemented",
                            a=_not_implemented("derivative for aten::scatter is not implemented"),
                            src=_not_implemented("derivative for aten::scatter is not implemented"))


def _scatter_args(input, dim, index, src, value, name="scatter"):
    idx = _np_index(index, name)
    if src is not None and not isinstance(src, Tensor):
        value, src = src, None
    d = _check_gather(name, input, dim, idx, None if src is None else src._data.shape)
    return d, idx, src, value


@declares_out("same")
def scatter(input: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce: str | None = None,
            out=None) -> Tensor:
    """Out-of-place ``input.scatter_(dim, index, src_or_value)``.

    >>> import retrograd as torch
    >>> torch.zeros(2, 3).scatter(1, torch.tensor([[2], [0]]), 1.0)
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """
    d, idx, src, value = _scatter_args(input, dim, index, src, value)
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        s = src if src is not None else _const(np.asarray(value, dtype=input._data.dtype))
        return apply(_scatter_legacy, (input, s), {"dim": d, "index": idx, "reduce": reduce})
    if src is not None:
        return apply(_scatter_src, (input, src), {"dim": d, "index": idx}, _same(input, src))
    return apply(_scatter_value, (input,), {"dim": d, "index": idx, "value": value})


def _same(input: Tensor, src: Tensor):
    if src._data.dtype != input._data.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    return None


def scatter_(self: Tensor, dim: int, index: Tensor, src=None, *, value=None, reduce: str | None = None) -> Tensor:
    d, idx, src, value = _scatter_args(self, dim, index, src, value, "scatter_")
    if reduce is not None:
        if reduce not in ("add", "multiply"):
            raise RuntimeError("reduce argument must be either add or multiply.")
        s = src if src is not None else _const(np.asarray(value, dtype=self._data.dtype))
        return apply_inplace(_scatter_legacy, self, (s,), {"dim": d, "index": idx, "reduce": reduce})
    if src is not None:
        _same(self, src)
        return apply_inplace(_scatter_src, self, (src,), {"dim": d, "index": idx})
    return apply_inplace(_scatter_value, self, (), {"dim": d, "index": idx, "value": value})


def _scatter_add_np(a, src, *, dim, index):
    if not index.size:
        return a.copy()
    out = _1d(a).copy()
    ix = _1d(index)
    np.add.at(out, _along(ix, dim), _lead(src, ix))
    return out.reshape(a.shape)


_scatter_add = primitive("scatter_add", _scatter_add_np, node="ScatterAddBackward0",
                         a=lambda g: g,
                         src=lambda g, src_shape, dim, index: _src_grad(g, dim, index, src_shape,
                                                                        "ScatterAddBackward0"))


@declares_out("same")
def scatter_add(input: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    """Out-of-place ``input.scatter_add_(dim, index, src)``: adds ``src`` at ``index`` along ``dim``."""
    d, idx, src, _ = _scatter_args(input, dim, index, src, None, "scatter_add")
    _same(input, src)
    return apply(_scatter_add, (input, src), {"dim": d, "index": idx})


def scatter_add_(self: Tensor, dim: int, index: Tensor, src: Tensor) -> Tensor:
    d, idx, src, _ = _scatter_args(self, dim, index, src, None, "scatter_add_")
    _same(self, src)
    return apply_inplace(_scatter_add, self, (src,), {"dim": d, "index": idx})


# ---------------------------------------------------------------- scatter_reduce
_REDUCE_UFUNC = {"sum": np.add, "prod": np.multiply, "mean": np.add, "amax": np.maximum, "amin": np.minimum}


def _identity(reduce: str, dtype):
    if reduce in ("sum", "mean"):
        return 0
    if reduce == "prod":
        return 1
    if dtype.kind == "f":
        return -np.inf if reduce == "amax" else np.inf
    info = np.iinfo(dtype) if dtype.kind in "iu" else None
    if info is None:
        return reduce == "amin"
    return info.min if reduce == "amax" else info.max


def _scatter_reduce_np(a, src, *, dim, index, reduce, include_self):
    reduce = _REDUCE_ALIASES.get(reduce, reduce)
    if not index.size:
        return a.copy()
    shape, a = a.shape, _1d(a)
    out = a.copy()
    ix = _1d(index)
    key = _along(ix, dim)
    vals = _lead(src, ix)
    if not include_self:
        out[key] = _identity(reduce, a.dtype)
    _REDUCE_UFUNC[reduce].at(out, key, vals)
    if reduce == "mean":
        count = np.full(a.shape, 1 if include_self else 0, dtype=np.int64)
        np.add.at(count, key, 1)
        count = np.maximum(count, 1)
        if a.dtype.kind == "f":
            out = out / count
        else:
            out = np.floor_divide(out, count)
        touched = np.zeros(a.shape, dtype=bool)
        touched[key] = True
        out = np.where(touched, out, a).astype(a.dtype)
    return out.reshape(shape)


def _sr_rule_self(g, a, src, out, dim, index, reduce, include_self):
    return _scatter_reduce_grads(g, a, src, out, dim, index, reduce, include_self)[0]


def _sr_rule_src(g, a, src, src_shape, out, dim, index, reduce, include_self):
    r = _scatter_reduce_grads(g, a, src, out, dim, index, reduce, include_self)[1]
    # src may be larger than index: its unused trailing block gets zero gradient (PyTorch
    # refuses that for sum and mean, whose gradient has index's shape)
    if tuple(r.shape) == tuple(src_shape):
        return r
    if reduce in ("sum", "mean"):
        _check_src_grad(r.shape, src_shape, "ScatterReduceBackward0")
    return apply(_embed, (r,), {"shape": tuple(src_shape)})


_scatter_reduce = primitive("scatter_reduce", _scatter_reduce_np, node="ScatterReduceBackward0",
                            a=_sr_rule_self, src=_sr_rule_src)


def _scatter_reduce_grads(g, self, src, result, dim, index, reduce, include_self):
    """PyTorch's scatter_reduce_backward, written in retrograd ops."""
    if reduce in _REDUCE_ALIASES:  # accepted by the forward only
        raise RuntimeError(f"Expected 'reduce' to be one of 'sum', 'prod', 'mean', 'amax', 'amin' but got {reduce}.")
    ix = _const(index)
    gat = lambda t: gather(t, dim, ix)  # noqa: E731
    if reduce == "sum":
        grad_self, grad_src = g, gat(g)
    elif reduce == "prod":
        masked_self = masked_fill(self, self == 0, 1)
        masked_self_result = scatter_reduce(masked_self, dim, ix, src, reduce, include_self=include_self)
        grad_self = g * masked_self_result / masked_self
        src_zero = src == 0
        src_num_zeros = gat(scatter_add(_zeros_like(self), dim, ix, src_zero.to(self.dtype)))
        src_single_zero = src_zero * (src_num_zeros == 1)  # logical and of two bool tensors
        masked_src = masked_fill(src, src_single_zero, 1)
        masked_src_result = scatter_reduce(self, dim, ix, masked_src, reduce, include_self=include_self)
        from .masked import where

        grad_src = where(src_single_zero, gat(g * masked_src_result),
                         gat(g * result) / masked_fill(src, src_zero, 1))
    elif reduce == "mean":
        n = _ones_like(g) if include_self else _zeros_like(g)
        n = scatter_add(n, dim, ix, _ones_like(src))
        n = masked_fill(n, n == 0, 1)
        grad_self = g / n
        grad_src = gat(g) / gat(n)
    else:  # amax / amin: split the gradient evenly between tied elements
        value = gat(result)
        self_is_result = (self == result).to(self.dtype)
        src_is_result = (src == value).to(self.dtype)
        n = scatter_add(self_is_result, dim, ix, src_is_result)
        distributed = g / n
        grad_self = self_is_result * distributed
        grad_src = src_is_result * gat(distributed)
    if not include_self:
        grad_self = scatter(grad_self, dim, ix, 0.0)
    return grad_self, grad_src


def _zeros_like(t: Tensor) -> Tensor:
    return _wrap(np.zeros(t._data.shape, dtype=t._data.dtype), False, None, 0)


def _ones_like(t: Tensor) -> Tensor:
    return _wrap(np.ones(t._data.shape, dtype=t._data.dtype), False, None, 0)


_REDUCE_ALIASES = {"max": "amax", "min": "amin"}  # PyTorch accepts these silently


def _sr_args(input, dim, index, src, reduce, name):
    if reduce not in _REDUCE_UFUNC and reduce not in _REDUCE_ALIASES:
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, got {reduce}")
    d, idx, src, _ = _scatter_args(input, dim, index, src, None, name)
    _same(input, src)
    return d, idx


@declares_out("same")
def scatter_reduce(input: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                   include_self: bool = True, out=None) -> Tensor:
    """Reduce ``src`` into ``input`` at ``index`` along ``dim`` (sum, prod, mean, amax, amin)."""
    d, idx = _sr_args(input, dim, index, src, reduce, "scatter_reduce")
    return apply(_scatter_reduce, (input, src), {"dim": d, "index": idx, "reduce": reduce,
                                                 "include_self": bool(include_self)})


def scatter_reduce_(self: Tensor, dim: int, index: Tensor, src: Tensor, reduce: str, *,
                    include_self: bool = True) -> Tensor:
    d, idx = _sr_args(self, dim, index, src, reduce, "scatter_reduce_")
    return apply_inplace(_scatter_reduce, self, (src,), {"dim": d, "index": idx, "reduce": reduce,
                                                         "include_self": bool(include_self)})


# A region of a tensor: ("select", dim, index), ("slice", dim, start, end, step) or
# ("diagonal", offset, dim1, dim2); dims already wrapped.
def _np_region(a: np.ndarray, region: tuple) -> np.ndarray:
    from .diagonal import _diag_view

    if region[0] == "diagonal":
        return _diag_view(a, *region[1:])
    if region[0] == "select":
        return a[(slice(None),) * region[1] + (region[2],)]
    return a[(slice(None),) * region[1] + (slice(*region[2:]),)]


def _region(t: Tensor, region: tuple) -> Tensor:
    if region[0] == "diagonal":
        return t.diagonal(*region[1:])
    if region[0] == "select":
        return t.select(region[1], region[2])
    return t[(slice(None),) * region[1] + (slice(*region[2:]),)]


def _scatter_fw(a, src, *, region):
    out = a.copy()
    if region[0] == "select":  # (an item assignment: selecting from a 1-d array gives no view)
        out[(slice(None),) * region[1] + (region[2],)] = src
    else:
        _np_region(out, region)[...] = src
    return out


def _scatter_op(name: str, node: str):
    op = None

    def rule_a(g, region):
        return apply(op, (g, _R().zeros_like(_region(g, region))), {"region": region})

    op = primitive(name, _scatter_fw, node=node, a=rule_a, src=lambda g, region: _region(g, region))
    return op


_select_scatter = _scatter_op("select_scatter", "SelectScatterBackward0")
_slice_scatter = _scatter_op("slice_scatter", "SliceScatterBackward0")
_diagonal_scatter = _scatter_op("diagonal_scatter", "DiagonalScatterBackward0")


def _scatter_into(op, input: Tensor, src: Tensor, region: tuple) -> Tensor:
    if not isinstance(src, Tensor):
        raise TypeError(f"{op.name}(): argument 'src' (position 2) must be Tensor, not {type(src).__name__}")
    target = _region(input.detach(), region)
    if tuple(target.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = "
                           f"{list(src.shape)}, slice size = {list(target.shape)}")
    dt = input.dtype
    return apply(op, (input, src if src.dtype == dt else src.to(dt)), {"region": region})


def select_scatter(input: Tensor, src: Tensor, dim: int, index: int) -> Tensor:
    """Copy of ``input`` with ``input.select(dim, index)`` replaced by ``src``.

    >>> import retrograd as torch
    >>> torch.select_scatter(torch.zeros(2, 2), torch.ones(2), 0, 0)
    tensor([[1., 1.],
            [0., 0.]])
    """
    d = wrap_dim(dim, input.dim())
    n = input.shape[d]
    if not -n <= index < n:
        raise IndexError(f"select(): index {index} out of range for tensor of size {list(input.shape)} at "
                         f"dimension {d}")
    return _scatter_into(_select_scatter, input, src, ("select", d, index % n))


@declares_out("same", grad_check=False)  # (PyTorch allows grad here)
def slice_scatter(input: Tensor, src: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
                  step: int = 1) -> Tensor:
    """Copy of ``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``.

    >>> import retrograd as torch
    >>> torch.slice_scatter(torch.zeros(3), torch.ones(1), 0, 1, 2)
    tensor([0., 1., 0.])
    """
    d = wrap_dim(dim, input.dim())
    return _scatter_into(_slice_scatter, input, src, ("slice", d, start, end, step))


def diagonal_scatter(input: Tensor, src: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """Copy of ``input`` with its diagonal replaced by ``src``.

    >>> import retrograd as torch
    >>> torch.diagonal_scatter(torch.zeros(2, 2), torch.ones(2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    d1, d2 = wrap_dim(dim1, input.dim()), wrap_dim(dim2, input.dim())
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _scatter_into(_diagonal_scatter, input, src, ("diagonal", offset, d1, d2))


@_supports_out
def msort(input: Tensor, *, out=None) -> Tensor:
    """Sort along the first dimension.

    >>> import retrograd as torch
    >>> torch.msort(torch.tensor([3., 1., 2.]))
    tensor([1., 2., 3.])
    """
    return _R().sort(input, 0).values


def as_strided_scatter(input: Tensor, src: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """A copy of ``input`` whose ``as_strided(size, stride, storage_offset)`` window holds ``src``.

    Differentiable in both: ``input``'s gradient is zero where the window overwrote it.

    >>> import retrograd as torch
    >>> torch.as_strided_scatter(torch.zeros(4), torch.ones(2), (2,), (2,), 1)
    tensor([0., 1., 0., 1.])
    """
    _tensor_arg("as_strided_scatter", input)
    _tensor_arg("as_strided_scatter", src, 2, "src")
    size = tuple(size)
    if tuple(src.shape) != size:
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size = {list(src.shape)}, "
                           f"slice size = {list(size)}")
    out = input.clone(memory_format=_contig())
    out.as_strided(size, stride, storage_offset).copy_(src)
    return out


# Run-time references to modules that import this one (bound last, so either import order works)
from .masked import masked_fill  # noqa: E402
from .shape import expand, reshape  # noqa: E402
