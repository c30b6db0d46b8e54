"""More reductions: prod, max/min families, var/std, norm, logsumexp, cumulative ops, order
statistics (median, mode, sort, topk, kthvalue), logical and NaN-aware reductions.

Gradient conventions follow PyTorch:
* full max/min, amax/amin, aminmax, full median/nanmedian split the gradient evenly between tied
  elements;
* max/min/median/nanmedian/mode/kthvalue along a dim, sort, topk, cummax/cummin route it to the
  selected index.  Those ops select values with a known index array; their rule scatters the
  gradient back (``gather_backward``), whose own rule gathers again, so every order works.
"""
from __future__ import annotations

import builtins as _b

import numpy as np

from .. import _dtype as D
from .. import return_types as RT
from .._tensor import Tensor
from ..autograd import grad_mode
from . import _stl_order as _stl
from ._common import float_dtype_for, grad_dtype, no_keepdim_without_dim, wrap_dim, wrap_dims
from ._out import float_out, reduce_out, same_as_input, values_indices_out, with_out
from ._registry import apply, apply_inplace, primitive
from .indexing_more import _along, gather_backward, masked_fill
from .pointwise import exp
from .reduce import _np_mean
from .reduce import mean as _mean
from .reduce import sum as _sum
from .reduce import unsqueeze_dims
from .shape import expand, movedim, narrow, reshape, unsqueeze
from .shape_more import cat
from .shape_more import flip_method as flip  # (internal calls pass one int dim)

__all__ = ["prod", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std", "var_mean", "std_mean", "norm",
           "logsumexp", "cumsum", "cumprod", "cummax", "cummin", "all", "any", "median", "nanmedian", "mode", "sort",
           "argsort", "topk", "kthvalue", "count_nonzero", "nansum", "nanmean", "aminmax", "cumsum_", "cumprod_"]
METHODS = ["prod", "amax", "amin", "max", "min", "argmax", "argmin", "var", "std", "norm", "logsumexp", "cumsum",
           "cumprod", "cummax", "cummin", "all", "any", "median", "nanmedian", "mode", "sort", "argsort", "topk",
           "kthvalue", "count_nonzero", "nansum", "nanmean", "aminmax", "cumsum_", "cumprod_"]

_wrap = Tensor._wrap


def _const(a) -> Tensor:
    return _wrap(np.asarray(a), False, None, 0)


def _long(a) -> Tensor:
    return _wrap(np.asarray(a, dtype=np.int64), False, None, 0)


def _numel(shape, dims) -> int:
    n = 1
    for d in dims:
        n *= shape[d]
    return n


def _red_dims(dim, ndim: int) -> tuple:
    """dim None / () -> every dim (PyTorch's full reduction), else the wrapped dims."""
    if dim is None or (isinstance(dim, (tuple, list)) and len(dim) == 0):
        return tuple(range(ndim))
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()  # a 0-d tensor accepts dim 0 / -1 and reduces nothing


def _scalar_name(t: Tensor) -> str:
    from .._tensor import _scalar_type_name

    return _scalar_type_name(t.dtype)


def _errstate():
    return np.errstate(divide="ignore", invalid="ignore", over="ignore", under="ignore")


def _isnan(a: np.ndarray) -> np.ndarray:
    return np.isnan(a) if a.dtype.kind == "f" else np.zeros(a.shape, dtype=bool)


# ---------------------------------------------------------------- selecting by index (values side)
def _select_fw(a, *, dim, idx, out_shape):
    src = a.reshape(1) if a.ndim == 0 else a
    return src[_along(idx, dim)].reshape(out_shape)


def _select_rule(g, a_shape, dim, idx, out_shape):
    ishape = tuple(a_shape) or (1,)
    gi = g if tuple(g.shape) == idx.shape else reshape(g, idx.shape)
    r = gather_backward(gi, ishape, dim, idx)
    return r if ishape == tuple(a_shape) else reshape(r, a_shape)


def _selecting(name: str, node: str):
    return primitive(name, _select_fw, node=node, a=_select_rule)


_max_dim = _selecting("max_dim", "MaxBackward0")
_min_dim = _selecting("min_dim", "MinBackward0")
_median_dim_op = _selecting("median_dim", "MedianBackward1")
_nanmedian_dim_op = _selecting("nanmedian_dim", "NanmedianBackward1")
_mode = _selecting("mode", "ModeBackward0")
_kthvalue = _selecting("kthvalue", "KthvalueBackward0")
_sort = _selecting("sort", "SortBackward0")
_sort_stable = _selecting("sort_stable", "SortBackward1")
_topk = _selecting("topk", "TopkBackward0")
_cummax = _selecting("cummax", "CummaxBackward0")
_cummin = _selecting("cummin", "CumminBackward0")


def _max_out(result: Tensor, out: Tensor) -> None:
    """max/min(x, out=): PyTorch's (internal-check) message for an ``out`` the result can't be cast to."""
    if not D.can_cast(result.dtype, out.dtype):
        raise RuntimeError("Expected canCast( typeMetaToScalarType(self.dtype()), typeMetaToScalarType(out.dtype())) "
                           "to be true, but got false.  (Could this error message be improved?  If so, please report "
                           "an enhancement request to PyTorch.)")


def _max_out_mode(args, kwargs):
    """The elementwise overload ``max(x, y, out=)`` casts into ``out`` as binary ops do."""
    other = args[1] if len(args) > 1 else kwargs.get("other", kwargs.get("dim"))
    return "cast" if isinstance(other, Tensor) else _max_out


def _nanmean_out(result: Tensor, out: Tensor) -> None:
    """nanmean(x, out=) runs nansum into ``out`` first: an integral ``out`` has no such kernel."""
    if not out.dtype.is_floating_point:
        raise NotImplementedError(f"\"nansum_cpu\" not implemented for '{_scalar_name(out)}'")


def _values_indices(cls, op, input: Tensor, d: int, idx: np.ndarray, keepdim: bool):
    """(values, indices) named tuple from an index array shaped like the kept-dim result."""
    if not idx.flags.c_contiguous:  # (both results row-major, as PyTorch's)
        idx = np.ascontiguousarray(idx)
    if input._data.ndim == 0:
        out_shape = ()
    elif keepdim:
        out_shape = idx.shape
    else:
        out_shape = idx.shape[:d] + idx.shape[d + 1:]
    vals = apply(op, (input,), {"dim": d, "idx": idx, "out_shape": out_shape})
    return cls((vals, _long(idx.reshape(out_shape))))


