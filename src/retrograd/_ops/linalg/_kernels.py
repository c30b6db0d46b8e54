"""NumPy kernels of the factorizations that several linalg subjects run (LU, triangular solves, SVD):
they live here, below the subject modules, so that sharing them creates no import cycle."""
from __future__ import annotations

import functools
import math

import numpy as np

from ._checks import LinAlgError, _batches, _prefix


def _getrf(A: np.ndarray):
    """Batched partial-pivoting LU of (..., m, n): (LU packed, 1-based int32 pivots, int32 info)."""
    m, n = A.shape[-2:]
    k = min(m, n)
    batch = A.shape[:-2]
    a = np.array(A, copy=True).reshape((math.prod(batch), m, n))
    piv = np.zeros((a.shape[0], k), np.int32)
    info = np.zeros(a.shape[0], np.int32)
    idx = np.arange(a.shape[0])
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for j in range(k):
            p = j + np.argmax(np.abs(a[:, j:, j]), axis=1)  # first maximum on ties, as LAPACK's idamax
            piv[:, j] = p + 1
            rows = a[idx, p].copy()
            a[idx, p] = a[:, j]
            a[:, j] = rows
            d = a[:, j, j]
            zero = d == 0
            info[(info == 0) & zero] = j + 1
            # a zero pivot has a zero column below it: nothing to scale or eliminate
            f = np.where(zero[:, None], 0, a[:, j + 1:, j] / np.where(zero, 1, d)[:, None])
            a[:, j + 1:, j] = np.where(zero[:, None], a[:, j + 1:, j], f)
            a[:, j + 1:, j + 1:] -= f[:, :, None] * a[:, j, None, j + 1:]
    return a.reshape(A.shape), piv.reshape(batch + (k,)), info.reshape(batch)


def _perm(piv: np.ndarray, m: int) -> np.ndarray:
    """Row order p of P^T A (``(P^T A)[i] = A[p[i]]``) from LAPACK's sequential row swaps."""
    batch = piv.shape[:-1]
    nb = math.prod(batch)  # not -1: the matrices may be empty
    p = np.broadcast_to(np.arange(m), batch + (m,)).reshape(nb, m).copy()
    pv = piv.reshape(nb, piv.shape[-1]).astype(np.int64) - 1
    idx = np.arange(p.shape[0])
    for j in range(pv.shape[1]):
        t = p[idx, pv[:, j]].copy()
        p[idx, pv[:, j]] = p[:, j]
        p[:, j] = t
    return p.reshape(batch + (m,))


def _tri_solve_np(T: np.ndarray, B: np.ndarray, lower: bool, unit: bool = False) -> np.ndarray:
    """X with T X = B for a triangular T by substitution, like BLAS trsm: only T's triangle is
    read and a zero on the diagonal gives inf / NaN instead of an error (what PyTorch returns)."""
    n = T.shape[-1]
    dtype = np.result_type(T, B)
    X = np.zeros(np.broadcast_shapes(T.shape[:-2], B.shape[:-2]) + B.shape[-2:], dtype=dtype)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for i in (range(n) if lower else range(n - 1, -1, -1)):
            known = slice(0, i) if lower else slice(i + 1, n)
            r = B[..., i, :] - np.einsum("...j,...jk->...k", T[..., i, known], X[..., known, :])
            X[..., i, :] = r if unit else r / T[..., i, i, None]
    return X


def _lu_solve_np(LU, piv, B, *, left, adjoint):
    """X with A X = B (A^T X = B when adjoint; X A = B / X A^T = B when not left), A = P L U."""
    if not left:  # X A = B  <=>  A^T X^T = B^T
        return np.swapaxes(_lu_solve_np(LU, piv, np.swapaxes(B, -1, -2), left=True, adjoint=not adjoint), -1, -2)
    n = LU.shape[-1]
    batch = np.broadcast_shapes(LU.shape[:-2], B.shape[:-2])
    LU = np.broadcast_to(LU, batch + LU.shape[-2:])
    B = np.broadcast_to(B, batch + B.shape[-2:])
    p = np.broadcast_to(_perm(piv, n), batch + (n,))
    if not adjoint:  # U X = L^-1 P^T B
        Y = np.take_along_axis(B, p[..., :, None], axis=-2)
        Y = _tri_solve_np(LU, Y, True, True)
        return _tri_solve_np(LU, Y, False).astype(LU.dtype, copy=False)
    # A^T = U^T L^T P^T:  X = P L^-T U^-T B
    Y = _tri_solve_np(np.swapaxes(LU, -1, -2), B, True)
    Y = _tri_solve_np(np.swapaxes(LU, -1, -2), Y, False, True)
    X = np.empty_like(Y)
    np.put_along_axis(X, p[..., :, None], Y, axis=-2)
    return X.astype(LU.dtype, copy=False)


def _svd_fw(A, *, full_matrices):
    if A.size and not np.isfinite(A).all():
        # PyTorch (LAPACK gesdd): a NaN makes it raise; an inf (without NaN) gives NaN factors
        nan = np.isnan(_batches(A)).any(axis=(-2, -1))
        if nan.any():
            raise LinAlgError(f"linalg.svd: {_prefix(A, int(np.argmax(nan)))}The algorithm failed to converge "
                              "because the input matrix contained non-finite values.")
        m, n = A.shape[-2:]
        k = min(m, n)
        ucols, vrows = (m, n) if full_matrices else (k, k)
        full = functools.partial(np.full, fill_value=np.nan, dtype=A.dtype)
        return full(A.shape[:-2] + (m, ucols)), full(A.shape[:-2] + (k,)), full(A.shape[:-2] + (vrows, n))
    U, S, Vh = np.linalg.svd(A, full_matrices=full_matrices)
    return U, S, Vh

