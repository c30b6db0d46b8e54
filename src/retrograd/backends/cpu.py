"""``torch.backends.cpu``: what vector instructions the CPU kernels use.

>>> import retrograd as torch
>>> torch.backends.cpu.get_cpu_capability()
'DEFAULT'
"""
from __future__ import annotations

__all__ = ["get_cpu_capability"]


def get_cpu_capability() -> str:
    """NumPy picks its own SIMD paths at run time; retrograd selects none itself."""
    return "DEFAULT"
