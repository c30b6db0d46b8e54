"""LU decomposition with partial pivoting: ``linalg.lu_factor(_ex)``, ``linalg.lu``, ``linalg.lu_solve``
and PyTorch's older top-level ``lu``, ``lu_unpack``, ``lu_solve``.

The forward is LAPACK getrf's algorithm in NumPy (partial pivoting: the largest |entry| of the
column, the first one on ties; 1-based int32 pivots; a zero pivot is recorded in ``info`` and the
elimination goes on), so P, L, U are torch's on matrices without ties.  Each rule is written in
retrograd ops (tril / triu / matmul / solve_triangular), so every derivative differentiates again.
With A = P L U and Phi = tril(L^T gL, -1) + triu(gU U^T), a square A has
gA = P L^-T Phi U^-T; wide and tall matrices split off the extra columns / rows.
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import return_types as RT
from ..._tensor import Tensor
from .._registry import apply, primitive
from ..diagonal import tril, triu
from ..joining import cat
from ..shape import slice_dim
from ._checks import _const, _prefix, _type_name, mT, out_arg
from ._kernels import _getrf, _lu_solve_np, _perm
from .products import matmul

__all__ = ["lu", "lu_solve", "lu_unpack"]


_wrap = Tensor._wrap
_lu_with_info = RT._make("_lu_with_info", ("LU", "pivots", "info"))


# ---------------------------------------------------------------- NumPy kernels


_warned: set = set()


def _warn_once(message: str, category=UserWarning, stacklevel: int = 2) -> None:
    """Warn the first time only, as torch's TORCH_WARN_ONCE deprecations do (once per process)."""
    if message not in _warned:
        _warned.add(message)
        warnings.warn(message, category, stacklevel=stacklevel + 1)


def _perm_matrix(piv: np.ndarray, m: int, dtype) -> np.ndarray:
    """P with A = P L U: column i of P is e_{p[i]}."""
    p = _perm(piv, m)
    P = np.zeros(p.shape + (m,), dtype)
    np.put_along_axis(P, p[..., :, None], 1, axis=-1)  # P^T[i, p[i]] = 1
    return np.swapaxes(P, -1, -2).copy()


def _unpack_np(LU: np.ndarray):
    m, n = LU.shape[-2:]
    k = min(m, n)
    L = np.tril(LU[..., :, :k], -1) + np.eye(m, k, dtype=LU.dtype)
    U = np.triu(LU[..., :k, :])
    return L, U


# ---------------------------------------------------------------- backward (retrograd ops)
def _pconst(piv: Tensor, m: int, like: Tensor) -> Tensor:
    return _const(_perm_matrix(piv._data, m, like._data.dtype), like)


def _unpack(LU: Tensor):
    """(L, U) of a packed LU, differentiable in LU."""
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    L = tril(slice_dim(LU, -1, 0, k) if n > k else LU, -1) + _const(np.eye(m, k), LU)
    U = triu(slice_dim(LU, -2, 0, k) if m > k else LU)
    return L, U


def _lu_backward(gL: Tensor, gU: Tensor, P: Tensor, L: Tensor, U: Tensor) -> Tensor:
    """gA for A = P L U (gL strictly lower, gU upper parts taken here)."""
    m, n = L._data.shape[-2], U._data.shape[-1]
    k = min(m, n)
    gL, gU = tril(gL, -1), triu(gU)
    if m == n:
        phi = tril(matmul(mT(L), gL), -1) + triu(matmul(gU, mT(U)))
        gA = solve_triangular(mT(U), phi, upper=False, left=False)
        gA = solve_triangular(mT(L), gA, upper=True, unitriangular=True)
    elif m < n:  # wide: U = [U1 U2]
        U1, gU1, gU2 = slice_dim(U, -1, 0, k), slice_dim(gU, -1, 0, k), slice_dim(gU, -1, k, n)
        phi = tril(matmul(mT(L), gL) - matmul(gU, mT(U)), -1)
        gA = solve_triangular(mT(U1), phi, upper=False, left=False) + gU1
        gA = solve_triangular(mT(L), cat([gA, gU2], -1), upper=True, unitriangular=True)
    else:  # tall: L = [L1; L2]
        L1, gL1, gL2 = slice_dim(L, -2, 0, k), slice_dim(gL, -2, 0, k), slice_dim(gL, -2, k, m)
        phi = triu(matmul(gU, mT(U)) - matmul(mT(L), gL))
        gA = solve_triangular(mT(L1), phi, upper=True, unitriangular=True) + gL1
        gA = solve_triangular(mT(U), cat([gA, gL2], -2), upper=False, left=False)
    return matmul(P, gA)


