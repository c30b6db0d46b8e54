"""Specs for the ops of ``retrograd._ops.nn.conv``: conv1d/2d/3d, conv_transpose*, convolution,
im2col/col2im."""
from .._spec import OpSpec, S, T


IMG = T((2, 3, 5, 4))
SEQ = T((2, 3, 6))


SPECS = [
    # ---- torch.* exports
    OpSpec("conv2d", [S(IMG, T((4, 3, 3, 2)), T((4,)), stride=(2, 1), padding=1),
                      S(T((2, 3, 6, 5)), T((3, 1, 2, 2)), None, 1, 0, 2, 3),
                      S(T((1, 4, 5, 4)), T((4, 2, 3, 3)), padding="same", groups=2)]),
    OpSpec("conv1d", [S(SEQ, T((2, 3, 3)), T((2,)), padding=1, dilation=2), S(T((3, 6)), T((4, 3, 2)), stride=2)]),
    OpSpec("conv3d", [S(T((1, 2, 3, 4, 3)), T((2, 2, 2, 2, 2)), T((2,)), padding=(1, 0, 1))]),
    OpSpec("conv_transpose2d", [S(IMG, T((3, 2, 3, 2)), T((2,)), stride=2, padding=1, output_padding=1),
                                S(T((1, 4, 3, 3)), T((4, 1, 2, 2)), groups=2, dilation=2)]),
    OpSpec("conv_transpose1d", [S(SEQ, T((3, 2, 3)), T((2,)), stride=3, padding=1)]),
    OpSpec("nn.functional.fold", [S(T((2, 8, 6)), (4, 3), 2, 1, 0, 1)]),
]
