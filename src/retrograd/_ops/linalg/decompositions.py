"""Cholesky(_ex), qr, eigh/eigvalsh, eig/eigvals, svd/svdvals, matrix_rank (+ legacy forms)."""
from __future__ import annotations


import numpy as np
from typing import NoReturn

from ... import _creation as C, return_types as RT
from ..._tensor import Tensor
from .._registry import apply, primitive
from ..shape import slice_dim, unsqueeze
from ._checks import (LinAlgError, _batches, _const, _diag_embed, _eye, _not_pd_error, _prefix, _type_name,
                      check_matrix, mT, out_arg)
from ._kernels import _svd_fw
from .products import matmul

__all__ = []


# ---------------------------------------------------------------- cholesky
def _cholesky_fw(A, *, upper, fname):
    try:
        L = np.linalg.cholesky(A)
    except np.linalg.LinAlgError:
        raise _not_pd_error(A, fname) from None
    return np.ascontiguousarray(np.swapaxes(L, -1, -2)) if upper else L


def _cholesky_backward(gL: Tensor, L: Tensor, upper: bool) -> Tensor:
    if upper:
        L, gL = mT(L), mT(gL)
    n = L._data.shape[-1]
    # Phi(X): the lower triangle of X with its diagonal halved.
    phi = matmul(mT(L), gL) * _const(np.tril(np.ones((n, n))) - 0.5 * np.eye(n), L)
    Linv = inv(L)
    gA = matmul(matmul(mT(Linv), phi), Linv)
    return (gA + mT(gA)) * 0.5


_cholesky = primitive("linalg_cholesky", _cholesky_fw, node="LinalgCholeskyExBackward0",
                      A=lambda g, out, upper: _cholesky_backward(g, out, upper))
_cholesky_legacy = primitive("cholesky_legacy", _cholesky_fw, node="CholeskyBackward0",
                             A=lambda g, out, upper: _cholesky_backward(g, out, upper))


