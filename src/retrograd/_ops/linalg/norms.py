"""Vector_norm, matrix_norm, norm, cond, frobenius_norm, nuclear_norm, renorm."""
from __future__ import annotations

import math

import numpy as np

from ..._tensor import Tensor
from .._common import wrap_dim
from .._composite import _R, _inplace, _tname
from .._out import with_out
from .._registry import apply, primitive
from ..comparison import eq, isnan, logical_or
from ..masked import where
from ..reduction import sum, unsqueeze_dims
from ..shape import permute, unsqueeze
from ..unary import abs, sign
from . import decompositions as _D
from ._checks import _type_name, check_matrix, out_arg
from .decompositions import svdvals
from .lu import _warn_once
from .solvers import _wrap, inv_ex

__all__ = ["renorm", "frobenius_norm", "nuclear_norm"]


def _renorm_norm_np(a, p, dims):

    # PyTorch computes the norm in the accumulate type (double for float on CPU)
    acc = a.astype(np.float64) if a.dtype == np.float32 else a
    return _vector_norm_fw(acc, ord=p, dims=dims, keepdim=True)


def _renorm_fw(a, *, p, dims, maxnorm):
    norm = _renorm_norm_np(a, p, dims)
    with np.errstate(over="ignore", divide="ignore", invalid="ignore"):
        factor = np.where(norm > maxnorm, maxnorm / (norm + 1e-7), 1.0)
    return (a * factor).astype(a.dtype)


def _renorm_rule(g, a, p, dims, maxnorm):
    # PyTorch's renorm_backward: out = a * maxnorm / (n + 1e-7) where n > maxnorm, with n's
    # gradient from norm_backward (0 at zero slices, NaN-safe), else out = a.

    R = _R()
    norm = vector_norm(a, p, dim=list(dims), keepdim=True)
    nb = _vector_norm_backward((a * g).sum(list(dims), keepdim=True), a, norm, float(p), tuple(dims), True)
    invnorm = 1.0 / (norm + 1e-7)
    factor = invnorm * maxnorm
    return R.where(norm > maxnorm, factor * g - factor * invnorm * nb, g)


_renorm = primitive("renorm", _renorm_fw, node="RenormBackward0", a=_renorm_rule)


@with_out("renorm", "same")
def renorm(input: Tensor, p, dim: int, maxnorm) -> Tensor:
    """Rescale each slice along ``dim`` whose p-norm exceeds ``maxnorm`` to norm ``maxnorm``.

    >>> import retrograd as torch
    >>> torch.renorm(torch.tensor([[3., 4.], [0.3, 0.4]]), 2, 0, 1.)
    tensor([[0.6000, 0.8000],
            [0.3000, 0.4000]])
    """
    if p <= 0:
        raise RuntimeError("renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {float(maxnorm):g}")
    if input.dim() <= 1:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} dimensions")
    if not (input.is_floating_point() or input.is_complex()):
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_tname(input)}")
    d = wrap_dim(dim, input.dim())
    others = tuple(k for k in range(input.dim()) if k != d)
    return apply(_renorm, (input,), {"p": float(p), "dims": others, "maxnorm": float(maxnorm)})


def renorm_(self: Tensor, p, dim: int, maxnorm) -> Tensor:
    """In-place :func:`renorm`."""
    return _inplace(self, lambda x: renorm(x, p, dim, maxnorm))


def _max_min(x: Tensor, dim: int, keepdim: bool, largest: bool, shown_dim: int | None = None) -> Tensor:
    from ..reduction import amax, amin

    d = wrap_dim(dim, x._data.ndim)
    if x._data.shape[d] == 0:
        if largest:
            # PyTorch: a max of norms over nothing is 0 (the identity for non-negative values), untracked
            shape = list(x._data.shape)
            if keepdim:
                shape[d] = 1
            else:
                del shape[d]
            return Tensor._wrap(np.zeros(shape, dtype=x._data.dtype), False, None, 0)
        if shown_dim is not None:
            raise IndexError(f"amin(): Expected reduction dim {shown_dim} to have non-zero size.")
    return (amax if largest else amin)(x, dim, keepdim)


