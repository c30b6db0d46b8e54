"""Getitem/setitem/index_put(_), nonzero/nonzero_static, argwhere, take, put, unravel_index."""
from __future__ import annotations

import warnings

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, Tensor as _T, _scalar_type_name, bump_version
from ..autograd import grad_mode
from . import _registry
from ._common import tensor_args, to_tensor
from ._composite import _tname
from ._out import declares_out, need_dtype, with_out
from ._registry import _wrap, apply, apply_inplace, primitive
from .reduction import _const
from .scatter import _np_index
from .shape import _as_view, _select, expand, reshape, slice_dim, sum_to, unsqueeze

__all__ = ["getitem", "setitem", "nonzero", "index_put_", "take", "argwhere", "index_put", "unravel_index", "put",
           "put_", "nonzero_static"]


def select(t: _T, dim: int, i: int) -> _T:
    """``t.select(dim, i)`` for a key item whose bounds ``_plan`` already checked."""
    return _as_view(apply(_select, (t,), {"dim": dim, "index": i % t._data.shape[dim]}), t)


def _index_bw_fw(g, *, shape, key):
    out = np.zeros(shape, dtype=g.dtype)
    np.add.at(out, key, g)
    return out


def _index_fw(a, *, key):
    r = a[key]
    # NumPy lays out ``a[:, idx]`` with the indexed dimension outermost in memory; PyTorch's
    # result is row-major, so ``.view()`` on it works
    return r if r.flags.c_contiguous else r.copy()


