"""``torch.utils._python_dispatch``: ``TorchDispatchMode`` (not supported by retrograd).

retrograd's ops are Python functions on NumPy, with no ATen dispatcher underneath, so a
``__torch_dispatch__`` mode has nothing to intercept.  The class exists so that code
defining a mode imports; entering one raises ``NotImplementedError``.

>>> from retrograd.utils._python_dispatch import TorchDispatchMode
>>> class Logger(TorchDispatchMode):
...     def __torch_dispatch__(self, func, types, args=(), kwargs=None):
...         return func(*args, **(kwargs or {}))
>>> try:
...     Logger().__enter__()
... except NotImplementedError as e:
...     print("dispatch" in str(e))
True
"""
from __future__ import annotations

__all__ = ["TorchDispatchMode", "is_in_torch_dispatch_mode", "_get_current_dispatch_mode"]

_MSG = ("retrograd has no ATen dispatcher: __torch_dispatch__ modes (TorchDispatchMode) are not supported")


class TorchDispatchMode:
    """Base class of ``__torch_dispatch__`` modes; usable as a base, not as a context manager."""

    def __init__(self, _dispatch_key=None) -> None:
        self._dispatch_key = _dispatch_key

    def __torch_dispatch__(self, func, types, args=(), kwargs=None):
        raise NotImplementedError(_MSG)

    def __enter__(self):
        raise NotImplementedError(_MSG)

    def __exit__(self, exc_type, exc_val, exc_tb) -> None:
        return None

    @classmethod
    def push(cls, *args, **kwargs):
        raise NotImplementedError(_MSG)


def is_in_torch_dispatch_mode(include_infra_modes: bool = True) -> bool:
    """Always False: no dispatch mode can be active."""
    return False


def _get_current_dispatch_mode():
    return None
