"""Specs for the ops of ``retrograd._ops.linalg.householder``: geqrf/orgqr/ormqr."""
from .._spec import OpSpec, S, T


SPECS = [
    # ------------------------------------------------------------ Householder
    OpSpec("linalg.householder_product", [S(T((4, 3)), T((3,))), S(T((3, 3)), T((2,))), S(T((2, 4, 2)), T((2, 2)))]),
    OpSpec("orgqr", [S(T((4, 3)), T((3,)))], method=True),
    OpSpec("geqrf", [S(T((4, 3))), S(T((3, 4))), S(T((2, 3, 3)))], grad=False, method=True),
    OpSpec("ormqr", [S(T((4, 3), grad=False), T((4, 2))), S(T((3, 4), grad=False), T((3, 2)), transpose=True),
                     S(T((4, 3), grad=False), T((2, 4)), left=False),
                     S(T((2, 3, 3), grad=False), T((2, 2, 3)), left=False, transpose=True)],
           call=lambda lib, A, C, **k: lib.ormqr(*lib.geqrf(A), C, **k), check_grad_fn=False,
           note="grads w.r.t. other here (geqrf has none; input and tau: tests/ops/linalg/test_householder.py); "
                "grad_fn: PyTorch's OrmqrBackward0, ours the composite's matmul"),
]