_index = primitive("index", _index_fw, node="IndexBackward0",
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


def _put_rule_a(g, key, accumulate):
    return g if accumulate else _zero_at(g, key)


def _put_rule_v(g, key, v_shape):
    # The region's gradient, summed back to the value's own shape (it may have been broadcast).
    r = apply(_index, (g,), {"key": key})
    return r if r._data.shape == tuple(v_shape) else sum_to(r, v_shape)


_index_put = primitive("index_put", _put_fw, node="IndexPutBackward0", a=_put_rule_a, v=_put_rule_v)


def _zero_at(g: Tensor, key) -> Tensor:
    zero = Tensor._wrap(np.zeros((), dtype=g._data.dtype), False, None, 0)
    return apply(_index_put, (g, zero), {"key": key, "accumulate": False})


# More table entries share the put forward and rules; PyTorch names the node after how the
# write was done: through a view of the base (CopySlices), with advanced indices on the whole
# tensor (IndexPutBackward0), as a fill (FillBackward3) or a copy_ (CopyBackwards) of all of it.
_index_put_view = primitive("index_put_view", _put_fw, node="CopySlices", a=_put_rule_a, v=_put_rule_v)
_index_put_fill = primitive("index_put_fill", _put_fw, node="FillBackward3", a=_put_rule_a, v=_put_rule_v)
_index_put_copy = primitive("index_put_copy", _put_fw, node="CopyBackwards", a=_put_rule_a, v=_put_rule_v)
_alias = primitive("alias", lambda a: a.view(), node="AliasBackward0", a=lambda g: g)

_INDEX_TYPES_MSG = "tensors used as indices must be long, int, byte or bool tensors"
_SEQ_WARNING = ("Using a non-tuple sequence for multidimensional indexing is deprecated and will be changed in "
                "pytorch 2.9; use x[tuple(seq)] instead of x[seq]. In pytorch 2.9 this will be interpreted as tensor "
                "index, x[torch.tensor(seq)], which will result either in an error or a different result")


def _is_advanced(k) -> bool:
    return isinstance(k, (Tensor, np.ndarray, list, range, bool, np.bool_)) or (
        isinstance(k, tuple))


_UINT8_WARNING = ("indexing with dtype torch.uint8 is now deprecated, please use a dtype torch.bool instead. "
                  "(Triggered internally at /__w/pytorch/pytorch/aten/src/ATen/native/IndexingUtils.h:37.)")


def _as_index_array(k) -> np.ndarray:
    """A tensor / list / array index as an int64 or bool NumPy array (PyTorch's dtype rules)."""
    if isinstance(k, Tensor):
        k = k._data
    elif not isinstance(k, np.ndarray):
        k = np.asarray(k)
        if k.size == 0:
            k = k.astype(np.int64)
    if k.dtype == np.uint8:
        warnings.warn(_UINT8_WARNING, UserWarning, stacklevel=4)
        return k.astype(bool)
    if k.dtype.kind == "b":
        return k
    if k.dtype.kind not in "iu":
        raise IndexError(_INDEX_TYPES_MSG)
    return k.astype(np.int64, copy=False)


def _normalize_advanced(key: tuple, shape) -> tuple:
    """index_put's indices: tensors/lists -> NumPy arrays, checking bounds with PyTorch's messages."""
    out = []
    dim = 0
    n_adv = 0
    for k in key:
        if k is None or k is Ellipsis or isinstance(k, slice):
            if k is Ellipsis:
                dim = len(shape) - sum(1 for x in key[key.index(Ellipsis) + 1:] if x is not None)
            elif isinstance(k, slice):
                dim += 1
            out.append(k)
            continue
        if isinstance(k, (int, np.integer)) and not isinstance(k, (bool, np.bool_)):
            out.append(int(k))
            dim += 1
            continue
        k = _as_index_array(k)
        if k.dtype == np.bool_:
            _check_mask(k, shape, dim)
            dim += k.ndim
        else:
            _check_bounds(k, shape, dim, n_adv)
            dim += 1
        n_adv += 1
        out.append(k)
    return tuple(out)


def _check_mask(k: np.ndarray, shape, dim: int) -> None:
    for j, s in enumerate(k.shape):
        if dim + j < len(shape) and s != shape[dim + j]:
            raise IndexError(
                f"The shape of the mask [{', '.join(map(str, k.shape))}] at index {j} does not match "
                f"the shape of the indexed tensor [{', '.join(map(str, shape))}] at index {dim + j}")


def _check_bounds(k: np.ndarray, shape, dim: int, ordinal: int) -> None:
    # PyTorch names the dimension by the index's position among the advanced indices.
    if dim < len(shape) and k.size:
        size = shape[dim]
        if not size:
            raise IndexError("index is out of bounds for dimension with size 0")
        bad = k[(k >= size) | (k < -size)]
        if bad.size:
            raise IndexError(f"index {int(bad.flat[0])} is out of bounds for dimension {ordinal} with size {size}")


def _seq_as_tuple(seq: list) -> bool:
    """PyTorch's (and old NumPy's) rule: a short list holding sequences, slices, None or ... is a tuple."""
    if len(seq) >= 32:
        return False
    return any(isinstance(x, (Tensor, np.ndarray, list, tuple, range, slice)) or x is None or x is Ellipsis
               for x in seq)


def _canon(k):
    """One key item as: int, slice (int bounds), None, Ellipsis, bool, or an index array."""
    if k is None or k is Ellipsis:
        return k
    if isinstance(k, slice):
        if isinstance(k.start, Tensor) or isinstance(k.stop, Tensor) or isinstance(k.step, Tensor):
            return slice(*(None if v is None else v.__index__() for v in (k.start, k.stop, k.step)))
        return k
    if isinstance(k, (bool, np.bool_)):
        return bool(k)
    if isinstance(k, (int, np.integer)):
        return int(k)
    if isinstance(k, Tensor):
        d = k._data
        if d.ndim == 0 and d.dtype.kind in "iu" and d.dtype != np.uint8:
            return int(d)
        if d.ndim == 0 and d.dtype == np.bool_:
            return bool(d)
        return _as_index_array(d)
    if isinstance(k, (list, tuple, range, np.ndarray)):  # (a range is a sequence of ints, as in torch)
        return _as_index_array(k)
    if isinstance(k, str):  # PyTorch tries to make a tensor of it
        raise TypeError("new(): invalid data type 'str'")
    try:
        return k.__index__()
    except AttributeError:
        raise IndexError("only integers, slices (`:`), ellipsis (`...`), None and long or byte Variables "
                         "are valid indices (got " + type(k).__name__ + ")") from None


def _plan(shape, key):
    """Split ``key`` the way PyTorch applies it.

    Returns (steps, adv_key, basic_key, items): ``steps`` are the view ops of the basic part
    (ints, slices, None) in order, each on the running result; ``adv_key`` is the NumPy key
    of the advanced part on that intermediate result (slices and index arrays only) or None;
    ``basic_key`` is the basic part as a NumPy key (index arrays replaced by ``:``);
    ``items`` the canonical key items.
    """
    if isinstance(key, tuple):
        items = key
    elif isinstance(key, list) and _seq_as_tuple(key):
        warnings.warn(_SEQ_WARNING, UserWarning, stacklevel=3)
        items = tuple(key)
    else:
        items = (key,)
    items = [_canon(k) for k in items]
    consumed = 0
    n_ell = 0
    for k in items:
        if k is Ellipsis:
            n_ell += 1
        elif isinstance(k, np.ndarray):
            consumed += k.ndim if k.dtype == np.bool_ else 1
        elif k is not None and not isinstance(k, bool):
            consumed += 1
    ndim = len(shape)
    if consumed > ndim:
        if ndim == 0 and not isinstance(key, tuple) and isinstance(items[0], int):
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or `tensor.item<T>()` "
                             "in C++ to convert a 0-dim tensor to a number")
        if ndim == 0 and not isinstance(key, tuple) and isinstance(items[0], slice):
            raise IndexError("slice() cannot be applied to a 0-dim tensor.")
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    steps, adv, basic = [], [], []
    cur = list(shape)  # the running (intermediate) shape
    dim = 0
    for pos_in_key, k in enumerate(items):
        if k is None:
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            basic.append(None)
            dim += 1
        elif k is Ellipsis:  # PyTorch lets each further ellipsis span the same number of dims
            n = ndim - consumed
            basic.extend([slice(None)] * n)
            dim += n
        elif isinstance(k, bool):
            steps.append(("unsqueeze", dim))
            cur.insert(dim, 1)
            basic.append(None)
            adv.append((dim, np.zeros(1 if k else 0, dtype=np.int64)))
            dim += 1
        elif isinstance(k, int):
            size = cur[dim]
            if k < -size or k >= size:  # PyTorch names the position in the key, not the dim
                raise IndexError(f"index {k} is out of bounds for dimension {pos_in_key} with size {size}")
            steps.append(("select", dim, k))
            del cur[dim]
            basic.append(k)
        elif isinstance(k, slice):
            if k.step is not None and k.step <= 0:
                raise ValueError("step must be greater than zero" if k.step else "slice step cannot be zero")
            start, stop, step = k.indices(cur[dim])
            # PyTorch skips slices that cover the whole dim inside tuple keys.
            steps.append(("slice", dim, k, start == 0 and stop >= cur[dim] and step == 1))
            cur[dim] = len(range(start, stop, step))
            basic.append(k)
            dim += 1
        else:
            n = k.ndim if k.dtype == np.bool_ else 1
            adv.append((dim, k))
            basic.extend([slice(None)] * n)
            dim += n
    if not adv:
        return steps, None, tuple(basic), items
    shapes = []
    for j, (d, arr) in enumerate(adv):  # checked on the result of the basic part, as PyTorch does
        if arr.dtype == np.bool_:
            _check_mask(arr, cur, d)
            shapes += [(int(arr.sum()),)] * max(arr.ndim, 1)
        else:
            _check_bounds(arr, cur, d, j)
            shapes.append(arr.shape)
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join("[" + ", ".join(map(str, sh)) + "]" for sh in shapes)) from None
    akey, pos = [], 0
    for d, arr in adv:
        akey.extend([slice(None)] * (d - pos))
        akey.append(arr)
        pos = d + (arr.ndim if arr.dtype == np.bool_ else 1)
    return steps, tuple(akey), tuple(basic), items


