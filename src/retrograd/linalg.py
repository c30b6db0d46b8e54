"""``retrograd.linalg``: PyTorch's ``torch.linalg`` namespace (re-exports only).

>>> import retrograd as torch
>>> A = torch.tensor([[4., 1.], [1., 3.]], requires_grad=True)
>>> torch.linalg.det(A).backward()
>>> A.grad
tensor([[ 3., -1.],
        [-1.,  4.]])
"""
from __future__ import annotations

from ._ops.linalg._checks import LinAlgError
from ._ops.linalg.decompositions import cholesky, eigh, eigvalsh, qr, svd, svdvals
from ._ops.linalg.solvers import det, inv, lstsq, matrix_power, matrix_rank, pinv, slogdet, solve, solve_triangular
from ._ops.linalg.diagonal import diagonal
from ._ops.linalg.norms import matrix_norm, norm, vector_norm  # noqa: F401
from ._ops.linalg.products import matmul  # noqa: F401
from ._ops.linalg.products import linalg_cross as cross, multi_dot, vecdot  # noqa: F401
from ._ops.linalg.matrix_functions import matrix_exp  # noqa: F401
from ._ops.linalg.decompositions import cholesky_ex, eig, eigvals  # noqa: F401 (eig, eigvals: public names that raise)
from ._ops.linalg.norms import cond
from ._ops.linalg.solvers import inv_ex, solve_ex, tensorinv, tensorsolve
from ._ops.linalg.matrix_functions import vander
from ._ops.linalg.householder import householder_product  # noqa: F401
from ._ops.linalg.ldl import ldl_factor, ldl_factor_ex, ldl_solve  # noqa: F401
from ._ops.linalg.lu import linalg_lu as lu, linalg_lu_solve as lu_solve, lu_factor, lu_factor_ex  # noqa: F401

__all__ = ["LinAlgError", "cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "lstsq", "matmul",
           "matrix_exp", "matrix_norm", "matrix_power", "matrix_rank", "multi_dot", "norm", "pinv", "qr", "slogdet", "solve",
           "solve_triangular", "svd", "svdvals", "vecdot", "vector_norm"]
# (eig / eigvals exist only to raise a clear error: complex results; not listed in __all__)
__all__ += ["cholesky_ex", "cond", "householder_product", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve",
            "lu", "lu_factor",
            "lu_factor_ex", "lu_solve", "solve_ex", "tensorinv", "tensorsolve", "vander"]
