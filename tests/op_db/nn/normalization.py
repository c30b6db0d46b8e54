"""Specs for the ops of ``retrograd._ops.nn.normalization``: layer_norm, group_norm, batch_norm
(train/eval), native_*_norm, rms_norm, norm_except_dim."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("rms_norm", [S(T((2, 3)), [3]), S(T((2, 3)), (2, 3), T((2, 3)), 1e-5)], check_grad_fn=False),
    OpSpec("norm_except_dim", [S(T((2, 3, 4)), 2, 0), S(T((2, 3, 4)), 3, 1), S(T((2, 3, 4)), 2, 2),
                               S(T((2, 3)), 2, -1), S(T((3, 2)))], check_grad_fn=False),
    OpSpec("nn.functional.layer_norm", [S(T((2, 3, 4)), (4,), T((4,)), T((4,))),
                                        S(T((2, 3, 4)), (3, 4)),
                                        S(T((3, 4)), [4], T((4,)), None, 1e-3),
                                        S(T((2, 3, 4)), (3, 4), T((3, 4)), None, 1e-2)]),
    OpSpec("nn.functional.group_norm", [S(T((2, 6, 3, 2)), 3, T((6,)), T((6,))),
                                        S(T((3, 6)), 2),
                                        S(T((2, 4, 5)), 4, T((4,)), None, 1e-3)]),
]
