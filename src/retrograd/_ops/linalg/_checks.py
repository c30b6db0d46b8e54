"""Shared pieces of the linear-algebra ops: ``LinAlgError``, matrix argument checks, PyTorch's error
texts for singular and non-positive-definite inputs, small array helpers."""
from __future__ import annotations

import functools
import math

import numpy as np

from ..._tensor import Tensor
from .._common import wrap_dim
from ..shape import transpose, unsqueeze

__all__ = []


_wrap = Tensor._wrap


class _LinAlgError(RuntimeError):
    """A matrix is singular or not positive-definite (``torch.linalg.LinAlgError``).

    Named ``_LinAlgError`` as PyTorch's class is (``torch._C._LinAlgError``), so
    ``type(e).__name__`` agrees; ``retrograd.linalg.LinAlgError`` is the same class.

    >>> import retrograd as torch
    >>> try:
    ...     torch.linalg.inv(torch.zeros(2, 2))
    ... except torch.linalg.LinAlgError as e:
    ...     type(e).__name__
    '_LinAlgError'
    """


LinAlgError = _LinAlgError


# ---------------------------------------------------------------- small helpers (Tensor level)
def mT(x: Tensor) -> Tensor:
    return transpose(x, -2, -1)


def _const(arr: np.ndarray, like: Tensor) -> Tensor:
    """A constant (no grad) in ``like``'s dtype, e.g. an identity or a triangular mask."""
    return _wrap(np.asarray(arr, dtype=like._data.dtype), False, None, 0)


def _eye(n: int, like: Tensor) -> Tensor:
    return _const(np.eye(n), like)


def _ex2(x: Tensor) -> Tensor:
    """(...,) -> (..., 1, 1): a per-matrix scalar that broadcasts over the matrix."""
    return unsqueeze(unsqueeze(x, -1), -1)


def _diag_embed(v: Tensor) -> Tensor:
    """(..., n) -> (..., n, n) with v on the diagonal, as a broadcast product (differentiable)."""
    return unsqueeze(v, -2) * _eye(v._data.shape[-1], v)


def out_arg(fn):
    """Support PyTorch's ``out=`` for a function: the result is copied into ``out`` (resized
    as PyTorch does); tuple results go into a tuple of tensors."""
    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        res = fn(*args, **kwargs)
        if out is None:
            return res
        from .._composite import _out

        if isinstance(res, tuple):
            for r, o in zip(res, out):
                _out(r, o)
            return type(res)(tuple(out)) if hasattr(res, "_fields") else tuple(out)
        return _out(res, out)
    return wrapper


def _type_name(t: Tensor) -> str:
    from ..._tensor import _scalar_type_name

    return _scalar_type_name(t.dtype)


def check_matrix(A, fname: str, *, square: bool = True, floating: bool = True, arg: str = "A") -> None:
    """PyTorch's argument checks for linalg functions (type, rank, squareness, dtype)."""
    if not isinstance(A, Tensor):
        raise TypeError(f"{fname.replace('.', '_')}(): argument '{arg}' (position 1) must be Tensor, "
                        f"not {type(A).__name__}")
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor {arg} must have at least 2 dimensions.")
    if square and A._data.shape[-1] != A._data.shape[-2]:
        raise RuntimeError(f"{fname}: {arg} must be batches of square matrices, but they are "
                           f"{A._data.shape[-2]} by {A._data.shape[-1]} matrices")
    if floating:
        if A._data.dtype.kind != "f":
            raise RuntimeError(f"{fname}: Expected a floating point or complex tensor as input. Got {_type_name(A)}")
        if A._data.dtype == np.float16:
            raise RuntimeError(f"{fname}: Low precision dtypes not supported. Got Half")


def _batches(a: np.ndarray) -> np.ndarray:
    return a.reshape((math.prod(a.shape[:-2]),) + a.shape[-2:])  # not -1: the matrices may be empty


def _prefix(a: np.ndarray, b: int) -> str:
    return f"(Batch element {b}): " if a.ndim > 2 else ""


def _first_zero_pivot(m: np.ndarray) -> int:
    """1-based index of LAPACK getrf's first zero pivot (partial pivoting), 0 if none."""
    a = np.array(m, dtype=m.dtype, copy=True)
    n = a.shape[0]
    for k in range(n):
        p = k + int(np.argmax(np.abs(a[k:, k])))
        if a[p, k] == 0:
            return k + 1
        if p != k:
            a[[k, p]] = a[[p, k]]
        a[k + 1:, k:] -= np.outer(a[k + 1:, k] / a[k, k], a[k, k:])
    return 0


def _singular_inv_error(a: np.ndarray, fname: str = "linalg.inv") -> LinAlgError:
    for b, m in enumerate(_batches(a)):
        k = _first_zero_pivot(m)
        if k:
            return LinAlgError(f"{fname}: {_prefix(a, b)}The diagonal element {k} is zero, the inversion could not "
                               "be completed because the input matrix is singular.")
    return LinAlgError(f"{fname}: The inversion could not be completed because the input matrix is singular.")


def _singular_solve_error(a: np.ndarray) -> LinAlgError:
    b = 0
    for b, m in enumerate(_batches(a)):
        if _first_zero_pivot(m):
            break
    return LinAlgError(f"torch.linalg.solve: {_prefix(a, b)}The solver failed because the input matrix is singular.")


def _not_pd_error(a: np.ndarray, fname: str) -> LinAlgError:
    for b, m in enumerate(_batches(a)):
        for k in range(1, m.shape[0] + 1):
            try:
                np.linalg.cholesky(m[:k, :k])
            except np.linalg.LinAlgError:
                return LinAlgError(
                    f"{fname}: {_prefix(a, b)}The factorization could not be completed because the input is not "
                    f"positive-definite (the leading minor of order {k} is not positive-definite).")
    return LinAlgError(f"{fname}: The factorization could not be completed because the input is not positive-definite.")


def _size_dim(d: int, n: int) -> int:
    """``wrap_dim`` as ``Tensor.size(d)`` does it (a 0-d tensor has no dim at all)."""
    if n == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return wrap_dim(d, n)
