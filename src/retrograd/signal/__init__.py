"""``torch.signal``: signal-processing helpers (the window functions of ``torch.signal.windows``).

>>> import retrograd as torch
>>> torch.signal.windows.hann(3)
tensor([0., 1., 0.])
"""
from . import windows  # noqa: F401

__all__ = ["windows"]
