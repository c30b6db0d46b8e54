"""Matrix functions and decompositions behind ``retrograd.linalg``: inv, det, slogdet, solve,
cholesky, qr, eigh, svd, pinv, lstsq, cholesky_solve / cholesky_inverse.

Each primitive is a NumPy (LAPACK) forward plus a rule written in retrograd ops (matmul, inv,
solve ...), so every derivative differentiates again.  The formulas are PyTorch's
(``FunctionsManual.cpp``), which keeps gradients equal to torch's to rounding:

* inv:      gA = -A^-T g A^-T
* det:      gA = g det(A) A^-T          (cofactor matrix when A is singular)
* solve:    gB = solve(A^T, g),  gA = -gB X^T
* cholesky: gA = sym(L^-T Phi(L^T gL) L^-1)
* eigh:     gA = V (skew(V^T gV) / E + diag(gL)) V^T,  E_ij = L_j - L_i
* svd:      PyTorch's svd_backward (distinct singular values)

Singular / non positive-definite input raises ``LinAlgError`` (a RuntimeError) with
PyTorch's message.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _creation as C
from .. import return_types as RT
from .._tensor import Tensor
from ._common import wrap_dim
from ._registry import apply, primitive
from .convert import clone
from .linalg import matmul
from .pointwise import abs, eq, sign, where
from .reduce import sum, unsqueeze_dims
from .shape import permute, slice_dim, squeeze, transpose, unsqueeze

_wrap = Tensor._wrap


class LinAlgError(RuntimeError):
    """A matrix is singular or not positive-definite (``torch.linalg.LinAlgError``)."""


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


def _type_name(t: Tensor) -> str:
    from .._tensor import _scalar_type_name

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
    return a.reshape((-1,) + a.shape[-2:])


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


# ---------------------------------------------------------------- inv
def _inv_fw(A):
    try:
        return np.linalg.inv(A)
    except np.linalg.LinAlgError:
        raise _singular_inv_error(A) from None


_inv = primitive("linalg_inv", _inv_fw, node="LinalgInvExBackward0",
                 A=lambda g, out: -matmul(mT(out), matmul(g, mT(out))))


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
        return None
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


_slogdet = primitive("linalg_slogdet", _slogdet_fw, node="LinalgSlogdetBackward0", n_out=2,
                     A=lambda g, A: _ex2(g[1]) * mT(inv(A)))


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


def cholesky(A: Tensor, *, upper: bool = False, out=None) -> Tensor:
    """Cholesky factor L (A = L L^T) of a symmetric positive-definite matrix.

    >>> import retrograd as torch
    >>> torch.linalg.cholesky(torch.tensor([[4., 2.], [2., 2.]]))
    tensor([[2., 0.],
            [1., 1.]])
    """
    check_matrix(A, "linalg.cholesky")
    return apply(_cholesky, (A,), {"upper": bool(upper), "fname": "linalg.cholesky"})


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


def _cholesky_solve_fw(B, L, *, upper):
    if upper:
        L = np.swapaxes(L, -1, -2)
    Y = np.linalg.solve(L, B)
    return np.linalg.solve(np.swapaxes(L, -1, -2), Y)


def _cholesky_solve_grad_L(g, L, X, upper):
    gB = cholesky_solve(g, L, upper)
    common = matmul(gB, mT(X))
    common = common + mT(common)
    return -matmul(L, common) if upper else -matmul(common, L)


_cholesky_solve = primitive("cholesky_solve", _cholesky_solve_fw, node="CholeskySolveBackward0",
                            B=lambda g, L, upper: cholesky_solve(g, L, upper),
                            L=lambda g, L, out, upper: _cholesky_solve_grad_L(g, L, out, upper))


def cholesky_solve(B: Tensor, L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """X with A X = B given A's Cholesky factor L (A = L L^T, or U^T U when ``upper``)."""
    if B._data.ndim < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {B._data.ndim} dimensions instead")
    if L._data.ndim < 2:
        raise RuntimeError(f"u should have at least 2 dimensions, but has {L._data.ndim} dimensions instead")
    check_matrix(L, "cholesky_solve")
    if B._data.dtype != L._data.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type {_type_name(B)} "
                           f"and A of type {_type_name(L)} instead.")
    return apply(_cholesky_solve, (B, L), {"upper": bool(upper)})


