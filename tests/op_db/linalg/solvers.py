"""Specs for the ops of ``retrograd._ops.linalg.solvers``: inv(_ex), det, slogdet, logdet,
solve(_ex), solve_triangular, triangular_solve, cholesky_solve, cholesky_inverse, pinv, lstsq,
matrix_power, tensorinv, tensorsolve."""
from .._spec import OpSpec, S, T


def _spd(lib, A):
    n = A.shape[-1]
    return A @ A.mT + n * lib.eye(n, dtype=A.dtype)


def _sym(lib, A):
    return A + A.mT


def _dd(lib, A):
    return A + 2 * lib.eye(A.shape[-1], dtype=A.dtype)


M = dict(low=-0.5, high=0.5)  # entries for diagonally dominant matrices (with _dd)


def _dd_T(lib, A):
    """Diagonally dominant (well conditioned) from uniform [-0.5, 0.5] entries."""
    return A + 2 * lib.eye(A.shape[-1], dtype=A.dtype)


def _tdd(lib, A, ind):
    """A tensor whose matrix view (first ``ind`` dims as rows) is diagonally dominant."""
    rows = 1
    for s in A.shape[:ind]:
        rows *= s
    return A + 2 * lib.eye(rows, dtype=A.dtype).reshape(A.shape)


