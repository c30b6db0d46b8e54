"""Inv(_ex), det, slogdet, logdet, solve(_ex), solve_triangular, triangular_solve, cholesky_solve,
cholesky_inverse, pinv, lstsq, matrix_power, tensorinv, tensorsolve."""
from __future__ import annotations

import math

import numpy as np

from ... import return_types as RT
from ..._tensor import Tensor
from .._registry import apply, primitive
from ..conversion import clone
from ..masked import where
from ..shape import expand, squeeze, unsqueeze
from ._checks import (LinAlgError, _batches, _const, _ex2, _first_zero_pivot, _prefix, _singular_inv_error,
                      _singular_solve_error, _type_name, check_matrix, mT, out_arg)
from ._kernels import _getrf, _lu_solve_np, _svd_fw, _tri_solve_np
from .products import matmul

__all__ = ["triangular_solve"]


# ---------------------------------------------------------------- inv
def _inv_fw(A):
    try:
        return np.linalg.inv(A)
    except np.linalg.LinAlgError:
        raise _singular_inv_error(A) from None


_inv = primitive("linalg_inv", _inv_fw, node="LinalgInvExBackward0",
                 A=lambda g, out: -matmul(mT(out), matmul(g, mT(out))))


@out_arg
def inv(A: Tensor, *, out=None) -> Tensor:
    """Inverse of a square matrix (or a batch of them).

    >>> import retrograd as torch
    >>> torch.linalg.inv(torch.tensor([[2., 0.], [0., 4.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.2500]])
    """
    check_matrix(A, "linalg.inv")
    return apply(_inv, (A,))


# ---------------------------------------------------------------- det / slogdet / logdet
def _det_fw(A):
    return np.asarray(np.linalg.det(A), dtype=A.dtype)


def _det_backward(g: Tensor, A: Tensor, out: Tensor):
    n = A._data.shape[-1]
    if n == 0:
        return A * _ex2(g)  # PyTorch gives an empty gradient, not None
    if (out._data == 0).any():
        # A^-T does not exist: the gradient is the cofactor matrix.
        return _ex2(g) * _cofactor(A)
    return _ex2(g * out) * mT(inv(A))


def _cofactor(A: Tensor) -> Tensor:
    """Matrix of cofactors C_ij = (-1)^(i+j) det(minor_ij), built from differentiable ops."""
    n = A._data.shape[-1]
    if n == 1:
        return _const(np.ones(A._data.shape), A)
    keep = [[r for r in range(n) if r != i] for i in range(n)]
    rows = np.array([[keep[i] for _ in range(n)] for i in range(n)])[:, :, :, None]
    cols = np.array([[keep[j] for j in range(n)] for _ in range(n)])[:, :, None, :]
    minors = A[..., _wrap(rows, False, None, 0), _wrap(cols, False, None, 0)]
    signs = (-1.0) ** np.add.outer(np.arange(n), np.arange(n))
    return det(minors) * _const(signs, A)


_det = primitive("linalg_det", _det_fw, node="LinalgDetBackward0",
                 A=lambda g, A, out: _det_backward(g, A, out))


@out_arg
def det(A: Tensor, *, out=None) -> Tensor:
    """Determinant of a square matrix (or batch).

    >>> import retrograd as torch
    >>> torch.linalg.det(torch.tensor([[1., 2.], [3., 4.]]))
    tensor(-2.)
    """
    check_matrix(A, "linalg.det")
    return apply(_det, (A,))


def _slogdet_fw(A):
    s, lad = np.linalg.slogdet(A)
    return np.asarray(s, dtype=A.dtype), np.asarray(lad, dtype=A.dtype)


def _lu_inv_np(A: np.ndarray) -> np.ndarray:
    """A^-1 by partial-pivoting LU without raising: a singular A gives inf / NaN entries (what
    PyTorch's LU-based backward formulas produce there)."""
    n = A.shape[-1]
    U = np.array(A, dtype=A.dtype, copy=True)
    P = np.broadcast_to(np.eye(n, dtype=A.dtype), A.shape).copy()
    L = np.broadcast_to(np.eye(n, dtype=A.dtype), A.shape).copy()
    idx = np.arange(U[..., 0, 0].size)
    Uf, Pf, Lf = U.reshape(-1, n, n), P.reshape(-1, n, n), L.reshape(-1, n, n)
    with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
        for k in range(n):
            p = k + np.argmax(np.abs(Uf[:, k:, k]), axis=-1)
            for M in (Uf, Pf):
                rows = M[idx, p].copy()
                M[idx, p] = M[:, k]
                M[:, k] = rows
            low = Lf[idx, p, :k].copy()
            Lf[idx, p, :k] = Lf[:, k, :k]
            Lf[:, k, :k] = low
            f = Uf[:, k + 1:, k] / Uf[:, k, k, None]
            Lf[:, k + 1:, k] = f
            Uf[:, k + 1:, k:] -= f[..., None] * Uf[:, k, None, k:]
    Y = _tri_solve_np(L, P, True, True)
    return _tri_solve_np(U, Y, False)