def _cholesky_inverse_fw(L, *, upper):
    A = np.swapaxes(L, -1, -2) @ L if upper else L @ np.swapaxes(L, -1, -2)
    try:
        return np.linalg.inv(A)
    except np.linalg.LinAlgError:
        raise _singular_inv_error(L, "cholesky_inverse") from None


def _cholesky_inverse_backward(g, L, out, upper):
    common = matmul(out, matmul(g + mT(g), out))
    return -matmul(L, common) if upper else -matmul(common, L)


_cholesky_inverse = primitive("cholesky_inverse", _cholesky_inverse_fw, node="CholeskyInverseBackward0",
                              L=lambda g, L, out, upper: _cholesky_inverse_backward(g, L, out, upper))


def cholesky_inverse(L: Tensor, upper: bool = False, *, out=None) -> Tensor:
    """Inverse of A = L L^T (or U^T U) from its Cholesky factor."""
    check_matrix(L, "cholesky_inverse")
    return apply(_cholesky_inverse, (L,), {"upper": bool(upper)})


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
    return matmul(gQ + matmul(Q, _copyltu(M)), mT(inv(R)))


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


def qr(A: Tensor, mode: str = "reduced", *, out=None):
    """QR decomposition: ``(Q, R)`` with Q orthonormal columns and R upper triangular.

    >>> import retrograd as torch
    >>> Q, R = torch.linalg.qr(torch.tensor([[3., 1.], [4., 2.]]))
    >>> R.shape
    retrograd.Size([2, 2])
    """
    check_matrix(A, "linalg.qr", square=False)
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of 'reduced' (default), 'r', "
                           "or 'complete'")
    return RT.linalg_qr(apply(_qr, (A,), {"mode": mode}))


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


def eigh(A: Tensor, UPLO: str = "L", *, out=None):
    """Eigenvalues (ascending) and eigenvectors of a symmetric matrix.

    >>> import retrograd as torch
    >>> torch.linalg.eigh(torch.tensor([[2., 0.], [0., 1.]])).eigenvalues
    tensor([1., 2.])
    """
    check_matrix(A, "linalg.eigh")
    _check_uplo(UPLO)
    return RT.linalg_eigh(apply(_eigh, (A,), {"UPLO": UPLO}))


def eigvalsh(A: Tensor, UPLO: str = "L", *, out=None) -> Tensor:
    """Eigenvalues (ascending) of a symmetric matrix."""
    check_matrix(A, "linalg.eigvalsh")
    _check_uplo(UPLO)
    return apply(_eigh, (A,), {"UPLO": UPLO})[0]


# ---------------------------------------------------------------- svd
def _svd_fw(A, *, full_matrices):
    U, S, Vh = np.linalg.svd(A, full_matrices=full_matrices)
    return U, S, Vh


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


def svd(A: Tensor, full_matrices: bool = True, *, driver=None, out=None):
    """Singular value decomposition ``(U, S, Vh)`` with A = U diag(S) Vh.

    >>> import retrograd as torch
    >>> torch.linalg.svd(torch.tensor([[3., 0.], [0., 4.]])).S
    tensor([4., 3.])
    """
    check_matrix(A, "linalg.svd", square=False)
    return RT.linalg_svd(apply(_svd, (A,), {"full_matrices": bool(full_matrices)}))


def svdvals(A: Tensor, *, driver=None, out=None) -> Tensor:
    """Singular values, descending."""
    check_matrix(A, "linalg.svdvals", square=False)
    return apply(_svd, (A,), {"full_matrices": False})[1]


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
    U, S, Vh = np.linalg.svd(A, full_matrices=False)
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


def pinv(A: Tensor, *, atol=None, rtol=None, hermitian: bool = False, out=None) -> Tensor:
    """Moore-Penrose pseudo-inverse; singular values <= max(atol, rtol * s_max) count as zero.

    >>> import retrograd as torch
    >>> torch.linalg.pinv(torch.tensor([[2., 0.], [0., 0.]]))
    tensor([[0.5000, 0.0000],
            [0.0000, 0.0000]])
    """
    check_matrix(A, "linalg.pinv", square=hermitian)
    atol_, rtol_ = _tol(atol), _tol(rtol)
    if rtol_ is None:
        rtol_ = 0.0 if (atol_ is not None and atol_ > 0) else float(np.finfo(A._data.dtype).eps) * max(A._data.shape[-2:])
    return apply(_pinv, (A,), {"atol": atol_ or 0.0, "rtol": rtol_, "hermitian": bool(hermitian)})


