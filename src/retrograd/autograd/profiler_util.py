"""``torch.autograd.profiler_util``: the profiler's event classes and time formatting.

They live in :mod:`retrograd.autograd.profiler`; this module gives them PyTorch's import path.

>>> from retrograd.autograd.profiler_util import _format_time
>>> _format_time(1500.0)
'1.500ms'
"""
from __future__ import annotations

from .profiler import EventList, FunctionEvent, FunctionEventAvg, _format_time  # noqa: F401

__all__ = ["EventList", "FunctionEvent", "FunctionEventAvg"]
