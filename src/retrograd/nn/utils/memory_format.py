"""Convert the weights of (transposed) convolutions to another memory format, e.g. channels_last.

Only the layout (strides) changes; shapes, values and the meaning of each dimension stay.
"""
from __future__ import annotations

from typing import TypeVar

import numpy as np

__all__ = ["convert_conv2d_weight_memory_format", "convert_conv3d_weight_memory_format"]

_M = TypeVar("_M")


def _canonical_strides(shape: tuple, memory_format) -> tuple:
    """The element strides PyTorch's ``resize_(shape, memory_format=...)`` gives (also for size-1 dims)."""
    from ..._layout import channels_last, channels_last_3d

    if memory_format is channels_last or memory_format is channels_last_3d:
        # channels innermost, then the spatial dims from last to first, batch outermost
        order = (1,) + tuple(range(len(shape) - 1, 1, -1)) + (0,)
        strides = [0] * len(shape)
        step = 1
        for d in order:
            strides[d] = step
            step *= shape[d]
        return tuple(strides)
    strides, step = [0] * len(shape), 1
    for d in range(len(shape) - 1, -1, -1):
        strides[d] = step
        step *= max(shape[d], 1)
    return tuple(strides)


def _laid_out(data: np.ndarray, memory_format) -> np.ndarray:
    """A copy of ``data`` with exactly PyTorch's strides for ``memory_format``."""
    strides = _canonical_strides(data.shape, memory_format)
    buf = np.empty(max(data.size, 1), dtype=data.dtype)
    out = np.lib.stride_tricks.as_strided(buf, data.shape, tuple(s * data.itemsize for s in strides))
    out[...] = data
    return out


def _convert(module, memory_format, kinds: tuple) -> None:
    from ..._layout import preserve_format

    if isinstance(module, kinds):
        # PyTorch clones with the format (which checks the rank), then resize_()s to it: that
        # refuses preserve_format and gives canonical strides even where a dim has size 1
        weight = module.weight.detach().clone(memory_format=memory_format)
        if memory_format is preserve_format:
            raise RuntimeError("Unsupported memory formatPreserve")
        weight._data = _laid_out(weight._data, memory_format)
        module.weight.data = weight
    for child in module.children():
        _convert(child, memory_format, kinds)


def convert_conv2d_weight_memory_format(module: _M, memory_format) -> _M:
    """Lay out every ``Conv2d`` / ``ConvTranspose2d`` weight in ``module`` (recursively) as ``memory_format``.

    Returns ``module`` itself.

    >>> import retrograd as torch
    >>> m = torch.nn.Sequential(torch.nn.Conv2d(3, 4, 3), torch.nn.ReLU())
    >>> m = torch.nn.utils.convert_conv2d_weight_memory_format(m, torch.channels_last)
    >>> m[0].weight.stride()
    (27, 1, 9, 3)
    """
    from ..modules.conv import Conv2d, ConvTranspose2d

    _convert(module, memory_format, (Conv2d, ConvTranspose2d))
    return module


def convert_conv3d_weight_memory_format(module: _M, memory_format) -> _M:
    """Lay out every ``Conv3d`` / ``ConvTranspose3d`` weight in ``module`` (recursively) as ``memory_format``.

    >>> import retrograd as torch
    >>> m = torch.nn.utils.convert_conv3d_weight_memory_format(torch.nn.Conv3d(2, 4, 3), torch.channels_last_3d)
    >>> m.weight.stride()
    (54, 1, 18, 6, 2)
    """
    from ..modules.conv import Conv3d, ConvTranspose3d

    _convert(module, memory_format, (Conv3d, ConvTranspose3d))
    return module