def _lu_factor_rule(g, out):
    LU, piv = out[0], out[1]
    m, n = LU._data.shape[-2:]
    k = min(m, n)
    L, U = _unpack(LU)
    gL = slice_dim(g[0], -1, 0, k) if n > k else g[0]
    gU = slice_dim(g[0], -2, 0, k) if m > k else g[0]
    return _lu_backward(gL, gU, _pconst(piv, m, LU), L, U)


def _lu_rule(g, out):
    P, L, U = out
    return _lu_backward(g[1], g[2], P.detach(), L, U)


def _lu_factor_fw(A):
    return _getrf(A)


def _lu_fw(A):
    LU, piv, _ = _getrf(A)
    L, U = _unpack_np(LU)
    return _perm_matrix(piv, A.shape[-2], A.dtype), L, U


_lu_factor = primitive("linalg_lu_factor_ex", _lu_factor_fw, node="LinalgLuFactorExBackward0", n_out=3,
                       A=_lu_factor_rule)
_lu = primitive("linalg_lu", _lu_fw, node="LinalgLuBackward0", n_out=3, A=_lu_rule)


def _unpack_fw(LU, piv):
    L, U = _unpack_np(LU)
    return _perm_matrix(piv, LU.shape[-2], LU.dtype), L, U


def _unpack_rule(g, LU_shape):
    """lu_unpack is linear in LU: scatter tril(gL, -1) and triu(gU) back into LU's shape."""
    m, n = LU_shape[-2:]
    gL, gU = tril(g[1], -1), triu(g[2])
    if m > n:
        gU = cat([gU, _const(np.zeros(gU._data.shape[:-2] + (m - n, n)), gU)], -2)
    elif n > m:
        gL = cat([gL, _const(np.zeros(gL._data.shape[:-2] + (m, n - m)), gL)], -1)
    return gL + gU


_lu_unpack = primitive("lu_unpack", _unpack_fw, node="LuUnpackBackward0", n_out=3, LU=_unpack_rule)


def _lu_solve_grads(g, LU, piv, B, X, left, adjoint):
    """(gLU, gB) of lu_solve.  gB solves the transposed system; gA as for linalg.solve, then
    split along A = P L U: gL = tril(P^T gA U^T, -1), gU = triu(L^T P^T gA)."""
    gB = _lu_solve(LU, piv, g, left=left, adjoint=not adjoint)
    if left:
        gA = -matmul(X, mT(gB)) if adjoint else -matmul(gB, mT(X))
    else:
        gA = -matmul(mT(gB), X) if adjoint else -matmul(mT(X), gB)
    L, U = _unpack(LU)
    PtgA = matmul(mT(_pconst(piv, LU._data.shape[-1], LU)), gA)
    return tril(matmul(PtgA, mT(U)), -1) + triu(matmul(mT(L), PtgA)), gB


_lu_solve_op = primitive(
    "linalg_lu_solve", lambda LU, piv, B, *, left, adjoint: _lu_solve_np(LU, piv, B, left=left, adjoint=adjoint),
    node="LinalgLuSolveBackward0",
    LU=lambda g, LU, piv, B, out, left, adjoint: _lu_solve_grads(g, LU, piv, B, out, left, adjoint)[0],
    B=lambda g, LU, piv, left, adjoint: _lu_solve(LU, piv, g, left=left, adjoint=not adjoint))


