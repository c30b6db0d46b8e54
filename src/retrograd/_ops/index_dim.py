"""Index_select, index_add, index_copy, index_fill, index_reduce (indexing along one dim)."""
from __future__ import annotations

import numpy as np

from .. import _creation as C
from .._tensor import Tensor
from ._out import declares_out, same_dtype
from ._common import checked_scalar, shape_str, tensor_args, to_tensor, wrap_dim
from ._registry import _wrap, apply, apply_inplace, primitive
from .reduction import _const
from .scatter import _np_index
from .shape import reshape

__all__ = ["index_select", "index_add", "index_copy", "index_fill", "index_add_", "index_copy_", "index_fill_",
           "index_reduce", "index_reduce_"]


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
            if dim == 1:  # PyTorch's kernel for dim 1 (index_select_out_cpu_dim1_) words this differently
                raise RuntimeError(f"INDICES element is out of DATA bounds, id={i} axis_dim={size}")
            raise IndexError("index out of range in self")
        msg = f"index {i} is out of bounds for dimension {dim} with size {size}"
        if kind == "index_add":
            raise RuntimeError(msg)
        if kind == "index_copy":
            raise IndexError("index_copy_(): " + msg)
        raise IndexError(msg)
    return idx % size if lo else idx


@declares_out(same_dtype("index_select(): self and result must have the same scalar type"), full_overlap=True)
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
    if input._data.ndim > 1 and idx.size and size == 0:  # (PyTorch's check before any index's bounds)
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    if input._data.ndim > 1 and input._data.size == 0 and ((idx < 0) | (idx >= size)).any():
        # (an empty input takes the kernel path of dim != 0, whose message names the index)
        raise RuntimeError(f"INDICES element is out of DATA bounds, id={int(idx[(idx < 0) | (idx >= size)][0])} "
                           f"axis_dim={size}")
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


@declares_out("same")
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


@declares_out("same")
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


_REDUCE = {"prod": np.multiply, "amax": np.maximum, "amin": np.minimum, "mean": np.add}


def _index_reduce_fw(a, s, *, dim, index, reduce, include_self):
    if a.ndim == 0:  # a 0-d self (and source) count as one slice
        return _index_reduce_fw(a.reshape(1), s.reshape(-1), dim=0, index=index, reduce=reduce,
                                include_self=include_self).reshape(())
    out = np.moveaxis(a.copy(), dim, 0)
    src = np.moveaxis(s, dim, 0)
    ufunc = _REDUCE[reduce]
    if not include_self:
        ident = {"prod": 1, "mean": 0, "amax": -np.inf, "amin": np.inf}[reduce]
        if a.dtype.kind != "f" and reduce in ("amax", "amin"):
            info = np.iinfo(a.dtype)
            ident = info.min if reduce == "amax" else info.max
        out[index] = ident
    ufunc.at(out, index, src)
    if reduce == "mean":
        counts = np.bincount(index, minlength=out.shape[0]).astype(np.float64) + (1 if include_self else 0)
        counts = np.maximum(counts, 1).reshape((-1,) + (1,) * (out.ndim - 1))
        out = out / counts if a.dtype.kind == "f" else out // counts.astype(a.dtype)
    return np.moveaxis(out.astype(a.dtype), 0, dim)


def _row_consts(a_shape, dim, index, include_self):
    """(weight of self's slices, count per row) as constants shaped to broadcast along ``dim``."""
    n = a_shape[dim]
    counts = np.bincount(index, minlength=n).astype(np.float64)
    hit = counts > 0
    self_w = np.ones(n) if include_self else (~hit).astype(np.float64)
    shape = [1] * len(a_shape)
    shape[dim] = n
    return self_w.reshape(shape), (counts + self_w).reshape(shape)


def _const_like(x, like: Tensor) -> Tensor:
    return _wrap(np.asarray(x, dtype=like._data.dtype), False, None, 0)


