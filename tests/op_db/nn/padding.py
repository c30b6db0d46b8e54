"""Specs for the ops of ``retrograd._ops.nn.padding``: constant_pad_nd, gather_pad
(reflect/replicate/circular)."""
from .._spec import OpSpec, S, T


IMG = T((2, 3, 5, 4))


SPECS = [
    OpSpec("constant_pad_nd", [S(IMG, (1, 2)), S(IMG, (1, -1, 0, 2), 0.5)]),
]
