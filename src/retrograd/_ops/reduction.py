"""Sum/mean, prod, amax/amin/aminmax, max/min, argmax/argmin, logsumexp, norm, all/any,
count_nonzero, nansum/nanmean."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D, _dtype as _D, return_types as RT
from .._tensor import Tensor
from ._common import _const, float_dtype_for, grad_dtype, no_keepdim_without_dim, wrap_dim, wrap_dims
from ._out import declares_out, float_out, reduce_out, same_as_input, with_out
from ._registry import apply, on_arrays, primitive

__all__ = ["sum", "mean", "unsqueeze_dims", "prod", "amax", "amin", "max", "min", "argmax", "argmin", "norm",
           "logsumexp", "all", "any", "count_nonzero", "nansum", "nanmean", "aminmax"]


def unsqueeze_dims(g: Tensor, dims: tuple, keepdim: bool, in_shape) -> Tensor:
    """Put reduced dims back (size 1) so ``g`` broadcasts against the input again."""
    if keepdim or not dims:
        return g
    shape = list(g._data.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    return reshape(g, tuple(shape))


def _sum_dtype(a: np.ndarray):
    # Integers and bools arrive already cast to the result type (int64 unless dtype= says otherwise,
    # see _cast_for): keep it, where NumPy would widen small ints to the platform int by itself.
    return a.dtype if a.dtype.kind in "iub" else None


def _broadcast_grad(g: np.ndarray, shape: tuple) -> np.ndarray:
    """expand_grad on arrays: ``g`` itself when it has the shape, else a read-only broadcast."""
    return g if g.shape == shape else np.broadcast_to(g, shape)


# (np.add.reduce is what ndarray.sum calls, without its Python wrapper: it shows on small arrays)
_add_reduce = np.add.reduce
_sum_all = primitive("sum", lambda a: np.asarray(_add_reduce(a, axis=None, dtype=_sum_dtype(a))), node="SumBackward0",
                     fast={"a": lambda g, a_shape: _broadcast_grad(g, a_shape)},
                     a=lambda g, a_shape: expand_grad(g, a_shape), batch="sum_all")
# (reductions come out contiguous in PyTorch, whatever the input's layout: order="C" below)
_sum_dim = primitive("sum_dim", lambda a, *, dims, keepdim: np.asarray(_add_reduce(a, axis=dims, keepdims=keepdim,
                                                                                  dtype=_sum_dtype(a)), order="C"),
                     node="SumBackward1",
                     a=lambda g, a_shape, dims, keepdim: expand_grad(unsqueeze_dims(g, dims, keepdim, a_shape), a_shape), batch="reduce")


def _np_mean(a: np.ndarray, axis=None, keepdims: bool = False):
    """``a.mean(...)``, but an empty slice gives NaN silently, as in PyTorch (NumPy warns
    "Mean of empty slice" and "invalid value encountered")."""
    if a.size:
        return a.mean(axis=axis, keepdims=keepdims)
    with np.errstate(invalid="ignore", divide="ignore"):
        s = np.add.reduce(a, axis=axis, keepdims=keepdims, dtype=np.result_type(a.dtype, np.float32))
        n = a.size if axis is None else _numel([a.shape[d] for d in np.atleast_1d(axis)])
        return s / np.float64(n) if n else np.full_like(s, np.nan)


def _mean_fw(a):
    return np.asarray(_np_mean(a), dtype=a.dtype)


_mean_all = primitive("mean", _mean_fw, node="MeanBackward0",
                      a=lambda g, a_shape: expand_grad(g, a_shape) / _numel(a_shape), batch="sum_all")
_mean_dim = primitive("mean_dim", lambda a, *, dims, keepdim: np.asarray(_np_mean(a, dims, keepdim), dtype=a.dtype,
                                                                         order="C"),
                      node="MeanBackward1",
                      a=lambda g, a_shape, dims, keepdim: expand_grad(unsqueeze_dims(g, dims, keepdim, a_shape), a_shape)
                      / _numel([a_shape[d] for d in dims]), batch="reduce")


def _numel(shape) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _dims_or_all(dim, ndim: int) -> tuple:
    # An empty dim list reduces every dim (PyTorch's dim=[] / dim=()).
    if isinstance(dim, (tuple, list)) and len(dim) == 0:
        return tuple(range(ndim))
    dims = wrap_dims(dim, ndim)
    return dims if ndim else ()  # a 0-d tensor accepts dim 0 / -1 and reduces nothing


_INT64 = _D.int64


def _cast_for(input: Tensor, dtype):
    """The dtype a sum-like reduction computes in: ``dtype=``, else int64 for integers and bool."""
    if dtype is None:
        return _INT64 if input._data.dtype.kind in "iub" else None
    return grad_dtype(input, dtype)


@reduce_out("sum")
def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum of all elements, or over ``dim`` (int or tuple); integers sum in int64.

    >>> import retrograd as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).sum(0)
    tensor([4., 6.])
    """
    if dim is None:
        no_keepdim_without_dim("sum", keepdim)
        return apply(_sum_all, (input,), None, _cast_for(input, dtype))
    dims = _dims_or_all(dim, input._data.ndim)
    return apply(_sum_dim, (input,), {"dims": dims, "keepdim": bool(keepdim)}, _cast_for(input, dtype))