def _dim_setup(input: Tensor, dim, name: str):
    """(array viewed as >= 1-d, wrapped dim) with PyTorch's empty-dim complaint."""
    a = input._data
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    if a1.shape[d] == 0:
        raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
    return a1, d


def _take_k(order: np.ndarray, d: int, k) -> np.ndarray:
    k = np.asarray(k)
    if k.ndim == 0:
        return np.take(order, [int(k)], axis=d)
    return np.take_along_axis(order, np.expand_dims(k, d), d)


def _argsort_np(a: np.ndarray, d: int, descending: bool) -> np.ndarray:
    """Stable order along ``d``; NaN counts as the largest value (PyTorch)."""
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    o = np.flip(np.argsort(np.flip(a, d), axis=d, kind="stable"), d)
    return a.shape[d] - 1 - o


# ---------------------------------------------------------------- evenly split between ties
def _evenly(g: Tensor, a: Tensor, out: Tensor) -> Tensor:
    """PyTorch's evenly_distribute_backward: the gradient shared by every element equal to ``out``."""
    mask = (a != a) if bool(out._data != out._data) else (a == out)
    return g * mask / _sum(mask)


def _tied_share(g: Tensor, a: Tensor, out: Tensor, dims, keepdim: bool) -> Tensor:
    """amax/amin rule: ``g`` split between the elements equal to the result in each slice."""
    gu = unsqueeze_dims(g, dims, keepdim, a.shape)
    ou = unsqueeze_dims(out, dims, keepdim, a.shape)
    mask = a == ou
    return gu * mask / _sum(mask, dims, keepdim=True)


def _empty_full(input: Tensor, name: str) -> None:
    if input._data.size == 0:
        raise RuntimeError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0. Specify the "
                           "reduction dim with the 'dim' argument.")


def _empty_dims(input: Tensor, dims, name: str) -> None:
    for d in dims:
        if input._data.shape[d] == 0:
            raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")


# ---------------------------------------------------------------- amax / amin / aminmax
# (the ufuncs' own reduce: np.amax's wrapper costs ~10 us, 7% of a 1M-element reduction)
_amax = primitive("amax", lambda a, *, dims, keepdim: np.asarray(np.maximum.reduce(a, axis=dims, keepdims=keepdim)),
                  node="AmaxBackward0",
                  a=lambda g, a, out, dims, keepdim: _tied_share(g, a, out, dims, keepdim))
_amin = primitive("amin", lambda a, *, dims, keepdim: np.asarray(np.minimum.reduce(a, axis=dims, keepdims=keepdim)),
                  node="AminBackward0",
                  a=lambda g, a, out, dims, keepdim: _tied_share(g, a, out, dims, keepdim))


def _amax_amin(op, name: str, input: Tensor, dim, keepdim: bool) -> Tensor:
    dims = _red_dims(dim, input._data.ndim)
    if input._data.size == 0:
        if not dims or dim is None or dim == ():
            _empty_full(input, name)
        _empty_dims(input, dims, name)
    return apply(op, (input,), {"dims": dims, "keepdim": bool(keepdim)})


@with_out("amax", same_as_input)
def amax(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """Maximum over ``dim`` (int or tuple; all dims by default); ties share the gradient evenly.

    >>> import retrograd as torch
    >>> torch.tensor([[1., 5.], [4., 2.]]).amax(1)
    tensor([5., 4.])
    """
    return _amax_amin(_amax, "amax", input, dim, keepdim)


@with_out("amin", same_as_input)
def amin(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """Minimum over ``dim`` (int or tuple; all dims by default); ties share the gradient evenly."""
    return _amax_amin(_amin, "amin", input, dim, keepdim)


def _aminmax_fw(a, *, dims, keepdim):
    return (np.asarray(np.amin(a, axis=dims, keepdims=keepdim)), np.asarray(np.amax(a, axis=dims, keepdims=keepdim)))


_aminmax = primitive("aminmax", _aminmax_fw, node="AminmaxBackward0", n_out=2,
                     a=lambda g, a, out, dims, keepdim: _tied_share(g[0], a, out[0], dims, keepdim)
                     + _tied_share(g[1], a, out[1], dims, keepdim))


def aminmax(input: Tensor, *, dim: int | None = None, keepdim: bool = False, out=None):
    """(min, max) in one pass, as ``return_types.aminmax``."""
    if dim is None:
        if input._data.size == 0:
            raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the operation has no "
                               "identity.")
        dims = tuple(range(input._data.ndim))
    else:
        d = wrap_dim(dim, input._data.ndim)
        dims = (d,) if input._data.ndim else ()
        for d in dims:
            if input._data.shape[d] == 0:  # (torch's message here has no parentheses)
                raise IndexError(f"aminmax: Expected reduction dim {d} to have non-zero size.")
    mn, mx = apply(_aminmax, (input,), {"dims": dims, "keepdim": bool(keepdim)})
    return RT.aminmax((mn, mx))


# ---------------------------------------------------------------- max / min
_max_all = primitive("max", lambda a: np.asarray(np.max(a)), node="MaxBackward1",
                     a=lambda g, a, out: _evenly(g, a, out))
_min_all = primitive("min", lambda a: np.asarray(np.min(a)), node="MinBackward1",
                     a=lambda g, a, out: _evenly(g, a, out))


def _max_min(input: Tensor, dim, keepdim: bool, largest: bool):
    name = "max" if largest else "min"
    if isinstance(dim, Tensor):  # max(a, b) is the elementwise maximum
        from .pointwise_more import maximum, minimum

        return (maximum if largest else minimum)(input, dim)
    if dim is None:
        if keepdim:
            raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool, ), but "
                            "expected one of:\n * ()\n * (Tensor other)\n * (int dim, bool keepdim = False)")
        _empty_full(input, name)
        return apply(_max_all if largest else _min_all, (input,))
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"{name}() received an invalid combination of arguments - got (Tensor, "
                        f"{type(dim).__name__}), but expected one of:\n * (Tensor input)\n"
                        " * (Tensor input, Tensor other)\n * (Tensor input, int dim, bool keepdim = False)")
    a, d = _dim_setup(input, dim, name)
    idx = np.expand_dims((np.argmax if largest else np.argmin)(a, axis=d), d)
    return _values_indices(RT.max if largest else RT.min, _max_dim if largest else _min_dim, input, d, idx, keepdim)


