"""Specs for the ops of ``retrograd._ops.nn.activation``: softmax/log_softmax, relu/threshold,
leaky_relu, elu/celu, gelu, silu, softplus, mish, hardtanh, hardsigmoid, hardswish, logsigmoid, glu,
shrink, prelu, rrelu."""
from .._spec import OpSpec, S, T


IMG = T((2, 3, 5, 4))


SPECS = [
    OpSpec("softmax", [S(IMG, 1), S(T((4,)), 0), S(T((3, 4)), -1)], method=True),
    OpSpec("log_softmax", [S(IMG, 1), S(T((3, 4)), -1)], method=True),
    OpSpec("nn.functional.relu", [S(T((3, 4)))]),
    OpSpec("nn.functional.threshold", [S(T((3, 4)), 0.1, -2.0)]),
    OpSpec("nn.functional.leaky_relu", [S(T((3, 4)), 0.2)]),
    OpSpec("nn.functional.elu", [S(T((3, 4)), 0.7)]),
    OpSpec("nn.functional.gelu", [S(T((3, 4))), S(T((3, 4)), approximate="tanh")]),
    OpSpec("nn.functional.silu", [S(T((3, 4)))]),
    OpSpec("nn.functional.mish", [S(T((3, 4)))]),
    OpSpec("nn.functional.softplus", [S(T((3, 4)), 2.0, 1.0)]),
    OpSpec("nn.functional.hardtanh", [S(T((3, 4)), -0.5, 0.5)]),
]