def _full(s) -> bool:
    """A slice step that keeps the whole dim."""
    return s[0] == "slice" and s[3]


def _apply_steps(t: Tensor, steps, bare: bool) -> Tensor:
    for s in steps:
        if s[0] == "select":
            t = select(t, s[1], s[2])
        elif s[0] == "unsqueeze":
            t = unsqueeze(t, s[1])
        elif bare or not _full(s):
            k = s[2]
            t = slice_dim(t, s[1], k.start, k.stop, 1 if k.step is None else k.step)
    return t


_PLAIN = (int, type(None))


def getitem(self: Tensor, key) -> Tensor:
    """``self[key]`` with PyTorch's semantics: the basic part (ints, slices, None, ...) as views
    applied first, then integer-array / mask indexing on the result (IndexBackward0)."""
    tk = type(key)
    if tk is int and self._data.ndim:
        size = self._data.shape[0]
        if key < -size or key >= size:
            raise IndexError(f"index {key} is out of bounds for dimension 0 with size {size}")
        return _as_view(apply(_select, (self,), {"dim": 0, "index": key % size}), self)
    if tk is slice and self._data.ndim and type(key.start) in _PLAIN and type(key.stop) in _PLAIN \
            and type(key.step) in _PLAIN:
        if key.step is not None and key.step <= 0:
            raise ValueError("step must be greater than zero" if key.step else "slice step cannot be zero")
        return slice_dim(self, 0, key.start, key.stop, 1 if key.step is None else key.step)
    steps, adv_key, _, _ = _plan(self._data.shape, key)
    out = _apply_steps(self, steps, isinstance(key, slice))
    if adv_key is not None:
        return apply(_index, (out,), {"key": adv_key})
    if out is self:
        return _as_view(apply(_alias, (self,)), self)
    return out