# ---------------------------------------------------------------- norms
def _vector_norm_fw(x, *, ord, dims, keepdim):
    # float16 accumulates in float32, as PyTorch's kernels do (|x| ** ord overflows half early)
    a = np.abs(x.astype(np.float32) if x.dtype == np.float16 else x)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if ord == 2:
            r = np.sqrt(np.sum(a * a, axis=dims, keepdims=keepdim))
        elif ord == math.inf:
            r = np.max(a, axis=dims, keepdims=keepdim)
        elif ord == -math.inf:
            r = np.min(a, axis=dims, keepdims=keepdim)
        elif ord == 0:
            r = np.sum(a != 0, axis=dims, keepdims=keepdim)
        elif ord == 1:
            r = np.sum(a, axis=dims, keepdims=keepdim)
        else:
            r = np.sum(a ** ord, axis=dims, keepdims=keepdim) ** (1.0 / ord)
    return np.asarray(r, dtype=x.dtype, order="C")  # (contiguous, as PyTorch's reductions)


def _vector_norm_backward(g, x, out, ord, dims, keepdim):
    shape = x._data.shape
    red = tuple(range(len(shape))) if dims is None else dims
    g = unsqueeze_dims(g, red, keepdim, shape)
    out = unsqueeze_dims(out, red, keepdim, shape)
    if ord == 0:
        return None
    if ord == 1:
        return sign(x) * g
    if ord == 2:
        return g * where(out == 0, 0.0, x / out)
    ax = abs(x)
    if math.isinf(ord):
        # PyTorch's rule: the max/min entries *or NaNs* share the gradient (sign(NaN) is 0), so a
        # slice holding a NaN never divides by a zero count.
        mask = logical_or(eq(ax, out), isnan(ax)).to(x.dtype)
        return sign(x) * (g / sum(mask, red, keepdim=True)) * mask
    if ord < 1:
        return sign(x) * where(x == 0, 0.0, ax ** (ord - 1)) * g * out ** (1 - ord)
    scale = where(out == 0, 0.0, g / out ** (ord - 1))
    if ord < 2:
        return sign(x) * ax ** (ord - 1) * scale
    return x * ax ** (ord - 2) * scale


_vector_norm = primitive("linalg_vector_norm", _vector_norm_fw, node="LinalgVectorNormBackward0",
                         x=lambda g, x, out, ord, dims, keepdim: _vector_norm_backward(g, x, out, ord, dims, keepdim))


