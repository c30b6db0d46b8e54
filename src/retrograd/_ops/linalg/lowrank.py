"""Svd_lowrank, pca_lowrank."""
from __future__ import annotations

from ... import _creation as C
from ..._tensor import Tensor
from ..shape import expand
from . import decompositions as _D
from ._checks import mT
from .products import matmul

__all__ = ["pca_lowrank", "svd_lowrank"]


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
        from ..reduction import mean

        A = A - mean(A, -2, keepdim=True)
    return _svd_lowrank(A, int(q), int(niter), None)
