"""Specs for the ops of ``retrograd._ops.nn.adaptive_pooling``: adaptive avg/max pooling, fractional
max pooling."""
from .._spec import OpSpec, S, T


IMG = T((2, 3, 5, 4))
SEQ = T((2, 3, 6))
VOL = T((1, 2, 4, 3, 5))


SPECS = [
    OpSpec("adaptive_avg_pool1d", [S(SEQ, 4)]),
    OpSpec("adaptive_max_pool1d", [S(SEQ, 4)]),
    OpSpec("nn.functional.adaptive_avg_pool2d", [S(IMG, (3, 2)), S(IMG, 1)]),
    OpSpec("nn.functional.adaptive_max_pool2d", [S(IMG, (3, 3))]),
    OpSpec("conv_transpose3d", [S(T((1, 2, 2, 3, 2)), T((2, 3, 2, 2, 2)), T((3,)), stride=(2, 1, 1), padding=(0, 1, 0),
                                  output_padding=(1, 0, 0)),
                                S(T((2, 2, 2, 2)), T((2, 1, 2, 1, 2)), groups=2, dilation=2)]),
    OpSpec("nn.functional.adaptive_avg_pool3d", [S(VOL, (3, 2, 2)), S(VOL, 1)]),
    OpSpec("nn.functional.adaptive_max_pool3d", [S(VOL, (2, 2, 3))]),
]
