"""Specs for the ops of ``retrograd._ops.linalg.ldl``: ldl_factor/ldl_solve."""
from .._spec import OpSpec, S, T


SPECS = [
    # ------------------------------------------------------------ LDL^T (no derivative in PyTorch)
    OpSpec("linalg.ldl_factor", [S(T((4, 4))), S(T((2, 3, 3)))], grad=False,
           call=lambda lib, A: lib.linalg.ldl_factor(A + A.mT)),
    OpSpec("linalg.ldl_factor_ex", [S(T((5, 5))), S(T((2, 2, 2)))], grad=False,
           call=lambda lib, A: lib.linalg.ldl_factor_ex(A + A.mT)),
    OpSpec("linalg.ldl_solve", [S(T((4, 4)), T((4, 2))), S(T((2, 3, 3)), T((2, 3, 1)))], grad=False,
           call=lambda lib, A, B: lib.linalg.ldl_solve(*lib.linalg.ldl_factor(A + A.mT), B)),
]
