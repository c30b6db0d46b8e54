"""``torch.backends.quantized``: the quantized engine setting (retrograd has no quantized kernels).

The engine can be chosen among ``supported_engines`` and read back, as in PyTorch; retrograd
has no quantized tensors, so the choice changes nothing.

>>> import retrograd as torch
>>> torch.backends.quantized.engine in torch.backends.quantized.supported_engines
True
"""
from __future__ import annotations

import sys
import types

__all__ = ["supported_engines"]

supported_engines = ["none"]


class _QuantizedModule(types.ModuleType):
    """Gives the module a checked ``engine`` property (an unknown name raises, as torch's)."""

    @property
    def engine(self) -> str:
        return self._engine

    @engine.setter
    def engine(self, value: str) -> None:
        if value not in supported_engines:
            raise RuntimeError(f"quantized engine {value} is not supported")
        self._engine = value


_engine = "none"
sys.modules[__name__].__class__ = _QuantizedModule