def _lu_solve(LU: Tensor, piv: Tensor, B: Tensor, *, left: bool, adjoint: bool) -> Tensor:
    return apply(_lu_solve_op, (LU, piv, B), {"left": left, "adjoint": adjoint})


# ---------------------------------------------------------------- argument checks
def _check_lu_input(A, fname: str, pivot: bool, cpu_name: str = "linalg.lu_factor", api: str = "",
                    arg: str = "A") -> None:
    if not isinstance(A, Tensor):
        raise TypeError(f"{api}(): argument '{arg}' (position 1) must be Tensor, not {type(A).__name__}")
    if A._data.ndim < 2:
        raise RuntimeError(f"{fname}: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(map(str, A._data.shape))}] instead")
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"lu_cpu\" not implemented for '{_type_name(A)}'")
    if not pivot:
        raise RuntimeError(f"{cpu_name}: LU without pivoting is not implemented on the CPU")


def _int_outputs(res: tuple, first_int: int) -> tuple:
    """Integer outputs (pivots, info) carry no graph, as in PyTorch."""
    return res[:first_int] + tuple(_wrap(r._data, False, None, 0) for r in res[first_int:])


def _factor(A: Tensor) -> tuple:
    return _int_outputs(apply(_lu_factor, (A,)), 1)


# ---------------------------------------------------------------- public API
@out_arg
def lu_factor_ex(A: Tensor, *, pivot: bool = True, check_errors: bool = False, out=None):
    """Packed LU factorisation with pivots and ``info`` (> 0: U[info-1, info-1] is zero), no error.

    >>> import retrograd as torch
    >>> LU, pivots, info = torch.linalg.lu_factor_ex(torch.tensor([[1., 2.], [3., 4.]]))
    >>> pivots, info
    (tensor([2, 2], dtype=torch.int32), tensor(0, dtype=torch.int32))
    """
    _check_lu_input(A, "torch.linalg.lu_factor_ex", pivot, api="linalg_lu_factor_ex")
    res = _factor(A)
    if check_errors:
        _raise_singular(res[2]._data, "torch.linalg.lu_factor_ex")
    return RT.linalg_lu_factor_ex(res)


def _raise_singular(info: np.ndarray, fname: str) -> None:
    flat = info.reshape(-1)
    bad = np.flatnonzero(flat)
    if bad.size:
        b, k = int(bad[0]), int(flat[bad[0]])
        pre = _prefix(np.empty(info.shape + (0, 0)), b)
        raise RuntimeError(f"{fname}: {pre}U[{k},{k}] is zero and using it on lu_solve would result in a division "
                          "by zero. If you still want to perform the factorization, consider calling "
                          "linalg.lu(A, pivot) or linalg.lu_factor_ex(A, pivot)")


@out_arg
def lu_factor(A: Tensor, *, pivot: bool = True, out=None):
    """Packed LU factorisation ``(LU, pivots)`` of A = P L U; raises on a zero pivot.

    >>> import retrograd as torch
    >>> LU, pivots = torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
    >>> LU
    tensor([[3.0000, 4.0000],
            [0.3333, 0.6667]])
    """
    _check_lu_input(A, "torch.lu_factor", pivot, api="linalg_lu_factor")
    LU, piv, info = _factor(A)
    _raise_singular(info._data, "torch.linalg.lu_factor")
    return RT.linalg_lu_factor((LU, piv))


