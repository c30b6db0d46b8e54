"""Specs for the ops of ``retrograd._ops.linalg.norms``: vector_norm, matrix_norm, norm, cond,
frobenius_norm, nuclear_norm, renorm."""
import math
from .._spec import OpSpec, S, T


INF = math.inf
INF_T = float("inf")


SPECS = [
    # torch.norm is the reductions' op; these are its paths into linalg (matrix norms)
    OpSpec("norm_matrix", [S(T((3, 4)), "nuc"), S(T((3, 4)), "fro", (0, 1)), S(T((2, 3, 4)), "nuc", (0, 2))],
           torch_name="norm", call=lambda lib, x, *a: lib.norm(x, *a), note="alias of norm"),
    OpSpec("linalg.norm", [S(T((3, 4))), S(T((4,))), S(T((3, 4)), "nuc"), S(T((3, 4)), 2), S(T((3, 4)), -2),
                           S(T((3, 4)), 1), S(T((3, 4)), INF), S(T((2, 3, 4)), None, (1, 2)), S(T((3, 4)), 3, 1),
                           S(T((4,)), 0.5), S(T((4,)), 0), S(T((3, 4)), "fro", (0, 1), True)]),
    OpSpec("linalg.vector_norm", [S(T((3, 4))), S(T((3, 4)), 1, 1), S(T((3, 4)), INF, (0, 1)), S(T((3, 4)), -INF),
                                  S(T((3, 4)), 3.5, 0, True), S(T((3, 4)), 0.5), S(T((3, 4)), 0), S(T((3, 4)), 1.5, -1),
                                  S(T(())), S(T((2, 3)), -1)]),
    OpSpec("linalg_vector_norm_dtype", [S(T((3,)))], torch_name="linalg.vector_norm",
           call=lambda lib, x: lib.linalg.vector_norm(x, dtype=lib.float64), note="alias of vector_norm"),
    OpSpec("linalg.matrix_norm", [S(T((3, 4))), S(T((3, 4)), "nuc"), S(T((3, 4)), 1), S(T((3, 4)), -1), S(T((3, 4)), 2),
                                  S(T((3, 4)), -2), S(T((3, 4)), INF), S(T((3, 4)), -INF), S(T((2, 3, 4)), "nuc"),
                                  S(T((3, 4)), 2, (1, 0)), S(T((2, 3, 4)), 1, (0, 2)),
                                  S(T((2, 3, 4)), -1, (0, 2), True),
                                  S(T((2, 3, 4)), INF, (2, 0), True), S(T((2, 3, 4)), -2, (0, 2), True)]),
    OpSpec("linalg.cond", [S(T((3, 3))), S(T((3, 3)), 2), S(T((3, 3)), -2), S(T((4, 3))), S(T((2, 3, 3)), "nuc")]),
    # torch 2.13 cannot differentiate these (its masked_fill_ on a saved inverse); ours can:
    # tests/ops/linalg/test_norms.py checks our gradients against torch's composite formula
    OpSpec("linalg_cond_inv_norms", [S(T((2, 3, 3)), "fro"), S(T((3, 3)), INF_T), S(T((3, 3)), -INF_T), S(T((3, 3)), 1),
                                     S(T((3, 3)), -1)], torch_name="linalg.cond",
           call=lambda lib, A, p: lib.linalg.cond(A, p), grad=False,
           note="alias of cond (torch cannot differentiate these ords; ours can: tests/ops/linalg/test_norms.py)"),
    OpSpec("frobenius_norm", [S(T((3, 4)), (0, 1)), S(T((2, 3, 4)), (1, 2), True), S(T((3, 4)), 0)],
           check_grad_fn=False, note="grad_fn: ours LinalgVectorNormBackward0, PyTorch's NormBackward1"),
    OpSpec("nuclear_norm", [S(T((3, 4))), S(T((3, 4)), True), S(T((2, 3, 4)), (0, 2)), S(T((2, 3, 4)), (1, 2), True)]),
    OpSpec("renorm", [S(T((3, 4)), 2, 0, 1.0), S(T((2, 3, 2)), 1, 1, 1.5), S(T((3, 2)), 3, 1, 1.2),
                      S(T((4, 3), low=-0.6, high=0.6), 2, 0, 0.6)], method=True,
           inplace="renorm_"),
]
