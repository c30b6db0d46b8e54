"""Specs for the ops of ``retrograd._ops.linalg.addmm``: addmm, addbmm, baddbmm, addmv, addr (+ in-
place)."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("addmm", [S(T((2, 4)), T((2, 3)), T((3, 4))), S(T((4,)), T((2, 3)), T((3, 4)), beta=0.5, alpha=2)],
           method=True, inplace="addmm_"),
    # (no broadcast input: torch's addbmm_ resizes it instead of raising)
    OpSpec("addbmm", [S(T((2, 4)), T((3, 2, 3)), T((3, 3, 4))),
                      S(T((2, 4)), T((3, 2, 3)), T((3, 3, 4)), beta=2, alpha=0.5)],
           method=True, inplace="addbmm_"),
    OpSpec("baddbmm", [S(T((3, 2, 4)), T((3, 2, 3)), T((3, 3, 4))),
                       S(T((4,)), T((3, 2, 3)), T((3, 3, 4)), beta=0.5, alpha=3)],
           method=True, inplace="baddbmm_"),
    OpSpec("addmv", [S(T((2,)), T((2, 3)), T((3,))), S(T(()), T((2, 3)), T((3,)), beta=2, alpha=-1)],
           method=True, inplace="addmv_"),
    OpSpec("addr", [S(T((2, 3)), T((2,)), T((3,))), S(T((3,)), T((2,)), T((3,)), beta=0.5, alpha=2)],
           method=True, inplace="addr_"),
    OpSpec("kron", [S(T((2, 2)), T((2, 3))), S(T((3,)), T((2,))), S(T((2,)), T((2, 3)))], method=True),
]