@with_out("max", _max_out, tuple_mode="same", select=_max_out_mode)
def max(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """``max(x)``: the largest element; ``max(x, dim)``: ``(values, indices)``; ``max(x, y)``: elementwise.

    >>> import retrograd as torch
    >>> torch.tensor([[1., 5.], [4., 2.]]).max(1).indices
    tensor([1, 0])
    """
    return _max_min(input, dim, keepdim, True)


@with_out("min", _max_out, tuple_mode="same", select=_max_out_mode)
def min(input: Tensor, dim=None, keepdim: bool = False, *, out=None):
    """``min(x)``, ``min(x, dim)`` -> ``(values, indices)``, or elementwise ``min(x, y)``."""
    return _max_min(input, dim, keepdim, False)


def _arg(input: Tensor, dim, keepdim: bool, largest: bool) -> Tensor:
    name = "argmax" if largest else "argmin"
    a = input._data
    if a.dtype == np.bool_:
        raise RuntimeError(f"{name}(): does not support bool input")
    f = np.argmax if largest else np.argmin
    if dim is None:
        if a.size == 0:
            raise IndexError(f"{name}(): Expected reduction dim to be specified for input.numel() == 0.")
        r = np.asarray(f(a.reshape(-1)))
        return _long(r.reshape((1,) * a.ndim) if keepdim else r)
    a1, d = _dim_setup(input, dim, name)
    r = f(a1, axis=d)
    if keepdim and a.ndim:
        r = np.expand_dims(r, d)
    return _long(r.reshape(()) if a.ndim == 0 else r)


def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the (first) largest element, flat or along ``dim``; NaN counts as largest."""
    return _arg(input, dim, keepdim, True)


def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the (first) smallest element, flat or along ``dim``."""
    return _arg(input, dim, keepdim, False)


# ---------------------------------------------------------------- prod
def _prod_dtype(a):
    return a.dtype if a.dtype.kind in "iub" else None  # (the caller casts integers to int64, see _cum_dtype)


_prod_all = primitive("prod", lambda a: np.asarray(np.prod(a, dtype=_prod_dtype(a))), node="ProdBackward0",
                      a=lambda g, a, out: _prod_all_bw(g, a, out))
_prod_dim = primitive("prod_dim", lambda a, *, dim, keepdim: np.asarray(
    np.prod(a.reshape(1) if a.ndim == 0 else a, axis=dim, keepdims=keepdim, dtype=_prod_dtype(a))).reshape(
    _prod_shape(a.shape, dim, keepdim)), node="ProdBackward1",
    a=lambda g, a, out, dim, keepdim: _prod_dim_bw(g, a, out, dim, keepdim))


def _prod_shape(shape, dim, keepdim):
    if not shape:
        return ()
    return shape[:dim] + ((1,) if keepdim else ()) + shape[dim + 1:]


def _prod_safe_zeros_bw(g: Tensor, inp: Tensor, dim: int) -> Tensor:
    """PyTorch's prod_safe_zeros_backward: products of all other elements via exclusive cumprods."""
    n = inp.shape[dim]
    if inp._data.size == 0:
        return expand(g, inp.shape)
    ones_shape = list(inp.shape)
    ones_shape[dim] = 1
    ones = _const(np.ones(ones_shape, dtype=inp._data.dtype))
    exclusive_normal = cumprod(cat([ones, narrow(inp, dim, 0, n - 1)], dim), dim)
    narrow_reverse = flip(narrow(inp, dim, 1, n - 1), dim)
    exclusive_reverse = flip(cumprod(cat([ones, narrow_reverse], dim), dim), dim)
    return g * (exclusive_normal * exclusive_reverse)


def _prod_all_bw(g: Tensor, a: Tensor, out: Tensor) -> Tensor:
    if a._data.ndim == 0:
        return g
    zeros = int((a._data == 0).sum())
    if zeros == 0:
        return g * (out / a)
    if zeros > 1 and not grad_mode.state.enabled:  # the exact formula only matters for higher orders
        return expand(g, a.shape) * 0
    return reshape(_prod_safe_zeros_bw(g, reshape(a, (-1,)), 0), a.shape)


def _prod_dim_bw(g: Tensor, a: Tensor, out: Tensor, dim: int, keepdim: bool) -> Tensor:
    if a._data.ndim == 0:
        return g
    gu = unsqueeze_dims(g, (dim,), keepdim, a.shape)
    ou = unsqueeze_dims(out, (dim,), keepdim, a.shape)
    if not (a._data == 0).any():
        return gu * (ou / a)
    return _prod_safe_zeros_bw(gu, a, dim)


@reduce_out("prod")
def prod(input: Tensor, dim: int | None = None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Product of all elements or along one ``dim`` (integers multiply in int64); zeros handled exactly.

    >>> import retrograd as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).prod(1)
    tensor([ 2., 12.])
    """
    dtype = _cum_dtype(input, dtype)
    if dim is None:
        no_keepdim_without_dim("prod", keepdim, "int dim")
        return apply(_prod_all, (input,), None, dtype)
    if not isinstance(dim, (int, np.integer)):
        raise TypeError(f"prod() received an invalid combination of arguments - got ({type(dim).__name__}), but "
                        "expected one of:\n * (*, torch.dtype dtype = None)\n"
                        " * (int dim, bool keepdim = False, *, torch.dtype dtype = None)\n")
    d = wrap_dim(dim, input._data.ndim)
    return apply(_prod_dim, (input,), {"dim": d, "keepdim": bool(keepdim)}, dtype)


# ---------------------------------------------------------------- cumulative ops
def _cum_fw(f, from_zero=False):
    def fw(a, *, dim):
        # integers keep the dtype they arrive in (the callers cast to int64 when no dtype= was
        # given): numpy would widen int8/int16/int32 to the platform int on its own
        dt = a.dtype if a.dtype.kind in "iub" else None
        if a.ndim == 0:
            r = a.astype(dt or a.dtype, copy=True)
        else:
            r = f(a, axis=dim, dtype=dt)
        if from_zero and r.dtype.kind in "fc":
            r += 0.0  # PyTorch's running sum starts at +0: -0 entries come out as +0
        return r
    return fw


def _cumprod_bw(g: Tensor, a: Tensor, out: Tensor, dim: int) -> Tensor:
    if a._data.ndim == 0 or a._data.size <= 1 or a._data.shape[dim] == 1:
        return g
    if not (a._data == 0).any():
        return flip(cumsum(flip(g * out, dim), dim), dim) / a
    if not grad_mode.state.enabled:
        return _cumprod_bw_zeros(g, a, dim)
    # With zeros: grad[k] = sum_{j >= k} g[j] * prod_{i <= j, i != k} a[i], as a (k, j) table.
    x = movedim(a, dim, -1)
    gg = movedim(g, dim, -1)
    n = x.shape[-1]
    table = expand(unsqueeze(x, -2), tuple(x.shape[:-1]) + (n, n))
    table = masked_fill(table, _const(np.eye(n, dtype=bool)), 1)
    partial = cumprod(table, -1)
    contrib = masked_fill(unsqueeze(gg, -2) * partial, _const(~np.triu(np.ones((n, n), dtype=bool))), 0)
    return movedim(_sum(contrib, -1), -1, dim)


def _cumprod_bw_zeros(g: Tensor, a: Tensor, dim: int) -> Tensor:
    """PyTorch's first-order cumprod backward with zeros: only the terms before the second zero of each
    slice are summed (the later ones are zero in exact arithmetic), so NaN / inf there do not leak."""
    z = a._data == 0
    cs = np.cumsum(z, axis=dim)
    before = cs == 0                                   # [0, z1)
    first = z & (cs == 1)                              # z1
    between = (cs == 1) & ~first                       # (z1, z2)
    # k < z1: sum_{z1 > j >= k} g_j out_j / a_k, with out computed from the masked input
    a0 = masked_fill(a, _const(~before), 1)
    w = masked_fill(g * cumprod(a0, dim), _const(~before), 0)
    part_before = masked_fill(flip(cumsum(flip(w, dim), dim), dim) / a0, _const(~before), 0)
    # k = z1: prod_{i < z1} a_i * sum_{z1 <= j < z2} g_j prod_{z1 < i <= j} a_i
    tail = cumprod(masked_fill(a, _const(~between), 1), dim)
    s = _sum(masked_fill(g * tail, _const(cs != 1), 0), dim, keepdim=True)
    head = prod(a0, dim, keepdim=True)
    part_first = masked_fill(s * head, _const(~first), 0)
    return part_before + part_first


_cumsum = primitive("cumsum", _cum_fw(np.cumsum, True), node="CumsumBackward0",
                    a=lambda g, dim: flip(cumsum(flip(g, dim), dim), dim) if g.ndim else g)
_cumprod = primitive("cumprod", _cum_fw(np.cumprod), node="CumprodBackward0",
                     a=lambda g, a, out, dim: _cumprod_bw(g, a, out, dim))


def cumsum(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    """Running sum along ``dim`` (integers accumulate in int64).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).cumsum(0)
    tensor([1., 3., 6.])
    """
    if out is not None:
        return _cum_out(cumsum, "cumsum", input, dim, dtype, out)
    _no_bool_cum("cumsum", dtype)
    return apply(_cumsum, (input,), {"dim": wrap_dim(dim, input._data.ndim)}, _cum_dtype(input, dtype))


def _cum_dtype(input: Tensor, dtype):
    """The dtype cumsum/cumprod compute in: ``dtype=`` if given, else int64 for integers and bool."""
    if dtype is not None:
        return grad_dtype(input, dtype)
    return D.int64 if input._data.dtype.kind in "iub" else None


def _no_bool_cum(name: str, dtype) -> None:
    # PyTorch runs cumsum/cumprod(dtype=) through its out= kernel, which has no bool version.
    if dtype is D.bool:
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")


def _cum_out(fn, name: str, input: Tensor, dim, dtype, out) -> Tensor:
    """cumsum/cumprod ``out=``: PyTorch computes in ``out``'s dtype (bool has no kernel)."""
    from ._out import write_out
    from .linalg import _check_out

    _check_out(name, out, input)
    if out._data.dtype.kind == "b":
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
    return write_out(name, fn(input, dim, dtype=dtype or out.dtype), out, "same")


