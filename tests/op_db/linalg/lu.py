"""Specs for the ops of ``retrograd._ops.linalg.lu``: lu family."""
from .._spec import OpSpec, S, T


M = dict(low=-0.5, high=0.5)


def _dd(lib, A):
    """Diagonally dominant (well conditioned) from uniform [-0.5, 0.5] entries."""
    return A + 2 * lib.eye(A.shape[-1], dtype=A.dtype)


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
]