@reduce_out("mean", float_result=True, dim_required=False)
def mean(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Mean of all elements or over ``dim``; floating point only, like PyTorch."""
    if dim is None:
        no_keepdim_without_dim("mean", keepdim)
    dt = dtype or input.dtype
    if not dt.is_floating_point:
        from .._tensor import _scalar_type_name

        which = "Optional" if dtype is not None else "Input"
        raise RuntimeError(
            f"mean(): could not infer output dtype. {which} dtype must be either a floating point or complex "
            f"dtype. Got: {_scalar_type_name(dt)}")
    if dim is None:
        return apply(_mean_all, (input,), None, dtype)
    dims = _dims_or_all(dim, input._data.ndim)
    return apply(_mean_dim, (input,), {"dims": dims, "keepdim": bool(keepdim)}, dtype)


_wrap = Tensor._wrap


def _long(a) -> Tensor:
    return _wrap(np.asarray(a, dtype=np.int64), False, None, 0)


def _numel_of_dims(shape, dims) -> int:
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
    from .masked import where  # (masks select, as PyTorch's masked_fill_: g * mask is NaN where g is inf)

    return where(mask, g / sum(mask), 0.0)


def _tied_share(g: Tensor, a: Tensor, out: Tensor, dims, keepdim: bool) -> Tensor:
    """amax/amin rule: ``g`` split between the elements equal to the result in each slice."""
    gu = unsqueeze_dims(g, dims, keepdim, a.shape)
    ou = unsqueeze_dims(out, dims, keepdim, a.shape)
    mask = a == ou
    return gu * mask / sum(mask, dims, keepdim=True)


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
def _zero_sign(a: np.ndarray, r, dims, last: bool = False) -> np.ndarray:
    """A max/min ``r`` over ``dims`` whose value is 0 takes the sign of the first tied zero of its slice
    (or the last), not NumPy's choice: PyTorch's amax/amin keep the first for slices shorter than a
    SIMD vector (longer ones, and its max()/min() of everything, depend on the CPU's vector width)."""
    r = np.asarray(r, order="C")
    if a.dtype.kind != "f" or not a.size or not (r == 0).any():
        return r
    dims = tuple(range(a.ndim)) if dims is None else tuple(dims)
    keep = [d for d in range(a.ndim) if d not in dims]
    m = np.transpose(a, keep + list(dims)).reshape([a.shape[d] for d in keep] + [-1])
    z = (m == 0)[..., ::-1] if last else m == 0
    pos = m.shape[-1] - 1 - np.argmax(z, -1) if last else np.argmax(z, -1)
    signed = np.where(np.signbit(np.take_along_axis(m, pos[..., None], -1)[..., 0]), -0.0, 0.0).astype(a.dtype)
    flat = r.reshape(signed.shape)
    return np.where(flat == 0, signed, flat).reshape(r.shape)


_amax = primitive("amax", lambda a, *, dims, keepdim: _zero_sign(a, np.maximum.reduce(a, axis=dims, keepdims=keepdim),
                                                                  dims),
                  node="AmaxBackward0",
                  a=lambda g, a, out, dims, keepdim: _tied_share(g, a, out, dims, keepdim), batch="reduce")
_amin = primitive("amin", lambda a, *, dims, keepdim: _zero_sign(a, np.minimum.reduce(a, axis=dims, keepdims=keepdim),
                                                                  dims),
                  node="AminBackward0",
                  a=lambda g, a, out, dims, keepdim: _tied_share(g, a, out, dims, keepdim), batch="reduce")


def _amax_amin(op, name: str, input: Tensor, dim, keepdim: bool) -> Tensor:
    dims = _red_dims(dim, input._data.ndim)
    if input._data.size == 0:
        if not dims or dim is None or dim == ():
            _empty_full(input, name)
        given = tuple(dim) if isinstance(dim, (tuple, list)) else (dim,)
        for d in given:  # (PyTorch names the dim as given: -1 stays -1)
            if input._data.shape[wrap_dim(d, input._data.ndim)] == 0:
                raise IndexError(f"{name}(): Expected reduction dim {d} to have non-zero size.")
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
                     + _tied_share(g[1], a, out[1], dims, keepdim), batch="reduce")


@declares_out("same", tuple_mode="same")
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
        from .comparison import maximum, minimum

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


@declares_out("same", grad_check=False)
def argmax(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the (first) largest element, flat or along ``dim``; NaN counts as largest."""
    return _arg(input, dim, keepdim, True)


@declares_out("same", grad_check=False)
def argmin(input: Tensor, dim: int | None = None, keepdim: bool = False) -> Tensor:
    """Index of the (first) smallest element, flat or along ``dim``."""
    return _arg(input, dim, keepdim, False)


# ---------------------------------------------------------------- prod
def _prod_dtype(a):
    return a.dtype if a.dtype.kind in "iub" else None  # (the caller casts integers to int64, see _cum_dtype)


_prod_all = primitive("prod", lambda a: np.asarray(np.prod(a, dtype=_prod_dtype(a))), node="ProdBackward0",
                      fast={"a": on_arrays(lambda g, a, out: _prod_all_first_order(g, a, out))},
                      a=lambda g, a, out: _prod_all_bw(g, a, out))
_prod_dim = primitive("prod_dim", lambda a, *, dim, keepdim: np.asarray(
    np.prod(a.reshape(1) if a.ndim == 0 else a, axis=dim, keepdims=keepdim, dtype=_prod_dtype(a))).reshape(
    _prod_shape(a.shape, dim, keepdim)), node="ProdBackward1",
    a=lambda g, a, out, dim, keepdim: _prod_dim_bw(g, a, out, dim, keepdim), batch="reduce")


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
    return reshape(_prod_safe_zeros_bw(g, reshape(a, (-1,)), 0), a.shape)


def _prod_all_first_order(g: Tensor, a: Tensor, out: Tensor) -> Tensor:
    """PyTorch's first-order prod backward: with two zeros or more every gradient is zero (the
    exact formula, which only matters for higher orders, would spread an inf or NaN elsewhere)."""
    if a._data.ndim and int((a._data == 0).sum()) > 1:
        return expand(g, a.shape) * 0
    return _prod_all_bw(g, a, out)


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


# ---------------------------------------------------------------- logsumexp
def _lse_fw(a, *, dims, keepdim):
    with _errstate():
        if a.size:
            m = np.amax(a, axis=dims, keepdims=True)
            m = np.where(np.isfinite(m), m, 0)
        else:
            m = np.zeros([1 if i in dims else s for i, s in enumerate(a.shape)], dtype=a.dtype)
        r = np.log(np.sum(np.exp(a - m), axis=dims, keepdims=True)) + m
    return np.asarray(r if keepdim else np.squeeze(r, dims), dtype=a.dtype, order="C")


_logsumexp = primitive("logsumexp", _lse_fw, node="LogsumexpBackward0",
                       a=lambda g, a, out, dims, keepdim: unsqueeze_dims(g, dims, keepdim, a.shape)
                       * exp(a - unsqueeze_dims(out, dims, keepdim, a.shape)), batch="reduce")


@with_out("logsumexp", float_out("logsumexp"))
def logsumexp(input: Tensor, dim, keepdim: bool = False, *, out=None) -> Tensor:
    """``log(sum(exp(input), dim))`` computed stably; integers compute in the default float dtype."""
    dims = _red_dims(dim, input._data.ndim)
    return apply(_logsumexp, (input,), {"dims": dims, "keepdim": bool(keepdim)}, float_dtype_for(input))


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
        from .linalg.products import _check_out

        _check_out("linalg_vector_norm", out, input)
        return linalg.vector_norm(input, p, dims, keepdim, dtype=dtype, out=out)
    # (the dim as given: linalg.vector_norm's empty-input messages name it, or say "every dim" for None)
    given = dims if isinstance(dim, (tuple, list)) and len(dim) == 0 else dim
    return linalg.vector_norm(input, p, given, keepdim, dtype=dtype)


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
    a, axis=dims, keepdims=keepdim, dtype=a.dtype if a.dtype.kind in "iub" else None), order="C"),
    node="NansumBackward0",
    a=lambda g, a, dims, keepdim: unsqueeze_dims(g, dims, keepdim, a.shape) * (a == a), batch="reduce")


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
    count = sum(input == input, dims, keepdim=keepdim) if dims else (input == input).to(D.int64)
    return nansum(input, dims, keepdim, dtype=dtype) / count


# Run-time references to modules that import this one (bound last, so either import order works)
from .joining import cat  # noqa: E402
from .rearrange import flip_method as flip  # noqa: E402
from .scan import _cum_dtype, cumprod  # noqa: E402
from .scatter import _along, gather_backward  # noqa: E402
from .shape import expand, expand_grad, narrow, reshape  # noqa: E402
from .unary import exp  # noqa: E402
