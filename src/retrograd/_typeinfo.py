"""``finfo`` / ``iinfo``: numerical limits of float and integer dtypes, as ``torch.finfo`` gives them.

>>> import retrograd as torch
>>> torch.finfo(torch.float32).eps
1.1920928955078125e-07
>>> torch.iinfo(torch.int8).max
127
"""
from __future__ import annotations

import numpy as np

from . import _dtype as D

__all__ = ["finfo", "iinfo"]

# NumPy has no bfloat16 (retrograd stores it as float32), so its limits are written out.
_BF16 = dict(bits=16, eps=0.0078125, max=3.3895313892515355e+38, tiny=1.1754943508222875e-38, resolution=0.01)


def _check(dtype, kind: str, name: str) -> None:
    if not isinstance(dtype, D.dtype):
        raise TypeError(f"{name}(): argument 'type' (position 1) must be torch.dtype, not {type(dtype).__name__}")
    if dtype._kind != kind:
        other = "iinfo" if name == "finfo" else "finfo"
        if name == "iinfo" and dtype is D.bool_:
            raise TypeError("torch.bool is not supported by torch.iinfo")
        wanted = "a floating point" if name == "finfo" else "an integer"
        raise TypeError(f"torch.{name}() requires {wanted} input type. Use torch.{other} to handle 'torch.{name}'")


class finfo:
    """Machine limits of a floating dtype (the default dtype when none is given).

    Attributes: bits, eps, max, min, tiny (= smallest_normal), resolution, dtype (a string).
    """

    __slots__ = ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype")

    def __init__(self, type: D.dtype | None = None) -> None:  # noqa: A002 - torch's parameter name
        dt = D.get_default_dtype() if type is None else type
        _check(dt, 2, "finfo")
        if dt is D.bfloat16:
            info = _BF16
        else:
            f = np.finfo(dt.np)
            info = dict(bits=int(f.bits), eps=float(f.eps), max=float(f.max), tiny=float(f.smallest_normal),
                        resolution=10.0 ** -int(f.precision))
        self.bits = info["bits"]
        self.eps = info["eps"]
        self.max = info["max"]
        self.min = -info["max"]
        self.tiny = self.smallest_normal = info["tiny"]
        self.resolution = info["resolution"]
        self.dtype = dt.name

    def __eq__(self, other) -> bool:
        return isinstance(other, finfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("finfo", self.dtype))

    def __repr__(self) -> str:
        return (f"finfo(resolution={self.resolution:g}, min={self.min:g}, max={self.max:g}, eps={self.eps:g}, "
                f"smallest_normal={self.smallest_normal:g}, tiny={self.tiny:g}, dtype={self.dtype})")


class iinfo:
    """Limits of an integer dtype: bits, min, max, dtype (a string)."""

    __slots__ = ("bits", "min", "max", "dtype")

    def __init__(self, type: D.dtype) -> None:  # noqa: A002 - torch's parameter name
        _check(type, 1, "iinfo")
        i = np.iinfo(type.np)
        self.bits = int(i.bits)
        self.min = int(i.min)
        self.max = int(i.max)
        self.dtype = type.name

    def __eq__(self, other) -> bool:
        return isinstance(other, iinfo) and other.dtype == self.dtype

    def __hash__(self) -> int:
        return hash(("iinfo", self.dtype))

    def __repr__(self) -> str:
        return f"iinfo(min={self.min:g}, max={self.max:g}, dtype={self.dtype})"
