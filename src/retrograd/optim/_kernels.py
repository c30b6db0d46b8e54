"""In-place NumPy kernels for optimizer updates, rounded the way PyTorch's CPU kernels round.

Optimizer updates are not differentiated, so the optimizers work on the tensors' NumPy
buffers (``t._data``) in place and bump the version counters (``touch``) instead of
going through the op table.  That keeps each update a handful of NumPy calls and lets
us reproduce PyTorch's float32 results to the last bit or so:

* PyTorch casts a Python scalar to the tensor's dtype before using it (``f32(alpha)``).
* ``add(alpha=)``, ``addcmul`` and ``lerp`` are fused multiply-adds in PyTorch's
  vectorised CPU kernels (one rounding).  For float32/float16 we emulate the fused
  operation by computing in float64 (the product of two float32 numbers is exact in
  float64) and rounding once to the tensor's dtype.
* ``addcdiv`` is ``a + (value * b) / c`` with every step rounded in the tensor's dtype.

Every function writes into ``out`` (an ndarray, never rebound, so views and arrays shared
with ``from_numpy`` stay in sync) and returns it; ``out=None`` allocates.
"""
from __future__ import annotations

import numpy as np

from .._blas import axpy_

__all__ = ["touch", "scalar", "add", "addcmul", "addcdiv", "lerp", "mul", "div", "rdiv", "sqrt", "maximum",
           "square_avg"]

_f64 = np.float64


def touch(*tensors) -> None:
    """Bump the version counter of tensors whose buffers were written in place."""
    for t in tensors:
        t._vcounter()[0] += 1


def scalar(x, like: np.ndarray):
    """A Python (or 0-d tensor) scalar cast to ``like``'s dtype, as PyTorch casts it."""
    if hasattr(x, "_data"):
        x = x._data
    return like.dtype.type(x)


def _wide(a: np.ndarray):
    """The precision to emulate a fused multiply-add in (float64 for narrower floats)."""
    return _f64 if a.dtype.itemsize < 8 else a.dtype


def _store(res, out: np.ndarray | None, like: np.ndarray) -> np.ndarray:
    if out is None:
        return res.astype(like.dtype, copy=False) if res.dtype != like.dtype else res
    np.copyto(out, res, casting="unsafe")
    return out


def add(a: np.ndarray, b: np.ndarray, alpha=1.0, out: np.ndarray | None = None) -> np.ndarray:
    """``a + alpha * b`` (``Tensor.add(b, alpha=)``), fused: one rounding."""
    if alpha == 1:
        return np.add(a, b, out=out) if out is not None else a + b
    if out is a and axpy_(a, b, scalar(alpha, a)):  # BLAS: fused, one pass
        return a
    w = _wide(a)
    res = np.add(a, np.multiply(b, scalar(alpha, a), dtype=w), dtype=w)
    return _store(res, out, a)


def addcmul(a: np.ndarray, b: np.ndarray, c: np.ndarray, value=1.0, out: np.ndarray | None = None) -> np.ndarray:
    """``a + value * b * c``: ``(value * b)`` rounded, then fused ``* c + a``."""
    w = _wide(a)
    vb = b if value == 1 else b * scalar(value, a)
    res = np.add(np.multiply(vb, c, dtype=w), a, dtype=w)
    return _store(res, out, a)


def addcdiv(a: np.ndarray, b: np.ndarray, c: np.ndarray, value=1.0, out: np.ndarray | None = None) -> np.ndarray:
    """``a + value * b / c`` with each step rounded in ``a``'s dtype."""
    vb = b if value == 1 else b * scalar(value, a)
    q = vb / c
    return np.add(a, q, out=out) if out is not None else a + q


def lerp(a: np.ndarray, b: np.ndarray, weight, out: np.ndarray | None = None) -> np.ndarray:
    """``a + weight * (b - a)``, PyTorch's two-sided formula (exact at both ends), fused."""
    wt = scalar(weight, a)
    w = _wide(a)
    diff = b - a
    if abs(wt) < 0.5:
        res = np.add(a, np.multiply(diff, wt, dtype=w), dtype=w)
    else:
        res = np.subtract(b, np.multiply(diff, a.dtype.type(1) - wt, dtype=w), dtype=w)
    return _store(res, out, a)


def mul(a: np.ndarray, s, out: np.ndarray | None = None) -> np.ndarray:
    """``a * s`` for a Python scalar ``s`` (cast to ``a``'s dtype first)."""
    return np.multiply(a, scalar(s, a), out=out)


def div(a: np.ndarray, s, out: np.ndarray | None = None) -> np.ndarray:
    """``a / s`` for a Python scalar ``s``."""
    return np.divide(a, scalar(s, a), out=out)


def rdiv(s, a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """``s / a`` for a Python scalar ``s``: PyTorch evaluates it as ``a.reciprocal() * s``."""
    return np.multiply(np.reciprocal(a), scalar(s, a), out=out)


def sqrt(a: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    return np.sqrt(a, out=out)


def maximum(a: np.ndarray, b: np.ndarray, out: np.ndarray | None = None) -> np.ndarray:
    """Elementwise maximum that propagates NaN (like ``torch.maximum``)."""
    return np.maximum(a, b, out=out)


def square_avg(v: np.ndarray, g: np.ndarray, beta) -> np.ndarray:
    """``v.mul_(beta).addcmul_(g, g, value=1 - beta)``: the running average of ``g * g``, in ``v``."""
    mul(v, beta, out=v)
    return addcmul(v, g, g, 1 - beta, out=v)
