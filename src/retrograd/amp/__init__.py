"""``torch.amp``: automatic mixed precision, as far as a NumPy CPU library can follow it.

``autocast("cuda")`` is disabled with PyTorch's warning (there is no CUDA here), exactly as
torch's CPU build does.  ``autocast("cpu")`` is accepted so training code runs unchanged,
but computes in the tensors' own precision (NumPy has no bfloat16 arithmetic), and says so
once with a UserWarning.  ``enabled=False`` is a plain no-op, as in torch.

>>> import retrograd as torch
>>> with torch.autocast("cpu", enabled=False):
...     torch.is_autocast_enabled()
False
"""
from __future__ import annotations

import functools
import warnings


__all__ = ["autocast", "is_autocast_available", "is_autocast_enabled"]

_DEVICE_TYPES = ("cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, xla, lazy, vulkan, "
                 "mps, meta, hpu, mtia, privateuseone")
_enabled: dict = {}  # device type -> whether an autocast region is active (per process, like the dtype)
_warned_cpu = [False]


def is_autocast_available(device_type: str) -> bool:
    """Whether autocast can run on ``device_type`` here (the CPU only)."""
    return device_type == "cpu"


class autocast:
    """Context manager / decorator for mixed-precision regions (see the module docstring)."""

    def __init__(self, device_type: str, dtype=None, enabled: bool = True, cache_enabled: bool | None = None) -> None:
        if not isinstance(device_type, str):
            raise ValueError(f"Expected `device_type` of type `str`, got: `{type(device_type)}`")
        if device_type.split(":")[0] not in _DEVICE_TYPES.split(", "):
            raise RuntimeError(f"Expected one of {_DEVICE_TYPES} device type at start of device string: "
                               f"{device_type}")
        self.device = device_type
        self.fast_dtype = dtype
        self._enabled = enabled
        if enabled and device_type != "cpu":
            warnings.warn("CUDA is not available or torch_xla is imported. Disabling autocast.", UserWarning,
                          stacklevel=2)
            self._enabled = False
        elif enabled and not _warned_cpu[0]:
            _warned_cpu[0] = True
            warnings.warn("retrograd: autocast('cpu') computes in the tensors' own precision (no bfloat16/float16 "
                          "arithmetic on NumPy)", UserWarning, stacklevel=2)

    def __enter__(self):
        self._prev = _enabled.get(self.device, False)
        _enabled[self.device] = self._enabled
        return self

    def __exit__(self, *exc) -> None:
        _enabled[self.device] = self._prev

    def __call__(self, func):
        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with autocast(self.device, self.fast_dtype, self._enabled):
                return func(*args, **kwargs)
        return wrapper


def is_autocast_enabled(device_type: str | None = None) -> bool:
    """Whether an enabled autocast region for ``device_type`` (default: CUDA) is active."""
    return _enabled.get(device_type or "cuda", False)