def _norm_dims(dim, ndim: int):
    if dim is None:
        return None
    if isinstance(dim, (int, np.integer)):
        d = wrap_dim(dim, ndim)  # (checks the range; a 0-d tensor accepts 0 and -1)
        return (d,) if ndim else None
    dims = tuple(wrap_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        d = next(d for d in dims if dims.count(d) > 1)
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    # reducing a 0-d tensor over its accepted dim 0 / -1 is reducing over all (none) of its dims
    return tuple(sorted(dims)) if dims and ndim else None


@out_arg
def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The ``ord``-norm of x as a vector (over ``dim`` or all elements).

    >>> import retrograd as torch
    >>> torch.linalg.vector_norm(torch.tensor([3., 4.]))
    tensor(5.)
    """
    if isinstance(ord, str):
        raise TypeError("linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    if x._data.dtype.kind != "f":
        raise RuntimeError("linalg.vector_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_type_name(x)}")
    if dtype is not None:
        from ..._dtype import promote_types
        from ..._tensor import _scalar_type_name

        if not (dtype.is_floating_point or dtype.is_complex):
            raise RuntimeError(f"linalg.vector_norm: dtype should be floating point or complex, but got "
                               f"{_scalar_type_name(dtype)}")
        if promote_types(x.dtype, dtype) != dtype:
            raise RuntimeError(f"linalg.vector_norm: the dtype of the input ({_type_name(x)}) should be convertible "
                               f"without narrowing to the specified dtype ({_scalar_type_name(dtype)})")
    ord = float(ord)
    dims = _norm_dims(dim, x._data.ndim)
    if x._data.size == 0 and (ord < 0 or ord == math.inf):
        # as PyTorch: only an empty *reduced* dim has no identity (its message lacks a space)
        given = () if dim is None else (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
        if not given:
            raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because "
                               "the operation does not have an identity")
        for d in given:
            if x._data.shape[wrap_dim(d, x._data.ndim)] == 0:
                raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on the dimension {d}"
                                   "because this dimension is empty and the operation does not have an identity")
    return apply(_vector_norm, (x,), {"ord": ord, "dims": dims, "keepdim": bool(keepdim)}, dtype)


def _backshift(d0: int, d1: int, ndim: int) -> list:
    return [d for d in range(ndim) if d not in (d0, d1)] + [d0, d1]


@out_arg
def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Matrix norms: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf (over the two dims in ``dim``).

    >>> import retrograd as torch
    >>> torch.linalg.matrix_norm(torch.tensor([[1., -2.], [3., 4.]]), 1)
    tensor(6.)
    """
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise RuntimeError("linalg.matrix_norm: Expected a floating point or complex tensor as input. "
                           f"Got {_type_name(A)}")
    n = A._data.ndim
    dim = (dim,) if isinstance(dim, (int, np.integer)) else tuple(dim)
    if len(dim) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {' '.join(str(d) for d in dim)}")
    d0, d1 = (wrap_dim(d, n) for d in dim)
    if d0 == d1:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({d0}, {d1})")
    if isinstance(ord, str):
        if ord == "fro":
            return vector_norm(A, 2, (d0, d1), keepdim, dtype=dtype)
        if ord != "nuc":
            raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
        abs_ord = None
    else:
        abs_ord = abs_float(ord)
        if abs_ord not in (1.0, 2.0, math.inf):
            raise RuntimeError(f"linalg.matrix_norm: Order {ord:g} not supported.")
    if dtype is not None:
        A = A.to(dtype)
    if abs_ord is None or abs_ord == 2.0:
        perm = _backshift(d0, d1, n)
        sv = svdvals(permute(A, perm))
        res = sum(sv, -1) if abs_ord is None else _max_min(sv, -1, False, ord > 0, -1)
        if keepdim:
            res = permute(unsqueeze(unsqueeze(res, -1), -1), tuple(np.argsort(perm).tolist()))
        return res
    if abs_ord == math.inf:
        d0, d1 = d1, d0
    if not keepdim and d0 < d1:
        d1 -= 1
    return _max_min(vector_norm(A, 1.0, (d0,), keepdim), d1, keepdim, ord > 0)


def abs_float(x) -> float:
    return math.fabs(float(x))


@out_arg
def norm(A: Tensor, ord=None, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """``torch.linalg.norm``: a vector norm, or a matrix norm when ``ord`` is a string, ``dim``
    has two entries, or A is 2-d with ``ord`` given.

    >>> import retrograd as torch
    >>> torch.linalg.norm(torch.tensor([[3., 0.], [0., 4.]]))
    tensor(5.)
    """
    if isinstance(dim, (int, np.integer)):
        dim = (int(dim),)
    if dim is not None:
        if len(dim) not in (1, 2):
            raise RuntimeError(f"linalg.norm: If dim is specified, it must be of length 1 or 2. Got {list(dim)}")
    elif ord is not None and A._data.ndim not in (1, 2):
        raise RuntimeError(f"linalg.norm: If dim is not specified but ord is, the input must be 1D or 2D. "
                           f"Got {A._data.ndim}D.")
    if isinstance(ord, str) or (ord is not None and ((dim is not None and len(dim) == 2)
                                                     or (dim is None and A._data.ndim == 2))):
        return matrix_norm(A, ord, dim if dim is not None else (0, 1), keepdim, dtype=dtype)
    return vector_norm(A, 2.0 if ord is None else ord, dim, keepdim, dtype=dtype)


# ---------------------------------------------------------------- cond
_NORM_ORDS = ("fro", "nuc", math.inf, -math.inf, 1, -1)


@out_arg
def cond(A: Tensor, p=None, *, out=None) -> Tensor:
    """Condition number of A in the matrix norm ``p`` (None / 2: largest over smallest singular value).

    Only p in (None, 2, -2) accepts non-square matrices.  A singular matrix gives inf
    (NaN for 'nuc' of a zero matrix, as in PyTorch).

    >>> import retrograd as torch
    >>> torch.linalg.cond(torch.tensor([[2., 0.], [0., 4.]]))
    tensor(2.)
    """
    from ..unary import nan_to_num
    from ..reduction import sum as _sum
    from ..shape import slice_dim, squeeze

    if A._data.ndim < 2:
        raise RuntimeError("linalg.cond: The input tensor must have at least 2 dimensions.")
    if not (p is None or p in (2, -2) or p in _NORM_ORDS):
        raise RuntimeError(f"linalg.cond got an invalid norm type: {p}")
    if A._data.size == 0 and A._data.shape[-1] == A._data.shape[-2]:
        return _wrap(np.zeros(A._data.shape[:-2], A._data.dtype if A._data.dtype.kind == "f" else np.float32),
                     False, None, 0)
    if p is None or p in (2, -2):
        check_matrix(A, "linalg.svd", square=False)
        s = _D.svdvals(A)
        big, small = slice_dim(s, -1, 0, 1), slice_dim(s, -1, s._data.shape[-1] - 1, s._data.shape[-1])
        return squeeze(small / big if p == -2 else big / small, -1)
    # PyTorch's C++ to_string: ints as is, floats with six decimals, infinities as "inf"
    shown = p if isinstance(p, (str, int)) else (("-" if p < 0 else "") + "inf" if math.isinf(p) else f"{p:f}")
    check_matrix(A, f"linalg.cond(ord={shown})", floating=False)
    if p == "nuc":
        check_matrix(A, "linalg.svd", square=False)
        s = _D.svdvals(A)
        return _sum(s, -1) * _sum(1 / s, -1)
    Ainv, info = inv_ex(A)
    if info._data.any():
        from ..masked import masked_fill

        Ainv = masked_fill(Ainv, _wrap((info._data > 0)[..., None, None], False, None, 0), math.inf)
    return nan_to_num(matrix_norm(A, p) * matrix_norm(Ainv, p), nan=math.inf, posinf=math.inf)


def frobenius_norm(input: Tensor, dim=(), keepdim: bool = False, *, out=None) -> Tensor:
    """Deprecated ``torch.frobenius_norm``: ``linalg.vector_norm(input, 2, dim, keepdim)`` over at most 2 dims.

    >>> import retrograd as torch
    >>> import warnings; warnings.simplefilter("ignore")
    >>> torch.frobenius_norm(torch.tensor([[3., 0.], [0., 4.]]), dim=(0, 1))
    tensor(5.)
    """
    _warn_once("at::frobenius_norm is deprecated and it is just left for JIT compatibility. It will be removed in "
                  "a future PyTorch release. Please use `linalg.vector_norm(A, 2., dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    dims = (dim,) if isinstance(dim, int) else tuple(dim)
    if len(dims) > 2:
        raise RuntimeError(f"Expected at most 2 dimensions, but got {len(dims)} dimensions instead.")
    res = vector_norm(input, 2, dims, keepdim)
    if out is not None:
        from .._composite import _out

        return _out(res, out)
    return res


def nuclear_norm(input: Tensor, dim=None, keepdim: bool = False, *, out=None) -> Tensor:
    """Deprecated ``torch.nuclear_norm``: ``linalg.matrix_norm(input, 'nuc', dim, keepdim)``
    (``nuclear_norm(input, keepdim)`` uses the last two dims).

    >>> import retrograd as torch
    >>> import warnings; warnings.simplefilter("ignore")
    >>> torch.nuclear_norm(torch.tensor([[3., 0.], [0., -4.]]))
    tensor(7.)
    """
    _warn_once("at::nuclear_norm is deprecated and it is just left for JIT compatibility. It will be removed in a "
                  "future PyTorch release. Please use `linalg.matrix_norm(A, 'nuc', dim, keepdim)` instead",
                  UserWarning, stacklevel=2)
    if isinstance(dim, bool):  # the nuclear_norm(input, keepdim) overload
        dim, keepdim = None, dim
    res = matrix_norm(input, "nuc", (-2, -1) if dim is None else tuple(dim), keepdim)
    if out is not None:
        from .._composite import _out

        return _out(res, out)
    return res
