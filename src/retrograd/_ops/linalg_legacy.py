"""PyTorch's older top-level matrix functions: ``triangular_solve``, ``frobenius_norm``,
``nuclear_norm``, ``matrix_rank`` (removed: raises, as in PyTorch), and the randomised
``svd_lowrank`` / ``pca_lowrank`` (Halko, Martinsson & Tropp 2009, algorithm 5.1).

All but triangular_solve are composites of differentiable linalg ops.  triangular_solve is
linalg.solve_triangular's forward and rules under PyTorch's node name.
"""
from __future__ import annotations


import numpy as np

from .. import _creation as C
from .. import return_types as RT
from .._tensor import Tensor
from . import _linalg_decomp as _D
from ._linalg_decomp import _type_name, mT, out_arg
from ._linalg_norms import matrix_norm, vector_norm
from ._registry import apply, primitive
from .convert import clone
from .linalg import matmul
from .linalg_lu import _warn_once
from .shape import expand

__all__ = ["frobenius_norm", "matrix_rank", "nuclear_norm", "pca_lowrank", "svd_lowrank", "triangular_solve"]
METHODS = ["triangular_solve"]

_wrap = Tensor._wrap

_triangular_solve = primitive("triangular_solve", _D._solve_triangular.forward, node="TriangularSolveBackward0",
                              A=_D._solve_triangular.rules[0], B=_D._solve_triangular.rules[1])


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
        from ._common import broadcast_error

        raise broadcast_error(b._data.shape[:-2], A._data.shape[:-2]) from None
    M = mT(A) if transpose else A
    X = apply(_triangular_solve, (M, b), {"upper": bool(upper) != bool(transpose), "left": True,
                                          "unitriangular": bool(unitriangular)})
    # the returned coefficient is A broadcast to the batch shape (a copy)
    return RT.triangular_solve((X, clone(expand(A, tuple(batch) + (n, n)))))


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
        from .pointwise import _out

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
        from .pointwise import _out

        return _out(res, out)
    return res


def matrix_rank(*args, **kwargs):
    """Removed from PyTorch (raises as ``torch.matrix_rank`` does); use ``linalg.matrix_rank``.

    >>> import retrograd as torch
    >>> try:
    ...     torch.matrix_rank(torch.eye(2))
    ... except RuntimeError as e:
    ...     print(str(e).splitlines()[0])
    This function was deprecated since version 1.9 and is now removed.
    """
    raise RuntimeError("This function was deprecated since version 1.9 and is now removed.\nPlease use the "
                       "`torch.linalg.matrix_rank` function instead. The parameter 'symmetric' was renamed in "
                       "`torch.linalg.matrix_rank()` to 'hermitian'.")


# ---------------------------------------------------------------- randomised low-rank SVD / PCA
def _range_basis(A: Tensor, q: int, niter: int, M: Tensor | None) -> Tensor:
    """Orthonormal Q (m x q) whose span approximates A's column space (power iterations)."""
    def times(x):
        y = matmul(A, x)
        return y if M is None else y - matmul(M, x)

    def times_t(x):
        y = matmul(mT(A), x)
        return y if M is None else y - matmul(mT(M), x)

    Q = _D.qr(times(C.randn(A._data.shape[-1], q, dtype=A.dtype))).Q
    for _ in range(niter):
        Q = _D.qr(times_t(Q)).Q
        Q = _D.qr(times(Q)).Q
    return Q


def _svd_lowrank(A: Tensor, q: int, niter: int, M: Tensor | None):
    m, n = A._data.shape[-2:]
    if M is not None:
        M = expand(M, A._data.shape)
    wide = m < n
    if wide:  # the algorithm wants a tall matrix: factor A^T and swap U and V
        A = mT(A)
        M = None if M is None else mT(M)
    Q = _range_basis(A, q, niter, M)
    Bm = matmul(mT(Q), A)
    if M is not None:
        Bm = Bm - matmul(mT(Q), M)
    U, S, Vh = _D.svd(Bm, full_matrices=False)
    U, V = matmul(Q, U), mT(Vh)
    return (V, S, U) if wide else (U, S, V)


def svd_lowrank(A: Tensor, q: int | None = 6, niter: int | None = 2, M: Tensor | None = None):
    """Randomised truncated SVD ``(U, S, V)`` of A - M with about q singular triplets
    (U diag(S) V^T approximates A - M; random, so only the product is reproducible).

    >>> import retrograd as torch
    >>> A = torch.tensor([[1., 2.], [2., 4.], [3., 6.]])
    >>> U, S, V = torch.svd_lowrank(A, q=1)
    >>> torch.allclose(U @ torch.diag(S) @ V.T, A, atol=1e-5)
    True
    """
    if A._data.ndim < 2:
        raise ValueError(f"not enough values to unpack (expected 2, got {A._data.ndim})")
    return _svd_lowrank(A, 6 if q is None else int(q), 2 if niter is None else int(niter), M)


def pca_lowrank(A: Tensor, q: int | None = None, center: bool = True, niter: int = 2):
    """Randomised PCA: ``svd_lowrank`` of A with its column means removed (when ``center``).

    >>> import retrograd as torch
    >>> U, S, V = torch.pca_lowrank(torch.tensor([[1., 2.], [2., 4.], [3., 6.]]), q=1)
    >>> S.shape
    torch.Size([1])
    """
    if A._data.ndim < 2:
        raise ValueError(f"not enough values to unpack (expected 2, got {A._data.ndim})")
    m, n = A._data.shape[-2:]
    if q is None:
        q = min(6, m, n)
    elif not 0 <= q <= min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than min(m, n)={min(m, n)}")
    if not niter >= 0:
        raise ValueError(f"niter(={niter}) must be non-negative integer")
    if center:
        from .reduce import mean

        A = A - mean(A, -2, keepdim=True)
    return _svd_lowrank(A, int(q), int(niter), None)
