"""Tensor storages: ``untyped_storage()`` / ``storage()`` over the NumPy memory a tensor views.

A retrograd tensor's data is a NumPy array, possibly a view of a larger one; the storage is
the memory of the outermost array it views.  What code asks of storages works as in torch:
whether two tensors share memory (``a.untyped_storage().data_ptr() ==
b.untyped_storage().data_ptr()``), the storage's size in bytes or elements, its values.

>>> import retrograd as torch
>>> x = torch.arange(6.)
>>> x[2:].untyped_storage().data_ptr() == x.untyped_storage().data_ptr()
True
>>> x[2:].untyped_storage().nbytes()
24
"""
from __future__ import annotations

import warnings

import numpy as np

__all__ = ["UntypedStorage", "TypedStorage"]


def _root(a: np.ndarray) -> np.ndarray:
    """The outermost ndarray whose memory ``a`` views (``a`` itself when it owns its data)."""
    while True:
        b = a.base
        if isinstance(b, np.ndarray):
            a = b
        elif isinstance(getattr(b, "base", None), np.ndarray):
            # np.lib.stride_tricks.as_strided (unfold, expand, strided diagonals ...) keeps the
            # array it views behind a small interface object
            a = b.base
        else:
            return a


class UntypedStorage:
    """The bytes behind a tensor (read-only view here; writes go through tensors)."""

    def __init__(self, array: np.ndarray) -> None:
        self._array = _root(array)

    def _bytes(self) -> np.ndarray:
        a = self._array
        return a.reshape(-1).view(np.uint8) if a.flags.c_contiguous else np.ascontiguousarray(a).view(np.uint8)

    def data_ptr(self) -> int:
        return self._array.__array_interface__["data"][0]

    @property
    def _cdata(self) -> int:
        """An id of the memory (torch: the C++ storage's address); equal for storages of one memory."""
        return id(self._array)

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + self.nbytes()

    def nbytes(self) -> int:
        return int(self._array.nbytes)

    def size(self) -> int:
        return self.nbytes()

    __len__ = size

    def element_size(self) -> int:
        return 1

    @property
    def device(self):
        from ._size import CPU

        return CPU

    @property
    def dtype(self):
        from . import _dtype

        return _dtype.uint8

    def is_shared(self) -> bool:
        # the registry that Tensor.share_memory_() fills, keyed by the same root array
        from ._tensor import _SHARED

        return _SHARED.get(id(self._array)) is self._array

    def is_pinned(self, device="cuda") -> bool:
        return False

    def tolist(self) -> list:
        return self._bytes().tolist()

    def __getitem__(self, idx):
        return self._bytes()[idx].tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[torch.storage.UntypedStorage(device=cpu) of size {len(self)}]"


_warned_typed = [False]
_always_warn = [False]  # AlwaysWarnTypedStorageRemoval: warn on every use, not once


class TypedStorage:
    """The storage seen as elements of the tensor's dtype (deprecated in torch, as here)."""

    def __init__(self, array: np.ndarray, dtype) -> None:
        self._untyped = UntypedStorage(array)
        self.dtype = dtype

    def _values(self) -> np.ndarray:
        return self._untyped._bytes().view(self.dtype.np)

    def _untyped_storage(self) -> UntypedStorage:
        return self._untyped

    def untyped(self) -> UntypedStorage:
        return self._untyped

    def data_ptr(self) -> int:
        return self._untyped.data_ptr()

    @property
    def _cdata(self) -> int:
        return self._untyped._cdata

    def __sizeof__(self) -> int:
        return object.__sizeof__(self) + self.nbytes()

    def nbytes(self) -> int:
        return self._untyped.nbytes()

    def element_size(self) -> int:
        return self.dtype.itemsize

    def size(self) -> int:
        return self.nbytes() // self.element_size()

    __len__ = size

    @property
    def device(self):
        return self._untyped.device

    def is_shared(self) -> bool:
        return self._untyped.is_shared()

    def is_pinned(self, device="cuda") -> bool:
        return False

    def tolist(self) -> list:
        return self._values().tolist()

    def __getitem__(self, idx):
        return self._values()[idx].tolist()

    def __iter__(self):
        return iter(self.tolist())

    def __repr__(self) -> str:
        body = "\n".join(f" {v}" for v in self.tolist())
        return f"{body}\n[torch.storage.TypedStorage(dtype={self.dtype}, device=cpu) of size {len(self)}]"


def typed_storage_of(array: np.ndarray, dtype) -> TypedStorage:
    """``tensor.storage()``: warns once per process, as torch does."""
    if not _warned_typed[0] or _always_warn[0]:
        _warned_typed[0] = True
        warnings.warn("TypedStorage is deprecated. It will be removed in the future and UntypedStorage will be "
                      "the only storage class. This should only matter to you if you are using storages "
                      "directly.  To access UntypedStorage directly, use tensor.untyped_storage() instead of "
                      "tensor.storage()", UserWarning, stacklevel=3)
    return TypedStorage(array, dtype)


# ---------------------------------------------------------------- legacy typed-storage classes
class _LegacyStorageMeta(type):
    """``isinstance(s, LongStorage)``: a TypedStorage of that class's dtype (torch's rule)."""

    def __instancecheck__(cls, obj) -> bool:
        return isinstance(obj, TypedStorage) and obj.dtype is cls.dtype


class _LegacyStorage(metaclass=_LegacyStorageMeta):
    """``torch.LongStorage(3)`` / ``torch.FloatStorage([1., 2.])``: a TypedStorage of one dtype.

    Calling the class builds a plain :class:`TypedStorage` (as torch's does): ``n`` zeroed
    elements for an int, the values of a sequence, nothing for no argument.

    >>> import retrograd as torch
    >>> torch.LongStorage([1, 2]).tolist(), torch.FloatStorage(3).size()
    ([1, 2], 3)
    """

    dtype = None

    def __new__(cls, *args):
        if len(args) > 1:
            raise TypeError(f"{cls.__name__}(): expected at most one argument (a size or a sequence), got {len(args)}")
        arg = args[0] if args else 0
        np_dtype = cls.dtype.np
        if isinstance(arg, (int, np.integer)) and not isinstance(arg, bool):
            if arg < 0:
                raise RuntimeError(f"Storage size must be non-negative, got {int(arg)}")
            values = np.zeros(int(arg), dtype=np_dtype)
        elif isinstance(arg, (str, bytes)):
            raise TypeError(f"new(): invalid data type '{type(arg).__name__}'")
        else:
            try:
                values = np.array(list(arg), dtype=np_dtype)
            except TypeError:
                raise TypeError(f"{cls.__name__}(): argument must be an int or a sequence, not "
                                f"{type(arg).__name__}") from None
        typed_storage_of(values.reshape(-1), cls.dtype)  # (the deprecation warning, once)
        return TypedStorage(values.reshape(-1), cls.dtype)


def _legacy_storage_classes() -> dict:
    from . import _dtype as D

    names = {"FloatStorage": D.float32, "DoubleStorage": D.float64, "HalfStorage": D.float16,
             "BFloat16Storage": D.bfloat16, "LongStorage": D.int64, "IntStorage": D.int32,
             "ShortStorage": D.int16, "CharStorage": D.int8, "ByteStorage": D.uint8, "BoolStorage": D.bool}
    return {name: _LegacyStorageMeta(name, (_LegacyStorage,), {"dtype": dt, "__module__": "retrograd"})
            for name, dt in names.items()}


globals().update(_legacy_storage_classes())
__all__ += list(_legacy_storage_classes())
