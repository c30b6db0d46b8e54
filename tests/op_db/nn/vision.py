"""Specs for the ops of ``retrograd.nn._native`` and ``retrograd.nn._top_level``: grid_sampler*, affine_grid_generator,
pixel_unshuffle, channel_shuffle."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("pixel_unshuffle", [S(T((1, 2, 4, 4)), 2)], check_grad_fn=False),
    OpSpec("channel_shuffle", [S(T((1, 4, 2, 2)), 2)], check_grad_fn=False),
]
