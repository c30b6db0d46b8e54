"""retrograd's ``torch.testing._internal.common_dtype``: named dtype groups for ``@dtypes(...)``.

retrograd has no complex, unsigned 16/32/64-bit, float8 or quantized dtypes: the groups that would
hold them hold only what exists (``complex_types()`` is empty, ``floating_and_complex_types()`` is
``floating_types()``), so ``@dtypes(*floating_and_complex_types())`` generates the real variants only.

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_dtype import floating_types_and
>>> floating_types_and(torch.half)
(torch.float32, torch.float64, torch.float16)
"""
from __future__ import annotations

import retrograd as _rg

__all__ = [
    "empty_types", "floating_types", "floating_types_and", "floating_types_and_half", "floating_and_complex_types",
    "floating_and_complex_types_and", "double_types", "integral_types", "integral_types_and", "all_types",
    "all_types_and", "complex_types", "complex_types_and", "all_types_and_complex", "all_types_and_complex_and",
    "all_types_and_half", "all_mps_types", "all_mps_types_and", "float8_types", "float8_types_and",
    "all_types_complex_float8_and", "custom_types", "get_all_dtypes", "get_all_math_dtypes",
    "get_all_complex_dtypes", "get_all_int_dtypes", "get_all_fp_dtypes", "get_all_qint_dtypes",
    "highest_precision_float", "float_to_corresponding_complex_type_map",
]


def _validate_dtypes(*dtypes) -> tuple:
    for dtype in dtypes:
        if not isinstance(dtype, _rg.dtype):
            raise AssertionError(f"Expected dtype to be torch.dtype, got {type(dtype)}")
    return dtypes


class _dispatch_dtypes(tuple):
    """A tuple of dtypes that stays one when extended with ``+``."""

    __slots__ = ()

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise AssertionError(f"Expected other to be a tuple, got {type(other)}")
        return _dispatch_dtypes(tuple.__add__(self, other))


_empty = _dispatch_dtypes(())
_floating = _dispatch_dtypes((_rg.float32, _rg.float64))
_integral = _dispatch_dtypes((_rg.uint8, _rg.int8, _rg.int16, _rg.int32, _rg.int64))
_complex = _empty  # retrograd has no complex dtypes
_all = _floating + _integral


def empty_types():
    return _empty


def floating_types():
    """(float32, float64)."""
    return _floating


def floating_types_and_half():
    return _floating + (_rg.half,)


def floating_types_and(*dtypes):
    return _floating + _validate_dtypes(*dtypes)


def floating_and_complex_types():
    """PyTorch adds cfloat/cdouble; retrograd has none, so this is floating_types()."""
    return _floating + _complex


def floating_and_complex_types_and(*dtypes):
    return _floating + _complex + _validate_dtypes(*dtypes)


def double_types():
    """(float64,) (PyTorch also lists complex128)."""
    return _dispatch_dtypes((_rg.float64,))


def integral_types():
    """(uint8, int8, int16, int32, int64)."""
    return _integral


def integral_types_and(*dtypes):
    return _integral + _validate_dtypes(*dtypes)


def all_types():
    """floating_types() + integral_types()."""
    return _all


def all_types_and(*dtypes):
    return _all + _validate_dtypes(*dtypes)


def complex_types():
    """Empty: retrograd has no complex dtypes."""
    return _complex


def complex_types_and(*dtypes):
    return _complex + _validate_dtypes(*dtypes)


def all_types_and_complex():
    return _all + _complex


def all_types_and_complex_and(*dtypes):
    return _all + _complex + _validate_dtypes(*dtypes)


def all_types_and_half():
    return _all + (_rg.half,)


def all_mps_types():
    return _dispatch_dtypes((_rg.float32, _rg.float16, _rg.bfloat16)) + _integral


def all_mps_types_and(*dtypes):
    return all_mps_types() + _validate_dtypes(*dtypes)


def float8_types():
    """Empty: retrograd has no float8 dtypes."""
    return _empty


def float8_types_and(*dtypes):
    return _empty + _validate_dtypes(*dtypes)


def all_types_complex_float8_and(*dtypes):
    return _all + _validate_dtypes(*dtypes)


def custom_types(*dtypes):
    """An arbitrary group of dtypes."""
    return _empty + _validate_dtypes(*dtypes)


def get_all_int_dtypes() -> list:
    return list(_integral)


def get_all_fp_dtypes(include_half: bool = True, include_bfloat16: bool = True) -> list:
    dtypes = [_rg.float32, _rg.float64]
    if include_half:
        dtypes.append(_rg.float16)
    if include_bfloat16:
        dtypes.append(_rg.bfloat16)
    return dtypes


def get_all_complex_dtypes(include_complex32: bool = False) -> list:
    """Empty: retrograd has no complex dtypes."""
    return []


def get_all_qint_dtypes() -> list:
    """Empty: retrograd has no quantized dtypes."""
    return []


def get_all_dtypes(include_half: bool = True, include_bfloat16: bool = True, include_bool: bool = True,
                   include_complex: bool = True, include_complex32: bool = False, include_qint: bool = False) -> list:
    """Integer, then floating, then bool dtypes (complex and quantized ones do not exist here).

    >>> from retrograd.testing._internal.common_dtype import get_all_dtypes
    >>> len(get_all_dtypes())
    10
    """
    dtypes = get_all_int_dtypes() + get_all_fp_dtypes(include_half=include_half, include_bfloat16=include_bfloat16)
    if include_bool:
        dtypes.append(_rg.bool)
    return dtypes


def get_all_math_dtypes(device: str) -> list:
    return get_all_int_dtypes() + get_all_fp_dtypes(include_half=device.startswith("cuda"), include_bfloat16=False)


def highest_precision_float(device) -> object:
    return _rg.float64


float_to_corresponding_complex_type_map: dict = {}  # no complex dtypes
