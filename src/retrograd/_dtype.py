"""dtypes and PyTorch's type promotion.

A retrograd ``dtype`` is a tiny object wrapping a NumPy dtype.  Promotion follows
PyTorch, not NumPy: categories are bool < integer < floating, and within an operation
a dimensioned tensor outranks a 0-d tensor, which outranks a Python scalar, unless the
lower-priority operand belongs to a higher category (``int_tensor * 2.5`` is float32,
the default dtype, not float64 as NumPy would say).
"""
from __future__ import annotations

import builtins as _b

import numpy as np

__all__ = [
    "dtype", "float16", "float32", "float64", "bfloat16", "int8", "int16", "int32", "int64",
    "uint8", "bool", "half", "float", "double", "short", "int", "long",
    "get_default_dtype", "set_default_dtype", "promote_types", "result_type", "can_cast",
    # names only: see _UnsupportedDtype
    "complex32", "complex64", "complex128", "chalf", "cfloat", "cdouble",
    "float8_e4m3fn", "float8_e5m2", "float8_e4m3fnuz", "float8_e5m2fnuz",
    "quint8", "qint8", "qint32", "quint4x2", "quint2x4",
]


class dtype:
    """A tensor element type, e.g. ``retrograd.float32`` (printed as torch prints it: ``torch.float32``)."""

    __slots__ = ("name", "np", "is_floating_point", "is_signed", "itemsize", "_kind", "is_complex")

    def __init__(self, name: str, np_dtype, kind: int) -> None:
        self.name = name
        self.np = np.dtype(np_dtype)
        self._kind = kind  # 0 bool, 1 integer, 2 floating
        self.is_floating_point = kind == 2
        self.is_complex = False
        self.is_signed = kind == 2 or (kind == 1 and self.np.kind == "i")
        self.itemsize = self.np.itemsize

    def __repr__(self) -> str:
        # PyTorch's spelling: code run with ``import retrograd as torch`` prints what torch prints
        return f"torch.{self.name}"

    def __reduce__(self):
        return (_by_name, (self.name,))

    def to_real(self) -> "dtype":
        return self

    def to_complex(self):
        raise NotImplementedError("complex dtypes are not supported by retrograd")


bool_ = dtype("bool", np.bool_, 0)
uint8 = dtype("uint8", np.uint8, 1)
int8 = dtype("int8", np.int8, 1)
int16 = dtype("int16", np.int16, 1)
int32 = dtype("int32", np.int32, 1)
int64 = dtype("int64", np.int64, 1)
float16 = dtype("float16", np.float16, 2)
float32 = dtype("float32", np.float32, 2)
float64 = dtype("float64", np.float64, 2)
# NumPy has no bfloat16; we store it as float32 so code that names it still runs.
bfloat16 = dtype("bfloat16", np.float32, 2)
bfloat16.itemsize = 2  # (torch's size, not the float32 storage's)

globals()["bool"] = bool_
half, float, double = float16, float32, float64  # noqa: A001 - torch's aliases
short, int, long = int16, int32, int64  # noqa: A001


class _UnsupportedDtype(dtype):
    """A dtype PyTorch has and retrograd does not implement (complex, float8, quantized).

    The object exists so code that only *names* it (dtype tables, ``x.dtype == torch.complex64``,
    ``@dtypes(torch.cfloat)`` in a test file) runs; anything that would store elements of it
    (its NumPy dtype is asked for) raises a TypeError that names it.

    >>> import retrograd as torch
    >>> torch.complex64.is_complex, torch.tensor([1.]).dtype == torch.complex64
    (True, False)
    """

    __slots__ = ()

    def __init__(self, name: str, itemsize: int, complex_: _b.bool = False) -> None:
        self.name = name
        self._kind = 3  # above floating: promotion with it is never silently real
        self.is_floating_point = not complex_ and name.startswith("float8")
        self.is_complex = complex_
        self.itemsize = itemsize

    @property
    def is_signed(self) -> _b.bool:
        """Complex and float8 are signed; asking a quantized dtype raises, as torch."""
        if self.name.startswith(("qint", "quint")):
            raise RuntimeError("isSignedType not supported for quantized types")
        return True

    @property
    def np(self):
        kind = "complex" if self.is_complex else "float8" if self.name.startswith("float8") else "quantized"
        raise TypeError(f"retrograd does not support {kind} tensors (dtype torch.{self.name} is not implemented)")

    def to_real(self) -> "dtype":
        if self.is_complex:
            return {"complex32": float16, "complex64": float32, "complex128": float64}[self.name]
        return self


complex32 = _UnsupportedDtype("complex32", 4, True)
complex64 = _UnsupportedDtype("complex64", 8, True)
complex128 = _UnsupportedDtype("complex128", 16, True)
chalf, cfloat, cdouble = complex32, complex64, complex128
float8_e4m3fn = _UnsupportedDtype("float8_e4m3fn", 1)
float8_e5m2 = _UnsupportedDtype("float8_e5m2", 1)
float8_e4m3fnuz = _UnsupportedDtype("float8_e4m3fnuz", 1)
float8_e5m2fnuz = _UnsupportedDtype("float8_e5m2fnuz", 1)
quint8 = _UnsupportedDtype("quint8", 1)
qint8 = _UnsupportedDtype("qint8", 1)
qint32 = _UnsupportedDtype("qint32", 4)
quint4x2 = _UnsupportedDtype("quint4x2", 1)
quint2x4 = _UnsupportedDtype("quint2x4", 1)


