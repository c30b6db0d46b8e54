"""Specs for the LU family and the other linalg additions (docs/ops_linalg_lu.md).

LU's pivots are only stable away from ties, which random uniform matrices give; solves use
diagonally dominant matrices (``_dd``) so that the systems are well conditioned for gradcheck.
"""
from ._spec import OpSpec, S, T

M = dict(low=-0.5, high=0.5)


INF = float("inf")


def _dd(lib, A):
    """Diagonally dominant (well conditioned) from uniform [-0.5, 0.5] entries."""
    return A + 2 * lib.eye(A.shape[-1], dtype=A.dtype)


def _spd(lib, A):
    n = A.shape[-1]
    return A @ A.mT + n * lib.eye(n, dtype=A.dtype)


def _tdd(lib, A, ind):
    """A tensor whose matrix view (first ``ind`` dims as rows) is diagonally dominant."""
    rows = 1
    for s in A.shape[:ind]:
        rows *= s
    return A + 2 * lib.eye(rows, dtype=A.dtype).reshape(A.shape)


def _factor(lib, A):
    return lib.linalg.lu_factor(_dd(lib, A))


PIV3 = T(kind="fixed", value=[2, 3, 3], dtype="int32")
PIV2x3 = T(kind="fixed", value=[[3, 2, 3], [1, 3, 3]], dtype="int32")

