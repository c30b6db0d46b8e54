"""``torch.backends.cudnn`` without cuDNN: its switches can be set and read back.

>>> import retrograd as torch
>>> torch.backends.cudnn.is_available()
False
"""
from __future__ import annotations

import contextlib
import sys

__all__ = ["is_available", "version", "flags", "deterministic", "benchmark", "enabled", "allow_tf32"]

deterministic = False
benchmark = False
enabled = True
allow_tf32 = True


def is_available() -> bool:
    return False


def version():
    return None


@contextlib.contextmanager
def flags(enabled: bool = False, benchmark: bool = False, benchmark_limit: int = 10,
          deterministic: bool = False, allow_tf32: bool = True, **kwargs):
    """Set the cuDNN switches for a block (no cuDNN here, so they only read back), then restore them."""
    mod = sys.modules[__name__]
    names = ("enabled", "benchmark", "deterministic", "allow_tf32")
    old = {n: getattr(mod, n) for n in names}
    for n, v in zip(names, (enabled, benchmark, deterministic, allow_tf32)):
        setattr(mod, n, v)
    try:
        yield
    finally:
        for n, v in old.items():
            setattr(mod, n, v)