def _slogdet_backward(g, A):
    try:
        Ainv = inv(A)
    except LinAlgError:
        Ainv = _const(_lu_inv_np(A._data), A)
    return _ex2(g[1]) * mT(Ainv)


_slogdet = primitive("linalg_slogdet", _slogdet_fw, node="LinalgSlogdetBackward0", n_out=2,
                     A=lambda g, A: _slogdet_backward(g, A))


@out_arg
def slogdet(A: Tensor, *, out=None):
    """(sign, log|det|) of a square matrix: ``torch.linalg.slogdet``.

    >>> import retrograd as torch
    >>> torch.linalg.slogdet(torch.tensor([[-2., 0.], [0., 1.]])).sign
    tensor(-1.)
    """
    check_matrix(A, "linalg.slogdet")
    return RT.linalg_slogdet(apply(_slogdet, (A,)))


def logdet(input: Tensor) -> Tensor:
    """log(det(A)): nan for a negative determinant, -inf for a singular matrix."""
    check_matrix(input, "logdet")
    s, lad = apply(_slogdet, (input,))
    return where(s < 0, math.nan, lad)


# ---------------------------------------------------------------- solve
def _solve_fw(A, B, *, left, vec):
    try:
        if vec:
            return np.linalg.solve(A, B[..., None])[..., 0]
        if left:
            return np.linalg.solve(A, B)
        return np.swapaxes(np.linalg.solve(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2)), -1, -2)
    except np.linalg.LinAlgError:
        raise _singular_solve_error(A) from None


def _solve_grad_B(g, A, left):
    return solve(mT(A), g, left=left)


def _solve_grad_A(g, A, X, left, vec):
    gB = _solve_grad_B(g, A, left)
    if vec:
        return -(unsqueeze(gB, -1) * unsqueeze(X, -2))
    return -matmul(gB, mT(X)) if left else -matmul(mT(X), gB)


_solve = primitive("linalg_solve", _solve_fw, node="LinalgSolveExBackward0",
                   A=lambda g, A, out, left, vec: _solve_grad_A(g, A, out, left, vec),
                   B=lambda g, A, left: _solve_grad_B(g, A, left))


@out_arg
def solve(A: Tensor, B: Tensor, *, left: bool = True, out=None) -> Tensor:
    """X with AX = B (or XA = B when ``left=False``); B may be a (batch of) vector(s).

    >>> import retrograd as torch
    >>> torch.linalg.solve(torch.tensor([[2., 0.], [0., 4.]]), torch.tensor([2., 2.]))
    tensor([1.0000, 0.5000])
    """
    check_matrix(A, "linalg.solve")
    if not isinstance(B, Tensor):
        raise TypeError(f"linalg_solve(): argument 'B' (position 2) must be Tensor, not {type(B).__name__}")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve: Expected A and B to have the same dtype, but found A of type "
                           f"{_type_name(A)} and B of type {_type_name(B)} instead")
    a, b = A._data.shape, B._data.shape
    vec = left and (len(b) == 1 or (len(b) == len(a) - 1 and b == a[:-1]))
    n = a[-1]
    bm = (b[-1], 1) if vec else (b[-2:] if len(b) >= 2 else (b[0], 1))
    if (left and bm[0] != n) or (not left and bm[1] != n) or len(b) == 0:
        eqn = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve: Incompatible shapes of A and B for the equation {eqn} "
                           f"({a[-2]}x{a[-1]} and {bm[0]}x{bm[1]})")
    return apply(_solve, (A, B), {"left": bool(left), "vec": bool(vec)})