SPECS = [
    OpSpec("linalg.lu_factor", [S(T((3, 3))), S(T((2, 3, 3))), S(T((3, 4))), S(T((4, 3))), S(T((0, 0)))]),
    OpSpec("linalg.lu_factor_ex", [S(T((3, 3))), S(T((2, 4, 4))), S(T((2, 4)))]),
    OpSpec("linalg.lu", [S(T((3, 3))), S(T((2, 3, 3))), S(T((3, 5))), S(T((5, 3))), S(T((2, 2, 3)))]),
    OpSpec("lu", [S(T((3, 3))), S(T((2, 3, 3))), S(T((3, 3)), get_infos=True)], method=True),
    OpSpec("lu_unpack", [S(T((3, 3)), PIV3), S(T((2, 3, 3)), PIV2x3), S(T((3, 4)), PIV3), S(T((4, 3)), PIV3)]),
    OpSpec("lu_unpack_of_factor", [S(T((3, 3))), S(T((4, 2)))], torch_name="lu_unpack",
           call=lambda lib, A: lib.lu_unpack(*lib.linalg.lu_factor(A)), note="alias of lu_unpack"),
    OpSpec("linalg.lu_solve", [S(T((3, 3), **M), T((3, 2))), S(T((3, 3), **M), T((3, 2)), adjoint=True),
                               S(T((3, 3), **M), T((2, 3)), left=False),
                               S(T((3, 3), **M), T((2, 3)), left=False, adjoint=True),
                               S(T((2, 3, 3), **M), T((3, 1))), S(T((3, 3), **M), T((2, 3, 2)))],
           call=lambda lib, A, B, **k: lib.linalg.lu_solve(*_factor(lib, A), B, **k)),
    OpSpec("lu_solve", [S(T((3, 2)), T((3, 3), **M)), S(T((2, 3, 1)), T((2, 3, 3), **M))],
           call=lambda lib, B, A: lib.lu_solve(B, *_factor(lib, A))),
    # ------------------------------------------------------------ _ex variants, cond, tensor*, vander
    OpSpec("linalg.inv_ex", [S(T((3, 3), **M)), S(T((2, 3, 3), **M))], call=lambda lib, A: lib.linalg.inv_ex(_dd(lib, A))),
    OpSpec("linalg.solve_ex", [S(T((3, 3), **M), T((3,))), S(T((2, 3, 3), **M), T((2, 3, 2))),
                               S(T((3, 3), **M), T((2, 3)), left=False)],
           call=lambda lib, A, B, **k: lib.linalg.solve_ex(_dd(lib, A), B, **k)),
    OpSpec("linalg.cholesky_ex", [S(T((3, 3))), S(T((2, 3, 3))), S(T((3, 3)), upper=True)],
           call=lambda lib, A, **k: lib.linalg.cholesky_ex(_spd(lib, A), **k)),
    OpSpec("linalg.cond", [S(T((3, 3))), S(T((3, 3)), 2), S(T((3, 3)), -2), S(T((4, 3))), S(T((2, 3, 3)), "nuc")]),
    # torch 2.13 cannot differentiate these (its masked_fill_ on a saved inverse); ours can:
    # tests/test_linalg_lu.py checks our gradients against torch's composite formula
    OpSpec("linalg_cond_inv_norms", [S(T((2, 3, 3)), "fro"), S(T((3, 3)), INF), S(T((3, 3)), -INF), S(T((3, 3)), 1),
                                     S(T((3, 3)), -1)], torch_name="linalg.cond",
           call=lambda lib, A, p: lib.linalg.cond(A, p), grad=False,
           note="alias of cond (torch cannot differentiate these ords; ours can: tests/test_linalg_lu.py)"),
    OpSpec("linalg.tensorinv", [S(T((4, 2, 2), **M), 1), S(T((2, 3, 6), **M), 2), S(T((2, 2, 2, 2), **M))],
           call=lambda lib, A, ind=2: lib.linalg.tensorinv(_tdd(lib, A, ind), ind), check_grad_fn=False,
           note="grad_fn differs: PyTorch's reshape of the inverse is ReshapeAliasBackward0"),
    OpSpec("linalg.tensorsolve", [S(T((2, 3, 6), **M), T((2, 3))), S(T((6, 2, 3), **M), T((2, 3)), dims=(0,))],
           call=lambda lib, A, B, dims=None: lib.linalg.tensorsolve(
               _tdd(lib, A, 2) if dims is None else _tdd(lib, A.movedim(0, -1), 2).movedim(-1, 0), B, dims)),
    OpSpec("linalg.vander", [S(T((3,))), S(T((2, 3)), N=4), S(T((4,)), N=2)]),
    OpSpec("linalg_vander_int", [S(T((3,), kind="int", low=-3, high=4, dtype="int32"))], torch_name="linalg.vander",
           call=lambda lib, x: lib.linalg.vander(x), grad=False, note="alias of vander"),
    # ------------------------------------------------------------ Householder
    OpSpec("linalg.householder_product", [S(T((4, 3)), T((3,))), S(T((3, 3)), T((2,))), S(T((2, 4, 2)), T((2, 2)))]),
    OpSpec("orgqr", [S(T((4, 3)), T((3,)))], method=True),
    OpSpec("geqrf", [S(T((4, 3))), S(T((3, 4))), S(T((2, 3, 3)))], grad=False, method=True),
    OpSpec("ormqr", [S(T((4, 3), grad=False), T((4, 2))), S(T((3, 4), grad=False), T((3, 2)), transpose=True),
                     S(T((4, 3), grad=False), T((2, 4)), left=False),
                     S(T((2, 3, 3), grad=False), T((2, 2, 3)), left=False, transpose=True)],
           call=lambda lib, A, C, **k: lib.ormqr(*lib.geqrf(A), C, **k), check_grad_fn=False,
           note="grads w.r.t. other here (geqrf has none; input and tau: tests/test_opinfo_nn_linalg.py); "
                "grad_fn: PyTorch's OrmqrBackward0, ours the composite's matmul"),
    # ------------------------------------------------------------ LDL^T (no derivative in PyTorch)
    OpSpec("linalg.ldl_factor", [S(T((4, 4))), S(T((2, 3, 3)))], grad=False,
           call=lambda lib, A: lib.linalg.ldl_factor(A + A.mT)),
    OpSpec("linalg.ldl_factor_ex", [S(T((5, 5))), S(T((2, 2, 2)))], grad=False,
           call=lambda lib, A: lib.linalg.ldl_factor_ex(A + A.mT)),
    OpSpec("linalg.ldl_solve", [S(T((4, 4)), T((4, 2))), S(T((2, 3, 3)), T((2, 3, 1)))], grad=False,
           call=lambda lib, A, B: lib.linalg.ldl_solve(*lib.linalg.ldl_factor(A + A.mT), B)),
    # ------------------------------------------------------------ older top-level functions
    OpSpec("triangular_solve", [S(T((3, 2)), T((3, 3), **M)), S(T((3, 2)), T((3, 3), **M), False),
                                S(T((3, 2)), T((3, 3), **M), True, True),
                                S(T((2, 3, 1)), T((3, 3), **M), False, False, True)],
           call=lambda lib, b, A, *a: lib.triangular_solve(b, _dd(lib, A), *a), method=False),
    OpSpec("frobenius_norm", [S(T((3, 4)), (0, 1)), S(T((2, 3, 4)), (1, 2), True), S(T((3, 4)), 0)],
           check_grad_fn=False, note="grad_fn: ours LinalgVectorNormBackward0, PyTorch's NormBackward1"),
    OpSpec("nuclear_norm", [S(T((3, 4))), S(T((3, 4)), True), S(T((2, 3, 4)), (0, 2)), S(T((2, 3, 4)), (1, 2), True)]),
    OpSpec("svd_lowrank", [S(T((6, 4)), q=3), S(T((3, 5)), q=2), S(T((2, 5, 4)), q=2)], nondeterministic=True,
           grad=False, note="random factors: shapes only here; values and grads in tests/test_linalg_lu.py"),
    OpSpec("pca_lowrank", [S(T((6, 4)), q=3), S(T((4, 5)))], nondeterministic=True, grad=False,
           note="random factors: shapes only here; values and grads in tests/test_linalg_lu.py"),
]
