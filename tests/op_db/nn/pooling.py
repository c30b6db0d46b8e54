"""Specs for the ops of ``retrograd._ops.nn.pooling``: max/avg pooling 1d/2d/3d."""
from .._spec import OpSpec, S, T


IMG = T((2, 3, 5, 4))
SEQ = T((2, 3, 6))
VOL = T((1, 2, 4, 3, 5))


SPECS = [
    OpSpec("max_pool2d", [S(IMG, 2), S(IMG, (3, 2), (2, 1), 1, 1, True)]),
    OpSpec("max_pool1d", [S(SEQ, 3, 2, 1)]),
    OpSpec("max_pool3d", [S(T((1, 2, 4, 3, 4)), 2)]),
    OpSpec("max_pool1d_with_indices", [S(SEQ, 2)]),
    OpSpec("avg_pool1d", [S(SEQ, 3, 2, 1, True, False)]),
    # ---- nn.functional ops whose backward is an _ops/nn primitive
    OpSpec("nn.functional.avg_pool2d", [S(IMG, 3, 2, 1, True), S(IMG, 2, divisor_override=3)]),
    OpSpec("nn.functional.avg_pool3d", [S(VOL, 2, 1, 1, True, False), S(VOL, (2, 3, 2), divisor_override=3)]),
]
