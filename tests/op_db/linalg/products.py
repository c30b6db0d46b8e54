"""Specs for the ops of ``retrograd._ops.linalg.products``: matmul, mm, mv, dot, bmm, outer, ger,
vdot, inner, tensordot, kron, cross, trace, multi_dot, chain_matmul, vecdot."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("matmul", [S(T((3,)), T((3,))), S(T((2, 3)), T((3,))), S(T((3,)), T((3, 2))), S(T((2, 3)), T((3, 4))),
                      S(T((2, 2, 3)), T((2, 3, 2))), S(T((2, 2, 3)), T((3, 2)))],
           method=True),
    # PyTorch routes this broadcast case through a transpose; the grad_fn name differs, values don't.
    OpSpec("matmul_broadcast_batch", [S(T((1, 2, 3)), T((2, 3, 1))), S(T((2, 3)), T((2, 3, 2)))],
           torch_name="matmul",
           call=lambda lib, a, b: a @ b, check_grad_fn=False, note="alias of matmul"),
    OpSpec("mm", [S(T((2, 3)), T((3, 2)))], method=True),
    OpSpec("mv", [S(T((2, 3)), T((3,)))], method=True),
    OpSpec("dot", [S(T((3,)), T((3,)))], method=True),
    OpSpec("bmm", [S(T((2, 2, 3)), T((2, 3, 2)))], method=True),
    OpSpec("outer", [S(T((3,)), T((2,)))], method=True),
    # ------------------------------------------------------------ products
    OpSpec("vdot", [S(T((3,)), T((3,)))], method=True),
    OpSpec("inner", [S(T((3,)), T((3,))), S(T((2, 3)), T((4, 3))), S(T((2,)), T(()))], method=True),
    OpSpec("tensordot", [S(T((2, 3)), T((3, 4)), 1), S(T((2, 3, 4)), T((3, 4, 2))), S(T((2, 3)), T((2, 4)), ([0], [0])),
                         S(T((3, 2)), T((2, 3)), dims=([0, 1], [1, 0])), S(T((2, 1)), T((3, 4)), ([1], [0]))]),
    OpSpec("cross", [S(T((3,)), T((3,)), 0), S(T((2, 3)), T((2, 3)), 1), S(T((3, 2)), T((3, 2)), dim=0),
                     S(T((3, 4)), T((3, 4)))],
           method=True),
    OpSpec("trace", [S(T((3, 3))), S(T((2, 4)))], method=True),
    OpSpec("trace_int", [S(T((3, 3), kind="int", low=-3, high=3))], torch_name="trace",
           call=lambda lib, x: lib.trace(x), grad=False, note="alias of trace"),
    OpSpec("chain_matmul", [S(T((2, 3)), T((3, 4)), T((4, 2))), S(T((2, 2)))]),
    OpSpec("ger", [S(T((2,)), T((3,)))], method=True),
    OpSpec("linalg.cross", [S(T((3,)), T((3,))), S(T((2, 3)), T((1, 3))), S(T((3, 2)), T((3, 2)), dim=0)]),
    OpSpec("linalg.vecdot", [S(T((2, 3)), T((3,))), S(T((3, 2)), T((3, 2)), dim=0)]),
    OpSpec("linalg.matmul", [S(T((2, 3)), T((3, 2)))]),
    OpSpec("linalg.multi_dot", [S([T((2, 3)), T((3, 4))]), S([T((2, 3)), T((3, 4)), T((4, 2))]),
                                S([T((3, 2)), T((2, 4)), T((4, 3)), T((3, 2))]), S([T((3,)), T((3, 4)), T((4,))]),
                                S([T((3,)), T((3,))])]),
]
