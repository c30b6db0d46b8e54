"""``linalg.ldl_factor`` / ``ldl_factor_ex`` / ``ldl_solve``: the Bunch-Kaufman LDL^T factorization of a
symmetric (possibly indefinite) matrix in LAPACK's compact ``sytrf`` format (lower triangle), and
the solve that uses it (``sytrs``).

``LD`` holds L below the diagonal and the 1x1 / 2x2 diagonal blocks of D; ``pivots`` (int32,
1-based) says per column k: ``p > 0`` a 1x1 block after swapping rows/columns k and p, ``-p`` on
two consecutive columns a 2x2 block after swapping k + 1 and p.  As in PyTorch there is no
derivative (the backward raises).
"""
from __future__ import annotations

import math

import numpy as np

from ... import return_types as RT
from ..._tensor import Tensor
from .._registry import apply, primitive
from ._checks import _type_name

__all__ = []


_ALPHA = (1 + math.sqrt(17)) / 8  # Bunch-Kaufman's growth bound


def _sytf2_lower(a: np.ndarray) -> tuple:
    """Factor one symmetric matrix in place (lower triangle read); returns (pivots, info)."""
    n = a.shape[0]
    ipiv = np.zeros(n, dtype=np.int32)
    info = 0
    k = 0
    while k < n:
        kstep = 1
        absakk = abs(a[k, k])
        if k < n - 1:
            imax = k + 1 + int(np.argmax(np.abs(a[k + 1:, k])))
            colmax = abs(a[imax, k])
        else:
            imax, colmax = k, 0.0
        if max(absakk, colmax) == 0 or np.isnan(absakk):
            info = info or k + 1
            kp = k
        else:
            if absakk >= _ALPHA * colmax:
                kp = k
            else:
                # the largest off-diagonal entry of row/column imax (within the trailing block)
                jmax = k + int(np.argmax(np.abs(a[imax, k:imax])))
                rowmax = abs(a[imax, jmax])
                if imax < n - 1:
                    jmax = imax + 1 + int(np.argmax(np.abs(a[imax + 1:, imax])))
                    rowmax = max(rowmax, abs(a[jmax, imax]))
                if absakk >= _ALPHA * colmax * (colmax / rowmax):
                    kp = k
                elif abs(a[imax, imax]) >= _ALPHA * rowmax:
                    kp = imax
                else:
                    kp, kstep = imax, 2
            kk = k + kstep - 1
            if kp != kk:  # symmetric interchange of kk and kp in the trailing block (lower part)
                a[kp + 1:, [kk, kp]] = a[kp + 1:, [kp, kk]]
                tmp = a[kk + 1:kp, kk].copy()
                a[kk + 1:kp, kk] = a[kp, kk + 1:kp]
                a[kp, kk + 1:kp] = tmp
                a[kk, kk], a[kp, kp] = a[kp, kp], a[kk, kk]
                if kstep == 2:
                    a[k + 1, k], a[kp, k] = a[kp, k], a[k + 1, k]
            if kstep == 1:
                if k < n - 1:
                    d11 = 1 / a[k, k]
                    x = a[k + 1:, k].copy()
                    a[k + 1:, k + 1:] -= np.tril(np.outer(x * d11, x))
                    a[k + 1:, k] = x * d11
            elif k < n - 2:
                d21 = a[k + 1, k]
                d11 = a[k + 1, k + 1] / d21
                d22 = a[k, k] / d21
                d21 = (1 / (d11 * d22 - 1)) / d21
                ck, ck1 = a[k + 2:, k].copy(), a[k + 2:, k + 1].copy()
                wk = d21 * (d11 * ck - ck1)
                wkp1 = d21 * (d22 * ck1 - ck)
                a[k + 2:, k + 2:] -= np.tril(np.outer(ck, wk) + np.outer(ck1, wkp1))
                a[k + 2:, k] = wk
                a[k + 2:, k + 1] = wkp1
        if kstep == 1:
            ipiv[k] = kp + 1
        else:
            ipiv[k] = ipiv[k + 1] = -(kp + 1)
        k += kstep
    return ipiv, info


