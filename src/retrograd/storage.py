"""``torch.storage``: the storage classes and the switches of TypedStorage's deprecation warning.

>>> import retrograd as torch
>>> torch.storage._dtype_to_storage_type_map()[torch.float32]
'FloatStorage'
"""
from __future__ import annotations

from . import _storage
from ._storage import TypedStorage, UntypedStorage, _LegacyStorage  # noqa: F401

__all__ = ["TypedStorage", "UntypedStorage"]


def _get_always_warn_typed_storage_removal() -> bool:
    return _storage._always_warn[0]


def _set_always_warn_typed_storage_removal(always_warn: bool) -> None:
    if not isinstance(always_warn, bool):
        raise AssertionError(f"expected always_warn to be bool, got {type(always_warn)}")
    _storage._always_warn[0] = always_warn


def _reset_warn_typed_storage_removal() -> None:
    """Let the next TypedStorage use warn again (the warning is otherwise given once per process)."""
    _storage._warned_typed[0] = False


def _dtype_to_storage_type_map() -> dict:
    """dtype -> name of its legacy storage class (``torch.float32 -> 'FloatStorage'``)."""
    from . import _dtype as D

    return {D.float64: "DoubleStorage", D.float32: "FloatStorage", D.float16: "HalfStorage",
            D.bfloat16: "BFloat16Storage", D.int64: "LongStorage", D.int32: "IntStorage", D.int16: "ShortStorage",
            D.int8: "CharStorage", D.uint8: "ByteStorage", D.bool: "BoolStorage"}
