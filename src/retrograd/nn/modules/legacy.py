"""Layers kept for old code: ``Container`` (deprecated) and ``CrossMapLRN2d`` (Lua Torch's LRN).

>>> import retrograd as torch
>>> torch.nn.CrossMapLRN2d(3)
CrossMapLRN2d(3, alpha=0.0001, beta=0.75, k=1)
"""
from __future__ import annotations

import warnings

import numpy as np

from ... import _ops as O
from ..._tensor import Tensor
from .module import Module

__all__ = ["Container", "CrossMapLRN2d"]


class Container(Module):
    """Deprecated: a Module whose children are given as keyword arguments (subclass Module instead).

    >>> import warnings; warnings.simplefilter("ignore", FutureWarning)
    >>> import retrograd as torch
    >>> torch.nn.Container(fc=torch.nn.Linear(2, 1))
    Container(
      (fc): Linear(in_features=2, out_features=1, bias=True)
    )
    """

    def __init__(self, **kwargs: Module) -> None:
        super().__init__()
        warnings.warn("`nn.Container` is deprecated. All of its functionality is now implemented in `nn.Module`. "
                      "Subclass that instead.", FutureWarning, stacklevel=2)
        for key, value in kwargs.items():
            self.add_module(key, value)


def _lrn_windows(channels: int, size: int) -> tuple[np.ndarray, np.ndarray]:
    """0/1 matrices (out channel d, in channel c) of the squares each channel's scale sums.

    ``forward`` is the window PyTorch's CrossMapLRN2d computes with its running sum (which,
    by how it slides, never drops channel 0); ``backward`` is the window its hand-written
    backward uses.  They differ, so the module uses the first for values and the second for
    gradients, which gives PyTorch's numbers for both.
    """
    pre_pad = int((size - 1) / 2 + 1)
    fwd = np.zeros((channels, channels))
    fwd[0, :min(pre_pad, channels)] = 1
    for c in range(1, channels):
        fwd[c] = fwd[c - 1]
        if c < channels - pre_pad + 1:
            fwd[c, c + pre_pad - 1] += 1
        if c > pre_pad:
            fwd[c, c - pre_pad] -= 1
    inverse_pre_pad = int(size - (size - 1) / 2)
    d = np.arange(channels)[:, None]
    c = np.arange(channels)[None, :]
    bwd = ((d >= c - inverse_pre_pad) & (d <= c + size - 1 - inverse_pre_pad)).astype(float)
    return fwd, bwd


class CrossMapLRN2d(Module):
    """Local response normalisation across channels of (N, C, H, W), Lua Torch's formula.

    ``out = x * (k + alpha / size * sum_window(x^2)) ** -beta``.  It differs slightly from
    :class:`LocalResponseNorm` (which pads the window symmetrically).

    >>> import retrograd as torch
    >>> torch.nn.CrossMapLRN2d(3)(torch.ones(1, 4, 2, 2)).shape
    torch.Size([1, 4, 2, 2])
    """

    def __init__(self, size: int, alpha: float = 1e-4, beta: float = 0.75, k: float = 1) -> None:
        super().__init__()
        self.size = size
        self.alpha = alpha
        self.beta = beta
        self.k = k

    def forward(self, input: Tensor) -> Tensor:
        if input.dim() != 4:
            raise ValueError(f"CrossMapLRN2d: Expected input to be 4D, got {input.dim()}D instead.")
        fwd, bwd = _lrn_windows(input.size(1), self.size)
        square = input * input

        def scale(window: np.ndarray) -> Tensor:
            w = Tensor._wrap(window.astype(input._data.dtype), False, None, 0)
            return O.einsum("dc,nchw->ndhw", w, square) * (self.alpha / self.size) + self.k

        backward_scale = scale(bwd)
        # forward's values, backward's gradient (see _lrn_windows)
        s = backward_scale + (scale(fwd) - backward_scale).detach()
        return input * s.pow(-self.beta)

    def extra_repr(self) -> str:
        return "{size}, alpha={alpha}, beta={beta}, k={k}".format(**self.__dict__)
