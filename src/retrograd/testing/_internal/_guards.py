"""Small context managers and helpers of ``common_utils`` that PyTorch's test files import.

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_utils import bytes_to_scalar
>>> bytes_to_scalar([1, 0, 0, 0], torch.int32, "cpu")
tensor(1, dtype=torch.int32)
"""
from __future__ import annotations

import unittest

import numpy as np

import retrograd

__all__ = ["bytes_to_scalar", "AlwaysWarnTypedStorageRemoval", "CudaSyncGuard", "skipIfNotRegistered"]


def bytes_to_scalar(byte_list, dtype, device):
    """The 0-dim tensor whose memory holds ``byte_list`` (native byte order), as PyTorch's helper."""
    raw = bytes(int(b) for b in byte_list)
    if len(raw) != dtype.itemsize:
        raise AssertionError(f"expected {dtype.itemsize} bytes for {dtype}, got {len(raw)}")
    value = np.frombuffer(raw, dtype=dtype.np)[0]
    return retrograd.tensor(value.item(), dtype=dtype, device=device)


class AlwaysWarnTypedStorageRemoval:
    """Inside the block every TypedStorage use warns (not only the first one in the process)."""

    def __init__(self, always_warn: bool) -> None:
        if not isinstance(always_warn, bool):
            raise AssertionError(f"expected always_warn to be bool, got {type(always_warn)}")
        self.always_warn = always_warn

    def __enter__(self):
        from retrograd import storage

        self._restore = storage._get_always_warn_typed_storage_removal()
        storage._set_always_warn_typed_storage_removal(self.always_warn)

    def __exit__(self, *exc) -> None:
        from retrograd import storage

        storage._set_always_warn_typed_storage_removal(self._restore)


class CudaSyncGuard:
    """Sets ``torch.cuda``'s sync debug mode for a block (stored only: there is no CUDA here)."""

    def __init__(self, sync_debug_mode) -> None:
        self.mode = sync_debug_mode

    def __enter__(self):
        self._restore = retrograd.cuda.get_sync_debug_mode()
        retrograd.cuda.set_sync_debug_mode(self.mode)

    def __exit__(self, *exc) -> None:
        retrograd.cuda.set_sync_debug_mode(self._restore)


def skipIfNotRegistered(op_name: str, message: str):
    """Caffe2 operators are never registered (PyTorch itself is built without Caffe2)."""
    return unittest.skip("Pytorch is compiled without Caffe2")
