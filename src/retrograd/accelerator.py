"""``torch.accelerator``: the device-agnostic accelerator API.  retrograd runs on the CPU only,
so there is no accelerator: the queries say so, and what needs a device raises torch's error.

>>> import retrograd as torch
>>> torch.accelerator.is_available(), torch.accelerator.device_count(), torch.accelerator.current_accelerator()
(False, 0, None)
"""
from __future__ import annotations

__all__ = ["current_accelerator", "current_device_idx", "current_device_index", "current_stream", "device_count",
           "device_index", "empty_cache", "empty_host_cache", "get_device_capability", "get_memory_info",
           "is_available", "max_memory_allocated", "max_memory_reserved", "memory_allocated", "memory_reserved",
           "memory_stats", "reset_accumulated_memory_stats", "reset_peak_memory_stats", "set_device_idx",
           "set_device_index", "set_stream", "synchronize"]

_NONE = "Cannot access accelerator device when none is available."


def is_available() -> bool:
    """False: retrograd has no accelerator."""
    return False


def device_count() -> int:
    """0: retrograd has no accelerator."""
    return 0


def current_accelerator(check_available: bool = False):
    """None: there is no accelerator (torch returns its device type when there is one)."""
    return None


def _needs_device(name: str, *params: str):
    def f(*args, **kwargs):
        if len(args) + len(kwargs) < len(params):  # (a missing argument first, as Python would say)
            missing = params[len(args) + len(kwargs)]
            raise TypeError(f"{name}() missing 1 required positional argument: '{missing}'")
        raise RuntimeError(_NONE)
    f.__name__ = f.__qualname__ = name
    f.__doc__ = f"Raises torch's RuntimeError: there is no accelerator to {name.replace('_', ' ')}."
    return f


current_device_index = current_device_idx = _needs_device("current_device_index")
current_stream = _needs_device("current_stream")
synchronize = _needs_device("synchronize")
set_device_index = set_device_idx = _needs_device("set_device_index", "device")
set_stream = _needs_device("set_stream", "stream")
get_device_capability = _needs_device("get_device_capability")
get_memory_info = _needs_device("get_memory_info")
empty_cache = _needs_device("empty_cache")
empty_host_cache = _needs_device("empty_host_cache")
memory_allocated = _needs_device("memory_allocated")
max_memory_allocated = _needs_device("max_memory_allocated")
memory_reserved = _needs_device("memory_reserved")
max_memory_reserved = _needs_device("max_memory_reserved")
memory_stats = _needs_device("memory_stats")
reset_accumulated_memory_stats = _needs_device("reset_accumulated_memory_stats")
reset_peak_memory_stats = _needs_device("reset_peak_memory_stats")


class device_index:
    """``with torch.accelerator.device_index(i):`` -- entering it raises (there is no device); ``None``
    is accepted and does nothing, as in torch."""

    def __init__(self, device) -> None:
        self.idx = device

    def __enter__(self):
        if self.idx is not None:
            raise RuntimeError(_NONE)
        return self

    def __exit__(self, *exc) -> None:
        return None
