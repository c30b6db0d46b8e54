"""Padding layers: constant / zero / reflection / replication / circular, in 1, 2 and 3 spatial dims.

>>> import retrograd as torch
>>> torch.nn.ZeroPad1d(1)(torch.ones(1, 1, 2))
tensor([[[0., 1., 1., 0.]]])
"""
from __future__ import annotations

from ..._tensor import Tensor
from .. import functional as F
from .module import Module

__all__ = ["ConstantPad1d", "ConstantPad2d", "ConstantPad3d", "ZeroPad1d", "ZeroPad2d", "ZeroPad3d",
           "ReflectionPad1d", "ReflectionPad2d", "ReflectionPad3d", "ReplicationPad1d", "ReplicationPad2d",
           "ReplicationPad3d", "CircularPad1d", "CircularPad2d", "CircularPad3d"]


def _ntuple(padding, n: int) -> tuple:
    # like torch's _ntuple: an iterable is kept as given, a scalar is repeated
    if isinstance(padding, (list, tuple)):
        return tuple(padding)
    return (padding,) * n


class _PadNd(Module):
    __constants__ = ["padding"]
    _mode = "constant"
    _nd = 1

    def __init__(self, padding) -> None:
        super().__init__()
        self.padding = _ntuple(padding, 2 * self._nd)

    def _check_input_dim(self, input: Tensor) -> None:
        lo = self._nd + 1
        if input.ndim not in (lo, lo + 1):
            raise ValueError(f"expected {lo}D or {lo + 1}D input (got {input.ndim}D input)")

    def forward(self, input: Tensor) -> Tensor:
        if self._mode == "circular":
            self._check_input_dim(input)
        return F.pad(input, self.padding, self._mode)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class _ConstantPadNd(_PadNd):
    __constants__ = ["padding", "value"]

    def __init__(self, padding, value: float) -> None:
        super().__init__(padding)
        self.value = value

    def forward(self, input: Tensor) -> Tensor:
        return F.pad(input, self.padding, "constant", self.value)

    def extra_repr(self) -> str:
        return f"padding={self.padding}, value={self.value}"


class ConstantPad1d(_ConstantPadNd):
    """Pad the last dim with a constant ``value``."""
    _nd = 1


class ConstantPad2d(_ConstantPadNd):
    """Pad the last 2 dims with a constant ``value``."""
    _nd = 2


class ConstantPad3d(_ConstantPadNd):
    """Pad the last 3 dims with a constant ``value``."""
    _nd = 3


class _ZeroPadNd(_ConstantPadNd):
    def __init__(self, padding) -> None:
        super().__init__(padding, 0.0)

    def extra_repr(self) -> str:
        return f"{self.padding}"


class ZeroPad1d(_ZeroPadNd):
    """Pad the last dim with zeros."""
    _nd = 1


class ZeroPad2d(_ZeroPadNd):
    """Pad the last 2 dims with zeros."""
    _nd = 2


class ZeroPad3d(_ZeroPadNd):
    """Pad the last 3 dims with zeros."""
    _nd = 3


class _ReflectionPadNd(_PadNd):
    _mode = "reflect"


class ReflectionPad1d(_ReflectionPadNd):
    """Pad the last dim with its reflection (edge not repeated)."""
    _nd = 1


class ReflectionPad2d(_ReflectionPadNd):
    _nd = 2


class ReflectionPad3d(_ReflectionPadNd):
    _nd = 3


class _ReplicationPadNd(_PadNd):
    _mode = "replicate"


class ReplicationPad1d(_ReplicationPadNd):
    """Pad the last dim by repeating its edge values."""
    _nd = 1


class ReplicationPad2d(_ReplicationPadNd):
    _nd = 2


class ReplicationPad3d(_ReplicationPadNd):
    _nd = 3


class _CircularPadNd(_PadNd):
    _mode = "circular"


class CircularPad1d(_CircularPadNd):
    """Pad the last dim by wrapping around."""
    _nd = 1


class CircularPad2d(_CircularPadNd):
    _nd = 2


class CircularPad3d(_CircularPadNd):
    _nd = 3
