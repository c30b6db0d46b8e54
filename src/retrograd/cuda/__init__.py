"""``torch.cuda`` of a build without CUDA: queries answer "none", device calls raise as torch's do.

PyTorch built without CUDA still has the whole ``torch.cuda`` namespace: availability queries
return False / 0, functions that need a device raise ``AssertionError: Torch not compiled with
CUDA enabled``, and the legacy ``torch.cuda.FloatTensor`` ... classes exist but cannot be built.
retrograd is CPU only, so it behaves like that build (a few harmless calls such as
``synchronize`` and ``empty_cache`` do nothing instead of raising, for portable client code).

>>> import retrograd as torch
>>> torch.cuda.is_available(), torch.cuda.device_count()
(False, 0)
"""
from __future__ import annotations

import types

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all", "seed",
           "seed_all", "synchronize", "empty_cache", "current_device", "set_device", "get_device_name",
           "get_device_capability", "get_device_properties", "get_sync_debug_mode", "set_sync_debug_mode",
           "memory_allocated", "max_memory_allocated", "memory_reserved", "max_memory_reserved",
           "reset_peak_memory_stats", "is_bf16_supported", "init", "Stream", "Event", "amp"]

_NOT_COMPILED = "Torch not compiled with CUDA enabled"


def _not_compiled(*args, **kwargs):
    raise AssertionError(_NOT_COMPILED)


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0


def is_initialized() -> bool:
    return False


def is_bf16_supported(including_emulation: bool = True) -> bool:
    return False


def manual_seed(seed: int) -> None:
    """Seeding the (absent) CUDA generators is a no-op, as in torch without devices."""


def manual_seed_all(seed: int) -> None:
    """No CUDA generators to seed."""


def seed() -> None:
    """No CUDA generators to seed."""


def seed_all() -> None:
    """No CUDA generators to seed."""


def synchronize(device=None) -> None:
    """Nothing is ever queued on a device here (torch raises; portable code calls it freely)."""


def empty_cache() -> None:
    """No caching allocator: nothing to free."""


def memory_allocated(device=None) -> int:
    return 0


max_memory_allocated = memory_reserved = max_memory_reserved = memory_allocated


def reset_peak_memory_stats(device=None) -> None:
    """No allocator statistics to reset."""


current_device = set_device = get_device_name = get_device_capability = _not_compiled
get_device_properties = get_sync_debug_mode = set_sync_debug_mode = init = _not_compiled


class Stream:
    """Placeholder class: building a CUDA stream needs CUDA."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("torch.cuda.Stream requires CUDA support")


class Event:
    """Placeholder class: building a CUDA event needs CUDA."""

    def __new__(cls, *args, **kwargs):
        raise RuntimeError("Tried to instantiate dummy base class Event")


def _legacy_class(name: str, kind: str) -> type:
    """``torch.cuda.FloatTensor`` / ``torch.cuda.FloatStorage``: exist, cannot be instantiated."""

    class _Meta(type):
        def __call__(cls, *args, **kwargs):
            raise TypeError(f"type torch.cuda.{name} not available. {_NOT_COMPILED}.")

        def __instancecheck__(cls, obj) -> bool:
            return False  # no tensor or storage ever lives on a CUDA device here

        is_cuda = True
        is_sparse = False

    return _Meta(name, (), {"__module__": "torch.cuda", "__doc__": f"CUDA {kind} class (unavailable)."})


_KINDS = ("Float", "Double", "Half", "BFloat16", "Long", "Int", "Short", "Char", "Byte", "Bool")
for _k in _KINDS:
    globals()[_k + "Tensor"] = _legacy_class(_k + "Tensor", "tensor")
    globals()[_k + "Storage"] = _legacy_class(_k + "Storage", "storage")
    __all__ += [_k + "Tensor", _k + "Storage"]
del _k


def _amp_namespace() -> types.SimpleNamespace:
    from .. import amp as _amp

    return types.SimpleNamespace(GradScaler=_amp._CudaGradScaler, autocast=_amp._CudaAutocast,
                                 custom_fwd=_amp._cuda_custom_fwd, custom_bwd=_amp._cuda_custom_bwd)


amp = _amp_namespace()