# ---------------------------------------------------------------- solve_triangular
def _triangle(n: int, upper: bool, unitriangular: bool) -> np.ndarray:
    """0/1 mask of the triangle a triangular solve reads (without the diagonal if unit)."""
    k = 1 if unitriangular else 0
    return np.triu(np.ones((n, n)), k) if upper else np.tril(np.ones((n, n)), -k)


def _solve_triangular_fw(A, B, *, upper, left, unitriangular):
    if left:
        return _tri_solve_np(A, B, not upper, unitriangular)
    # X A = B  <=>  A^T X^T = B^T
    return np.swapaxes(_tri_solve_np(np.swapaxes(A, -1, -2), np.swapaxes(B, -1, -2), upper, unitriangular), -1, -2)


def _solve_triangular_grads(g, A, X, upper, left, unitriangular):
    gB = solve_triangular(mT(A), g, upper=not upper, left=left, unitriangular=unitriangular)
    gA = -matmul(gB, mT(X)) if left else -matmul(mT(X), gB)
    return gA * _const(_triangle(A._data.shape[-1], upper, unitriangular), gA), gB


_solve_triangular = primitive(
    "linalg_solve_triangular", _solve_triangular_fw, node="LinalgSolveTriangularBackward0",
    A=lambda g, A, out, upper, left, unitriangular: _solve_triangular_grads(g, A, out, upper, left, unitriangular)[0],
    B=lambda g, A, upper, left, unitriangular: solve_triangular(mT(A), g, upper=not upper, left=left,
                                                                unitriangular=unitriangular))


@out_arg
@out_arg
def solve_triangular(A: Tensor, B: Tensor, *, upper: bool, left: bool = True, unitriangular: bool = False,
                     out=None) -> Tensor:
    """X with AX = B (XA = B when ``left=False``) for a triangular A; only A's triangle is read.

    >>> import retrograd as torch
    >>> torch.linalg.solve_triangular(torch.tensor([[2., 1.], [0., 4.]]), torch.tensor([[3.], [4.]]), upper=True)
    tensor([[1.],
            [1.]])
    """
    check_matrix(A, "linalg.solve_triangular")
    if B._data.ndim < 2:
        raise RuntimeError("linalg.solve_triangular: The input tensor B must have at least 2 dimensions.")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"linalg.solve_triangular: Expected A and B to have the same dtype, but found A of type "
                           f"{_type_name(A)} and B of type {_type_name(B)} instead")
    n, b = A._data.shape[-1], B._data.shape
    if (b[-2] if left else b[-1]) != n:
        eqn = "AX = B" if left else "XA = B"
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the equation {eqn} "
                           f"({n}x{n} and {b[-2]}x{b[-1]})")
    return apply(_solve_triangular, (A, B), {"upper": bool(upper), "left": bool(left),
                                             "unitriangular": bool(unitriangular)})


@out_arg
def matrix_rank(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """Number of singular values above max(atol, rtol * largest) (int64, no gradient).

    >>> import retrograd as torch
    >>> torch.linalg.matrix_rank(torch.tensor([[1., 2.], [2., 4.]]))
    tensor(1)
    """
    check_matrix(A, "linalg.matrix_rank", square=hermitian)
    a = A._data
    atol_, rtol_ = _tol(atol), _tol(rtol)
    if rtol_ is None:
        rtol_ = 0.0 if (atol_ is not None and atol_ > 0) else float(np.finfo(a.dtype).eps) * max(a.shape[-2:])
    S = np.abs(np.linalg.eigvalsh(a)) if hermitian else _svd_fw(a, full_matrices=False)[1]
    if S.shape[-1] == 0:
        return _wrap(np.zeros(a.shape[:-2], np.int64), False, None, 0)
    tol = np.maximum(atol_ or 0.0, rtol_ * S.max(-1, keepdims=True))
    return _wrap(np.asarray((S > tol).sum(-1), dtype=np.int64), False, None, 0)


def _cholesky_solve_fw(B, L, *, upper):
    # PyTorch (potrs) reads only L's triangle
    if upper:
        L = np.swapaxes(L, -1, -2)
    Y = _tri_solve_np(L, B, True)
    return _tri_solve_np(np.swapaxes(L, -1, -2), Y, False)


def _cholesky_solve_grad_L(g, L, X, upper):
    gB = cholesky_solve(g, L, upper)
    common = matmul(gB, mT(X))
    common = common + mT(common)
    return -matmul(L, common) if upper else -matmul(common, L)


_cholesky_solve = primitive("cholesky_solve", _cholesky_solve_fw, node="CholeskySolveBackward0",
                            B=lambda g, L, upper: cholesky_solve(g, L, upper),
                            L=lambda g, L, out, upper: _cholesky_solve_grad_L(g, L, out, upper))


@out_arg
def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """X with A X = B given A's Cholesky factor L (A = L L^T, or U^T U when ``upper``)."""
    if B._data.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B._data.ndim} dimensions instead")
    if L._data.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L._data.ndim} dimensions instead")
    if L._data.shape[-1] != L._data.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {L._data.shape[-2]} by "
                           f"{L._data.shape[-1]} matrices")
    check_matrix(L, "cholesky_solve")
    if B._data.dtype != L._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_type_name(B)} "
                           f"and A of type {_type_name(L)} instead.")
    return apply(_cholesky_solve, (B, L), {"upper": bool(upper)})