def cumprod(input: Tensor, dim: int, *, dtype=None, out=None) -> Tensor:
    """Running product along ``dim``; the gradient is exact with zeros in the input."""
    if out is not None:
        return _cum_out(cumprod, "cumprod", input, dim, dtype, out)
    _no_bool_cum("cumprod", dtype)
    return apply(_cumprod, (input,), {"dim": wrap_dim(dim, input._data.ndim)}, _cum_dtype(input, dtype))


def _cum_inplace(op, name: str, self: Tensor, dim, dtype) -> Tensor:
    if dtype is not None and dtype is not self.dtype:
        raise RuntimeError(f"Bad in-place call: input tensor dtype {_C_NAME[self.dtype.name]} and output "
                           f"tensor dtype {_C_NAME[dtype.name]} should match")
    if self._data.dtype.kind == "b":  # the int64 running sum of bools has nowhere to go
        raise NotImplementedError(f"\"{name}_out_cpu\" not implemented for 'Bool'")
    return apply_inplace(op, self, (), {"dim": wrap_dim(dim, self._data.ndim)})


# C type names, as PyTorch's "Bad in-place call" message spells them
_C_NAME = {"float32": "float", "float64": "double", "float16": "c10::Half", "int64": "long int",
           "int32": "int", "int16": "short int", "int8": "signed char", "uint8": "unsigned char",
           "bool": "bool"}


def cumsum_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    """In-place :func:`cumsum` (``dtype``, if given, must be ``self``'s dtype).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).cumsum_(0)
    tensor([1., 3., 6.])
    """
    return _cum_inplace(_cumsum, "cumsum", self, dim, dtype)


def cumprod_(self: Tensor, dim: int, *, dtype=None) -> Tensor:
    """In-place :func:`cumprod` (``dtype``, if given, must be ``self``'s dtype).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3.]).cumprod_(0)
    tensor([1., 2., 6.])
    """
    return _cum_inplace(_cumprod, "cumprod", self, dim, dtype)


def _cum_ext_idx(a: np.ndarray, d: int, larger: bool) -> np.ndarray:
    m = np.moveaxis(a, d, -1)
    idx = np.zeros(m.shape, dtype=np.int64)
    if m.shape[-1] == 0:
        return np.moveaxis(idx, -1, d)
    cur = m[..., 0].copy()
    ci = np.zeros(cur.shape, dtype=np.int64)
    for i in range(1, m.shape[-1]):
        x = m[..., i]
        better = (x >= cur) if larger else (x <= cur)
        take = _isnan(x) | (~_isnan(cur) & better)
        cur = np.where(take, x, cur)
        ci = np.where(take, i, ci)
        idx[..., i] = ci
    return np.moveaxis(idx, -1, d)