@out_arg
def linalg_lu(A: Tensor, *, pivot: bool = True, out=None):
    """``torch.linalg.lu``: ``(P, L, U)`` with A = P L U (P a permutation matrix, no gradient).

    >>> import retrograd as torch
    >>> P, L, U = torch.linalg.lu(torch.tensor([[1., 2.], [3., 4.]]))
    >>> P
    tensor([[0., 1.],
            [1., 0.]])
    """
    _check_lu_input(A, "linalg.lu", pivot, api="linalg_lu")
    P, L, U = apply(_lu, (A,))
    return RT.linalg_lu((_wrap(P._data, False, None, 0), L, U))


def _check_pivots(piv, fname: str) -> None:
    if not isinstance(piv, Tensor) or piv._data.dtype != np.int32:
        raise RuntimeError(f"{fname}: LU_pivots is expected to be a contiguous tensor of torch.int32 dtype.\n"
                           "Note: this function is intended to be used with the output produced by "
                           "torch.linalg.lu_factor")


@out_arg
def lu_unpack(LU_data: Tensor, LU_pivots: Tensor, unpack_data: bool = True, unpack_pivots: bool = True, *,
              out=None):
    """``(P, L, U)`` from the packed output of ``linalg.lu_factor``.

    >>> import retrograd as torch
    >>> LU, pivots = torch.linalg.lu_factor(torch.tensor([[1., 2.], [3., 4.]]))
    >>> torch.lu_unpack(LU, pivots).L
    tensor([[1.0000, 0.0000],
            [0.3333, 1.0000]])
    """
    if LU_data._data.ndim < 2:
        raise RuntimeError(f"torch.lu_unpack: Expected tensor with 2 or more dimensions. Got size: "
                           f"[{', '.join(map(str, LU_data._data.shape))}] instead")
    _check_pivots(LU_pivots, "torch.lu_unpack")
    m, n = LU_data._data.shape[-2:]
    if LU_pivots._data.shape != LU_data._data.shape[:-2] + (min(m, n),):
        raise RuntimeError("torch.lu_unpack: Expected LU_pivots.size(-1) == min(LU_data.size(-1), "
                           "LU_data.size(-2)) and LU_pivots batch dims to match LU_data's")
    if LU_pivots._data.size and (LU_pivots._data.min() < 1 or LU_pivots._data.max() > m):
        raise RuntimeError("pivots passed to lu_unpack must be between 1 and LU.size(-2) inclusive.Did you properly "
                           "pass the result of lu_factor?")
    P, L, U = apply(_lu_unpack, (LU_data, LU_pivots))
    empty = _wrap(np.zeros((0,), LU_data._data.dtype), False, None, 0)
    P = _wrap(P._data, False, None, 0) if unpack_pivots else empty
    if not unpack_data:
        L, U = empty, empty
    return RT.lu_unpack((P, L, U))


@out_arg
def linalg_lu_solve(LU: Tensor, pivots: Tensor, B: Tensor, *, left: bool = True, adjoint: bool = False, out=None):
    """X with A X = B (A^T X = B when ``adjoint``; X A = B when ``left=False``) from A's ``lu_factor``.

    >>> import retrograd as torch
    >>> LU, pivots = torch.linalg.lu_factor(torch.tensor([[2., 0.], [0., 4.]]))
    >>> torch.linalg.lu_solve(LU, pivots, torch.tensor([[2.], [2.]]))
    tensor([[1.0000],
            [0.5000]])
    """
    if LU._data.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor LU must have at least 2 dimensions.")
    if B._data.ndim < 2:
        raise RuntimeError("linalg.lu_solve: The input tensor B must have at least 2 dimensions.")
    if LU._data.shape[-1] != LU._data.shape[-2]:
        raise RuntimeError(f"torch.linalg.lu_solve: A must be batches of square matrices, but they are "
                           f"{LU._data.shape[-2]} by {LU._data.shape[-1]} matrices")
    if LU._data.dtype.kind != "f" or LU._data.dtype == np.float16:
        raise RuntimeError(f"torch.linalg.lu_solve: Expected a floating point or complex tensor as input. Got "
                           f"{_type_name(LU)}")
    if LU._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.lu_solve: Expected LU and B to have the same dtype, but found LU of type "
                           f"{_type_name(LU)} and B of type {_type_name(B)} instead")
    if pivots._data.dtype != np.int32:
        raise RuntimeError("linalg.lu_solve: pivots should be a Tensor of scalar type torch.int32")
    if pivots._data.shape != LU._data.shape[:-1]:
        raise RuntimeError(f"linalg.lu_solve: Expected LU.shape[:-1] and pivots.shape to be the same, but got "
                           f"pivots with shape [{', '.join(map(str, pivots._data.shape))}] instead")
    n = LU._data.shape[-1]
    b = B._data.shape
    if (b[-2] if left else b[-1]) != n:
        eqn = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation {eqn} "
                           f"({n}x{n} and {b[-2]}x{b[-1]})")
    try:
        np.broadcast_shapes(LU._data.shape[:-2], b[:-2])
    except ValueError:
        from .._common import broadcast_error

        raise broadcast_error(LU._data.shape[:-2], b[:-2]) from None
    return _lu_solve(LU, pivots, B, left=bool(left), adjoint=bool(adjoint))


