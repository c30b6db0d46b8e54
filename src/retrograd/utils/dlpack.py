"""DLPack exchange (``torch.utils.dlpack``): retrograd tensors are NumPy arrays, and NumPy speaks DLPack.

>>> import retrograd as torch
>>> from retrograd.utils.dlpack import from_dlpack, to_dlpack
>>> x = torch.arange(3.)
>>> y = from_dlpack(to_dlpack(x))
>>> y[0] = 5.
>>> x
tensor([5., 1., 2.])
"""
from __future__ import annotations

import numpy as np

__all__ = ["to_dlpack", "from_dlpack"]


class _Capsule:
    """Holds a DLPack capsule for :func:`numpy.from_dlpack`, which wants an object with ``__dlpack__``."""

    def __init__(self, capsule) -> None:
        self._capsule = capsule

    def __dlpack__(self, *args, **kwargs):
        return self._capsule

    def __dlpack_device__(self):
        return (1, 0)  # kDLCPU, device 0: the only place retrograd tensors live


def to_dlpack(tensor):
    """A DLPack capsule sharing ``tensor``'s memory (consumed once, by :func:`from_dlpack`)."""
    return tensor._data.__dlpack__()


def from_dlpack(ext_tensor):
    """A tensor sharing the memory of ``ext_tensor``: a DLPack capsule or any object with ``__dlpack__``."""
    from .._tensor import Tensor

    if isinstance(ext_tensor, Tensor):
        return ext_tensor
    src = ext_tensor if hasattr(ext_tensor, "__dlpack__") else _Capsule(ext_tensor)
    arr = np.from_dlpack(src)
    if not arr.flags.writeable and arr.size:
        arr = _writable_alias(arr)
    return Tensor._wrap(arr, False, None, 0)


def _writable_alias(arr: np.ndarray) -> np.ndarray:
    """A writable array over ``arr``'s memory: NumPy marks DLPack imports read-only, while a
    PyTorch tensor made by from_dlpack writes through to the producer's memory."""
    import ctypes

    lo = sum(s * (n - 1) for s, n in zip(arr.strides, arr.shape) if s < 0)
    hi = sum(s * (n - 1) for s, n in zip(arr.strides, arr.shape) if s > 0) + arr.itemsize
    start = arr.__array_interface__["data"][0] + lo
    buf = (ctypes.c_char * (hi - lo)).from_address(start)
    buf._owner = arr  # (keeps the producer's memory alive as long as the alias)
    flat = np.frombuffer(buf, dtype=np.uint8)
    return np.lib.stride_tricks.as_strided(flat[-lo:].view(arr.dtype), arr.shape, arr.strides)
