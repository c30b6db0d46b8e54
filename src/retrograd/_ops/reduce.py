"""Reductions: sum and mean (more families are added beside them)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._common import grad_dtype, no_keepdim_without_dim, requested_dtype, wrap_dims
from ._registry import apply, primitive
from .shape import expand_grad, reshape

__all__ = ["sum", "mean", "unsqueeze_dims"]


def unsqueeze_dims(g: Tensor, dims: tuple, keepdim: bool, in_shape) -> Tensor:
    """Put reduced dims back (size 1) so ``g`` broadcasts against the input again."""
    if keepdim or not dims:
        return g
    shape = list(g._data.shape)
    for d in sorted(dims):
        shape.insert(d, 1)
    return reshape(g, tuple(shape))


def _sum_dtype(a: np.ndarray):
    # Integer and bool sums accumulate in int64, as in PyTorch.
    return np.int64 if a.dtype.kind in "iub" else None


# (np.add.reduce is what ndarray.sum calls, without its Python wrapper: it shows on small arrays)
_add_reduce = np.add.reduce
_sum_all = primitive("sum", lambda a: np.asarray(_add_reduce(a, axis=None, dtype=_sum_dtype(a))), node="SumBackward0",
                     a=lambda g, a_shape: expand_grad(g, a_shape))
_sum_dim = primitive("sum_dim", lambda a, *, dims, keepdim: np.asarray(_add_reduce(a, axis=dims, keepdims=keepdim,
                                                                                  dtype=_sum_dtype(a))),
                     node="SumBackward1",
                     a=lambda g, a_shape, dims, keepdim: expand_grad(unsqueeze_dims(g, dims, keepdim, a_shape), a_shape))


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
                      a=lambda g, a_shape: expand_grad(g, a_shape) / _numel(a_shape))
_mean_dim = primitive("mean_dim", lambda a, *, dims, keepdim: np.asarray(_np_mean(a, dims, keepdim), dtype=a.dtype),
                      node="MeanBackward1",
                      a=lambda g, a_shape, dims, keepdim: expand_grad(unsqueeze_dims(g, dims, keepdim, a_shape), a_shape)
                      / _numel([a_shape[d] for d in dims]))


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


def _cast_for(input: Tensor, dtype):
    return None if dtype is None else grad_dtype(input, dtype)


def sum(input: Tensor, dim=None, keepdim: bool = False, *, dtype=None) -> Tensor:
    """Sum of all elements, or over ``dim`` (int or tuple); integers sum in int64.

    >>> import retrograd as torch
    >>> torch.tensor([[1., 2.], [3., 4.]]).sum(0)
    tensor([4., 6.])
    """
    if dim is None:
        no_keepdim_without_dim("sum", keepdim)
        r = apply(_sum_all, (input,), None, _cast_for(input, dtype))
    else:
        dims = _dims_or_all(dim, input._data.ndim)
        r = apply(_sum_dim, (input,), {"dims": dims, "keepdim": bool(keepdim)}, _cast_for(input, dtype))
    return r if dtype is None else requested_dtype(r, dtype)


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
