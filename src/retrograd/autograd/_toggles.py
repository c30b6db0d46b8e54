"""Small global autograd switches and helpers with PyTorch's names.

``_force_original_view_tracking`` / ``is_view_replay_enabled`` and
``set_multithreading_enabled`` / ``is_multithreading_enabled`` take effect when called and
also work as context managers or decorators (restoring the previous value on exit), like
``set_grad_enabled``.  retrograd's engine is single-threaded, so the multithreading flag is
recorded (some engine queries require it off, as in PyTorch) but changes nothing else.

>>> import retrograd as torch
>>> with torch.autograd._force_original_view_tracking(True):
...     torch.autograd.is_view_replay_enabled()
True
>>> torch.autograd.is_view_replay_enabled()
False
"""
from __future__ import annotations

import contextlib
from typing import Iterator

from .grad_mode import _DecoratorContextManager

__all__ = ["_force_original_view_tracking", "is_view_replay_enabled", "set_multithreading_enabled",
           "is_multithreading_enabled", "_unsafe_preserve_version_counter", "_calculate_shape",
           "kineto_available", "_profiler_enabled"]

_flags = {"view_replay": False, "multithreading": True}


class _FlagMode(_DecoratorContextManager):
    """Set one flag now; ``with``/decorator use restores the previous value afterwards."""

    _key = ""

    def __init__(self, mode: bool) -> None:
        self.prev = _flags[self._key]
        self.mode = bool(mode)
        _flags[self._key] = self.mode

    def __enter__(self) -> None:
        _flags[self._key] = self.mode

    def __exit__(self, *exc) -> None:
        _flags[self._key] = self.prev

    def __call__(self, func):
        _flags[self._key] = self.prev  # as a decorator the mode applies inside calls only
        return super().__call__(func)

    def clone(self):
        return self.__class__(self.mode)


class _force_original_view_tracking(_FlagMode):
    """Record views so that they can be replayed (``ViewBackward0``) instead of as_strided."""

    _key = "view_replay"


class set_multithreading_enabled(_FlagMode):
    """Whether the engine may run backward on worker threads (retrograd's never does)."""

    _key = "multithreading"


def is_view_replay_enabled() -> bool:
    """Whether ``_force_original_view_tracking`` is on."""
    return _flags["view_replay"]


def is_multithreading_enabled() -> bool:
    """The value last set by ``set_multithreading_enabled`` (default True)."""
    return _flags["multithreading"]


@contextlib.contextmanager
def _unsafe_preserve_version_counter(tensor) -> Iterator[None]:
    """Run the block, then put the version counter(s) of ``tensor`` (one or a tuple) back."""
    tensors = tuple(tensor) if isinstance(tensor, (tuple, list)) else (tensor,)
    prev = tuple(t._version for t in tensors)
    try:
        yield
    finally:
        _unsafe_set_version_counter(tensors, prev)


def _unsafe_set_version_counter(tensors, versions) -> None:
    """Overwrite the version counters of ``tensors`` (what ``torch._C._autograd`` exposes)."""
    for t, v in zip(tensors, versions):
        if v < 0:
            raise RuntimeError(f"Cannot set a version_counter to a value below 0: {v}")
        t._vcounter()[0] = v


def _calculate_shape(output, grad, is_grads_batched: bool) -> tuple:
    """(output shape, grad shape) as compared by backward/grad (batched: grad's first dim dropped)."""
    from .._size import Size

    out_shape = Size(output.shape)
    grad_shape = Size(grad.shape[1:]) if is_grads_batched else Size(grad.shape)
    return out_shape, grad_shape


def kineto_available() -> bool:
    """False: retrograd's profiler is its own (no Kineto library)."""
    return False


def _profiler_enabled() -> bool:
    """Whether a ``torch.autograd.profiler.profile`` is recording now."""
    from .profiler import _state

    return _state.on
