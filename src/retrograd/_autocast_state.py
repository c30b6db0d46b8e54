"""torch's top-level autocast state functions (``set_autocast_enabled``, ``set_autocast_dtype``,
the deprecated per-device spellings ``is_autocast_cpu_enabled`` ..., the cache flag and the
nesting counter).  They read and write the same state as ``torch.autocast`` regions
(``retrograd.amp``), so a region and these functions agree.

>>> import retrograd as torch
>>> torch.set_autocast_enabled("cpu", True); torch.is_autocast_enabled("cpu")
True
>>> torch.set_autocast_enabled("cpu", False)
"""
from __future__ import annotations

import builtins
import warnings

from . import _dtype as D
from . import amp

__all__ = ["set_autocast_enabled", "set_autocast_dtype", "is_autocast_cache_enabled", "set_autocast_cache_enabled",
           "clear_autocast_cache", "autocast_increment_nesting", "autocast_decrement_nesting"]

_nesting = [0]


def _check_device(device_type: str) -> None:
    if device_type.split(":")[0] not in amp._DEVICE_TYPES.split(", "):
        raise RuntimeError(f"Expected one of {amp._DEVICE_TYPES} device type at start of device string: "
                           f"{device_type}")


def _check_bool(fn: str, enabled, pos: int) -> None:
    if not isinstance(enabled, builtins.bool):
        raise TypeError(f"{fn}(): argument 'enabled' (position {pos}) must be bool, not {type(enabled).__name__}")


def set_autocast_enabled(device_type, enabled=None) -> None:
    """Turn autocast on or off for ``device_type`` (``set_autocast_enabled(enabled)``: CUDA).

    >>> import retrograd as torch
    >>> torch.set_autocast_enabled("cpu", False)
    """
    if enabled is None:  # (the one-argument legacy form addresses CUDA)
        _check_bool("set_autocast_enabled", device_type, 1)
        device_type, enabled = "cuda", device_type
    else:
        _check_bool("set_autocast_enabled", enabled, 2)
        _check_device(device_type)
    amp._enabled[device_type] = enabled


def set_autocast_dtype(device_type: str, dtype) -> None:
    """The dtype autocast regions on ``device_type`` compute in (read by ``get_autocast_dtype``).

    >>> import retrograd as torch
    >>> torch.set_autocast_dtype("cpu", torch.bfloat16); torch.get_autocast_dtype("cpu")
    torch.bfloat16
    """
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"set_autocast_dtype(): argument 'dtype' (position 2) must be torch.dtype, not "
                        f"{type(dtype).__name__}")
    _check_device(device_type)
    amp._dtypes[device_type] = dtype


def is_autocast_cache_enabled() -> bool:
    """Whether autocast's weight-cast cache is on (a flag only: retrograd casts nothing).

    >>> import retrograd as torch
    >>> torch.is_autocast_cache_enabled()
    True
    """
    return amp._cache[0]


def set_autocast_cache_enabled(enabled: bool) -> None:
    """Set the flag ``is_autocast_cache_enabled`` reports.

    >>> import retrograd as torch
    >>> torch.set_autocast_cache_enabled(True)
    """
    _check_bool("set_autocast_cache_enabled", enabled, 1)
    amp._cache[0] = enabled


def clear_autocast_cache() -> None:
    """Nothing to clear (no cast cache exists here).

    >>> import retrograd as torch
    >>> torch.clear_autocast_cache()
    """


def autocast_increment_nesting() -> int:
    """Bump the autocast nesting counter; returns the new depth.

    >>> import retrograd as torch
    >>> torch.autocast_increment_nesting(), torch.autocast_decrement_nesting()
    (1, 0)
    """
    _nesting[0] += 1
    return _nesting[0]


def autocast_decrement_nesting() -> int:
    """Lower the autocast nesting counter; returns the new depth (torch lets it go negative)."""
    _nesting[0] -= 1
    return _nesting[0]


# ---------------------------------------------------------------- deprecated per-device spellings
def _deprecated(old: str, new: str) -> None:
    warnings.warn(f"torch.{old} is deprecated. Please use torch.{new} instead.", DeprecationWarning, stacklevel=3)


def _legacy(device: str, public: str):
    def is_enabled() -> bool:
        _deprecated(f"is_autocast_{public}_enabled()", f"is_autocast_enabled('{device}')")
        return amp._enabled.get(device, False)

    def set_enabled(enabled: bool) -> None:
        if not isinstance(enabled, builtins.bool):
            raise TypeError(f"enabled must be a bool (got {type(enabled).__name__})")
        _deprecated(f"set_autocast_{public}_enabled(enabled)", f"set_autocast_enabled('{device}', enabled)")
        amp._enabled[device] = enabled

    def get_dtype():
        _deprecated(f"get_autocast_{public}_dtype()", f"get_autocast_dtype('{device}')")
        return amp.get_autocast_dtype(device)

    def set_dtype(dtype) -> None:
        _deprecated(f"set_autocast_{public}_dtype(dtype)", f"set_autocast_dtype('{device}', dtype)")
        set_autocast_dtype(device, dtype)

    made = {f"is_autocast_{public}_enabled": is_enabled, f"set_autocast_{public}_enabled": set_enabled,
            f"get_autocast_{public}_dtype": get_dtype, f"set_autocast_{public}_dtype": set_dtype}
    for name, fn in made.items():
        fn.__name__ = fn.__qualname__ = name
        fn.__doc__ = f"Deprecated: torch.{name} (device '{device}'), with torch's DeprecationWarning."
    return made


for _dev, _pub in (("cpu", "cpu"), ("cuda", "gpu"), ("ipu", "ipu"), ("xla", "xla")):
    for _name, _fn in _legacy(_dev, _pub).items():
        if _name in ("is_autocast_gpu_enabled", "set_autocast_gpu_enabled"):
            continue  # (torch has no gpu spellings of these two)
        globals()[_name] = _fn
        __all__.append(_name)
del _dev, _pub, _name, _fn
