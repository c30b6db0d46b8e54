"""Index-driven ops: gather / scatter families, index_* ops, masked ops, take, search, unique.

Duals point at each other so every rule is differentiable again:
gather <-> gather_backward (scatter-add into zeros), index_select <-> index_add,
masked_select <-> masked_select_backward, take <-> take_backward.
Index arrays are static arguments (they are never differentiated).
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._common import broadcast_error, checked_scalar, shape_str, tensor_args, to_tensor, wrap_dim
from ._out import same_dtype, with_out
from ._registry import apply, apply_inplace, primitive
from .indexing import nonzero
from .shape import expand, reshape

__all__ = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy",
           "index_fill", "masked_fill", "masked_select", "masked_scatter", "take", "take_along_dim",
           "argwhere", "searchsorted", "bucketize", "unique", "unique_consecutive", "index_put",
           "scatter_", "scatter_add_", "scatter_reduce_", "index_add_", "index_copy_", "index_fill_",
           "masked_fill_", "masked_scatter_"]
METHODS = ["gather", "scatter", "scatter_add", "scatter_reduce", "index_select", "index_add", "index_copy",
           "index_fill", "masked_fill", "masked_select", "masked_scatter", "take", "take_along_dim", "argwhere",
           "unique", "unique_consecutive", "index_put", "scatter_", "scatter_add_", "scatter_reduce_",
           "index_add_", "index_copy_", "index_fill_", "masked_fill_", "masked_scatter_"]

_wrap = Tensor._wrap


def _const(a) -> Tensor:
    return _wrap(np.asarray(a), False, None, 0)


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
    return _1d(a)[_along(_1d(index), dim)].reshape(index.shape)


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
        raise RuntimeError(f"scatter(): Expected self.dtype to be equal to src.dtype")
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
        from .pointwise import where

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


# ---------------------------------------------------------------- index_select / index_add / copy / fill
def _dim_key(dim: int, index: np.ndarray) -> tuple:
    return (slice(None),) * dim + (index,)


def _index_add_np(a, src, *, dim, index, alpha):
    out = a.copy()
    s = src if alpha == 1 else src * np.asarray(alpha, dtype=src.dtype)
    if out.ndim == 0:
        return out + s.reshape(()) if index.size else out
    np.add.at(out, _dim_key(dim, index), s)
    return out


_index_select = primitive("index_select", lambda a, *, dim, index: np.ascontiguousarray(a[_dim_key(dim, index)])
                          if a.ndim else a.copy(),
                          node="IndexSelectBackward0",
                          a=lambda g, a_shape, dim, index: apply(
                              _index_add, (_const(np.zeros(a_shape, dtype=g._data.dtype)), g),
                              {"dim": dim, "index": index, "alpha": 1}))
_index_add = primitive("index_add", _index_add_np, node="IndexAddBackward0",
                       a=lambda g: g,
                       src=lambda g, dim, index, alpha: _scaled(
                           apply(_index_select, (g,), {"dim": dim, "index": index}), alpha))


def _scaled(t: Tensor, alpha) -> Tensor:
    return t if alpha == 1 else t * alpha


def _index_1d(index, name: str) -> np.ndarray:
    idx = _np_index(index, name)
    if idx.ndim > 1:
        raise IndexError(f"{name}(): Index is supposed to be a vector")
    return idx.reshape(-1)


def _bounds(idx: np.ndarray, size: int, dim: int, kind: str) -> np.ndarray:
    """Bounds with each op's PyTorch message; only index_fill accepts negative indices."""
    if not idx.size:
        return idx
    lo = -size if kind == "index_fill" else 0
    bad = idx[(idx < lo) | (idx >= size)]
    if bad.size:
        i = int(bad[0])
        if kind == "index_select":
            if dim != 0:  # PyTorch's two code paths (dim 0 or not) word this differently
                raise RuntimeError(f"INDICES element is out of DATA bounds, id={i} axis_dim={size}")
            raise IndexError("index out of range in self")
        msg = f"index {i} is out of bounds for dimension {dim} with size {size}"
        if kind == "index_add":
            raise RuntimeError(msg)
        if kind == "index_copy":
            raise IndexError("index_copy_(): " + msg)
        raise IndexError(msg)
    return idx % size if lo else idx