def is_supported(d) -> _b.bool:
    """Whether tensors of dtype ``d`` can exist in retrograd (False for complex, float8, quantized)."""
    return not isinstance(d, _UnsupportedDtype)


ALL_DTYPES = (bool_, uint8, int8, int16, int32, int64, float16, float32, float64)
_from_np = {d.np: d for d in ALL_DTYPES}


_PY_TYPES = {_b.float: float64, _b.int: int64, _b.bool: bool_}


def as_dtype(d):
    """``d`` as a retrograd dtype: torch reads the Python types ``float``, ``int`` and ``bool`` given as a
    dtype argument as float64, int64 and bool (``torch.zeros(2, dtype=float)`` is float64).  Anything
    else (a dtype, ``None``, a bad value for the caller to refuse) is returned as it is."""
    return _PY_TYPES.get(d, d) if isinstance(d, type) else d


def _by_name(name: str) -> dtype:
    # (name-only dtypes too: copying or unpickling any dtype gives back the very same object)
    d = globals().get(name)
    if not isinstance(d, dtype):
        raise KeyError(name)
    return d


def from_numpy_dtype(npd) -> dtype:
    """The retrograd dtype of a NumPy dtype (raises TypeError for unsupported ones)."""
    try:
        return _from_np[npd]
    except KeyError:
        pass
    npd = np.dtype(npd)
    if npd in _from_np:
        return _from_np[npd]
    if npd.kind == "c":
        raise TypeError(f"retrograd does not support complex tensors (got an array of numpy.{npd.name})")
    if npd.kind == "u":
        raise TypeError(
            f"can't convert np.ndarray of type numpy.{npd.name}. The only supported types are: "
            "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint8, and bool.")
    # torch's own text (it names its uint16/32/64 and complex dtypes among the supported ones)
    raise TypeError(f"can't convert np.ndarray of type numpy.{npd.type.__name__}. The only supported types are: "
                    "float64, float32, float16, complex64, complex128, int64, int32, int16, int8, uint64, uint32, "
                    "uint16, uint8, and bool.")


_default_float = float32


def get_default_dtype() -> dtype:
    """The dtype of float tensors made from Python floats (float32 unless changed)."""
    return _default_float


def set_default_dtype(d: dtype) -> None:
    """Set the default floating dtype (float32 or float64, as torch allows)."""
    global _default_float
    if not isinstance(d, dtype):
        raise TypeError("invalid dtype object: only floating-point types are supported as the default type")
    if not d.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    _default_float = d


# PyTorch's table, not NumPy's: a float meets an integer -> that float (NumPy says
# int32 + float32 -> float64); float16 + bfloat16 -> float32; integers promote as in NumPy
# (uint8 + int8 -> int16).  tests/test_dtype.py checks every pair against torch.
def promote_types(a: dtype, b: dtype) -> dtype:
    """The smallest dtype both ``a`` and ``b`` can be cast to (``torch.promote_types``).

    >>> import retrograd as torch
    >>> torch.promote_types(torch.int32, torch.float32)
    torch.float32
    """
    if a is b:
        return a
    if a._kind != b._kind:
        return a if a._kind > b._kind else b
    if a._kind == 2:
        if {a.name, b.name} == {"float16", "bfloat16"}:
            return float32
        return a if a.itemsize > b.itemsize or (a.itemsize == b.itemsize and b is bfloat16) else b
    return _from_np[np.promote_types(a.np, b.np)]


def _scalar_kind(v) -> int:
    # Only Python's bool is a bool scalar: PyTorch reads a NumPy bool scalar as a float
    # (int_tensor * np.bool_(True) is float32).
    if isinstance(v, _b.bool):
        return 0
    if isinstance(v, (builtins_int, np.integer)):
        return 1
    return 2


builtins_int = _b.int
builtins_float = _b.float
builtins_bool = _b.bool


def result_type(*operands) -> dtype:
    """The dtype PyTorch gives an op over ``operands`` (tensors and Python scalars).

    Three priority tiers: dimensioned tensors, 0-d tensors, Python scalars.  A lower tier
    only matters when its category (bool < int < float) is higher than every higher tier's.
    """
    from ._tensor import Tensor

    tiers: list[dtype | None] = [None, None, None]  # dim, zero-dim, scalar
    for op in operands:
        if isinstance(op, Tensor):
            d = op.dtype
            t = 0 if op._data.ndim else 1
        else:
            k = _scalar_kind(op)
            d = bool_ if k == 0 else int64 if k == 1 else _default_float
            t = 2
        cur = tiers[t]
        tiers[t] = d if cur is None else promote_types(cur, d)
    result: dtype | None = None
    for d in tiers:
        if d is None:
            continue
        if result is None:
            result = d
        elif d._kind > result._kind:
            # A higher category from a lower tier wins (int tensor * 2.5 -> float32).
            result = d
    return result if result is not None else _default_float


def can_cast(from_: dtype, to: dtype) -> bool:
    """Whether ``from_`` may be cast to ``to`` under PyTorch's same-kind rule."""
    return from_._kind <= to._kind
