"""``torch.linalg`` functions built on the existing decompositions: the ``*_ex`` variants (an
``info`` tensor instead of an error), ``cond``, ``tensorinv``, ``tensorsolve``, ``vander``,
and ``eig`` / ``eigvals`` (which need complex results: a clear error here).

The ``_ex`` primitives reuse the rules of ``linalg.inv`` / ``solve`` / ``cholesky`` (same node
names as PyTorch); only their forwards differ, giving inf / NaN or a partial factor plus ``info``
where PyTorch's LAPACK calls do instead of raising.  The rest are composites.
"""
from __future__ import annotations

import math
from typing import NoReturn

import numpy as np

from .. import _creation as C
from .. import return_types as RT
from .._tensor import Tensor
from . import _linalg_decomp as _D
from ._linalg_decomp import (
    LinAlgError,
    _first_zero_pivot,
    _lu_inv_np,
    _prefix,
    _singular_inv_error,
    _type_name,
    check_matrix,
    out_arg,
)
from ._linalg_norms import matrix_norm
from ._registry import apply, primitive
from .linalg_lu import _getrf, _lu_solve_np

__all__: list[str] = []  # torch.linalg names only (exported by retrograd.linalg)

_wrap = Tensor._wrap


def _info(x: np.ndarray) -> Tensor:
    return _wrap(np.asarray(x, dtype=np.int32), False, None, 0)


def _batches(a: np.ndarray) -> np.ndarray:
    return a.reshape((math.prod(a.shape[:-2]),) + a.shape[-2:])


# ---------------------------------------------------------------- inv_ex / solve_ex
def _inv_ex_fw(A):
    try:
        return np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return _lu_inv_np(A)  # inf / NaN where LAPACK meets the zero pivot, as PyTorch's result


_inv_ex = primitive("linalg_inv_ex", _inv_ex_fw, node="LinalgInvExBackward0", A=_D._inv.rules[0])


def _getrf_info(A: np.ndarray) -> np.ndarray:
    return np.array([_first_zero_pivot(m) for m in _batches(A)], np.int32).reshape(A.shape[:-2])


@out_arg
def inv_ex(A: Tensor, *, check_errors: bool = False, out=None):
    """``(inverse, info)``: the inverse without raising; ``info`` > 0 marks a singular matrix.

    >>> import retrograd as torch
    >>> torch.linalg.inv_ex(torch.tensor([[2., 0.], [0., 4.]])).info
    tensor(0, dtype=torch.int32)
    """
    check_matrix(A, "linalg.inv")
    info = _getrf_info(A._data)
    if check_errors and info.any():
        raise _singular_inv_error(A._data, "linalg.inv_ex")
    return RT.linalg_inv_ex((apply(_inv_ex, (A,)), _info(info)))


def _solve_ex_fw(A, B, *, left, vec):
    try:
        return _D._solve_fw(A, B, left=left, vec=vec)
    except LinAlgError:
        # PyTorch's getrf + getrs: a zero pivot gives inf / NaN instead of an error
        LU, piv, _ = _getrf(A)
        Bm = B[..., None] if vec else B
        X = _lu_solve_np(LU, piv, Bm, left=left, adjoint=False)
        return X[..., 0] if vec else X


_solve_ex = primitive("linalg_solve_ex", _solve_ex_fw, node="LinalgSolveExBackward0",
                      A=_D._solve.rules[0], B=_D._solve.rules[1])


@out_arg
def solve_ex(A: Tensor, B: Tensor, *, left: bool = True, check_errors: bool = False, out=None):
    """``(result, info)``: ``linalg.solve`` without raising on a singular A (``info`` > 0 there).

    >>> import retrograd as torch
    >>> torch.linalg.solve_ex(torch.tensor([[2., 0.], [0., 4.]]), torch.tensor([2., 2.])).result
    tensor([1.0000, 0.5000])
    """
    check_matrix(A, "linalg.solve")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg_solve_ex(): argument 'B' (position 2) must be Tensor, not {type(B).__name__}")
    a, b = A._data.shape, B._data.shape
    vec = left and (len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1]))
    _check_solve_shapes(A, B, left, vec)
    info = _getrf_info(A._data)
    if check_errors and info.any():
        k = int(np.flatnonzero(info.reshape(-1))[0])
        raise LinAlgError(f"torch.linalg.solve_ex: {_prefix(A._data, k)}The solver failed because the input matrix "
                          "is singular.")
    res = apply(_solve_ex, (A, B), {"left": bool(left), "vec": bool(vec)})
    return RT.linalg_solve_ex((res, _info(info)))