@tensor_args("index_select", index=3)
def index_select(input: Tensor, dim: int, index: Tensor, *, out=None) -> Tensor:
    """The slices of ``input`` at ``index`` (a 1-d int tensor) along ``dim``.

    >>> import retrograd as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).index_select(0, torch.tensor([1, 1]))
    tensor([[3., 4.],
            [3., 4.]])
    """
    d = wrap_dim(dim, input._data.ndim)
    idx = _index_1d(index, "index_select")
    size = input._data.shape[d] if input._data.ndim else 1
    idx = _bounds(idx, size, d, "index_select")
    return apply(_index_select, (input,), {"dim": d, "index": idx})


def _index_src_args(name: str, input: Tensor, dim: int, index, source: Tensor):
    d = wrap_dim(dim, input._data.ndim)
    idx = _index_1d(index, name)
    src_shape = source._data.shape
    n_src = src_shape[d] if len(src_shape) > d else 1
    if input._data.ndim and source._data.ndim and idx.size != n_src:
        if name.startswith("index_copy"):
            raise IndexError(f"index_copy_(): Number of indices ({idx.size}) should be equal to source.size(dim) "
                             f"({n_src})")
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to source.size(dim): "
                           f"({n_src}), for dim: {d}")
    ish = input._data.shape
    if len(src_shape) != len(ish) or any(s != t for k, (s, t) in enumerate(zip(src_shape, ish)) if k != d):
        if source._data.ndim and input._data.ndim:
            raise RuntimeError("source tensor shape must match self tensor shape, excluding the specified dimension. "
                               f"Got self.shape = {shape_str(ish)} source.shape = {shape_str(src_shape)}")
    size = ish[d] if ish else 1
    idx = _bounds(idx, size, d, "index_copy" if name.startswith("index_copy") else "index_add")
    if source._data.dtype != input._data.dtype:
        from .._tensor import _scalar_type_name

        a, b = _scalar_type_name(input.dtype), _scalar_type_name(source.dtype)
        if name.startswith("index_copy"):
            raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but got (self) {a} "
                               f"and (source) {b}")
        raise RuntimeError(f"index_add_(): self ({a}) and source ({b}) must have the same scalar type")
    return d, idx


@tensor_args("index_add", index=3, source=4)
def index_add(input: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1, out=None) -> Tensor:
    """``input`` with ``alpha * source`` added at ``index`` along ``dim`` (duplicates accumulate)."""
    d, idx = _index_src_args("index_add", input, dim, index, source)
    return apply(_index_add, (input, source), {"dim": d, "index": idx, "alpha": checked_scalar(alpha, input.dtype)})


@tensor_args("index_add_", True, index=2, source=3)
def index_add_(self: Tensor, dim: int, index: Tensor, source: Tensor, *, alpha=1) -> Tensor:
    d, idx = _index_src_args("index_add_", self, dim, index, source)
    return apply_inplace(_index_add, self, (source,), {"dim": d, "index": idx,
                                                       "alpha": checked_scalar(alpha, self.dtype)})


def _index_copy_np(a, src, *, dim, index):
    out = a.copy()
    if out.ndim == 0:
        return src.reshape(()).copy() if index.size else out
    out[_dim_key(dim, index)] = src
    return out


def _index_fill_np(a, *, dim, index, value):
    out = a.copy()
    if out.ndim == 0:
        return np.full((), value, dtype=a.dtype) if index.size else out
    out[_dim_key(dim, index)] = value
    return out


def _index_fill_t_np(a, v, *, dim, index):
    return _index_fill_np(a, dim=dim, index=index, value=v.reshape(()))


_index_copy = primitive("index_copy", _index_copy_np, node="IndexCopyBackward0",
                        a=lambda g, dim, index: apply(_index_fill, (g,), {"dim": dim, "index": index, "value": 0}),
                        src=lambda g, dim, index: apply(_index_select, (g,), {"dim": dim, "index": index}))