def put_args(self: Tensor, indices, values, name: str):
    """index_put's (key, values) after PyTorch's checks: tensor indices, their count, the
    values' type, dtype and shape (no leading-one stripping, unlike ``x[i] = v``)."""
    key = tuple(indices) if isinstance(indices, (tuple, list)) else (indices,)
    for i, k in enumerate(key):
        if not isinstance(k, Tensor):
            raise TypeError(f"expected Tensor as element {i} in argument 0, but got {type(k).__name__}")
    if len(key) > self._data.ndim:
        raise IndexError(f"too many indices for tensor of dimension {self._data.ndim} (got {len(key)})")
    if not isinstance(values, Tensor):
        raise TypeError(f"{name}(): argument 'values' (position 2) must be Tensor, not {type(values).__name__}")
    key = _normalize_advanced(key, self._data.shape)
    shapes = [(int(k.sum()),) if k.dtype == np.bool_ else k.shape for k in key]
    try:
        np.broadcast_shapes(*shapes)
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with shapes "
                         + ", ".join("[" + ", ".join(map(str, sh)) + "]" for sh in shapes)) from None
    if values._data.dtype != self._data.dtype:
        from .._tensor import _scalar_type_name

        raise RuntimeError(
            "Index put requires the source and destination dtypes match, got "
            f"{_scalar_type_name(self.dtype)} for the destination and {_scalar_type_name(values.dtype)} for the source.")
    target = _region_shape(self._data.shape, key)
    try:
        np.broadcast_to(np.empty(values._data.shape, dtype=bool), target)
    except ValueError:
        raise RuntimeError(
            f"shape mismatch: value tensor of shape [{', '.join(map(str, values._data.shape))}] cannot be broadcast "
            f"to indexing result of shape [{', '.join(map(str, target))}]") from None
    return key, values


def index_put_(self: Tensor, indices, values, accumulate: bool = False) -> Tensor:
    """``self[indices] = values`` (or ``+=`` with accumulate) in place, differentiable."""
    key, v = put_args(self, indices, values, "index_put_")
    return apply_inplace(_index_put, self, (v,), {"key": key, "accumulate": bool(accumulate)})


def _strip_leading_ones(v: Tensor) -> Tensor:
    # PyTorch drops leading size-1 dims of the value before broadcasting it into the target.
    shp = v._data.shape
    k = 0
    while k < len(shp) and shp[k] == 1:
        k += 1
    return reshape(v, shp[k:]) if k else v


def _region_shape(shape, key) -> tuple:
    return np.broadcast_to(np.empty((), dtype=bool), shape)[key].shape