def _ir_grads(g, a, s, out, dim, index, reduce, include_self):
    """(grad of self, grad of source) of index_reduce, in retrograd ops (differentiable again)."""
    from .masked import masked_fill
    from .. import _ops as O

    if a.ndim == 0:  # as one slice of a 1-d self
        ga, gs = _ir_grads(reshape(g, (1,)), reshape(a, (1,)), reshape(s, (-1,)), reshape(out, (1,)), 0, index,
                           reduce, include_self)
        return reshape(ga, ()), reshape(gs, s.shape)
    idx = _wrap(index, False, None, 0)
    self_w, count = _row_consts(tuple(a.shape), dim, index, include_self)
    if reduce == "mean":
        gm = g / _const_like(count, g)
        return gm * _const_like(self_w, g), index_select(gm, dim, idx)
    if reduce == "prod":
        # PyTorch's rule, exact with zeros: a zero of self gets the product of the others (self's
        # zeros masked to one); a source zero alone in its slot gets the product of the rest
        masked_a = masked_fill(a, a == 0, 1)
        ga = g * index_reduce(masked_a, dim, idx, s, "prod", include_self=include_self) / masked_a
        s_zero = s == 0
        n_zero = index_select(index_add(C.zeros_like(a), dim, idx, s_zero.to(a.dtype)), dim, idx)
        single = O.logical_and(s_zero, n_zero == 1)
        with_one = index_reduce(a, dim, idx, masked_fill(s, single, 1), "prod", include_self=include_self)
        gs = O.where(single, index_select(g * with_one, dim, idx),
                     index_select(g * out, dim, idx) / masked_fill(s, s_zero, 1))
        return ga * _const_like(self_w, g), gs
    # amax / amin: the gradient is shared evenly between the tied extremes
    out_s = index_select(out, dim, idx)
    eq_a = O.eq(a, out).to(g.dtype).detach()
    eq_s = O.eq(s, out_s).to(g.dtype).detach()
    # As PyTorch, ties with self count in the share even when include_self=False.
    n = eq_a + index_add(C.zeros_like(eq_a), dim, idx, eq_s)
    n = O.where(n > 0, n, C.ones_like(n)).detach()
    return g * (eq_a * _const_like(self_w, g) / n), index_select(g / n, dim, idx) * eq_s


_index_reduce = primitive(
    "index_reduce", _index_reduce_fw, node="IndexReduceBackward0",
    a=lambda g, a, s, out, dim, index, reduce, include_self: _ir_grads(g, a, s, out, dim, index, reduce,
                                                                       include_self)[0],
    s=lambda g, a, s, out, dim, index, reduce, include_self: _ir_grads(g, a, s, out, dim, index, reduce,
                                                                       include_self)[1])


@declares_out("same")
def index_reduce(input: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                 include_self: bool = True) -> Tensor:
    """Reduce ``source``'s slices into ``input`` at ``index`` along ``dim`` (prod, mean, amax, amin).

    Gradients as PyTorch's (ties of amax/amin share it evenly; prod's is exact with zeros).

    >>> import retrograd as torch
    >>> torch.ones(3).index_reduce(0, torch.tensor([0, 0]), torch.tensor([2., 3.]), 'prod')
    tensor([6., 1., 1.])
    """
    if reduce not in _REDUCE:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or amin but got {reduce}.")
    d = wrap_dim(dim, input._data.ndim)
    idx = np.asarray(index._data).reshape(-1).astype(np.int64)
    return apply(_index_reduce, (input, to_tensor(source, dtype=input.dtype)),
                 {"dim": d, "index": idx, "reduce": reduce, "include_self": bool(include_self)})


def index_reduce_(self: Tensor, dim: int, index: Tensor, source: Tensor, reduce: str, *,
                  include_self: bool = True) -> Tensor:
    """In-place ``index_reduce``."""
    from ._inplace import inplace_via

    return inplace_via(self, lambda x: index_reduce(x, dim, index, source, reduce, include_self=include_self),
                       (source,))