_index_fill = primitive("index_fill", _index_fill_np, node="IndexFillBackward0",
                        a=lambda g, dim, index: apply(_index_fill, (g,), {"dim": dim, "index": index, "value": 0}))
_index_fill_t = primitive("index_fill_tensor", _index_fill_t_np, node="IndexFillBackward1",
                          a=lambda g, dim, index: apply(_index_fill, (g,), {"dim": dim, "index": index, "value": 0}),
                          # (each filled slice once, however often the index repeats it: PyTorch's rule)
                          v=lambda g, dim, index: apply(_index_select, (g,), {"dim": dim,
                                                                              "index": np.unique(index)}).sum())


@tensor_args("index_copy", index=3, source=4)
def index_copy(input: Tensor, dim: int, index: Tensor, source: Tensor, *, out=None) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` replaced by ``source``."""
    d, idx = _index_src_args("index_copy", input, dim, index, source)
    return apply(_index_copy, (input, source), {"dim": d, "index": idx})


@tensor_args("index_copy_", True, index=2, source=3)
def index_copy_(self: Tensor, dim: int, index: Tensor, source: Tensor) -> Tensor:
    d, idx = _index_src_args("index_copy_", self, dim, index, source)
    return apply_inplace(_index_copy, self, (source,), {"dim": d, "index": idx})


def _fill_args(input: Tensor, dim: int, index, value, name: str):
    if not isinstance(index, Tensor):  # (PyTorch's overload resolution error: the index must be a Tensor)
        got = ", ".join(type(v).__name__ for v in (input, dim, index, value))
        bad = f"Tensor, {type(dim).__name__}, !{type(index).__name__}!, !{type(value).__name__}!"
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            f" * (Tensor input, int dim, Tensor index, Tensor value)\n"
            f"      didn't match because some of the arguments have invalid types: ({bad})\n"
            f" * (Tensor input, int dim, Tensor index, Number value)\n"
            f"      didn't match because some of the arguments have invalid types: ({bad})\n")
    d = wrap_dim(dim, input._data.ndim)
    idx = _index_1d(index, name)
    size = input._data.shape[d] if input._data.ndim else 1
    idx = _bounds(idx, size, d, "index_fill")
    if isinstance(value, Tensor) and value._data.ndim != 0:
        raise RuntimeError(f"{name} only supports a 0-dimensional value tensor, but got tensor with "
                           f"{value._data.ndim} dimension(s).")
    if isinstance(value, complex):
        raise RuntimeError(f"{name}(): Converting complex Scalar to non-complex type is not supported")
    return d, idx


def index_fill(input: Tensor, dim: int, index: Tensor, value) -> Tensor:
    """``input`` with the slices at ``index`` along ``dim`` set to ``value`` (a number or 0-d tensor)."""
    if not isinstance(index, Tensor):
        _fill_args(input, dim, index, value, "index_fill")
    d, idx = _fill_args(input, dim, index, value, "index_fill_")
    if isinstance(value, Tensor):
        return apply(_index_fill_t, (input, value), {"dim": d, "index": idx})
    # (torch's checked conversion: -1 fills a uint8 tensor with 255, 300 refuses an int8 one)
    return apply(_index_fill, (input,), {"dim": d, "index": idx, "value": checked_scalar(value, input.dtype)})


def index_fill_(self: Tensor, dim: int, index: Tensor, value) -> Tensor:
    d, idx = _fill_args(self, dim, index, value, "index_fill_")
    if isinstance(value, Tensor):
        return apply_inplace(_index_fill_t, self, (value,), {"dim": d, "index": idx})
    return apply_inplace(_index_fill, self, (), {"dim": d, "index": idx, "value": checked_scalar(value, self.dtype)})


# ---------------------------------------------------------------- masked ops
def _mask_np(mask, name: str) -> np.ndarray:
    m = mask._data if isinstance(mask, Tensor) else np.asarray(mask)
    if m.dtype != np.bool_:
        if name == "masked_select:":
            raise RuntimeError("masked_select: expected BoolTensor for mask")
        if name == "masked_scatter_":  # this one names the dtype PyTorch's way
            from .. import _dtype as D
            from .._tensor import _scalar_type_name

            raise RuntimeError("masked_scatter_ only supports boolean masks, but got mask with dtype "
                               f"{_scalar_type_name(D.from_numpy_dtype(m.dtype))}")
        names = {"int64": "long int", "float32": "float", "float64": "double", "int32": "int", "uint8": "unsigned char"}
        raise RuntimeError(f"{name} only supports boolean masks, but got mask with dtype "
                           f"{names.get(m.dtype.name, m.dtype.name)}")
    return m


def _masked_fill_np(a, *, mask, value):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return np.where(mask, np.asarray(value).astype(a.dtype), a).reshape(shape)


_masked_fill = primitive("masked_fill", _masked_fill_np, node="MaskedFillBackward0",
                         a=lambda g, mask: apply(_masked_fill, (g,), {"mask": mask, "value": 0}))
_masked_fill_t = primitive("masked_fill_tensor", lambda a, v, *, mask: _masked_fill_np(a, mask=mask, value=v),
                           node="MaskedFillBackward1",
                           a=lambda g, mask: apply(_masked_fill, (g,), {"mask": mask, "value": 0}),
                           v=lambda g, mask: (g * _const(mask)).sum())


def _broadcast_check(a_shape, m_shape, mask_first: bool = True):
    try:
        return np.broadcast_shapes(a_shape, m_shape)
    except ValueError:
        raise (broadcast_error(m_shape, a_shape) if mask_first else broadcast_error(a_shape, m_shape)) from None


def masked_fill(input: Tensor, mask: Tensor, value) -> Tensor:
    """``input`` with ``value`` where ``mask`` (bool, broadcastable) is True.

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).masked_fill(torch.tensor([True, False, True]), 0.)
    tensor([0., 2., 0.])
    """
    m = _mask_np(mask, "masked_fill_")
    _broadcast_check(input._data.shape, m.shape)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        return apply(_masked_fill_t, (input, value), {"mask": m}, None)
    return apply(_masked_fill, (input,), {"mask": m, "value": value})


def masked_fill_(self: Tensor, mask: Tensor, value) -> Tensor:
    m = _mask_np(mask, "masked_fill_")
    _broadcast_check(self._data.shape, m.shape, mask_first=False)
    if isinstance(value, Tensor):
        if value._data.ndim != 0:
            raise RuntimeError("masked_fill_ only supports a 0-dimensional value tensor, but got tensor with "
                               f"{value._data.ndim} dimension(s).")
        return apply_inplace(_masked_fill_t, self, (value,), {"mask": m})
    return apply_inplace(_masked_fill, self, (), {"mask": m, "value": value})


def _masked_select_np(a, *, mask):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    return np.broadcast_to(a, shape)[np.broadcast_to(mask, shape)]


def _masked_select_bw_np(grad, *, shape, mask):
    out = np.zeros(shape, dtype=grad.dtype)
    out[np.broadcast_to(mask, shape)] = grad
    return out


_masked_select = primitive("masked_select", _masked_select_np, node="MaskedSelectBackward0",
                           a=lambda g, a_shape, mask: apply(
                               _masked_select_bw, (g,),
                               {"shape": np.broadcast_shapes(a_shape, mask.shape), "mask": mask}))
_masked_select_bw = primitive("masked_select_backward", _masked_select_bw_np, node="MaskedScatterBackward0",
                              grad=lambda g, mask: apply(_masked_select, (g,), {"mask": mask}))


@with_out("masked_select", same_dtype("masked_select(): self and result must have the same scalar type"))
def masked_select(input: Tensor, mask: Tensor, *, out=None) -> Tensor:
    """The elements of ``input`` where ``mask`` is True, as a 1-d tensor."""
    m = _mask_np(mask, "masked_select:")
    _broadcast_check(input._data.shape, m.shape)
    return apply(_masked_select, (input,), {"mask": m})


def _masked_scatter_np(a, src, *, mask):
    shape = np.broadcast_shapes(a.shape, mask.shape)
    out = np.array(np.broadcast_to(a, shape), order="C")
    m = np.broadcast_to(mask, shape)
    out[m] = src.reshape(-1)[: int(m.sum())]
    return out


_masked_scatter = primitive("masked_scatter", _masked_scatter_np, node="MaskedScatterBackward0",
                            a=lambda g, mask: apply(_masked_fill, (g,), {"mask": mask, "value": 0}),
                            src=lambda g, src_shape, mask: _masked_scatter_src_grad(g, mask, src_shape))


def _masked_scatter_src_grad(g: Tensor, mask: np.ndarray, src_shape) -> Tensor:
    sel = apply(_masked_select, (g,), {"mask": mask})
    n = int(np.prod(src_shape))
    k = sel._data.shape[0]
    if k < n:
        from .shape_more import cat

        sel = cat([sel, _wrap(np.zeros(n - k, dtype=g._data.dtype), False, None, 0)])
    return reshape(sel, src_shape)


def _masked_scatter_args(input, mask, source, name):
    m = _mask_np(mask, name)
    if source._data.dtype != input._data.dtype:
        from .._tensor import _scalar_type_name

        raise RuntimeError("masked_scatter: expected self and source to have same dtypes but got"
                           f"{_scalar_type_name(input.dtype)} and {_scalar_type_name(source.dtype)}")
    shape = _broadcast_check(input._data.shape, m.shape)
    if int(np.broadcast_to(m, shape).sum()) > source._data.size:
        raise RuntimeError("Number of elements of source < number of ones in mask")
    return m


def masked_scatter(input: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    """``input`` with consecutive elements of ``source`` written where ``mask`` is True."""
    m = _masked_scatter_args(input, mask, source, "masked_scatter_")
    return apply(_masked_scatter, (input, source), {"mask": m})


def masked_scatter_(self: Tensor, mask: Tensor, source: Tensor) -> Tensor:
    m = _masked_scatter_args(self, mask, source, "masked_scatter_")
    return apply_inplace(_masked_scatter, self, (source,), {"mask": m})


# ---------------------------------------------------------------- take / index_put
def _take_bw_np(grad, *, shape, index):
    out = np.zeros(int(np.prod(shape)), dtype=grad.dtype)
    np.add.at(out, index, grad)
    return out.reshape(shape)


_take = primitive("take", lambda a, *, index: a.reshape(-1)[index], node="TakeBackward0",
                  a=lambda g, a_shape, index: apply(_take_backward, (g,), {"shape": a_shape, "index": index}))
_take_backward = primitive("take_backward", _take_bw_np, node="TakeBackwardBackward0",
                           grad=lambda g, index: apply(_take, (g,), {"index": index}))


@tensor_args("take", index=2)
def take(input: Tensor, index: Tensor) -> Tensor:
    """Elements of the flattened ``input`` at ``index`` (result has ``index``'s shape)."""
    idx = _np_index(index, "take")
    n = input._data.size
    if idx.size:
        bad = idx[(idx < -n) | (idx >= n)]
        if bad.size:
            raise IndexError(f"out of range: tried to access index {int(bad.flat[0])} on a tensor of {n} elements.")
    return apply(_take, (input,), {"index": idx % n if n else idx})


def index_put(input: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """Out-of-place ``input.index_put_(indices, values, accumulate)``."""
    from .indexing import _index_put, put_args

    key, v = put_args(input, indices, values, "index_put")
    return apply(_index_put, (input, v), {"key": key, "accumulate": bool(accumulate)})


# ---------------------------------------------------------------- no-grad index queries
def argwhere(input: Tensor) -> Tensor:
    """Indices of the non-zero elements, one row each (same as ``nonzero()``)."""
    return nonzero(input)


def _int_out(a: np.ndarray, out_int32: bool) -> Tensor:
    return _wrap(np.asarray(a, dtype=np.int32 if out_int32 else np.int64), False, None, 0)


def _bisect(seq: np.ndarray, vals: np.ndarray, right: bool, sorter: np.ndarray | None) -> np.ndarray:
    """PyTorch's searchsorted kernel, vectorised: per row of ``seq`` (2-d) a binary search for each
    value of the matching row of ``vals``.  The tests are ``!(mid >= v)`` (left) and ``!(mid > v)``
    (right), so NaN on either side steers right exactly as in the C++ loop; an unsorted ``seq`` gives
    the same (meaningless) answer PyTorch gives."""
    rows, n = seq.shape
    start = np.zeros(vals.shape, dtype=np.int64)
    end = np.full(vals.shape, n, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                return start
            mid = start + ((end - start) >> 1)
            pos = np.minimum(mid, n - 1)
            if sorter is not None:
                pos = np.take_along_axis(sorter, pos, -1)
            mv = np.take_along_axis(seq, pos, -1)
            go_right = ~(mv > vals) if right else ~(mv >= vals)
            start = np.where(active & go_right, mid + 1, start)
            end = np.where(active & ~go_right, mid, end)


def _search_out(result: Tensor, out: Tensor) -> None:
    if out._data.dtype != result._data.dtype:
        from .._tensor import _scalar_type_name

        raise RuntimeError(
            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
            f"depending on whether out_int32 flag is True, but we got output tensor's dtype "
            f"{_scalar_type_name(out.dtype)} and out_int32 flag is {result._data.dtype == np.int32}")


@with_out("searchsorted", _search_out, grad_check=False)
def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None, out=None) -> Tensor:
    """Indices where ``input`` would be inserted into the innermost dim of ``sorted_sequence``.

    >>> import retrograd as torch
    >>> torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([3, 6]))
    tensor([1, 3])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    srt = None if sorter is None else sorter._data.astype(np.int64)
    scalar = not isinstance(input, Tensor)
    vals = np.asarray(input) if scalar else input._data
    if seq.ndim <= 1:
        s2 = seq.reshape(1, -1)
        v2 = vals.reshape(1, -1)
        res = _bisect(s2, v2, right, None if srt is None else srt.reshape(1, -1)) if s2.shape[1] else \
            np.zeros(v2.shape, dtype=np.int64)
        return _int_out(res.reshape(vals.shape), out_int32)
    if scalar or vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            f"tensor and input value tensor must match, but we got boundaries tensor {shape_str(seq.shape)} and "
            f"input value tensor {shape_str(vals.shape)}")
    rows = int(np.prod(seq.shape[:-1]))
    s2 = seq.reshape(rows, seq.shape[-1])
    v2 = vals.reshape(rows, vals.shape[-1])
    if s2.shape[1] == 0 or v2.size == 0:
        res = np.zeros(v2.shape, dtype=np.int64)
    else:
        res = _bisect(s2, v2, right, None if srt is None else srt.reshape(rows, -1))
    return _int_out(res.reshape(vals.shape), out_int32)


@with_out("bucketize", _search_out, grad_check=False)
def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """Bucket index of each element of ``input`` given 1-d ``boundaries``.

    ``right=False``: ``boundaries[i-1] < x <= boundaries[i]``; ``right=True``: ``boundaries[i-1] <= x < boundaries[i]``.

    >>> import retrograd as torch
    >>> torch.bucketize(torch.tensor([1, 4, 9]), torch.tensor([1, 3, 5, 7]))
    tensor([0, 2, 4])
    """
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ---------------------------------------------------------------- unique
def _unique_op(name: str, node: str, msg: str):
    return primitive(name, lambda a, *, values: values, node=node,
                     a=_not_implemented(msg, NotImplementedError))


_unique2 = _unique_op("unique", "Unique2Backward0", "the derivative for '_unique2' is not implemented.")
_unique_dim = _unique_op("unique_dim", "UniqueDimBackward0", "the derivative for 'unique_dim' is not implemented.")
_unique_consec = _unique_op("unique_consecutive", "UniqueConsecutiveBackward0",
                            "the derivative for 'unique_consecutive' is not implemented.")


def _unique_result(op, input: Tensor, values, inverse, counts, return_inverse, return_counts):
    out = apply(op, (input,), {"values": values})
    if not (return_inverse or return_counts):
        return out
    res = [out]
    if return_inverse:
        res.append(_wrap(np.asarray(inverse, dtype=np.int64), False, None, 0))
    if return_counts:
        res.append(_wrap(np.asarray(counts, dtype=np.int64), False, None, 0))
    return tuple(res)


def _unique_dim_check(a: np.ndarray, dim, name: str) -> int:
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    if a.size == 0:
        if a.shape[d] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        if sum(1 for s in a.shape if s == 0) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    return d


class _LexRow:
    """A slice under unique_dim's comparator: the first element that is ``<`` or ``>`` decides
    (NaN is neither, so it never decides)."""

    __slots__ = ("v",)

    def __init__(self, v: list) -> None:
        self.v = v

    def __lt__(self, other: "_LexRow") -> bool:
        for x, y in zip(self.v, other.v):
            if x < y:
                return True
            if x > y:
                return False
        return False


def _runs(srt: np.ndarray) -> np.ndarray:
    """Start flags of runs of equal consecutive rows of a 2-d array (NaN never equals NaN)."""
    if srt.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    return np.concatenate([[True], (srt[1:] != srt[:-1]).any(axis=1)])


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None):
    """Sorted unique elements (or unique slices along ``dim``), optionally with inverse indices and counts.

    Like PyTorch's CPU kernel it sorts with std::sort (replayed, see ``_stl_order``) and keeps the first
    element of each run, so each NaN is its own entry and a run of 0.0 / -0.0 shows the sign PyTorch
    shows; ``sorted=False`` gives the same sorted result, as PyTorch's CPU kernel does.

    >>> import retrograd as torch
    >>> torch.unique(torch.tensor([3, 1, 3]), return_counts=True)
    (tensor([1, 3]), tensor([1, 2]))
    """
    from . import _stl_order as stl
    from .reduce_more import _sort_indices

    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        order = _sort_indices(flat, 0, False, False) if flat.size else np.zeros(0, dtype=np.int64)
        srt = flat[order]
        start = _runs(srt.reshape(-1, 1))
        group = np.cumsum(start) - 1
        inv = np.empty(flat.size, dtype=np.int64)
        inv[order] = group
        cnt = np.diff(np.append(np.flatnonzero(start), flat.size))
        return _unique_result(_unique2, input, srt[start], inv.reshape(a.shape), cnt, return_inverse, return_counts)
    d = _unique_dim_check(a, dim, "unique")
    m = np.moveaxis(a, d, 0)
    rows = m.reshape(m.shape[0], int(np.prod(m.shape[1:])))
    if rows.shape[1] and rows.shape[0] > 1:
        if rows.dtype.kind == "f" and np.isnan(rows).any():
            keys = [_LexRow(r) for r in rows.tolist()]
        else:  # dense ranks make Python's tuple order the kernel's lexicographic one
            ranks = stl.dense_ranks(rows.reshape(1, -1))[0].reshape(rows.shape)
            keys = [tuple(r) for r in ranks.tolist()]
        order = np.asarray(stl.sort_order(keys), dtype=np.int64)
    else:
        order = np.arange(rows.shape[0])
    srt = rows[order]
    start = _runs(srt)
    inv = np.empty(rows.shape[0], dtype=np.int64)
    inv[order] = np.cumsum(start) - 1
    cnt = np.diff(np.append(np.flatnonzero(start), rows.shape[0]))
    vals = np.moveaxis(np.take(m, order[start], axis=0), 0, d)
    return _unique_result(_unique_dim, input, vals, inv, cnt, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``); NaN never equals NaN.

    >>> import retrograd as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 1]))
    tensor([1, 2, 1])
    """
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        change = _runs(flat.reshape(-1, 1))
        vals = flat[change]
        inv = (np.cumsum(change) - 1).reshape(a.shape)
    else:
        d = _unique_dim_check(a, dim, "unique_consecutive")
        m = np.moveaxis(a, d, 0)
        change = _runs(m.reshape(m.shape[0], int(np.prod(m.shape[1:]))))
        vals = np.compress(change, a, axis=d)
        inv = np.cumsum(change) - 1
    starts = np.flatnonzero(change)
    cnt = np.diff(np.append(starts, change.size))
    return _unique_result(_unique_consec, input, vals, inv, cnt, return_inverse, return_counts)