def _cum_ext(input: Tensor, dim: int, larger: bool):
    a = input._data
    name = "cummax" if larger else "cummin"
    if a.size == 0:  # (PyTorch checks no dim on an empty input)
        cls, op = (RT.cummax, _cummax) if larger else (RT.cummin, _cummin)
        idx = np.zeros(a.shape, dtype=np.int64)
        return cls((apply(op, (input,), {"dim": 0, "idx": idx, "out_shape": a.shape}), _long(idx)))
    if a.ndim == 0 and dim not in (0, -1):
        raise IndexError(f"{name}(): Expected reduction dim -1 or 0 for scalar but got {dim}")
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    idx = _cum_ext_idx(a1, d, larger)
    cls, op = (RT.cummax, _cummax) if larger else (RT.cummin, _cummin)
    return _values_indices(cls, op, input, d, idx, True)


def cummax(input: Tensor, dim: int):
    """Running maximum along ``dim`` and where it was found, as ``(values, indices)``."""
    return _cum_ext(input, dim, True)


def cummin(input: Tensor, dim: int):
    """Running minimum along ``dim`` and where it was found, as ``(values, indices)``."""
    return _cum_ext(input, dim, False)


# ---------------------------------------------------------------- logsumexp
def _lse_fw(a, *, dims, keepdim):
    with _errstate():
        if a.size:
            m = np.amax(a, axis=dims, keepdims=True)
            m = np.where(np.isfinite(m), m, 0)
        else:
            m = np.zeros([1 if i in dims else s for i, s in enumerate(a.shape)], dtype=a.dtype)
        r = np.log(np.sum(np.exp(a - m), axis=dims, keepdims=True)) + m
    return np.asarray(r if keepdim else np.squeeze(r, dims), dtype=a.dtype)


_logsumexp = primitive("logsumexp", _lse_fw, node="LogsumexpBackward0",
                       a=lambda g, a, out, dims, keepdim: unsqueeze_dims(g, dims, keepdim, a.shape)
                       * exp(a - unsqueeze_dims(out, dims, keepdim, a.shape)))


