"""Direct calls into the BLAS library NumPy already loaded, for the few kernels NumPy lacks.

NumPy has no fused ``x += a * y``: written with ufuncs it is two passes over memory and two
roundings.  BLAS ``?axpy`` is one pass, and its vectorised kernels round once (a fused
multiply-add), which is exactly what PyTorch's CPU kernel for ``x.add_(y, alpha=a)``
computes.  So an optimizer step through ``axpy_`` is both faster (a 784-512-512-10 MLP's
SGD update: ~170 µs instead of ~290 µs with a cold cache) and bit-identical to torch's.

Only NumPy's own bundled OpenBLAS (the ``scipy-openblas`` of NumPy's wheels, 64-bit integer
interface) is used; anything else (another BLAS, a missing symbol, a failed self-check)
leaves ``axpy_`` returning ``False`` and the caller keeps its ufunc path.

>>> import numpy as np
>>> from retrograd._blas import axpy_
>>> x = np.ones(3, np.float32); y = np.arange(3, dtype=np.float32)
>>> done = axpy_(x, y, -0.5)
>>> x.tolist()
[1.0, 0.5, 0.0]
"""
from __future__ import annotations

import ctypes
import glob
import os

import numpy as np

__all__ = ["axpy_", "available"]

_F32 = np.dtype(np.float32)
_F64 = np.dtype(np.float64)


def _candidate_libraries() -> list[str]:
    """Paths where NumPy's wheels put their OpenBLAS (Linux, macOS, Windows layouts)."""
    here = os.path.dirname(np.__file__)
    patterns = (os.path.join(here, os.pardir, "numpy.libs", "libscipy_openblas64_*"),
                os.path.join(here, ".dylibs", "libscipy_openblas64_*"),
                os.path.join(here, os.pardir, "numpy.libs", "libscipy_openblas64_*.dll"))
    found: list[str] = []
    for pattern in patterns:
        found.extend(sorted(glob.glob(pattern)))
    return found


def _load() -> dict:
    """``{dtype: cblas axpy function}`` or ``{}`` when NumPy's OpenBLAS cannot be used."""
    if os.environ.get("RETROGRAD_NO_BLAS_AXPY"):
        return {}
    for path in _candidate_libraries():
        try:
            lib = ctypes.CDLL(path)
            kernels = {_F32: (lib.scipy_cblas_saxpy64_, ctypes.c_float),
                       _F64: (lib.scipy_cblas_daxpy64_, ctypes.c_double)}
        except (OSError, AttributeError):
            continue
        table = {}
        for dt, (fn, scalar) in kernels.items():
            fn.argtypes = [ctypes.c_int64, scalar, ctypes.c_void_p, ctypes.c_int64, ctypes.c_void_p, ctypes.c_int64]
            fn.restype = None
            table[dt] = (fn, scalar)
        if _self_check(table):
            return table
    return {}


def _self_check(table: dict) -> bool:
    """The kernels compute ``x + a*y`` on a small array (guards against a mismatched ABI)."""
    for dt, (fn, scalar) in table.items():
        x = np.arange(37, dtype=dt)
        y = np.full(37, 3, dtype=dt)
        fn(x.size, scalar(-2.0), y.ctypes.data, 1, x.ctypes.data, 1)
        if not np.array_equal(x, np.arange(37, dtype=dt) - 6):
            return False
    return True


_KERNELS = _load()


def available() -> bool:
    """Whether ``axpy_`` uses BLAS on this machine."""
    return bool(_KERNELS)


_SMALL = 2048  # float32 arrays below this size: float64 arithmetic beats a ctypes call (~1 vs ~3 µs)
_f64 = np.float64


def axpy_(x: np.ndarray, y: np.ndarray, alpha: float) -> bool:
    """``x += alpha * y`` in place with one rounding; ``False`` (nothing done) if not eligible.

    Eligible: float32 or float64 ``x`` and ``y`` of one dtype and one shape, both C-contiguous,
    ``x`` writeable, and the two not overlapping.  ``alpha`` is rounded to the dtype first,
    as PyTorch rounds its scalar.  A small float32 array is updated through float64 instead
    (the product of two float32 numbers is exact there, so only the final store rounds: the
    fused result but for double-rounding ties, none in 2**24 random trials against torch).
    """
    dt = x.dtype
    if dt is _F32 and y.dtype is _F32 and x.size < _SMALL and x.shape == y.shape:
        x[...] = x + _f64(dt.type(alpha)) * y
        return True
    entry = _KERNELS.get(dt)
    if (entry is None or y.dtype != dt or y.shape != x.shape or not x.flags.c_contiguous
            or not y.flags.c_contiguous or not x.flags.writeable or np.may_share_memory(x, y)):
        return False
    fn, scalar = entry
    fn(x.size, scalar(alpha), y.ctypes.data, 1, x.ctypes.data, 1)
    return True


_C_INT_NAMES = {"int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t", "uint8": "uint8_t"}


def int_scalar(alpha, dt: np.dtype):
    """``alpha`` as a scalar of the integer dtype ``dt`` as PyTorch converts it: a value out of a
    signed dtype's range is refused; an unsigned dtype also takes -max..-1 and wraps it around
    (``add(uint8, uint8, alpha=-3)`` multiplies by 253; NumPy 2 itself refuses a Python int
    outside the dtype's range).  Other dtypes and scalars pass through."""
    if dt.kind in "iu" and type(alpha) is int:
        info = np.iinfo(dt)
        if info.min <= alpha <= info.max:
            return alpha
        if dt.kind == "i" or not -info.max <= alpha:
            raise RuntimeError(f"value cannot be converted to type {_C_INT_NAMES.get(dt.name, dt.name)} "
                               "without overflow")
        return dt.type(alpha + info.max + 1)
    return alpha


