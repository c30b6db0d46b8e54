"""retrograd.utils: checkpointing, data loading and hook handles, as in ``torch.utils``.

Submodules load on first use (``retrograd.utils.checkpoint``, ``retrograd.utils.data``), so
importing this package costs nothing and core modules can use ``utils.hooks`` freely.
"""
from __future__ import annotations

import importlib

__all__ = ["checkpoint", "data", "hooks"]


def __getattr__(name: str):
    if name in __all__ or name == "_pytree":
        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