def pinverse(input: Tensor, rcond: float = 1e-15) -> Tensor:
    """``torch.pinverse``: ``linalg.pinv`` with relative tolerance ``rcond``."""
    check_matrix(input, "linalg.pinv", square=False)
    return apply(_pinv, (input,), {"atol": 0.0, "rtol": float(rcond), "hermitian": False})


# ---------------------------------------------------------------- matrix_power
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
    Ab = np.broadcast_to(A, batch + A.shape[-2:]).reshape((-1,) + A.shape[-2:])
    Bb = np.broadcast_to(Bm, batch + Bm.shape[-2:]).reshape((-1,) + Bm.shape[-2:])
    X = np.stack([np.linalg.lstsq(a, b, rcond=rcond)[0] for a, b in zip(Ab, Bb)]) if len(Ab) else \
        np.zeros((0, A.shape[-1], Bm.shape[-1]), A.dtype)
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
    check_matrix(A, "linalg.lstsq", square=False)
    if driver is None:
        driver = "gelsy"
    if driver not in ("gels", "gelsy", "gelsd", "gelss"):
        raise RuntimeError(f"torch.linalg.lstsq: parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    if A._data.dtype != B._data.dtype:
        raise RuntimeError(f"torch.linalg.lstsq: Expected input and other to have the same dtype, but got "
                           f"input's dtype {A.dtype} and other's dtype {B.dtype}")
    m, n = A._data.shape[-2:]
    vec = B._data.ndim == A._data.ndim - 1
    if (B._data.shape[-1] if vec else B._data.shape[-2]) != m:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    a = A._data
    if rcond is None:
        rcond = float(np.finfo(a.dtype).eps) * max(m, n)
    sv = np.linalg.svd(a, compute_uv=False) if a.size else np.zeros(a.shape[:-2] + (0,), a.dtype)
    rank = (sv > rcond * sv[..., :1]).sum(-1).astype(np.int64) if sv.shape[-1] else np.zeros(a.shape[:-2], np.int64)
    full_rank = bool(np.all(rank == n))
    residuals = m > n and (driver == "gels" or (driver in ("gelsd", "gelss") and full_rank))
    X, res = apply(_lstsq, (A, B), {"rcond": rcond, "vec": bool(vec), "residuals": residuals})
    rank_t = _wrap(np.zeros((0,), np.int64) if driver == "gels" else np.asarray(rank), False, None, 0)
    sv_t = _wrap(sv.astype(a.dtype) if driver in ("gelsd", "gelss") else np.zeros((0,), a.dtype), False, None, 0)
    return RT.linalg_lstsq((X, res, rank_t, sv_t))


# ---------------------------------------------------------------- diagonal (linalg.diagonal)
def _diagonal_fw(a, *, offset, dim1, dim2):
    d = np.diagonal(a, offset, dim1, dim2)
    if a.flags.writeable:
        d.flags.writeable = True  # a writable view, as PyTorch's
    return d


def _diagonal_backward_fw(grad, *, shape, offset, dim1, dim2):
    z = np.zeros(shape, dtype=grad.dtype)
    _diagonal_fw(z, offset=offset, dim1=dim1, dim2=dim2)[...] = grad
    return z


_diagonal = primitive("linalg_diagonal", _diagonal_fw, node="DiagonalBackward0",
                      a=lambda g, a_shape, offset, dim1, dim2: apply(
                          _diagonal_backward, (g,), {"shape": a_shape, "offset": offset, "dim1": dim1, "dim2": dim2}))
_diagonal_backward = primitive("linalg_diagonal_backward", _diagonal_backward_fw, node="DiagonalBackwardBackward0",
                               grad=lambda g, offset, dim1, dim2: apply(
                                   _diagonal, (g,), {"offset": offset, "dim1": dim1, "dim2": dim2}))


def diagonal(A: Tensor, *, offset: int = 0, dim1: int = -2, dim2: int = -1) -> Tensor:
    """The diagonal (``offset`` above it when > 0) of the matrices over dims dim1, dim2 (a view)."""
    from .shape import _as_view

    n = A._data.ndim
    d1, d2 = wrap_dim(dim1, n), wrap_dim(dim2, n)
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    return _as_view(apply(_diagonal, (A,), {"offset": int(offset), "dim1": d1, "dim2": d2}), A)


# ---------------------------------------------------------------- amax / amin for matrix norms
def _amax_backward(g, x, out, dim, keepdim):
    shape = x._data.shape
    g = unsqueeze_dims(g, (dim,), keepdim, shape)
    out = unsqueeze_dims(out, (dim,), keepdim, shape)
    mask = eq(x, out).to(x.dtype)
    return g * mask / sum(mask, dim, keepdim=True)


_amax = primitive("linalg_amax", lambda x, *, dim, keepdim: np.asarray(np.max(x, axis=dim, keepdims=keepdim)),
                  node="AmaxBackward0", x=_amax_backward)
_amin = primitive("linalg_amin", lambda x, *, dim, keepdim: np.asarray(np.min(x, axis=dim, keepdims=keepdim)),
                  node="AminBackward0", x=_amax_backward)


def _max_min(x: Tensor, dim: int, keepdim: bool, largest: bool) -> Tensor:
    return apply(_amax if largest else _amin, (x,), {"dim": wrap_dim(dim, x._data.ndim), "keepdim": bool(keepdim)})


# ---------------------------------------------------------------- norms
def _vector_norm_fw(x, *, ord, dims, keepdim):
    a = np.abs(x)
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
    return np.asarray(r, dtype=x.dtype)


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
        mask = eq(ax, out).to(x.dtype)
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
        return (wrap_dim(dim, ndim),)
    dims = tuple(wrap_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        raise RuntimeError(f"dim {next(d for d in dims if dims.count(d) > 1)} appears multiple times in the list of dims")
    return tuple(sorted(dims)) if dims else None


def vector_norm(x: Tensor, ord=2, dim=None, keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """The ``ord``-norm of x as a vector (over ``dim`` or all elements).

    >>> import retrograd as torch
    >>> torch.linalg.vector_norm(torch.tensor([3., 4.]))
    tensor(5.)
    """
    if isinstance(ord, str):
        raise TypeError(f"linalg_vector_norm(): argument 'ord' (position 2) must be Number, not str")
    if x._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor as input. Got {_type_name(x)}")
    ord = float(ord)
    dims = _norm_dims(dim, x._data.ndim)
    if x._data.size == 0 and (ord < 0 or ord == math.inf):
        raise RuntimeError(f"linalg.vector_norm cannot compute the {ord:g} norm on an empty tensor because the "
                           "operation does not have an identity")
    return apply(_vector_norm, (x,), {"ord": ord, "dims": dims, "keepdim": bool(keepdim)}, dtype)


def _backshift(d0: int, d1: int, ndim: int) -> list:
    return [d for d in range(ndim) if d not in (d0, d1)] + [d0, d1]


def matrix_norm(A: Tensor, ord="fro", dim=(-2, -1), keepdim: bool = False, *, dtype=None, out=None) -> Tensor:
    """Matrix norms: 'fro', 'nuc', 1, -1, 2, -2, inf, -inf (over the two dims in ``dim``).

    >>> import retrograd as torch
    >>> torch.linalg.matrix_norm(torch.tensor([[1., -2.], [3., 4.]]), 1)
    tensor(6.)
    """
    if A._data.ndim < 2:
        raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least 2 dimensions.")
    if A._data.dtype.kind != "f":
        raise RuntimeError(f"linalg.matrix_norm: Expected a floating point or complex tensor as input. Got {_type_name(A)}")
    n = A._data.ndim
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
        res = sum(sv, -1) if abs_ord is None else _max_min(sv, -1, False, ord > 0)
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


def norm_legacy(input: Tensor, p="fro", dim=None, keepdim: bool = False, out=None, dtype=None) -> Tensor:
    """``torch.norm`` / ``Tensor.norm``: dispatches to vector_norm or matrix_norm as PyTorch does."""
    _dim = [dim] if isinstance(dim, (int, np.integer)) else dim
    if isinstance(p, str):
        if p == "fro" and (dim is None or isinstance(dim, (int, np.integer)) or len(dim) <= 2):
            return vector_norm(input, 2, _dim, keepdim, dtype=dtype)
        if _dim is None:
            _dim = list(range(input._data.ndim))
        return matrix_norm(input, p, _dim, keepdim, dtype=dtype)
    return vector_norm(input, 2.0 if p is None else p, _dim, keepdim, dtype=dtype)
