"""PyTorch's top-level (``torch.*``) forms of linear-algebra functions whose ``torch.linalg`` form
differs: det, inverse, logdet, slogdet, cholesky, cholesky_solve, cholesky_inverse, qr, svd,
pinverse, matrix_power, matrix_rank."""
from __future__ import annotations

from ..._tensor import Tensor
from . import decompositions as _decompositions, solvers as _solvers

__all__ = ["det", "inverse", "logdet", "slogdet", "cholesky", "cholesky_solve", "cholesky_inverse", "qr", "svd",
           "pinverse", "matrix_power", "matrix_rank"]


# ---------------------------------------------------------------- PyTorch's top-level matrix functions
det = _solvers.det
inverse = _solvers.inv
logdet = _solvers.logdet
cholesky = _decompositions.cholesky_legacy
cholesky_solve = _solvers.cholesky_solve
cholesky_inverse = _solvers.cholesky_inverse
qr = _decompositions.qr_legacy
svd = _decompositions.svd_legacy
pinverse = _solvers.pinverse
matrix_power = _solvers.matrix_power


def slogdet(input: Tensor):
    """``torch.slogdet``: (sign, logabsdet) of a square matrix."""
    from ... import return_types as RT

    return RT.slogdet(tuple(_solvers.slogdet(input)))


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