def _factor_np(A):
    n = A.shape[-1]
    batch = A.shape[:-2]
    flat = A.reshape((math.prod(batch), n, n))  # (explicit count: -1 is ambiguous when n == 0)
    LD = np.empty_like(flat)
    piv = np.zeros((flat.shape[0], n), dtype=np.int32)
    info = np.zeros(flat.shape[0], dtype=np.int32)
    for b in range(flat.shape[0]):
        a = flat[b].copy()
        piv[b], info[b] = _sytf2_lower(a)
        LD[b] = np.tril(a)
    return LD.reshape(A.shape), piv.reshape(batch + (n,)), info.reshape(batch)


def _sytrs_lower(ld: np.ndarray, ipiv: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Solve A X = B (B: (n, k), a copy) from one factorization."""
    n = ld.shape[0]
    k = 0
    while k < n:  # L D Y = B
        if ipiv[k] > 0:
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            b[k + 1:] -= np.outer(ld[k + 1:, k], b[k])
            b[k] /= ld[k, k]
            k += 1
        else:
            kp = -ipiv[k] - 1
            b[[k + 1, kp]] = b[[kp, k + 1]]
            b[k + 2:] -= np.outer(ld[k + 2:, k], b[k]) + np.outer(ld[k + 2:, k + 1], b[k + 1])
            akm1k = ld[k + 1, k]
            akm1, ak = ld[k, k] / akm1k, ld[k + 1, k + 1] / akm1k
            denom = akm1 * ak - 1
            bkm1, bk = b[k] / akm1k, b[k + 1] / akm1k
            b[k] = (ak * bkm1 - bk) / denom
            b[k + 1] = (akm1 * bk - bkm1) / denom
            k += 2
    k = n - 1
    while k >= 0:  # L^T X = Y
        if ipiv[k] > 0:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            kp = ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 1
        else:
            b[k] -= ld[k + 1:, k] @ b[k + 1:]
            b[k - 1] -= ld[k + 1:, k - 1] @ b[k + 1:]
            kp = -ipiv[k] - 1
            b[[k, kp]] = b[[kp, k]]
            k -= 2
    return b


def _solve_np(LD, B, *, pivots):
    n = LD.shape[-1]
    batch = np.broadcast_shapes(LD.shape[:-2], B.shape[:-2], pivots.shape[:-1])
    m = math.prod(batch)
    ld = np.broadcast_to(LD, batch + (n, n)).reshape((m, n, n))
    pv = np.broadcast_to(pivots, batch + (n,)).reshape((m, n))
    bb = np.broadcast_to(B, batch + B.shape[-2:]).reshape((m,) + B.shape[-2:])
    out = np.empty(bb.shape, dtype=np.result_type(LD, B))
    with np.errstate(divide="ignore", invalid="ignore"):
        for i in range(bb.shape[0]):
            out[i] = _sytrs_lower(ld[i], pv[i].astype(np.int64), bb[i].astype(out.dtype, copy=True))
    return out.reshape(batch + B.shape[-2:])


def _no_grad(name: str):
    def rule(g):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return rule


# (PyTorch's node for an op without a derivative is named NotImplemented)
_factor = primitive("linalg_ldl_factor_ex", _factor_np, node="NotImplemented", n_out=3,
                    A=_no_grad("linalg_ldl_factor_ex"))
_solve = primitive("linalg_ldl_solve", _solve_np, node="NotImplemented",
                   LD=_no_grad("linalg_ldl_solve"), B=_no_grad("linalg_ldl_solve"))


def _factor_checks(A: Tensor, fn: str) -> None:
    if A._data.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor A must have at least 2 dimensions.")
    if A._data.shape[-1] != A._data.shape[-2]:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {A._data.shape[-2]} by "
                           f"{A._data.shape[-1]} matrices")
    if A._data.dtype.kind != "f" or A._data.dtype.itemsize < 4:
        raise RuntimeError(f"{fn}: Expected a floating point or complex tensor as input. Got {_type_name(A)}")


def _factor_outputs(A: Tensor) -> tuple:
    LD, piv, info = apply(_factor, (A,))
    for t in (piv, info):  # integer outputs: never part of a graph
        t._requires_grad = False
        t._grad_fn = None
    return LD, piv, info


def ldl_factor_ex(A: Tensor, *, hermitian: bool = False, check_errors: bool = False, out=None):
    """``(LD, pivots, info)``: the LDL^T factorization of symmetric ``A`` in LAPACK's compact form;
    ``info`` = k > 0 when D's k-th diagonal entry is exactly zero (the factorization still completes).

    >>> import retrograd as torch
    >>> torch.linalg.ldl_factor_ex(torch.tensor([[4., 2.], [2., 3.]])).LD
    tensor([[4.0000, 0.0000],
            [0.5000, 2.0000]])
    """
    fn = "torch.linalg.ldl_factor_ex"
    _factor_checks(A, fn)
    LD, piv, info = _factor_outputs(A)
    if check_errors and info._data.any():
        raise RuntimeError(f"{fn}: Unknown error code: {int(info._data.reshape(-1)[info._data.reshape(-1) > 0][0])}.")
    res = RT.linalg_ldl_factor_ex((LD, piv, info))
    return res if out is None else _write(res, out)


def ldl_factor(A: Tensor, *, hermitian: bool = False, out=None):
    """``(LD, pivots)`` of the LDL^T factorization of symmetric ``A`` (see ``ldl_factor_ex``); an exactly
    singular D raises.

    >>> import retrograd as torch
    >>> torch.linalg.ldl_factor(torch.tensor([[0., 1.], [1., 0.]])).pivots.tolist()
    [-2, -2]
    """
    fn = "torch.linalg.ldl_factor"
    _factor_checks(A, fn + "_ex")  # (PyTorch's checks name the _ex function)
    LD, piv, info = _factor_outputs(A)
    if info._data.any():
        raise RuntimeError(f"{fn}: Unknown error code: {int(info._data.reshape(-1)[info._data.reshape(-1) > 0][0])}.")
    res = RT.linalg_ldl_factor((LD, piv))
    return res if out is None else _write(res, out)


def ldl_solve(LD: Tensor, pivots: Tensor, B: Tensor, *, hermitian: bool = False, out=None) -> Tensor:
    """Solve ``A X = B`` from ``ldl_factor(A)``'s ``(LD, pivots)``.

    >>> import retrograd as torch
    >>> A = torch.tensor([[4., 2.], [2., 3.]])
    >>> torch.linalg.ldl_solve(*torch.linalg.ldl_factor(A), torch.tensor([[6.], [5.]]))
    tensor([[1.],
            [1.]])
    """
    fn = "torch.linalg.ldl_solve"
    if LD._data.ndim < 2:
        raise RuntimeError(f"{fn}: The input tensor LD must have at least 2 dimensions.")
    if B._data.ndim < 2:
        raise IndexError(f"Dimension out of range (expected to be in range of [-{max(B._data.ndim, 1)}, "
                         f"{max(B._data.ndim, 1) - 1}], but got -2)")
    n = LD._data.shape[-1]
    if LD._data.shape[-2] != n:
        raise RuntimeError(f"{fn}: A must be batches of square matrices, but they are {LD._data.shape[-2]} by "
                           f"{n} matrices")
    if B._data.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for {fn}: each A matrix is {n} by {n} but each b matrix is "
                           f"{B._data.shape[-2]} by {B._data.shape[-1]}")
    if B._data.dtype != LD._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_type_name(B)} and A of "
                           f"type {_type_name(LD)} instead.")
    if pivots._data.dtype.kind not in "iu":
        raise RuntimeError(f"{fn}: Expected pivots to be integers. Got {_type_name(pivots)}")
    res = apply(_solve, (LD, B), {"pivots": pivots._data})
    if out is None:
        return res
    from .._composite import _out

    return _out(res, out)


def _write(res: tuple, out) -> tuple:
    from .._composite import _out

    for r, o in zip(res, out):
        _out(r, o)
    return type(res)(tuple(out))
