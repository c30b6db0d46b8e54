"""Specs for the ops of ``retrograd._ops.clamp``: clamp/clip (scalar and tensor bounds),
clamp_min/clamp_max (+ in-place)."""
from ._spec import OpSpec, S, T


SPECS = [
    OpSpec("clamp", [S(T((2, 3)), -0.5, 0.5), S(T((2, 3)), min=0.1), S(T((2, 3)), max=0.3)], method=True,
           inplace="clamp_"),
    OpSpec("clip", [S(T((2, 3)), -0.5, 0.5)], method=True, inplace="clip_"),
]
