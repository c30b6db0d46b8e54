"""``torch.utils.flop_counter``: ``FlopCounterMode`` (not supported by retrograd).

PyTorch counts FLOPs by intercepting ATen calls through ``__torch_dispatch__``; retrograd has
no dispatcher (see :mod:`retrograd.utils._python_dispatch`), so entering the mode raises
``NotImplementedError``.  The class exists so that code importing it loads.

>>> from retrograd.utils.flop_counter import FlopCounterMode
>>> try:
...     FlopCounterMode(display=False).__enter__()
... except NotImplementedError:
...     print("unsupported")
unsupported
"""
from __future__ import annotations

__all__ = ["FlopCounterMode"]


class FlopCounterMode:
    """Counts FLOPs of the ops run inside it in PyTorch; unsupported here (raises on entry)."""

    def __init__(self, mods=None, depth: int = 2, display: bool = True, custom_mapping=None) -> None:
        self.depth = depth
        self.display = display

    def __enter__(self):
        raise NotImplementedError(
            "FlopCounterMode needs __torch_dispatch__, which retrograd (no ATen dispatcher) does not have")

    def __exit__(self, *args) -> None:
        return None

    def get_total_flops(self) -> int:
        raise NotImplementedError("FlopCounterMode is not supported by retrograd")