def fused_add(a: np.ndarray, b: np.ndarray, alpha) -> np.ndarray:
    """``a + alpha * b`` rounded once, as PyTorch's CPU kernel for ``add(a, b, alpha=)`` rounds it.

    PyTorch computes in the "op math" type (float32 for float16) with a fused multiply-add
    and rounds the result to the tensor's dtype (float16: except the last few elements of a
    tensor, which its scalar loop computes in float16 steps, and the last few elements when
    ``b`` is a single broadcast element: those may differ by an ulp).  Here: both operands broadcast into one
    C-contiguous buffer of the op-math type, then BLAS ``axpy``.  Without BLAS, float32 and
    float16 compute in float64 (the product is exact there) and round once.  Integers use
    plain ``a + alpha * b``.

    >>> fused_add(np.float32([1, 2]), np.float32([4, 8]), 0.25)
    array([2., 4.], dtype=float32)
    """
    if a.dtype.kind != "f" or b.dtype.kind != "f":
        return a + int_scalar(alpha, b.dtype) * b
    dt = np.result_type(a, b)
    work = _F32 if dt.itemsize < 4 else dt
    alpha = work.type(dt.type(alpha))  # (PyTorch rounds alpha to the tensor's dtype first)
    if work in _KERNELS:
        shape = a.shape if a.shape == b.shape else np.broadcast_shapes(a.shape, b.shape)
        out = np.empty(shape, work)
        out[...] = a
        if b.shape != shape or b.dtype != work or not b.flags.c_contiguous:
            b = np.ascontiguousarray(np.broadcast_to(b, shape), dtype=work)
        axpy_(out, b, alpha)
        return out if work is dt else out.astype(dt)
    if dt.itemsize < 8:
        wide = np.add(a, np.multiply(b, work.type(alpha), dtype=np.float64), dtype=np.float64)
        return wide.astype(dt)
    return a + dt.type(alpha) * b


# ---------------------------------------------------------------------- skinny float32 GEMMs
# OpenBLAS's sgemm is slow when the row-major result has few rows (a small batch: 4-48) and
# the other operand is a big weight matrix: there ``x @ w.T`` costs ~1.5x what the same
# product computed the other way round, ``(w @ x.T).T``, costs (measured on this project's
# machines, 1 thread, cold or warm cache; see bench/README.md).  The turned product comes
# out transposed, so it is copied into a C-contiguous result (the copy of a few rows is
# cheap, and the bias add rides on it).  float64 shows no such gap, nor do other BLAS
# libraries we know of, so the turn is made only for float32 with NumPy's OpenBLAS.
_TURN = _F32 in _KERNELS


def _turn_pays(m: int, k: int, n: int, b_turned: bool) -> bool:
    """Whether ``a (m,k) @ b (k,n)`` is faster computed as ``(b.T @ a.T).T`` (measured rule).

    ``b_turned``: ``b`` is the transposed view of a C-contiguous matrix (``w.T`` in a
    linear layer); a C-contiguous ``b`` gains only when ``k >= n``."""
    kn = k * n
    if 49 <= m <= 64:  # (with the blocked copy below: ~0.8-0.9x for a big transposed weight)
        return b_turned and kn >= 262144
    if not ((8 <= m <= 48 and kn >= 65536) or (4 <= m < 8 and kn >= 262144)):
        return False
    return b_turned or k >= n


def _transposed_copy(t: np.ndarray, out: np.ndarray, bias: np.ndarray | None) -> None:
    """``out[...] = t.T (+ bias)`` for a C-contiguous ``t`` (n, m): in blocks of 64 rows of ``t``
    once ``m`` is large (NumPy's element-by-element transposing copy is ~3x slower there)."""
    n, m = t.shape
    step = n if m < 48 else 64
    per_column = bias is not None and np.ndim(bias) == 1
    for i in range(0, n, step):
        if bias is None:
            np.copyto(out[:, i:i + step], t[i:i + step].T)
        else:
            np.add(t[i:i + step].T, bias[i:i + step] if per_column else bias, out=out[:, i:i + step])


def mm(a: np.ndarray, b: np.ndarray, bias: np.ndarray | None = None) -> np.ndarray:
    """``a @ b (+ bias)`` for 2-d arrays, through the faster orientation of the GEMM.

    >>> a = np.ones((16, 300), np.float32); w = np.ones((400, 300), np.float32)
    >>> r = mm(a, w.T, np.float32(1)); r.shape, r.flags.c_contiguous, float(r[0, 0])
    ((16, 400), True, 301.0)
    """
    # (cheapest tests first: this runs for every linear layer, most of them not skinny)
    if _TURN and b.size >= 65536 and a.ndim == 2 and 4 <= len(a) <= 64 and a.dtype is _F32 and b.dtype is _F32:
        m, k = a.shape
        n = b.shape[1]
        b_turned = b.flags.f_contiguous
        if a.flags.c_contiguous and (b_turned or b.flags.c_contiguous) and _turn_pays(m, k, n, b_turned) and (
                bias is None or bias.dtype is _F32):
            out = np.empty((m, n), _F32)
            _transposed_copy(b.T @ a.T, out, bias)
            return out
    y = a @ b
    if bias is not None:
        y += bias
    return y