def _check_solve_shapes(A: Tensor, B: Tensor, left: bool, vec: bool) -> None:
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_type_name(A)} and B of type {_type_name(B)} instead")
    a, b = A._data.shape, B._data.shape
    n = a[-1]
    bm = (b[-1], 1) if vec else (b[-2:] if len(b) >= 2 else (b[0], 1))
    if (left and bm[0] != n) or (not left and bm[1] != n) or len(b) == 0:
        eqn = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eqn} "
                           f"({a[-2]}x{a[-1]} and {bm[0]}x{bm[1]})")


# ---------------------------------------------------------------- cholesky_ex
def _partial_cholesky(a: np.ndarray):
    """Left-looking Cholesky of one matrix, stopping at the first non-positive pivot as LAPACK
    potrf does: (lower factor, 1-based order of the failing minor or 0).  Columns after the failure
    keep A's lower triangle; the failing diagonal holds the unrooted pivot (PyTorch's output)."""
    n = a.shape[-1]
    L = np.tril(a).astype(a.dtype, copy=True)
    for j in range(n):
        d = a[j, j] - L[j, :j] @ L[j, :j]
        if not d > 0:
            L[j, j] = d
            return L, j + 1
        L[j, j] = np.sqrt(d)
        L[j + 1:, j] = (a[j + 1:, j] - L[j + 1:, :j] @ L[j, :j]) / L[j, j]
    return L, 0


def _cholesky_ex_np(A: np.ndarray, upper: bool):
    try:
        L = np.linalg.cholesky(A)
        info = np.zeros(A.shape[:-2], np.int32)
    except np.linalg.LinAlgError:
        parts = [_partial_cholesky(m) for m in _batches(A)]
        L = np.stack([p[0] for p in parts]).reshape(A.shape) if parts else np.zeros_like(A)
        info = np.array([p[1] for p in parts], np.int32).reshape(A.shape[:-2])
    if upper:
        L = np.ascontiguousarray(np.swapaxes(L, -1, -2))
    return L, info


_cholesky_ex = primitive("linalg_cholesky_ex", lambda A, *, upper: _cholesky_ex_np(A, upper)[0],
                         node="LinalgCholeskyExBackward0", A=_D._cholesky.rules[0])


@out_arg
def cholesky_ex(A: Tensor, *, upper: bool = False, check_errors: bool = False, out=None):
    """``(L, info)``: the Cholesky factor without raising; ``info`` = k > 0 when the leading minor of
    order k is not positive-definite.

    >>> import retrograd as torch
    >>> torch.linalg.cholesky_ex(torch.tensor([[4., 2.], [2., 2.]])).L
    tensor([[2., 0.],
            [1., 1.]])
    """
    check_matrix(A, "linalg.cholesky")
    info = _cholesky_ex_np(A._data, False)[1]
    if check_errors and info.any():
        b = int(np.flatnonzero(info.reshape(-1))[0])
        k = int(info.reshape(-1)[b])
        raise LinAlgError(f"linalg.cholesky_ex: {_prefix(A._data, b)}The factorization could not be completed "
                          f"because the input is not positive-definite (the leading minor of order {k} is not "
                          "positive-definite).")
    return RT.linalg_cholesky_ex((apply(_cholesky_ex, (A,), {"upper": bool(upper)}), _info(info)))


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
    from .pointwise_more import nan_to_num
    from .reduce import sum as _sum
    from .shape import slice_dim, squeeze

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
        from .indexing_more import masked_fill

        Ainv = masked_fill(Ainv, _wrap((info._data > 0)[..., None, None], False, None, 0), math.inf)
    return nan_to_num(matrix_norm(A, p) * matrix_norm(Ainv, p), nan=math.inf, posinf=math.inf)