@with_out("logsumexp", float_out("logsumexp"))
def logsumexp(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """``log(sum(exp(input), dim))`` computed stably; integers compute in the default float dtype."""
    dims = _red_dims(dim, input._data.ndim)
    return apply(_logsumexp, (input,), {"dims": dims, "keepdim": bool(keepdim)}, float_dtype_for(input))


# ---------------------------------------------------------------- var / std
def _var_np(a, dims, correction, keepdim):
    n = _numel(a.shape, dims)
    with _errstate():
        m = _np_mean(a, dims, True) if dims else a  # (no "Mean of empty slice" warning)
        s = ((a - m) ** 2).sum(axis=dims, keepdims=keepdim)
        return np.asarray(s / np.float64(_b.max(n - correction, 0)), dtype=a.dtype)


def _var_bw(g: Tensor, a: Tensor, dims, correction, keepdim, full=False) -> Tensor:
    n = _numel(a.shape, dims)
    if full and n - correction <= 0:
        # PyTorch's var_backward for a full reduction (dim None or a 0-d input) with no degrees of
        # freedom: infinity * (x - mean), written as NaN where x equals the mean and inf elsewhere.
        m = _mean(a) if a.ndim else a
        return g * masked_fill(masked_fill(a * 0, a == m, float("nan")), a != m, float("inf"))
    scale = 2.0 / (n - correction) if n != correction else float("inf")
    centered = a - _mean(a, dims, keepdim=True) if dims else a * 0
    return unsqueeze_dims(g, dims, keepdim, a.shape) * scale * centered


def _std_g(g: Tensor, std: Tensor) -> Tensor:
    return masked_fill(g / (std * 2), std == 0, 0)


_var = primitive("var", lambda a, *, dims, correction, keepdim, full: _var_np(a, dims, correction, keepdim),
                 node="VarBackward0",
                 a=lambda g, a, dims, correction, keepdim, full: _var_bw(g, a, dims, correction, keepdim, full))
_std = primitive("std", lambda a, *, dims, correction, keepdim, full: np.sqrt(_var_np(a, dims, correction, keepdim)),
                 node="StdBackward0",
                 a=lambda g, a, out, dims, correction, keepdim, full: _var_bw(_std_g(g, out), a, dims, correction,
                                                                             keepdim, full))


def _mean_np(a, dims, keepdim):
    m = np.asarray(_np_mean(a, dims, keepdim) if dims else a.copy(), dtype=a.dtype)
    if dims and a.dtype.kind == "f" and np.isinf(m).any():
        # PyTorch's var_mean takes the mean from its Welford pass: once the running mean is infinite,
        # the next element makes it NaN, so an infinity survives only as the slice's last element.
        rest = [i for i in range(a.ndim) if i not in dims]
        flat = np.transpose(a, rest + list(dims)).reshape([a.shape[i] for i in rest] + [-1])
        inf = np.isinf(flat)
        keep = (inf.sum(-1) == 1) & inf[..., -1]
        welford = np.where(inf.any(-1) & ~keep, np.nan, m.reshape(keep.shape)).astype(a.dtype)
        m = welford.reshape(m.shape)
    return m


def _mean_bw(g: Tensor, a: Tensor, dims, keepdim) -> Tensor:
    return expand(unsqueeze_dims(g, dims, keepdim, a.shape), a.shape) / _numel(a.shape, dims)


def _var_mean_bw(var_part, g, a: Tensor, dims, correction, keepdim, full) -> Tensor:
    # PyTorch skips the part of an output that got no gradient (an all-zero g here); adding it would
    # turn inf / NaN inputs into NaN through 0 * (x - mean).
    gm = _mean_bw(g[1], a, dims, keepdim)
    if not g[0]._data.any():
        return gm
    return var_part(g[0], a, dims, correction, keepdim, full) + gm


_var_mean = primitive("var_mean", lambda a, *, dims, correction, keepdim, full: (
    _var_np(a, dims, correction, keepdim), _mean_np(a, dims, keepdim)), node="VarMeanBackward0", n_out=2,
    a=lambda g, a, dims, correction, keepdim, full: _var_mean_bw(_var_bw, g, a, dims, correction, keepdim, full))
_std_mean = primitive("std_mean", lambda a, *, dims, correction, keepdim, full: (
    np.sqrt(_var_np(a, dims, correction, keepdim)), _mean_np(a, dims, keepdim)), node="StdMeanBackward0", n_out=2,
    a=lambda g, a, out, dims, correction, keepdim, full: _var_mean_bw(
        lambda g0, *r: _var_bw(_std_g(g0, out[0]), *r), g, a, dims, correction, keepdim, full))


def _var_args(input: Tensor, dim, unbiased, correction, name: str = "var") -> dict:
    if input._data.dtype.kind not in "fc":
        raise RuntimeError(f"{name} only support floating point and complex dtypes" if name.endswith("_mean")
                           else "std and var only support floating point and complex dtypes")
    if isinstance(dim, bool):
        unbiased, dim = dim, None
    if correction is None:
        correction = 1 if unbiased is None or unbiased else 0
    dims = _red_dims(dim, input._data.ndim)
    if _numel(input._data.shape, dims) - correction <= 0:
        import warnings

        warnings.warn(f"{name}(): degrees of freedom is <= 0. Correction should be strictly less than the reduction "
                      "factor (input numel divided by output numel).", UserWarning, stacklevel=3)
    # (PyTorch's backward treats "no dim given" and a 0-d input apart when there are no degrees of freedom)
    full = dim is None or input._data.ndim == 0
    return {"dims": dims, "correction": correction, "full": full}


@with_out("var")
def var(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None,
        out=None) -> Tensor:
    """Variance over ``dim`` with Bessel's ``correction`` (default 1; ``unbiased=False`` means 0).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2., 3., 4.]).var()
    tensor(1.6667)
    """
    st = _var_args(input, dim, unbiased, correction, "var")
    return apply(_var, (input,), {**st, "keepdim": bool(keepdim)})


@with_out("std")
def std(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None,
        out=None) -> Tensor:
    """Standard deviation over ``dim`` (see :func:`var` for the arguments)."""
    st = _var_args(input, dim, unbiased, correction, "std")
    return apply(_std, (input,), {**st, "keepdim": bool(keepdim)})


def var_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one op."""
    st = _var_args(input, dim, unbiased, correction, "var_mean")
    return tuple(apply(_var_mean, (input,), {**st, "keepdim": bool(keepdim)}))


def std_mean(input: Tensor, dim=None, unbiased: bool | None = None, keepdim: bool = False, *, correction=None):
    """``(std, mean)`` over ``dim`` in one op."""
    st = _var_args(input, dim, unbiased, correction, "std_mean")
    return tuple(apply(_std_mean, (input,), {**st, "keepdim": bool(keepdim)}))


# ---------------------------------------------------------------- torch.norm (delegates to linalg)
def norm(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """Vector p-norm over ``dim`` (all dims by default); ``'fro'`` is the 2-norm, ``'nuc'`` the nuclear norm.

    >>> import retrograd as torch
    >>> torch.tensor([3., 4.]).norm()
    tensor(5.)
    """
    from .. import linalg  # the vector / matrix norms live with the linear algebra family

    if input._data.dtype.kind not in "fc":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. Got "
                           f"{_scalar_name(input)}")
    if p is None:
        p = "fro"
    if isinstance(p, str):
        if p == "nuc":
            return linalg.matrix_norm(input, "nuc", dim=(-2, -1) if dim is None else dim, keepdim=keepdim,
                                      dtype=dtype, out=out)
        if p != "fro":
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if isinstance(dim, (tuple, list)) and len(dim) > 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(map(str, dim))}")
        p = 2
    dims = _red_dims(dim, input._data.ndim)
    if out is not None:  # (linalg.vector_norm carries PyTorch's out= rules)
        from .linalg import _check_out

        _check_out("linalg_vector_norm", out, input)
        return linalg.vector_norm(input, p, dims, keepdim, dtype=dtype, out=out)
    return linalg.vector_norm(input, p, dims, keepdim, dtype=dtype)


# ---------------------------------------------------------------- logical / counting (no grad)
def _logical(input: Tensor, dim, keepdim: bool, f) -> Tensor:
    a = input._data
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        r = a != 0
    else:
        dims = _red_dims(dim, a.ndim)
        r = f(a, axis=dims, keepdims=bool(keepdim)) if dims else a != 0
    r = np.asarray(r)
    return _wrap(r.astype(np.uint8) if a.dtype == np.uint8 else r.astype(bool, copy=False), False, None, 0)


def _logical_out(name: str):
    """all/any ``out=``: bool, or uint8 when the input (hence the result) is uint8."""
    def check(result: Tensor, out: Tensor) -> None:
        if out.dtype is not D.bool and out.dtype is not result.dtype:
            raise RuntimeError(f"{name} only supports bool tensor for result, got: {_scalar_name(out)}")
    return check


@with_out("all", _logical_out("all"), grad_check=False)
def all(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True when every element (over ``dim``) is non-zero (uint8 in, uint8 out)."""
    return _logical(input, dim, keepdim, np.all)


@with_out("any", _logical_out("any"), grad_check=False)
def any(input: Tensor, dim=None, keepdim: bool = False) -> Tensor:
    """True when some element (over ``dim``) is non-zero (uint8 in, uint8 out)."""
    return _logical(input, dim, keepdim, np.any)


def count_nonzero(input: Tensor, dim=None) -> Tensor:
    """Number of non-zero elements, in all or over ``dim`` (int or tuple)."""
    dims = _red_dims(dim, input._data.ndim)
    return _long(np.count_nonzero(input._data, axis=dims) if dims else (input._data != 0).astype(np.int64))


# ---------------------------------------------------------------- NaN-aware sum / mean
_nansum = primitive("nansum", lambda a, *, dims, keepdim: np.asarray(np.nansum(
    a, axis=dims, keepdims=keepdim, dtype=a.dtype if a.dtype.kind in "iub" else None)),
    node="NansumBackward0",
    a=lambda g, a, dims, keepdim: unsqueeze_dims(g, dims, keepdim, a.shape) * (a == a))


@reduce_out("nansum", dim_required=False)
def nansum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum treating NaN as zero."""
    dims = _red_dims(dim, input._data.ndim)
    return apply(_nansum, (input,), {"dims": dims, "keepdim": bool(keepdim)}, _cum_dtype(input, dtype))


@with_out("nanmean", _nanmean_out, grad_name="nansum")
def nanmean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Mean of the non-NaN elements (``nansum / count``, backward node DivBackward0)."""
    if input._data.dtype.kind not in "fc":
        raise RuntimeError("nanmean(): expected input to have floating point or complex dtype but got "
                           f"{_scalar_name(input)}")
    if dtype is not None and not dtype.is_floating_point:
        from .._tensor import _scalar_type_name

        raise RuntimeError("nanmean(): could not infer output dtype. Optional dtype must be either a floating "
                           f"point or complex dtype. Got: {_scalar_type_name(dtype)}")
    dims = _red_dims(dim, input._data.ndim)
    count = _sum(input == input, dims, keepdim=keepdim) if dims else (input == input).to(D.int64)
    return nansum(input, dims, keepdim, dtype=dtype) / count


# ---------------------------------------------------------------- order statistics
_median_all = primitive("median", lambda a: _median_value(a), node="MedianBackward0",
                        a=lambda g, a, out: _evenly(g, a, out))
_nanmedian_all = primitive("nanmedian", lambda a: _median_value(a, True), node="NanmedianBackward0",
                           a=lambda g, a, out: _evenly(g, a, out))


def _nan_as(dtype) -> np.ndarray:
    """NaN converted to ``dtype`` the way PyTorch's kernel does (C++ float -> int: INT_MIN for 32 and
    64 bit integers, 0 once narrowed further)."""
    if dtype.kind == "f":
        return np.asarray(np.nan, dtype=dtype)
    return np.asarray(np.iinfo(dtype).min if dtype.itemsize >= 4 else 0, dtype=dtype)


def _median_value(a: np.ndarray, ignore_nan: bool = False) -> np.ndarray:
    flat = a.reshape(-1)
    nan = _isnan(flat)
    if nan.any() and not ignore_nan:
        return np.asarray(np.nan, dtype=a.dtype)
    vals = flat[~nan] if ignore_nan else flat
    if vals.size == 0:
        return _nan_as(a.dtype)
    # (an index, not np.sort / np.partition: NumPy's SIMD sorts may turn 0.0 into -0.0)
    med = vals[np.argpartition(vals, (vals.size - 1) // 2)[(vals.size - 1) // 2]]
    if med == 0 and a.dtype.kind == "f":
        zeros = np.signbit(vals[vals == 0])
        if zeros.any() and not zeros.all():  # 0.0 and -0.0 tie: which one is reported is a replay question
            med = _median_zero(a.ravel(order="K"), ignore_nan)  # (PyTorch's clone keeps the memory order)
    return np.asarray(med, dtype=a.dtype)


def _median_zero(flat: np.ndarray, ignore_nan: bool):
    """The element PyTorch's full median reports: std::nth_element over the whole copy (NaN ordered
    last) with the median position counted among the non-NaN values (nanmedian) or all of them."""
    n = flat.size
    nth = (n - (int(_isnan(flat).sum()) if ignore_nan else 0) - 1) // 2
    r = _stl.Replay(_stl.row_keys(flat, False))
    r.nth_element(0, nth, n)
    return flat[r.i[nth]]


def _median_dim(input: Tensor, dim, keepdim: bool, ignore_nan: bool):
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
    a, d = _dim_setup(input, dim, "median")  # (nanmedian's message says median too)
    order = np.argsort(a, axis=d, kind="stable")  # NaN last
    nan = _isnan(a)
    n_ok = (~nan).sum(axis=d)
    if ignore_nan:
        k = np.maximum(n_ok - 1, 0) // 2
        idx = _take_k(order, d, k)
    else:
        idx = _take_k(order, d, (a.shape[d] - 1) // 2)
        has_nan = nan.any(axis=d, keepdims=True)
        idx = np.where(has_nan, np.expand_dims(np.argmax(nan, axis=d), d), idx)
    cls, op = (RT.nanmedian, _nanmedian_dim_op) if ignore_nan else (RT.median, _median_dim_op)
    return _values_indices(cls, op, input, d, idx, keepdim)


@values_indices_out("median", "median")
def median(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """Lower median of all elements, or ``(values, indices)`` along ``dim``; NaN propagates."""
    if dim is None:
        if input._data.dtype == np.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        return apply(_median_all, (input,))
    return _median_dim(input, dim, keepdim, False)


@values_indices_out("nanmedian", "median")
def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """Median ignoring NaN (all-NaN slices give NaN), or ``(values, indices)`` along ``dim``."""
    if dim is None:
        if input._data.dtype == np.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        return apply(_nanmedian_all, (input,))
    return _median_dim(input, dim, keepdim, True)


def _as_rows(a: np.ndarray, d: int) -> np.ndarray:
    """``a`` with ``d`` moved last, as a 2-d (slices, length) array."""
    m = np.moveaxis(a, d, -1)
    return m.reshape(_b.int(np.prod(m.shape[:-1])), m.shape[-1])  # (explicit: -1 is ambiguous when empty)


def _from_rows(rows: np.ndarray, like_shape: tuple, d: int) -> np.ndarray:
    """Inverse of :func:`_as_rows`: ``rows`` back to ``like_shape`` (whose length along ``d`` is the rows')."""
    moved = tuple(s for i, s in enumerate(like_shape) if i != d) + (rows.shape[1],)
    return np.moveaxis(rows.reshape(moved), -1, d)


def _sort_indices(a1: np.ndarray, d: int, descending: bool, stable: bool) -> np.ndarray:
    """PyTorch's CPU sort indices: std::stable_sort when ``stable``, else std::sort, whose order among
    tied values we replay (only on slices longer than 16, where it stops being an insertion sort)."""
    n = a1.shape[d]
    if stable or n <= _stl.SORT_THRESHOLD or a1.size == 0:
        return _argsort_np(a1, d, descending)
    rows = _as_rows(a1, d)
    asc = np.argsort(rows, axis=-1)  # NaN last; any order is right for a slice without ties
    need = np.flatnonzero(_stl.adjacent_ties(np.take_along_axis(rows, asc, -1)).any(-1))
    if not _stl.affordable(need.size, n):
        return _argsort_np(a1, d, descending)  # (stable order: see _stl_order.REPLAY_BUDGET)
    out = asc[:, ::-1] if descending else asc
    if need.size:
        out = out.copy()
        for r in need:
            out[r] = _stl.sort_order(_stl.row_keys(rows[r], descending))
    return _from_rows(out, a1.shape, d)


def _mode_index(row: np.ndarray) -> int:
    """PyTorch's CPU mode on one slice: std::sort of (value, index) pairs by value with a plain ``<``
    (NaN compares false both ways), then the first longest run of equal values, its last index."""
    n = row.size
    if not _isnan(row).any():
        _, inv, counts = np.unique(row, return_inverse=True, return_counts=True)
        best = int(np.argmax(counts))  # first longest run: the smallest such value
        if counts[best] == 1 or n <= _stl.SORT_THRESHOLD:  # unique, or an insertion sort: stable
            return int(np.flatnonzero(inv.reshape(-1) == best)[-1])
        keys = inv.reshape(-1).tolist()
    else:
        keys = row.tolist()  # raw floats: Python's NaN comparisons are C++'s
    try:
        order = _stl.sort_order(keys)
    except IndexError:  # NaN can break std::sort's unguarded loops (undefined behaviour in C++)
        order = np.argsort(row, kind="stable").tolist()
    srt = row[order].tolist()
    best_n, best_i, run = 0, 0, 0
    for i in range(n):
        run += 1
        if i == n - 1 or srt[i] != srt[i + 1]:
            if run > best_n:
                best_n, best_i = run, order[i]
            run = 0
    return int(best_i)


@values_indices_out("mode")
def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """Most frequent value along ``dim`` (smallest on ties) and the index PyTorch reports for it,
    as ``(values, indices)``.

    >>> import retrograd as torch
    >>> torch.mode(torch.tensor([2, 1, 2, 1, 3])).indices
    tensor(3)
    """
    a, d = _dim_setup(input, dim, "mode")
    rows = _as_rows(a, d)
    idx = np.fromiter((_mode_index(row) for row in rows), dtype=np.int64, count=rows.shape[0])
    idx = _from_rows(idx.reshape(-1, 1), a.shape[:d] + (1,) + a.shape[d + 1:], d)
    return _values_indices(RT.mode, _mode, input, d, idx, keepdim)


def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False, out=None):
    """Sorted values along ``dim`` and their original indices, as ``(values, indices)``.

    Tied values come out in the order PyTorch's CPU kernel leaves them (stable for ``stable=True`` or
    slices of at most 16 elements); NaN sorts as the largest value.

    >>> import retrograd as torch
    >>> torch.sort(torch.tensor([3., 1., 2.])).indices
    tensor([1, 2, 0])
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    idx = _sort_indices(a1, d, bool(descending), bool(stable))
    return _values_indices(RT.sort, _sort_stable if stable else _sort, input, d, idx, True)


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``).

    >>> import retrograd as torch
    >>> torch.argsort(torch.tensor([3., 1., 2.]))
    tensor([1, 2, 0])
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    idx = _sort_indices(a.reshape(1) if a.ndim == 0 else a, d, bool(descending), bool(stable))
    return _long(idx.reshape(a.shape))


def _topk_indices(a1: np.ndarray, d: int, k: int, largest: bool, sorted: bool) -> np.ndarray:
    """Indices (kept-dim layout) of PyTorch's CPU topk.  The kernel runs std::partial_sort when
    ``64 * k <= n`` and else std::nth_element (+ std::sort of the first k - 1 when ``sorted``).  A
    slice whose k + 1 most extreme values are distinct has one answer, which NumPy gives, except
    that an unsorted nth_element result keeps the algorithm's own order, so that case is replayed."""
    n = a1.shape[d]
    rows = _as_rows(a1, d)
    if k == 0 or rows.size == 0:
        return _from_rows(np.zeros((rows.shape[0], k), dtype=np.int64), a1.shape[:d] + (k,) + a1.shape[d + 1:], d)
    m = k + 1 if k < n else n  # the candidates: the k picked and the first one left out
    if m < n:  # (np.argpartition, like np.sort, puts NaN last)
        cand = np.argpartition(rows, n - m if largest else m - 1, axis=-1)
        cand = cand[:, n - m:] if largest else cand[:, :m]
    else:
        cand = np.broadcast_to(np.arange(n), rows.shape)
    o = np.argsort(np.take_along_axis(rows, cand, -1), axis=-1)
    cand = np.take_along_axis(cand, o[:, ::-1] if largest else o, -1)
    out = cand[:, :k]
    if not sorted and k > 1 and k * 64 > n:
        need = np.arange(rows.shape[0])  # nth_element's own order: every slice
    else:
        need = np.flatnonzero(_stl.adjacent_ties(np.take_along_axis(rows, cand, -1)).any(-1))
    if need.size and _stl.affordable(need.size, n):
        out = out.copy()
        for r in need:
            out[r] = _stl.topk_order(_stl.row_keys(rows[r], largest), k, sorted)
    return _from_rows(out, a1.shape[:d] + (k,) + a1.shape[d + 1:], d)


def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices, as ``(values, indices)``.

    Among tied values the indices are those PyTorch's CPU kernel picks; NaN counts as the largest.

    >>> import retrograd as torch
    >>> torch.topk(torch.tensor([1, 3, 3, 2, 3]), 2).indices
    tensor([2, 4])
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    if k < 0 or k > a1.shape[d]:
        raise RuntimeError("selected index k out of range")
    if a.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if a.ndim == 0:  # k 0 or 1: the element itself (PyTorch returns it even for k = 0)
        return _values_indices(RT.topk, _topk, input, 0, np.zeros((1,), dtype=np.int64), True)
    idx = _topk_indices(a1, d, int(k), bool(largest), bool(sorted))
    return _values_indices(RT.topk, _topk, input, d, idx, True)


def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """The ``k``-th smallest value along ``dim`` (1-based) and its index, as ``(values, indices)``.

    >>> import retrograd as torch
    >>> torch.tensor([3., 1., 2.]).kthvalue(2)
    torch.return_types.kthvalue(
    values=tensor(2.),
    indices=tensor(2))
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    if a.dtype == np.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    if a1.shape[d] == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if k < 1 or k > a1.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    rows = _as_rows(a1, d)
    pos = np.argpartition(rows, k - 1, axis=-1)[:, k - 1:k]  # (NaN last, as in PyTorch)
    # Among tied values PyTorch returns whichever its quickselect leaves at k: replay it on slices
    # where the k-th value occurs more than once.
    kv = np.take_along_axis(rows, pos, -1)
    same = rows == kv
    if rows.dtype.kind == "f":
        same |= np.isnan(rows) & np.isnan(kv)
    need = np.flatnonzero(same.sum(-1) > 1)
    if need.size and _stl.affordable(need.size, rows.shape[-1]):
        pos = pos.copy()
        for r in need:
            pos[r, 0] = _stl.quick_select(_stl.row_keys(rows[r], False), k - 1)
    idx = _from_rows(pos, a1.shape[:d] + (1,) + a1.shape[d + 1:], d)
    return _values_indices(RT.kthvalue, _kthvalue, input, d, idx, keepdim)