def setitem(self: Tensor, key, value) -> None:
    """``self[key] = value``: an in-place write that keeps the graph correct (PyTorch's key rules)."""
    shape = self._data.shape
    steps, adv_key, basic, items = _plan(shape, key)
    through_view = any(not _full(s) for s in steps)
    if adv_key is None:
        op = _index_put_view if through_view else _index_put_copy if isinstance(value, Tensor) or not shape \
            else _index_put_fill
        np_key = basic
    else:
        op = _index_put_view if through_view else _index_put
        if any(s[0] == "select" for s in steps):
            # NumPy would place the advanced dims elsewhere: address the elements by flat position.
            np_key = np.unravel_index(np.arange(self._data.size).reshape(shape)[basic][adv_key], shape)
        else:
            np_key = tuple(items)
    target = _region_shape(shape, np_key)
    if isinstance(value, Tensor):
        v = _strip_leading_ones(value)
    else:
        v = Tensor._wrap(np.asarray(value, dtype=self._data.dtype), False, None, 0)
    if adv_key is None:
        if v._data.shape != target:
            expand(v, target)  # raises PyTorch's copy_ complaint when the value does not broadcast
        if v._data.dtype != self._data.dtype:
            v = v.to(self.dtype)
    else:
        try:
            np.broadcast_to(v._data, target)
        except ValueError:
            raise RuntimeError(
                f"shape mismatch: value tensor of shape [{', '.join(map(str, v._data.shape))}] cannot be broadcast to "
                f"indexing result of shape [{', '.join(map(str, target))}]") from None
        if v._data.dtype != self._data.dtype:
            from .._tensor import _scalar_type_name

            raise RuntimeError(
                "Index put requires the source and destination dtypes match, got "
                f"{_scalar_type_name(self.dtype)} for the destination and {_scalar_type_name(v.dtype)} for the source.")
    if through_view and grad_mode.state.enabled and self._requires_grad and self._grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an in-place operation.")
    if grad_mode.state.enabled and (self._requires_grad or v._requires_grad) or _registry._forward_ad is not None:
        apply_inplace(op, self, (v,), {"key": np_key, "accumulate": False})
        return
    # No graph to record: write straight into the data (one copy instead of two).
    from .._tensor import check_inplace

    check_inplace(self, (v,))
    try:
        self._data[np_key] = v._data
    except ValueError:
        if not self._data.flags.writeable:
            raise RuntimeError(
                "unsupported operation: more than one element of the written-to tensor refers to a single memory "
                "location. Please clone() the tensor before performing the operation.") from None
        raise
    bump_version(self)


@with_out("nonzero", need_dtype(lambda o: "nonzero: Expected out tensor to have scalar type Long but got scalar "
          f"type{_scalar_type_name(o.dtype)}", D.int64), grad_check=False)
def _nonzero(input: Tensor, *, as_tuple: bool = False):
    d = input._data
    idx = np.nonzero(d if d.ndim else d.reshape(1))
    if as_tuple:  # PyTorch: nonzero().unbind(1), so the results are views of one (n, ndim) tensor
        base = Tensor._wrap(np.stack(idx, axis=1).astype(np.int64), False, None, 0)
        return tuple(_as_view(Tensor._wrap(base._data[:, j], False, None, 0), base) for j in range(len(idx)))
    if d.ndim == 0:  # one row per non-zero, no columns
        return Tensor._wrap(np.zeros((int(d != 0), 0), np.int64), False, None, 0)
    return Tensor._wrap(np.stack(idx, axis=1).astype(np.int64), False, None, 0)


def nonzero(input: Tensor, *, as_tuple: bool = False, out: Tensor | None = None):
    """Indices of non-zero elements: an (n, ndim) int64 tensor, or a tuple of 1-d tensors."""
    if as_tuple and out is not None:
        raise RuntimeError("nonzero does not support the out kwarg when as_tuple is True")
    return _nonzero(input, as_tuple=as_tuple) if out is None else _nonzero(input, as_tuple=as_tuple, out=out)


# ---------------------------------------------------------------- take / index_put
def _take_bw_np(grad, *, shape, index):
    out = np.zeros(int(np.prod(shape)), dtype=grad.dtype)
    np.add.at(out, index, grad)
    return out.reshape(shape)


_take = primitive("take", lambda a, *, index: a.reshape(-1)[index], node="TakeBackward0",
                  a=lambda g, a_shape, index: apply(_take_backward, (g,), {"shape": a_shape, "index": index}))
_take_backward = primitive("take_backward", _take_bw_np, node="TakeBackwardBackward0",
                           grad=lambda g, index: apply(_take, (g,), {"index": index}))


def _take_out(result: Tensor, out: Tensor) -> None:
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"take(): self and out expected to have the same dtype, but got self.dtype = "
                           f"{_scalar_type_name(result.dtype)} and out.dtype = {_scalar_type_name(out.dtype)}")


