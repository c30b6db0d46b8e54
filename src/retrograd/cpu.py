"""``torch.cpu``: the device-agnostic CPU namespace (streams and events are no-ops).

Code written for several backends calls ``getattr(torch, device_type).synchronize()`` or
``torch.cpu.amp.autocast()``; on retrograd the CPU is the only device, always available.
``torch.cpu.amp.autocast`` / ``GradScaler`` are PyTorch's deprecated spellings of
``torch.amp.autocast("cpu", ...)`` / ``torch.amp.GradScaler("cpu", ...)`` and warn as PyTorch does.

>>> import retrograd as torch
>>> torch.cpu.is_available(), torch.cpu.device_count(), torch.cpu.current_device()
(True, 1, 'cpu')
"""
from __future__ import annotations

import importlib.machinery
import os
import platform
import sys
import types
import warnings
from contextlib import AbstractContextManager
from types import MappingProxyType
from typing import Any, Mapping

from . import _dtype as D
from . import amp as _amp

__all__ = ["is_available", "synchronize", "current_device", "current_stream", "stream", "set_device",
           "device_count", "is_initialized", "Stream", "StreamContext", "Event", "get_capabilities"]


def is_available() -> bool:
    """True: the CPU is always there.

    >>> import retrograd as torch
    >>> torch.cpu.is_available()
    True
    """
    return True


def synchronize(device: Any = None) -> None:
    """Wait for the CPU's work: a no-op (every op has finished when it returns).

    >>> import retrograd as torch
    >>> torch.cpu.synchronize()
    """


def device_count() -> int:
    """The number of CPU devices (not cores): always 1.

    >>> import retrograd as torch
    >>> torch.cpu.device_count()
    1
    """
    return 1


def current_device() -> str:
    """The current CPU device: always ``'cpu'``.

    >>> import retrograd as torch
    >>> torch.cpu.current_device()
    'cpu'
    """
    return "cpu"


def set_device(device: Any) -> None:
    """Select a CPU device: a no-op (there is one).

    >>> import retrograd as torch
    >>> torch.cpu.set_device("cpu")
    """


def is_initialized() -> bool:
    """True: the CPU needs no initialisation.

    >>> import retrograd as torch
    >>> torch.cpu.is_initialized()
    True
    """
    return True


def get_capabilities() -> Mapping[str, Any]:
    """A read-only mapping of what is known about this CPU (architecture and core count only:
    retrograd does not probe instruction sets, NumPy picks its own kernels).

    >>> import retrograd as torch
    >>> "architecture" in torch.cpu.get_capabilities()
    True
    """
    return MappingProxyType({"architecture": platform.machine(), "num_logical_cores": os.cpu_count() or 1})


class Stream:
    """A CPU stream: exists for device-agnostic code; every method is a no-op.

    >>> import retrograd as torch
    >>> torch.cpu.Stream().wait_stream(torch.cpu.current_stream())
    """

    def __init__(self, priority: int = -1) -> None:
        pass

    def wait_stream(self, stream: "Stream") -> None:
        pass

    def record_event(self) -> None:
        pass

    def wait_event(self, event: "Event") -> None:
        pass


class Event:
    """A CPU event: always complete.

    >>> import retrograd as torch
    >>> torch.cpu.Event().query()
    True
    """

    def query(self) -> bool:
        return True

    def record(self, stream: Stream | None = None) -> None:
        pass

    def synchronize(self) -> None:
        pass

    def wait(self, stream: Stream | None = None) -> None:
        pass


_default_stream = Stream()
_current = [_default_stream]


def current_stream(device: Any = None) -> Stream:
    """The stream selected by the innermost ``torch.cpu.stream(...)`` block (else the default one).

    >>> import retrograd as torch
    >>> isinstance(torch.cpu.current_stream(), torch.cpu.Stream)
    True
    """
    return _current[0]


class StreamContext(AbstractContextManager):
    """Make ``stream`` the current CPU stream inside a ``with`` block (``None``: leave it).

    >>> import retrograd as torch
    >>> s = torch.cpu.Stream()
    >>> with torch.cpu.StreamContext(s):
    ...     torch.cpu.current_stream() is s
    True
    """

    def __init__(self, stream: Stream | None) -> None:
        self.stream = stream
        self.prev_stream = _default_stream

    def __enter__(self) -> None:
        if self.stream is not None:
            self.prev_stream, _current[0] = _current[0], self.stream

    def __exit__(self, *exc: Any) -> None:
        if self.stream is not None:
            _current[0] = self.prev_stream


def stream(stream: Stream | None) -> AbstractContextManager:
    """``with torch.cpu.stream(s):`` -- see ``StreamContext``.

    >>> import retrograd as torch
    >>> with torch.cpu.stream(None):
    ...     pass
    """
    return StreamContext(stream)


# ---------------------------------------------------------------- torch.cpu.amp (deprecated aliases)
class _CpuAutocast(_amp.autocast):
    """``torch.cpu.amp.autocast``: deprecated spelling of ``torch.amp.autocast("cpu", ...)``.

    >>> import warnings
    >>> import retrograd as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     with torch.cpu.amp.autocast(enabled=False):
    ...         torch.is_autocast_enabled("cpu")
    False
    """

    def __init__(self, enabled: bool = True, dtype: D.dtype = D.bfloat16, cache_enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.autocast(args...)` is deprecated. Please use "
                      "`torch.amp.autocast('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", dtype=dtype, enabled=enabled, cache_enabled=cache_enabled)


class _CpuGradScaler(_amp.GradScaler):
    """``torch.cpu.amp.GradScaler``: deprecated spelling of ``torch.amp.GradScaler("cpu", ...)``.

    >>> import warnings
    >>> import retrograd as torch
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     torch.cpu.amp.GradScaler().get_scale()
    65536.0
    """

    def __init__(self, init_scale: float = 2.0 ** 16, growth_factor: float = 2.0, backoff_factor: float = 0.5,
                 growth_interval: int = 2000, enabled: bool = True) -> None:
        warnings.warn("`torch.cpu.amp.GradScaler(args...)` is deprecated. Please use "
                      "`torch.amp.GradScaler('cpu', args...)` instead.", FutureWarning, stacklevel=2)
        super().__init__("cpu", init_scale, growth_factor, backoff_factor, growth_interval, enabled)


_CpuAutocast.__name__ = _CpuAutocast.__qualname__ = "autocast"
_CpuGradScaler.__name__ = _CpuGradScaler.__qualname__ = "GradScaler"


def _make_amp_module() -> types.ModuleType:
    # A real module registered under its dotted name, so ``from torch.cpu.amp import autocast``
    # and ``import torch.cpu.amp`` work (with a spec: importlib.util.find_spec reads it).
    name = __name__ + ".amp"
    mod = types.ModuleType(name, "torch.cpu.amp: deprecated CPU spellings of torch.amp's autocast / GradScaler.")
    mod.__spec__ = importlib.machinery.ModuleSpec(name, None)
    mod.autocast, mod.GradScaler = _CpuAutocast, _CpuGradScaler
    mod.__all__ = ["autocast", "GradScaler"]
    _CpuAutocast.__module__ = _CpuGradScaler.__module__ = name
    sys.modules[name] = mod
    return mod


amp = _make_amp_module()
# An (empty) search path makes this module a package to the import system: without it,
# ``import torch.cpu.amp`` under register_as_torch() fails before any finder is asked.
__path__: list = []