# ---------------------------------------------------------------- tensorinv / tensorsolve
def _prod_error(lhs: int, rhs: int, what: str) -> RuntimeError:
    return RuntimeError(f"Expected self to satisfy the requirement prod(self.shape[{what}:]) == "
                        f"prod(self.shape[:{what}]), but got {lhs} != {rhs}")


@out_arg
def tensorinv(A: Tensor, ind: int = 2, *, out=None) -> Tensor:
    """The tensor X with tensordot(X, A, ind) the identity: inv of A seen as a matrix.

    >>> import retrograd as torch
    >>> torch.linalg.tensorinv(torch.eye(4).reshape(4, 2, 2), ind=1).shape
    torch.Size([2, 2, 4])
    """
    from .shape import reshape

    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = A._data.shape
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise _prod_error(cols, rows, "ind")
    return reshape(_D.inv(reshape(A, (rows, cols))), shape[ind:] + shape[:ind])


@out_arg
def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B; ``dims`` of A are moved to the end first.

    >>> import retrograd as torch
    >>> torch.linalg.tensorsolve(torch.eye(6).reshape(2, 3, 6), torch.ones(2, 3)).shape
    torch.Size([6])
    """
    from .shape import movedim, reshape

    if dims is not None:
        d = [dims] if isinstance(dims, int) else list(dims)
        n = A._data.ndim
        A = movedim(A, d, list(range(n - len(d), n)))
    shape = A._data.shape
    k = B._data.ndim
    rows, cols = math.prod(shape[:k]), math.prod(shape[k:])
    if rows != cols:
        raise _prod_error(cols, rows, "other.ndim")
    return reshape(_D.solve(reshape(A, (rows, cols)), reshape(B, (-1,))), shape[k:])


# ---------------------------------------------------------------- vander
def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """Vandermonde matrices of the last dim, increasing powers: ``x[..., i] ** j`` for j < N.

    >>> import retrograd as torch
    >>> torch.linalg.vander(torch.tensor([1., 2., 3.]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    from .reduce_more import cumprod
    from .shape import expand, reshape, unsqueeze
    from .shape_more import cat

    if x._data.dtype.kind == "b":
        raise RuntimeError("linalg.vander supports floating point, complex, and integer tensors, but got Bool")
    if x._data.ndim == 0:
        x = reshape(x, (1,))
    n = x._data.shape[-1] if N is None else int(N)
    if n <= 1:
        raise RuntimeError("N must be greater than 1.")
    if x._data.dtype.kind in "iu" and x._data.dtype != np.int64:
        x = x.to(_int64())  # PyTorch's cumprod promotes integers to int64
    ones = C.ones(x._data.shape + (1,), dtype=x.dtype)
    powers = cumprod(expand(unsqueeze(x, -1), x._data.shape + (n - 1,)), -1)
    return cat([ones, powers], -1)


def _int64():
    from .._dtype import int64

    return int64


# ---------------------------------------------------------------- eig / eigvals
def _unsupported_eig(A: Tensor, fname: str) -> NoReturn:
    """PyTorch's argument checks for ``fname``, then the error that says why it is not supported."""
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: The input tensor A must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"Unknown Complex ScalarType for {_type_name(A)}")
    check_matrix(A, fname)
    raise RuntimeError(f"{fname}: retrograd has no complex dtypes, and the eigenvalues and eigenvectors of a "
                       "general real matrix are complex; use linalg.eigh / eigvalsh for symmetric matrices")


def eig(A: Tensor, *, out=None):
    """Not supported (complex results): raises RuntimeError after PyTorch's argument checks.

    >>> import retrograd as torch
    >>> try:
    ...     torch.linalg.eig(torch.eye(2))
    ... except RuntimeError as e:
    ...     print(str(e)[:44])
    linalg.eig: retrograd has no complex dtypes,
    """
    _unsupported_eig(A, "linalg.eig")


def eigvals(A: Tensor, *, out=None):
    """Not supported, for the reason :func:`eig` gives; the argument errors are PyTorch's.

    >>> import retrograd as torch
    >>> torch.linalg.eigvals(torch.ones(3))
    Traceback (most recent call last):
    RuntimeError: linalg.eigvals: The input tensor A must have at least 2 dimensions.
    """
    _unsupported_eig(A, "linalg.eigvals")
