"""Specs for the ops of ``retrograd._ops.linalg.top_level``: pyTorch's top-level (``torch.*``) forms
of linear-algebra functions whose ``torch.linalg`` form differs: det, inverse, logdet, slogdet,
cholesky, cholesky_solve, cholesky_inverse, qr, svd, pinverse, matrix_power, matrix_rank."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("slogdet", [S(T((3, 3))), S(T((2, 3, 3)))], method=True),
]
