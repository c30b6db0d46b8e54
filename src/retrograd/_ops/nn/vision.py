"""Grid_sampler*, affine_grid_generator, pixel_unshuffle, channel_shuffle."""
from __future__ import annotations

from ..._tensor import Tensor
from ..copies import _F

__all__ = ["pixel_unshuffle", "channel_shuffle"]


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``torch.pixel_unshuffle``.

    >>> import retrograd as torch
    >>> torch.pixel_unshuffle(torch.zeros(1, 1, 4, 4), 2).shape
    torch.Size([1, 4, 2, 2])
    """
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.channel_shuffle``.

    >>> import retrograd as torch
    >>> torch.channel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return _F().channel_shuffle(input, groups)
