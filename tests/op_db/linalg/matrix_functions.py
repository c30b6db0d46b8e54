"""Specs for the ops of ``retrograd._ops.linalg.matrix_functions``: matrix functions and
constructions: matrix_exp, ``linalg.vander``."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("linalg.vander", [S(T((3,))), S(T((2, 3)), N=4), S(T((4,)), N=2)]),
    OpSpec("linalg_vander_int", [S(T((3,), kind="int", low=-3, high=4, dtype="int32"))], torch_name="linalg.vander",
           call=lambda lib, x: lib.linalg.vander(x), grad=False, note="alias of vander"),
    OpSpec("matrix_exp", [S(T((3, 3), low=-1, high=1)), S(T((2, 2, 2), low=-3, high=3))], method=True),
    OpSpec("linalg.matrix_exp", [S(T((3, 3), low=-1, high=1))]),
]
