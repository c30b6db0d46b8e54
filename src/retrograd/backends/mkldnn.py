"""``torch.backends.mkldnn``: oneDNN is not used by retrograd.

>>> import retrograd as torch
>>> torch.backends.mkldnn.is_available()
False
"""
from __future__ import annotations

__all__ = ["is_available", "enabled"]

enabled = False


def is_available() -> bool:
    return False