def lu(A: Tensor, pivot: bool = True, get_infos: bool = False, *, out=None):
    """Deprecated ``torch.lu``: ``(LU, pivots)`` or, with ``get_infos``, ``(LU, pivots, infos)``.

    >>> import retrograd as torch
    >>> import warnings; warnings.simplefilter("ignore")
    >>> torch.lu(torch.tensor([[1., 2.], [3., 4.]]))[1]
    tensor([2, 2], dtype=torch.int32)
    """
    _warn_once(
        "torch.lu is deprecated in favor of torch.linalg.lu_factor / torch.linalg.lu_factor_ex and will be removed "
        "in a future PyTorch release.\nLU, pivots = torch.lu(A, compute_pivots)\nshould be replaced with\n"
        "LU, pivots = torch.linalg.lu_factor(A, compute_pivots)\nand\n"
        "LU, pivots, info = torch.lu(A, compute_pivots, get_infos=True)\nshould be replaced with\n"
        "LU, pivots, info = torch.linalg.lu_factor_ex(A, compute_pivots)", UserWarning, stacklevel=2)
    _check_lu_input(A, "torch.lu_factor", pivot, api="_lu_with_info", arg="input")
    LU, piv, info = _factor(A)  # PyTorch's torch.lu does not raise on a singular matrix
    res = (LU, piv, info) if get_infos else (LU, piv)
    if out is not None:
        from .._composite import _out

        return tuple(_out(r, o) for r, o in zip(res, out))
    return _lu_with_info(res) if get_infos else res


def lu_solve(b: Tensor, LU_data: Tensor, LU_pivots: Tensor, *, out=None) -> Tensor:
    """Deprecated ``torch.lu_solve(b, LU_data, LU_pivots)``: ``linalg.lu_solve(LU_data, LU_pivots, b)``.

    >>> import retrograd as torch
    >>> import warnings; warnings.simplefilter("ignore")
    >>> A = torch.tensor([[2., 0.], [0., 4.]])
    >>> torch.lu_solve(torch.ones(2, 1), *torch.linalg.lu_factor(A))
    tensor([[0.5000],
            [0.2500]])
    """
    _warn_once(
        "torch.lu_solve is deprecated in favor of torch.linalg.lu_solveand will be removed in a future PyTorch "
        "release.\nNote that torch.linalg.lu_solve has its arguments reversed.\nX = torch.lu_solve(B, LU, pivots)\n"
        "should be replaced with\nX = torch.linalg.lu_solve(LU, pivots, B)", UserWarning, stacklevel=2)
    return linalg_lu_solve(LU_data, LU_pivots, b, out=out)


# Run-time references to modules that import this one (bound last, so either import order works)
from .solvers import solve_triangular  # noqa: E402