@out_arg
def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """Cholesky factor L (A = L L^T) of a symmetric positive-definite matrix.

    >>> import retrograd as torch
    >>> torch.linalg.cholesky(torch.tensor([[4., 2.], [2., 2.]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    check_matrix(A, "linalg.cholesky")
    return apply(_cholesky, (A,), {"upper": bool(upper), "fname": "linalg.cholesky"})


@out_arg
def cholesky_legacy(input: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """``torch.cholesky`` (deprecated in PyTorch, which warns once)."""
    import warnings

    warnings.warn(
        "torch.cholesky is deprecated in favor of torch.linalg.cholesky and will be removed in a future PyTorch "
        "release.\nL = torch.cholesky(A)\nshould be replaced with\nL = torch.linalg.cholesky(A)\nand\n"
        "U = torch.cholesky(A, upper=True)\nshould be replaced with\nU = torch.linalg.cholesky(A).mH\n"
        "This transform will produce equivalent results for all valid (symmetric positive definite) inputs.",
        UserWarning, stacklevel=2)
    check_matrix(input, "cholesky")
    return apply(_cholesky_legacy, (input,), {"upper": bool(upper), "fname": "cholesky"})


# ---------------------------------------------------------------- qr
def _qr_fw(A, *, mode):
    if mode == "r":
        return np.zeros((0,), dtype=A.dtype), np.linalg.qr(A, mode="r")
    return tuple(np.linalg.qr(A, mode=mode))


def _copyltu(M: Tensor) -> Tensor:
    n = M._data.shape[-1]
    low = M * _const(np.tril(np.ones((n, n))), M)
    strict = M * _const(np.tril(np.ones((n, n)), -1), M)
    return low + mT(strict)


def _qr_backward_tall(gQ, gR, Q, R):
    # m >= n: gA = (gQ + Q copyltu(M)) R^-T,  M = R gR^T - gQ^T Q
    M = matmul(R, mT(gR)) - matmul(mT(gQ), Q)
    # X R^-T = (R^-1 X^T)^T: a triangular solve, inf / NaN for a singular R (as PyTorch), no error
    return mT(solve_triangular(R, mT(gQ + matmul(Q, _copyltu(M))), upper=True))


def _qr_backward(g, out, A, mode):
    if mode == "r":
        raise RuntimeError("The derivative of linalg.qr depends on Q, which is not computed when mode='r'. "
                           "Please use linalg.qr(A, mode='reduced') if you are going to differentiate through "
                           "linalg.qr.")
    gQ, gR = g
    Q, R = out
    m, n = A._data.shape[-2:]
    if mode == "complete" and m > n:
        raise RuntimeError("The QR decomposition is not differentiable when mode='complete' and nrows > ncols.")
    if m >= n:
        return _qr_backward_tall(gQ, gR, Q, R)
    # Wide: A = [X | Y] = Q [U | V]; X = QU is square, Y = QV.
    U, gU = slice_dim(R, -1, 0, m), slice_dim(gR, -1, 0, m)
    gV = slice_dim(gR, -1, m, n)
    Y = slice_dim(A, -1, m, n)
    gX = _qr_backward_tall(gQ + matmul(Y, mT(gV)), gU, Q, U)
    gY = matmul(Q, gV)
    # [gX | gY] without a concatenation op: place each block with a selection matrix.
    return matmul(gX, _const(np.eye(m, n), gX)) + matmul(gY, _const(np.eye(n - m, n, k=m), gY))


_qr = primitive("linalg_qr", _qr_fw, node="LinalgQrBackward0", n_out=2,
                A=lambda g, out, A, mode: _qr_backward(g, out, A, mode))


@out_arg
def qr(A: Tensor, mode: str = "reduced", *, out=None):
    """QR decomposition: ``(Q, R)`` with Q orthonormal columns and R upper triangular.

    >>> import retrograd as torch
    >>> Q, R = torch.linalg.qr(torch.tensor([[3., 1.], [4., 2.]]))
    >>> R.shape
    torch.Size([2, 2])
    """
    check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return RT.linalg_qr(apply(_qr, (A,), {"mode": mode}))


@out_arg
def qr_legacy(input: Tensor, some: bool = True, *, out=None):
    """``torch.qr(A, some)`` (deprecated in PyTorch): ``linalg.qr`` with mode 'reduced'/'complete'."""
    import warnings

    warnings.warn(
        "torch.qr is deprecated in favor of torch.linalg.qr and will be removed in a future PyTorch release.\n"
        "The boolean parameter 'some' has been replaced with a string parameter 'mode'.\nQ, R = torch.qr(A, some)\n"
        "should be replaced with\nQ, R = torch.linalg.qr(A, 'reduced' if some else 'complete')",
        UserWarning, stacklevel=2)
    check_matrix(input, "linalg.qr", square=False)
    return RT.qr(apply(_qr, (input,), {"mode": "reduced" if some else "complete"}))


# ---------------------------------------------------------------- eigh
def _eigh_fw(A, *, UPLO):
    w, v = np.linalg.eigh(A, UPLO=UPLO)
    return w, v


def _eigh_backward(g, out):
    gL, gV = g
    L, V = out
    if not gV._data.any():
        # Only the eigenvalues are used (eigvalsh): no eigenvalue gaps in the formula (PyTorch's shortcut)
        return matmul(V * unsqueeze(gL, -2), mT(V))
    VhgV = matmul(mT(V), gV)
    skew = (VhgV - mT(VhgV)) * 0.5
    n = L._data.shape[-1]
    E = unsqueeze(L, -2) - unsqueeze(L, -1) + _eye(n, L)  # E_ij = L_j - L_i, 1 on the diagonal
    return matmul(V, matmul(skew / E + _diag_embed(gL), mT(V)))


_eigh = primitive("linalg_eigh", _eigh_fw, node="LinalgEighBackward0", n_out=2,
                  A=lambda g, out: _eigh_backward(g, out))


def _check_uplo(UPLO: str) -> None:
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")


@out_arg
def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix.

    >>> import retrograd as torch
    >>> torch.linalg.eigh(torch.tensor([[2., 0.], [0., 1.]])).eigenvalues
    tensor([1., 2.])
    """
    check_matrix(A, "linalg.eigh")
    _check_uplo(UPLO)
    return RT.linalg_eigh(apply(_eigh, (A,), {"UPLO": UPLO}))


