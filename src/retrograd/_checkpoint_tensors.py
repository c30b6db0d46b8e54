"""Tensors rebuilt from a checkpoint's arrays: numeric dtypes only, geometry checked against the storage.

Both container formats that ``retrograd.load`` reads describe a tensor as a storage (a flat
array read from the file) plus an offset, a shape and strides in elements.  A view is made
only when every element it can reach lies inside the storage, so a hostile record cannot read
outside the memory it was given, and no tensor of an object, string or date dtype is ever made.
"""
from __future__ import annotations

import numpy as np

from ._tensor import Tensor

# the element types a checkpoint may hold (bfloat16 is widened to float32 on reading)
NUMERIC = frozenset(np.dtype(n) for n in ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32",
                                          "float64"))
MAX_DIMS = 64  # NumPy's own limit on dimensions
_MAX_BYTES = 1 << 62  # a view may repeat elements (stride 0), but its nominal size must stay addressable


def is_int(v) -> bool:
    return isinstance(v, int) and not isinstance(v, bool)


def strided(storage: np.ndarray, offset, size, stride, error) -> np.ndarray:
    """A view ``storage[offset:]`` with ``size``/``stride`` (in elements), bounds-checked; tensors built on
    one storage share its memory, as in PyTorch.  ``error(msg)`` makes the exception to raise."""
    if storage.ndim != 1 or storage.dtype.newbyteorder("=") not in NUMERIC:
        raise error("a tensor's storage is not a flat numeric array")
    if not isinstance(size, (tuple, list)) or not isinstance(stride, (tuple, list)):
        raise error(f"a tensor's size and stride must be tuples, got {type(size).__name__} and "
                    f"{type(stride).__name__}")
    if not is_int(offset) or not all(is_int(s) for s in size) or not all(is_int(s) for s in stride):
        raise error("a tensor's storage_offset, size and stride must be ints")
    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride) or len(size) > MAX_DIMS:
        raise error(f"invalid tensor geometry: size {size} and stride {stride}")
    if offset < 0 or any(s < 0 for s in size) or any(s < 0 for s in stride):
        raise error(f"invalid tensor geometry: negative size, stride or offset (size {size}, stride {stride}, "
                    f"offset {offset})")
    count = 1
    for s in size:
        count *= s
        if count * storage.itemsize > _MAX_BYTES:
            raise error(f"tensor of size {size} is too large")
    if count == 0:
        if offset > storage.size:
            raise error(f"storage_offset {offset} is beyond a storage of {storage.size} elements")
        return np.zeros(size, dtype=storage.dtype)
    last = offset + sum((n - 1) * st for n, st in zip(size, stride))
    if last >= storage.size:
        raise error(f"tensor reaches element {last} of a storage of {storage.size} elements (corrupted checkpoint)")
    contiguous, step = True, 1
    for n, st in zip(reversed(size), reversed(stride)):
        if n != 1 and st != step:
            contiguous = False
            break
        step *= n
    if contiguous:  # the common case, a plain slice: cheaper than as_strided, and the same memory
        return storage[offset:offset + count].reshape(size)
    return np.lib.stride_tricks.as_strided(storage[offset:], shape=size,
                                           strides=[st * storage.itemsize for st in stride])


def make_tensor(arr: np.ndarray, requires_grad: bool, parameter: bool = False) -> Tensor:
    """A leaf tensor on ``arr`` (no copy); integer and bool tensors never require grad."""
    t = Tensor._wrap(arr, False, None, 0)
    if requires_grad and arr.dtype.kind == "f":
        t.requires_grad_(True)
    if parameter:
        from .nn.parameter import Parameter
        return Parameter(t, requires_grad=requires_grad and arr.dtype.kind == "f")
    return t
