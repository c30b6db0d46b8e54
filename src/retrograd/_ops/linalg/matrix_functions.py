"""Matrix functions and constructions: matrix_exp, ``linalg.vander``."""
from __future__ import annotations

import math

import numpy as np

from ... import _creation as C
from ..._tensor import Tensor
from .._composite import _R, _tname
from .._registry import apply, primitive
from .decompositions import _int64

__all__ = ["matrix_exp"]


# ================================================================ matrix exponential
def _expm_np(A: np.ndarray) -> np.ndarray:
    """Scaling and squaring of a degree-18 Taylor polynomial (batched, per-matrix scaling)."""
    a = A
    if a.size == 0:
        return a.copy()
    n = a.shape[-1]
    out = np.empty_like(a)
    flat, res = a.reshape(-1, n, n), out.reshape(-1, n, n)
    # narrower floats are computed in float64 and rounded once: the squarings of a large-norm
    # matrix amplify float32 rounding (entries that cancel lose most of their digits)
    work = np.float64 if a.dtype.kind == "f" and a.dtype.itemsize < 8 else a.dtype
    eye = np.eye(n, dtype=work)
    for i, m in enumerate(flat):
        m = m.astype(work, copy=False)
        if not np.isfinite(m).all():  # PyTorch: any inf / NaN entry gives an all-NaN exponential
            res[i] = np.nan
            continue
        norm = float(np.abs(m).sum(-2).max()) if n else 0.0
        s = max(0, int(math.ceil(math.log2(norm / 0.25)))) if norm > 0.25 else 0
        x = m / (2.0 ** s)
        r = eye + x / 18.0
        for k in range(17, 0, -1):  # Horner: I + X/1 (I + X/2 (... ))
            r = eye + (x @ r) / k
        for _ in range(s):
            r = r @ r
        res[i] = r
    return out


def _matrix_exp_rule(g, A):
    # d exp(A)^H-adjoint: the upper-right block of exp([[A^H, G], [0, A^H]]) (Mathias' identity);
    # it is itself a matrix_exp, so the rule differentiates again.
    R = _R()
    n = A.shape[-1]
    ah = A.transpose(-2, -1)
    ah = ah.conj() if A.is_complex() else ah
    zeros = R.zeros_like(ah)
    big = R.cat([R.cat([ah, g], -1), R.cat([zeros, ah], -1)], -2)
    return matrix_exp(big)[..., :n, n:]


_matrix_exp = primitive("linalg_matrix_exp", _expm_np, node="LinalgMatrixExpBackward0", A=_matrix_exp_rule)


def matrix_exp(A: Tensor) -> Tensor:
    """exp of square matrices (batched); ``torch.linalg.matrix_exp`` too.

    >>> import retrograd as torch
    >>> torch.matrix_exp(torch.zeros(2, 2))
    tensor([[1., 0.],
            [0., 1.]])
    """
    if A.dim() < 2 or A.shape[-1] != A.shape[-2]:
        raise RuntimeError("linalg.matrix_exp: A must be batches of square matrices, but they are "
                           f"{A.shape[-2] if A.dim() >= 2 else 1} by {A.shape[-1] if A.dim() else 1} matrices")
    if not (A.is_floating_point() or A.is_complex()):
        raise RuntimeError(f"linalg.matrix_exp: Expected a floating point or complex tensor as input. Got "
                           f"{_tname(A)}")
    return apply(_matrix_exp, (A,))


# ---------------------------------------------------------------- vander
def vander(x: Tensor, *, N: int | None = None) -> Tensor:
    """Vandermonde matrices of the last dim, increasing powers: ``x[..., i] ** j`` for j < N.

    >>> import retrograd as torch
    >>> torch.linalg.vander(torch.tensor([1., 2., 3.]))
    tensor([[1., 1., 1.],
            [1., 2., 4.],
            [1., 3., 9.]])
    """
    from ..scan import cumprod
    from ..shape import expand, reshape, unsqueeze
    from ..joining import cat

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