def _cholesky_inverse_fw(L, *, upper):
    # PyTorch (potri) reads only L's triangle and raises on a zero diagonal entry
    zero = np.diagonal(_batches(L), 0, -2, -1) == 0
    if zero.any():
        b = int(np.argmax(zero.any(-1)))
        k = int(np.argmax(zero[b])) + 1
        raise LinAlgError(f"cholesky_inverse: {_prefix(L, b)}The diagonal element {k} is zero, the inversion could "
                          "not be completed because the input matrix is singular.")
    if upper:
        L = np.swapaxes(L, -1, -2)
    n = L.shape[-1]
    Linv = _tri_solve_np(L, np.broadcast_to(np.eye(n, dtype=L.dtype), L.shape), True)
    with np.errstate(invalid="ignore", over="ignore"):
        return np.swapaxes(Linv, -1, -2) @ Linv


def _cholesky_inverse_backward(g, L, out, upper):
    common = matmul(out, matmul(g + mT(g), out))
    return -matmul(L, common) if upper else -matmul(common, L)


_cholesky_inverse = primitive("cholesky_inverse", _cholesky_inverse_fw, node="CholeskyInverseBackward0",
                              L=lambda g, L, out, upper: _cholesky_inverse_backward(g, L, out, upper))


@out_arg
def cholesky_inverse(L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Inverse of A = L L^T (or U^T U) from its Cholesky factor."""
    check_matrix(L, "cholesky_inverse")
    return apply(_cholesky_inverse, (L,), {"upper": bool(upper)})


# ---------------------------------------------------------------- pinv
def _pinv_fw(A, *, atol, rtol, hermitian):
    m, n = A.shape[-2:]
    if A.size == 0:
        return np.zeros(A.shape[:-2] + (n, m), dtype=A.dtype)
    if hermitian:
        S, U = np.linalg.eigh(A)
        Sa = np.abs(S)
        tol = np.maximum(atol, rtol * Sa.max(-1, keepdims=True))
        with np.errstate(divide="ignore"):
            Sinv = np.where(Sa > tol, 1 / S, 0).astype(A.dtype)
        return (U * Sinv[..., None, :]) @ np.swapaxes(U, -1, -2)
    U, S, Vh = _svd_fw(A, full_matrices=False)
    tol = np.maximum(atol, rtol * S[..., :1])
    with np.errstate(divide="ignore"):
        Sinv = np.where(S > tol, 1 / S, 0).astype(A.dtype)
    return (np.swapaxes(Vh, -1, -2) * Sinv[..., None, :]) @ np.swapaxes(U, -1, -2)


def pinv_backward(g: Tensor, pinvA: Tensor, A: Tensor) -> Tensor:
    """PyTorch's pinv_backward in retrograd ops (the derivative for a constant-rank A)."""
    m, n = A._data.shape[-2:]
    pinvAh, gh = mT(pinvA), mT(g)
    if m <= n:
        K = matmul(gh, pinvA)
        KpinvAh = matmul(K, pinvAh)
        return (-mT(matmul(pinvA, K)) + KpinvAh - matmul(matmul(A, pinvA), KpinvAh)
                + matmul(matmul(pinvAh, pinvA), gh - matmul(K, A)))
    K = matmul(pinvA, gh)
    pinvAhK = matmul(pinvAh, K)
    return (-mT(matmul(K, pinvA)) + matmul(matmul(gh - matmul(A, K), pinvA), pinvAh) + pinvAhK
            - matmul(matmul(pinvAhK, pinvA), A))


_pinv = primitive("linalg_pinv", _pinv_fw, node="LinalgPinvBackward0",
                  A=lambda g, A, out: pinv_backward(g, out, A))


def _tol(x) -> float | None:
    if x is None:
        return None
    return float(x.item() if isinstance(x, Tensor) else x)


@out_arg
def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """Moore-Penrose pseudo-inverse; singular values <= max(atol, rtol * s_max) count as zero.

    >>> import retrograd as torch
    >>> torch.linalg.pinv(torch.tensor([[2., 0.], [0., 0.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    check_matrix(A, "linalg.eigh" if hermitian else "linalg.pinv", square=hermitian)
    atol_, rtol_ = _tol(atol), _tol(rtol)
    if rtol_ is None:
        rtol_ = 0.0 if (atol_ is not None and atol_ > 0) else \
            float(np.finfo(A._data.dtype).eps) * max(A._data.shape[-2:])
    return apply(_pinv, (A,), {"atol": atol_ or 0.0, "rtol": rtol_, "hermitian": bool(hermitian)})


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv`` with relative tolerance ``rcond``."""
    check_matrix(input, "linalg.pinv", square=False)
    return apply(_pinv, (input,), {"atol": 0.0, "rtol": float(rcond), "hermitian": False})


# ---------------------------------------------------------------- matrix_power
@out_arg
def matrix_power(A: Tensor, n: int, *, out=None) -> Tensor:
    """A @ A @ ... (n times); n = 0 gives the identity, n < 0 powers of the inverse.

    >>> import retrograd as torch
    >>> torch.linalg.matrix_power(torch.tensor([[1., 1.], [0., 1.]]), 3)
    tensor([[1., 3.],
            [0., 1.]])
    """
    check_matrix(A, "linalg.matrix_power", floating=False)
    n = int(n)
    if n == 0:
        # PyTorch copies the identity into a clone of A (CopyBackwards, zero gradient).
        res = clone(A)
        eye = _wrap(np.broadcast_to(np.eye(A._data.shape[-1], dtype=A._data.dtype), A._data.shape), False, None, 0)
        return res.copy_(eye)
    if n < 0:
        A = inv(A)
        n = -n
        if n == 1:
            return A
    elif n == 1:
        return clone(A)
    if n == 2:
        return matmul(A, A)
    if n == 3:
        return matmul(matmul(A, A), A)
    z = result = None
    while n > 0:
        bit, n = n % 2, n // 2
        z = A if z is None else matmul(z, z)
        if bit:
            result = z if result is None else matmul(result, z)
    return result


# ---------------------------------------------------------------- lstsq
def _lstsq_fw(A, B, *, rcond, vec, residuals):
    Bm = B[..., None] if vec else B
    batch = np.broadcast_shapes(A.shape[:-2], Bm.shape[:-2])
    nb = math.prod(batch)  # not -1: the matrices themselves may be empty
    Ab = np.broadcast_to(A, batch + A.shape[-2:]).reshape((nb,) + A.shape[-2:])
    Bb = np.broadcast_to(Bm, batch + Bm.shape[-2:]).reshape((nb,) + Bm.shape[-2:])
    if Ab.size == 0 or Bb.size == 0:  # an empty system: the zero solution (PyTorch)
        X = np.zeros((len(Ab), A.shape[-1], Bm.shape[-1]), A.dtype)
    else:
        X = np.stack([np.linalg.lstsq(a, b, rcond=rcond)[0] if np.isfinite(a).all() and np.isfinite(b).all()
                      else np.full((a.shape[-1], b.shape[-1]), np.nan, a.dtype)  # no SVD failure on inf / NaN
                      for a, b in zip(Ab, Bb)])
    X = X.reshape(batch + X.shape[-2:]).astype(A.dtype, copy=False)
    if residuals:
        res = (((A @ X - Bm) ** 2).sum(-2)).astype(A.dtype)
    else:
        res = np.zeros((0,), dtype=A.dtype)
    return (X[..., 0] if vec else X), res


def _lstsq_residual_term(g, A, B, out, vec):
    """(R, gR): residual R = A X - B weighted by the residuals' gradient, or None when they are empty.

    Residuals |A X - B|^2 exist only for full-rank tall A, where A^T R = 0: X's own change drops out.
    """
    if out[1]._data.size == 0:
        return None
    X, Bm = (unsqueeze(out[0], -1), unsqueeze(B, -1)) if vec else (out[0], B)
    R = matmul(A, X) - Bm
    return X, R * unsqueeze(g[1], -2) * 2


def _lstsq_grad_A(g, A, B, out, vec):
    gX, Bm = (unsqueeze(g[0], -1), unsqueeze(B, -1)) if vec else (g[0], B)
    gA = pinv_backward(matmul(gX, mT(Bm)), pinv(A), A)
    res = _lstsq_residual_term(g, A, B, out, vec)
    return gA if res is None else gA + matmul(res[1], mT(res[0]))


def _lstsq_grad_B(g, A, B, out, vec):
    gX = unsqueeze(g[0], -1) if vec else g[0]
    gB = matmul(mT(pinv(A)), gX)
    res = _lstsq_residual_term(g, A, B, out, vec)
    if res is not None:
        gB = gB - res[1]
    return squeeze(gB, -1) if vec else gB


_lstsq = primitive("linalg_lstsq", _lstsq_fw, node="LinalgLstsqBackward0", n_out=2,
                   A=lambda g, A, B, out, vec: _lstsq_grad_A(g, A, B, out, vec),
                   B=lambda g, A, B, out, vec: _lstsq_grad_B(g, A, B, out, vec))


def lstsq(A: Tensor, B: Tensor, rcond: float | None = None, *, driver: str | None = None):
    """Least-squares solution of AX = B: ``(solution, residuals, rank, singular_values)``.

    As PyTorch on CPU (default driver 'gelsy'), residuals and singular values are empty
    unless the driver computes them ('gels': residuals; 'gelsd'/'gelss': both).

    >>> import retrograd as torch
    >>> torch.linalg.lstsq(torch.tensor([[1., 0.], [0., 1.], [0., 0.]]), torch.tensor([[1.], [2.], [3.]])).solution
    tensor([[1.],
            [2.]])
    """
    if A.ndim < 2:
        raise RuntimeError("torch.linalg.lstsq: input must have at least 2 dimensions.")
    if B.ndim < 1:
        raise RuntimeError("torch.linalg.lstsq: other must have at least 1 dimension.")
    check_matrix(A, "linalg.lstsq", square=False)
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError("torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype} and other's dtype {B.dtype}")
    m, n = A._data.shape[-2:]
    vec = B._data.ndim == A._data.ndim - 1
    if (B._data.shape[-1] if vec else B._data.shape[-2]) != m:
        raise RuntimeError("torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    a = A._data
    if rcond is None:
        rcond = float(np.finfo(a.dtype).eps) * max(m, n)
    if not a.size:
        sv = np.zeros(a.shape[:-2] + (min(m, n),), a.dtype)
    elif not np.isfinite(a).all():  # gelsy has no SVD to fail: the rank is unknown, not an error
        sv = np.full(a.shape[:-2] + (min(m, n),), np.nan, a.dtype)
    else:
        sv = np.linalg.svd(a, compute_uv=False)
    rank = (sv > rcond * sv[..., :1]).sum(-1).astype(np.int64) if sv.shape[-1] else np.zeros(a.shape[:-2], np.int64)
    full_rank = bool(np.all(rank == n))
    residuals = m > n and (driver == "gels" or (driver in ("gelsd", "gelss") and full_rank))
    X, res = apply(_lstsq, (A, B), {"rcond": rcond, "vec": bool(vec), "residuals": residuals})
    rank_t = _wrap(np.zeros((0,), np.int64) if driver == "gels" else np.asarray(rank), False, None, 0)
    sv_t = _wrap(sv.astype(a.dtype) if driver in ("gelsd", "gelss") else np.zeros((0,), a.dtype), False, None, 0)
    return RT.linalg_lstsq((X, res, rank_t, sv_t))


_wrap = Tensor._wrap


def _info(x: np.ndarray) -> Tensor:
    return _wrap(np.asarray(x, dtype=np.int32), False, None, 0)


# ---------------------------------------------------------------- inv_ex / solve_ex
def _inv_ex_fw(A):
    try:
        return np.linalg.inv(A)
    except np.linalg.LinAlgError:
        return _lu_inv_np(A)  # inf / NaN where LAPACK meets the zero pivot, as PyTorch's result


_inv_ex = primitive("linalg_inv_ex", _inv_ex_fw, node="LinalgInvExBackward0", A=_inv.rules[0])


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
        return _solve_fw(A, B, left=left, vec=vec)
    except LinAlgError:
        # PyTorch's getrf + getrs: a zero pivot gives inf / NaN instead of an error
        LU, piv, _ = _getrf(A)
        Bm = B[..., None] if vec else B
        X = _lu_solve_np(LU, piv, Bm, left=left, adjoint=False)
        return X[..., 0] if vec else X


_solve_ex = primitive("linalg_solve_ex", _solve_ex_fw, node="LinalgSolveExBackward0",
                      A=_solve.rules[0], B=_solve.rules[1])


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
    from ..shape import reshape

    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    shape = A._data.shape
    rows, cols = math.prod(shape[:ind]), math.prod(shape[ind:])
    if rows != cols:
        raise _prod_error(cols, rows, "ind")
    return reshape(inv(reshape(A, (rows, cols))), shape[ind:] + shape[:ind])


@out_arg
def tensorsolve(A: Tensor, B: Tensor, dims=None, *, out=None) -> Tensor:
    """X with tensordot(A, X, X.ndim) = B; ``dims`` of A are moved to the end first.

    >>> import retrograd as torch
    >>> torch.linalg.tensorsolve(torch.eye(6).reshape(2, 3, 6), torch.ones(2, 3)).shape
    torch.Size([6])
    """
    from ..shape import movedim, reshape

    if dims is not None:
        d = [dims] if isinstance(dims, int) else list(dims)
        n = A._data.ndim
        A = movedim(A, d, list(range(n - len(d), n)))
    shape = A._data.shape
    k = B._data.ndim
    rows, cols = math.prod(shape[:k]), math.prod(shape[k:])
    if rows != cols:
        raise _prod_error(cols, rows, "other.ndim")
    return reshape(solve(reshape(A, (rows, cols)), reshape(B, (-1,))), shape[k:])


_triangular_solve = primitive("triangular_solve", _solve_triangular.forward, node="TriangularSolveBackward0",
                              A=_solve_triangular.rules[0], B=_solve_triangular.rules[1])


@out_arg
def triangular_solve(b: Tensor, A: Tensor, upper: bool = True, transpose: bool = False, unitriangular: bool = False,
                     *, out=None):
    """Deprecated ``torch.triangular_solve``: ``(solution, cloned_coefficient)`` with op(A) X = b,
    op(A) = A^T when ``transpose``; only A's ``upper`` (or lower) triangle is read.

    >>> import retrograd as torch
    >>> torch.triangular_solve(torch.tensor([[3.], [4.]]), torch.tensor([[2., 1.], [0., 4.]])).solution
    tensor([[1.],
            [1.]])
    """
    if b._data.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected b to have at least 2 dimensions, but it has "
                           f"{b._data.ndim} dimensions instead")
    if A._data.ndim < 2:
        raise RuntimeError(f"torch.triangular_solve: Expected A to have at least 2 dimensions, but it has "
                           f"{A._data.ndim} dimensions instead")
    if A._data.shape[-1] != A._data.shape[-2]:
        raise RuntimeError(f"A must be batches of square matrices, but they are {A._data.shape[-2]} by "
                           f"{A._data.shape[-1]} matrices")
    if b._data.dtype != A._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_type_name(b)} and A of "
                           f"type {_type_name(A)} instead.")
    n = A._data.shape[-1]
    if b._data.shape[-2] != n:
        raise RuntimeError(f"Incompatible matrix sizes for triangular_solve: each A matrix is {n} by {n} but each b "
                           f"matrix is {b._data.shape[-2]} by {b._data.shape[-1]}")
    if A._data.dtype.kind != "f" or A._data.dtype == np.float16:
        raise NotImplementedError(f"\"triangular_solve_cpu\" not implemented for '{_type_name(A)}'")
    try:
        batch = np.broadcast_shapes(A._data.shape[:-2], b._data.shape[:-2])
    except ValueError:
        from .._common import broadcast_error

        raise broadcast_error(b._data.shape[:-2], A._data.shape[:-2]) from None
    M = mT(A) if transpose else A
    X = apply(_triangular_solve, (M, b), {"upper": bool(upper) != bool(transpose), "left": True,
                                          "unitriangular": bool(unitriangular)})
    # the returned coefficient is A broadcast to the batch shape (a copy)
    return RT.triangular_solve((X, clone(expand(A, tuple(batch) + (n, n)))))


# Run-time references to modules that import this one (bound last, so either import order works)
