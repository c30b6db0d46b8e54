"""Specs for the neural-network primitives (``_ops/nn_ops.py``) and the nn.functional ops built on them."""
from ._spec import OpSpec, S, T


def _fixed(v):
    return T(kind="fixed", value=v)


IMG = T((2, 3, 5, 4))
SEQ = T((2, 3, 6))
IDX = _fixed([[0, 3], [2, 2]])

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
    OpSpec("max_pool2d", [S(IMG, 2), S(IMG, (3, 2), (2, 1), 1, 1, True)]),
    OpSpec("max_pool1d", [S(SEQ, 3, 2, 1)]),
    OpSpec("max_pool3d", [S(T((1, 2, 4, 3, 4)), 2)]),
    OpSpec("max_pool1d_with_indices", [S(SEQ, 2)]),
    OpSpec("avg_pool1d", [S(SEQ, 3, 2, 1, True, False)]),
    OpSpec("adaptive_avg_pool1d", [S(SEQ, 4)]),
    OpSpec("adaptive_max_pool1d", [S(SEQ, 4)]),
    OpSpec("softmax", [S(IMG, 1), S(T((4,)), 0), S(T((3, 4)), -1)], method=True),
    OpSpec("log_softmax", [S(IMG, 1), S(T((3, 4)), -1)], method=True),
    # padding rows and frequency scaling are not true derivatives (as in PyTorch): the samples avoid
    # the padding index and repeated indices so that gradcheck applies; tests/test_nn_* cover them.
    OpSpec("embedding", [S(T((5, 3)), IDX), S(T((5, 3)), IDX, 1), S(T((5, 3)), _fixed([[0, 3], [2, 4]]), -1, True)]),
    OpSpec("constant_pad_nd", [S(IMG, (1, 2)), S(IMG, (1, -1, 0, 2), 0.5)]),
    # ---- nn.functional ops whose backward is an nn_ops primitive
    OpSpec("nn.functional.avg_pool2d", [S(IMG, 3, 2, 1, True), S(IMG, 2, divisor_override=3)]),
    OpSpec("nn.functional.adaptive_avg_pool2d", [S(IMG, (3, 2)), S(IMG, 1)]),
    OpSpec("nn.functional.adaptive_max_pool2d", [S(IMG, (3, 3))]),
    OpSpec("nn.functional.unfold", [S(IMG, (2, 2), 1, 1, 2)]),
    OpSpec("nn.functional.fold", [S(T((2, 8, 6)), (4, 3), 2, 1, 0, 1)]),
    OpSpec("nn.functional.leaky_relu", [S(T((3, 4)), 0.2)]),
    OpSpec("nn.functional.elu", [S(T((3, 4)), 0.7)]),
    OpSpec("nn.functional.gelu", [S(T((3, 4))), S(T((3, 4)), approximate="tanh")]),
    OpSpec("nn.functional.silu", [S(T((3, 4)))]),
    OpSpec("nn.functional.mish", [S(T((3, 4)))]),
    OpSpec("nn.functional.softplus", [S(T((3, 4)), 2.0, 1.0)]),
    OpSpec("nn.functional.hardtanh", [S(T((3, 4)), -0.5, 0.5)]),
    OpSpec("nn.functional.mse_loss", [S(T((3, 4)), T((3, 4))), S(T((3, 4)), T((4,)), reduction="sum"),
                                      S(T((2, 3)), T((2, 3)), reduction="none")]),
    OpSpec("nn.functional.nll_loss", [S(T((4, 5)), _fixed([1, 0, 4, 2])),
                                      S(T((2, 3, 2, 2)), _fixed([[[0, 1], [2, 0]], [[1, 1], [2, 2]]]),
                                        reduction="sum"),
                                      S(T((5,)), _fixed(3), reduction="none")]),
    OpSpec("nn.functional.cross_entropy", [S(T((4, 5)), _fixed([1, 0, 4, 2])),
                                           S(T((4, 5)), _fixed([1, 0, 4, 2]), ignore_index=0, reduction="none")]),
]
