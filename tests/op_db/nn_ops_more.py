"""Specs for the 3-D pooling primitives and conv_transpose3d (``_ops/nn_ops_more.py``)."""
from ._spec import OpSpec, S, T

VOL = T((1, 2, 4, 3, 5))

SPECS = [
    OpSpec("conv_transpose3d", [S(T((1, 2, 2, 3, 2)), T((2, 3, 2, 2, 2)), T((3,)), stride=(2, 1, 1), padding=(0, 1, 0),
                                  output_padding=(1, 0, 0)),
                                S(T((2, 2, 2, 2)), T((2, 1, 2, 1, 2)), groups=2, dilation=2)]),
    OpSpec("nn.functional.avg_pool3d", [S(VOL, 2, 1, 1, True, False), S(VOL, (2, 3, 2), divisor_override=3)]),
    OpSpec("nn.functional.adaptive_avg_pool3d", [S(VOL, (3, 2, 2)), S(VOL, 1)]),
    OpSpec("nn.functional.adaptive_max_pool3d", [S(VOL, (2, 2, 3))]),
]