@declares_out(_take_out, full_overlap=True)
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

    key, v = put_args(input, indices, values, "index_put")
    return apply(_index_put, (input, v), {"key": key, "accumulate": bool(accumulate)})


# ---------------------------------------------------------------- no-grad index queries
def argwhere(input: Tensor) -> Tensor:
    """Indices of the non-zero elements, one row each (same as ``nonzero()``)."""
    return nonzero(input)


def unravel_index(indices, shape) -> tuple:
    """Coordinates of flat ``indices`` in an array of ``shape`` (a tuple of tensors).

    >>> import retrograd as torch
    >>> torch.unravel_index(torch.tensor(4), (3, 2))
    (tensor(2), tensor(0))
    """
    if not isinstance(indices, Tensor):
        raise TypeError(f"expected 'indices' to be integer dtype, but got {type(indices).__name__}")
    a = indices._data
    if a.dtype.kind not in "iu":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    if isinstance(shape, Tensor) or not isinstance(shape, (int, np.integer, list, tuple)):
        raise TypeError(f"expected 'shape' to be int or sequence of ints, but got {type(shape)}")
    if not isinstance(shape, (int, np.integer)):
        for s in shape:
            if not isinstance(s, (int, np.integer)) or isinstance(s, bool):
                raise TypeError(f"expected 'shape' sequence to only contain ints, but got {type(s)}")
    shape = (int(shape),) if isinstance(shape, (int, np.integer)) else tuple(int(s) for s in shape)
    if any(s < 0 for s in shape):
        raise ValueError("'shape' cannot have negative values, but got " + str(tuple(shape)))
    # PyTorch divides with floor semantics and wraps out-of-range indices (no bounds check)
    rest = a.astype(np.int64)
    coords = []
    for s in reversed(shape):
        if s == 0:
            coords.append(np.zeros_like(rest))
            continue
        coords.append(np.mod(rest, s))
        rest = np.floor_divide(rest, s)
    return tuple(_const(c) for c in reversed(coords))


# ---------------------------------------------------------------------------- put, index_reduce
def _flat_index(input: Tensor, index) -> np.ndarray:
    idx = np.asarray(index._data if isinstance(index, Tensor) else index).reshape(-1)
    n = input._data.size
    if idx.dtype.kind not in "iu":
        raise RuntimeError("put_(): Expected a long tensor for index, but got "
                           f"{_tname(to_tensor(index))}")
    bad = (idx < -n) | (idx >= n)
    if bad.any():
        raise IndexError(f"out of range: tried to access index {int(idx[bad][0])} on a tensor of {n} elements.")
    return np.where(idx < 0, idx + n, idx)


@tensor_args("put", index=2, source=3)
def put(input: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """``input`` with ``source`` written at flat indices ``index`` (summed when ``accumulate``).

    >>> import retrograd as torch
    >>> torch.zeros(2, 2).put(torch.tensor([0, 3]), torch.tensor([1., 2.]))
    tensor([[1., 0.],
            [0., 2.]])
    """

    idx = _flat_index(input, index)
    src = reshape(to_tensor(source, dtype=input.dtype), -1)
    flat = reshape(input, -1)
    return reshape(index_put(flat, (_wrap(idx, False, None, 0),), src, accumulate), input._data.shape)


@tensor_args("put_", True, index=1, source=2)
def put_(self: Tensor, index: Tensor, source: Tensor, accumulate: bool = False) -> Tensor:
    """In-place ``put``."""
    from ._inplace import inplace_via

    return inplace_via(self, lambda x: put(x, index, source, accumulate), (source,))


def nonzero_static(input: Tensor, *, size: int, fill_value: int = -1) -> Tensor:
    """``nonzero`` padded with ``fill_value`` (or truncated) to exactly ``size`` rows.

    >>> import retrograd as torch
    >>> torch.tensor([0, 3, 0]).nonzero_static(size=2)
    tensor([[ 1],
            [-1]])
    """
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got size: {size}")
    nz = np.argwhere(np.asarray(input._data)).astype(np.int64)[:size]
    out = np.full((size, input._data.ndim), fill_value, dtype=np.int64)
    out[:len(nz)] = nz
    return _wrap(out, False, None, 0)
