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

import functools
import math

import numpy as np

from .. import _creation as C
from .. import return_types as RT
from .._tensor import Tensor
from ._registry import apply, primitive
from .convert import clone
from .linalg import matmul
from .pointwise import where
from .shape import slice_dim, squeeze, transpose, unsqueeze

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
        from .pointwise import _out

        if isinstance(res, tuple):
            for r, o in zip(res, out):
                _out(r, o)
            return type(res)(tuple(out)) if hasattr(res, "_fields") else tuple(out)
        return _out(res, out)
    return wrapper


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