@out_arg
def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """Eigenvalues (ascending) of a symmetric matrix."""
    check_matrix(A, "linalg.eigh")  # PyTorch's message names eigh
    _check_uplo(UPLO)
    return apply(_eigh, (A,), {"UPLO": UPLO})[0]


# ---------------------------------------------------------------- svd


def _svd_backward(g, out, full_matrices):
    gU, gS, gVh = g
    U, S, Vh = out
    k = S._data.shape[-1]
    if full_matrices:
        U, gU = slice_dim(U, -1, 0, k), slice_dim(gU, -1, 0, k)
        Vh, gVh = slice_dim(Vh, -2, 0, k), slice_dim(gVh, -2, 0, k)
    m, n = U._data.shape[-2], Vh._data.shape[-1]
    if not gU._data.any() and not gVh._data.any():
        # Only the singular values are used (svdvals, norms): gA = U diag(gS) Vh.
        return matmul(U, unsqueeze(gS, -1) * Vh) if m >= n else matmul(U * unsqueeze(gS, -2), Vh)
    UhgU = matmul(mT(U), gU)
    UhgU = UhgU - mT(UhgU)
    VhgV = matmul(Vh, mT(gVh))
    VhgV = VhgV - mT(VhgV)
    S2 = S * S
    E = unsqueeze(S2, -2) - unsqueeze(S2, -1) + _eye(k, S)
    gA = (UhgU * unsqueeze(S, -2) + unsqueeze(S, -1) * VhgV) / E + _diag_embed(gS)
    if m > n:
        gA = matmul(U, gA)
        gUSinv = gU / unsqueeze(S, -2)
        gA = gA + gUSinv - matmul(U, matmul(mT(U), gUSinv))
        return matmul(gA, Vh)
    if m < n:
        gA = matmul(gA, Vh)
        SinvgVh = gVh / unsqueeze(S, -1)
        gA = gA + SinvgVh - matmul(matmul(SinvgVh, mT(Vh)), Vh)
        return matmul(U, gA)
    return matmul(U, matmul(gA, Vh))


_svd = primitive("linalg_svd", _svd_fw, node="LinalgSvdBackward0", n_out=3,
                 A=lambda g, out, full_matrices: _svd_backward(g, out, full_matrices))


@out_arg
def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """Singular value decomposition ``(U, S, Vh)`` with A = U diag(S) Vh.

    >>> import retrograd as torch
    >>> torch.linalg.svd(torch.tensor([[3., 0.], [0., 4.]])).S
    tensor([4., 3.])
    """
    check_matrix(A, "linalg.svd", square=False)
    return RT.linalg_svd(apply(_svd, (A,), {"full_matrices": bool(full_matrices)}))


@out_arg
def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """Singular values, descending."""
    check_matrix(A, "linalg.svdvals", square=False)
    return apply(_svd, (A,), {"full_matrices": False})[1]


@out_arg
def svd_legacy(input: Tensor, some: bool = True, compute_uv: bool = True, *, out=None):
    """``torch.svd``: ``(U, S, V)`` with V (not Vh); zero U, V when ``compute_uv=False``."""
    check_matrix(input, "linalg.svd", square=False)
    if not compute_uv:
        S = svdvals(input)
        m, n = input._data.shape[-2:]
        batch = input._data.shape[:-2]
        return RT.svd((C.zeros(batch + (m, m), dtype=input.dtype), S, C.zeros(batch + (n, n), dtype=input.dtype)))
    U, S, Vh = apply(_svd, (input,), {"full_matrices": not some})
    return RT.svd((U, S, mT(Vh)))


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
                         node="LinalgCholeskyExBackward0", A=_cholesky.rules[0])


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


def _int64():
    from ..._dtype import int64

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


# Run-time references to modules that import this one (bound last, so either import order works)
from .solvers import _info, inv, solve_triangular  # noqa: E402