SPECS = [
    # ------------------------------------------------------------ top-level matrix functions
    OpSpec("det", [S(T((3, 3))), S(T((2, 2, 2)))], method=True),
    OpSpec("inverse", [S(T((3, 3))), S(T((2, 3, 3)))], method=True),
    OpSpec("logdet", [S(T((3, 3))), S(T((2, 3, 3)))], call=lambda lib, A: lib.logdet(_spd(lib, A))),
    OpSpec("cholesky_solve", [S(T((3, 2)), T((3, 3))), S(T((3,)), T((3, 3)), True), S(T((2, 3, 1)), T((3, 3)))],
           call=lambda lib, B, A, upper=False: lib.cholesky_solve(
               B.unsqueeze(-1) if B.ndim == 1 else B,
               lib.linalg.cholesky(_spd(lib, A)).mT if upper else lib.linalg.cholesky(_spd(lib, A)), upper)),
    OpSpec("cholesky_inverse", [S(T((3, 3))), S(T((3, 3)), True)],
           call=lambda lib, A, upper=False: lib.cholesky_inverse(
               lib.linalg.cholesky(_spd(lib, A)).mT if upper else lib.linalg.cholesky(_spd(lib, A)), upper)),
    OpSpec("pinverse", [S(T((3, 2))), S(T((2, 3))), S(T((3, 3)), 0.05)], method=True),
    OpSpec("matrix_power", [S(T((3, 3)), 0), S(T((3, 3)), 1), S(T((3, 3)), 2), S(T((2, 3, 3)), 3), S(T((3, 3)), 5),
                            S(T((3, 3), **M), -1), S(T((3, 3), **M), -2)], method=True),
    OpSpec("matrix_power_int", [S(T((2, 2), kind="int", low=-2, high=3), 3)], torch_name="matrix_power",
           call=lambda lib, A, n: lib.matrix_power(A, n), grad=False, note="alias of matrix_power"),
    # ------------------------------------------------------------ torch.linalg
    OpSpec("linalg.inv", [S(T((3, 3))), S(T((2, 3, 3)))]),
    OpSpec("linalg.det", [S(T((3, 3))), S(T((2, 2, 2))), S(T((1, 1))), S(T((0, 0)))]),
    OpSpec("linalg.slogdet", [S(T((3, 3))), S(T((2, 3, 3)))]),
    OpSpec("linalg.solve", [S(T((3, 3), **M), T((3,))), S(T((3, 3), **M), T((3, 2))), S(T((2, 3, 3), **M), T((2, 3))),
                            S(T((2, 3, 3), **M), T((3, 2))), S(T((3, 3), **M), T((2, 3)), left=False)],
           call=lambda lib, A, B, **k: lib.linalg.solve(_dd(lib, A), B, **k)),
    OpSpec("linalg.solve_triangular", [S(T((3, 3), **M), T((3, 2)), upper=True),
                                       S(T((3, 3), **M), T((3, 2)), upper=False),
                                       S(T((3, 3), **M), T((2, 3)), upper=True, left=False),
                                       S(T((2, 3, 3), **M), T((3, 1)), upper=False, unitriangular=True)],
           call=lambda lib, A, B, **k: lib.linalg.solve_triangular(_dd(lib, A), B, **k)),
    OpSpec("linalg.matrix_rank", [S(T((3, 3))), S(T((4, 3)), atol=1.0), S(T((2, 3, 3)), rtol=0.5)], grad=False,
           call=lambda lib, A, **k: lib.linalg.matrix_rank(A @ A.mT if A.shape[-2] == 4 else A, **k)),
    OpSpec("linalg.pinv", [S(T((3, 2))), S(T((2, 3))), S(T((3, 2)), rtol=0.1), S(T((2, 2, 3)))]),
    OpSpec("linalg_pinv_hermitian", [S(T((3, 3)))], torch_name="linalg.pinv",
           call=lambda lib, A: lib.linalg.pinv(_sym(lib, A), hermitian=True), note="alias of pinv"),
    OpSpec("linalg.matrix_power", [S(T((3, 3)), 2), S(T((2, 3, 3)), 3), S(T((3, 3), **M), -1), S(T((3, 3)), 0)]),
    OpSpec("linalg.lstsq", [S(T((4, 2)), T((4, 3))), S(T((4, 2)), T((4,))), S(T((2, 4, 2)), T((2, 4, 1))),
                            S(T((4, 2)), T((4, 3)), driver="gelsd"), S(T((4, 2)), T((4, 3)), driver="gels"),
                            S(T((2, 4)), T((2, 1)))]),
    # ------------------------------------------------------------ _ex variants, cond, tensor*, vander
    OpSpec("linalg.inv_ex", [S(T((3, 3), **M)), S(T((2, 3, 3), **M))], call=lambda lib, A: lib.linalg.inv_ex(_dd_T(lib, A))),
    OpSpec("linalg.solve_ex", [S(T((3, 3), **M), T((3,))), S(T((2, 3, 3), **M), T((2, 3, 2))),
                               S(T((3, 3), **M), T((2, 3)), left=False)],
           call=lambda lib, A, B, **k: lib.linalg.solve_ex(_dd_T(lib, A), B, **k)),
    OpSpec("linalg.tensorinv", [S(T((4, 2, 2), **M), 1), S(T((2, 3, 6), **M), 2), S(T((2, 2, 2, 2), **M))],
           call=lambda lib, A, ind=2: lib.linalg.tensorinv(_tdd(lib, A, ind), ind), check_grad_fn=False,
           note="grad_fn differs: PyTorch's reshape of the inverse is ReshapeAliasBackward0"),
    OpSpec("linalg.tensorsolve", [S(T((2, 3, 6), **M), T((2, 3))), S(T((6, 2, 3), **M), T((2, 3)), dims=(0,))],
           call=lambda lib, A, B, dims=None: lib.linalg.tensorsolve(
               _tdd(lib, A, 2) if dims is None else _tdd(lib, A.movedim(0, -1), 2).movedim(-1, 0), B, dims)),
    # ------------------------------------------------------------ older top-level functions
    OpSpec("triangular_solve", [S(T((3, 2)), T((3, 3), **M)), S(T((3, 2)), T((3, 3), **M), False),
                                S(T((3, 2)), T((3, 3), **M), True, True),
                                S(T((2, 3, 1)), T((3, 3), **M), False, False, True)],
           call=lambda lib, b, A, *a: lib.triangular_solve(b, _dd_T(lib, A), *a), method=False),
]
