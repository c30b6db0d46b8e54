"""Op-table parts of tensor creation: asarray, range, vander, window functions (hann_window ...)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _creation as C, _dtype as D
from .._tensor import Tensor
from ._composite import _R

__all__ = ["vander", "asarray", "range", "hann_window", "hamming_window", "blackman_window", "bartlett_window",
           "kaiser_window"]


def vander(x: Tensor, N: int | None = None, increasing: bool = False) -> Tensor:
    """Vandermonde matrix of a 1-D tensor.

    >>> import retrograd as torch
    >>> torch.vander(torch.tensor([1, 2, 3]), N=3)
    tensor([[1, 1, 1],
            [4, 2, 1],
            [9, 3, 1]])
    """
    R = _R()
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    n = x.shape[0] if N is None else N
    if n < 0:
        raise RuntimeError("N must be non-negative.")
    dt = x.dtype if x.dtype != D.bool else D.int64
    if x.dtype in (D.int8, D.int16, D.int32, D.uint8, D.bool):
        dt = D.int64
    xx = x.to(dt)
    if n == 0:
        res = R.empty(x.shape[0], 0, dtype=dt)
    elif n == 1:
        res = R.ones(x.shape[0], 1, dtype=dt)
    else:
        res = R.cumprod(R.cat([R.ones(x.shape[0], 1, dtype=dt), xx.unsqueeze(1).expand(-1, n - 1)], 1), 1)
    return res if increasing else R.flip(res, (1,))


def asarray(obj, *, dtype=None, device=None, copy: bool | None = None, requires_grad: bool = False) -> Tensor:
    """``torch.asarray``: share memory with tensors / arrays when possible, else copy.

    >>> import retrograd as torch, numpy as np
    >>> a = np.zeros(2, dtype=np.float32); t = torch.asarray(a); a[0] = 1; t
    tensor([1., 0.])
    """
    if isinstance(obj, Tensor):
        out = obj
        if dtype is not None and dtype != obj.dtype:
            if copy is False:
                raise ValueError("can't alias tensor with a different dtype")
            out = obj.to(dtype)
        elif copy:
            out = obj.clone()
    elif isinstance(obj, np.ndarray) and copy is not True and (dtype is None or D.from_numpy_dtype(obj.dtype) == dtype):
        out = C.from_numpy(obj)
    else:
        if copy is False and not isinstance(obj, np.ndarray):
            arr = np.asarray(obj)
            if arr is not obj:
                raise ValueError(f"can't alias {type(obj).__name__} without copying")
        out = C.tensor(np.array(obj._data if isinstance(obj, Tensor) else obj) if isinstance(obj, np.ndarray)
                       else obj, dtype=dtype)
    if requires_grad:
        out = out.detach().requires_grad_(True) if out is obj else out.requires_grad_(True)
    return out


def range(start, end, step=1, *, dtype=None, device=None, requires_grad: bool = False,  # noqa: A001
          out=None) -> Tensor:
    """Deprecated ``torch.range``: floats from start to end *inclusive*.

    >>> import retrograd as torch, warnings
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore"); torch.range(0, 1, 0.5)
    tensor([0.0000, 0.5000, 1.0000])
    """
    if out is not None:  # (a creation op: it computes in ``out``'s dtype)
        from ._out import write_out

        return write_out("range", _range(start, end, step, dtype=dtype or out.dtype), out, "same")
    return _range(start, end, step, dtype=dtype, device=device, requires_grad=requires_grad)


def _range(start, end, step=1, *, dtype=None, device=None, requires_grad: bool = False) -> Tensor:
    """The work of :func:`range` (without ``out=``)."""
    warnings.warn("torch.range is deprecated and will be removed in a future release because its behavior is "
                  "inconsistent with Python's range builtin. Instead, use torch.arange, which produces values "
                  "in [start, end).", UserWarning, stacklevel=3)
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if (end - start) / step < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    n = int(np.floor((end - start) / step)) + 1
    dt = dtype or D.get_default_dtype()
    data = (start + np.arange(n, dtype=np.float64) * step).astype(dt.np)
    return C._finish(data, requires_grad)


# ------------------------------------------------------------------ window functions
def _window(name: str, window_length: int, periodic: bool, dtype, requires_grad: bool, fn) -> Tensor:
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dt = D.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        cname = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}.get(dt.name, dt.name)
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={cname}, device=cpu, "
                           "layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if window_length == 0:
        arr = np.zeros(0)
    elif window_length == 1:
        arr = np.ones(1)
    else:
        n = window_length + 1 if periodic else window_length
        # computed in the target dtype, step by step as torch does, so float32 rounding matches
        arr = fn(np.arange(n, dtype=dt.np), n)[:window_length]
    t = _R().tensor(arr.astype(dt.np), dtype=dt)
    return t.requires_grad_(True) if requires_grad else t


def _cos_window(alpha: float, beta: float):
    def fn(k, n):
        t = k.dtype.type
        return np.cos(k * t(2 * math.pi / (n - 1))) * t(-beta) + t(alpha)

    return fn


def _blackman(k, n):
    t = k.dtype.type
    w = k * t(math.pi / (n - 1))
    return np.cos(w * t(4)) * t(0.08) - np.cos(w * t(2)) * t(0.5) + t(0.42)


def _bartlett(k, n):
    t = k.dtype.type
    w = k * t(2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w[half:] = w[half:] * t(-1) + t(2)
    return w


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False) -> Tensor:
    """Hann window.

    >>> import retrograd as torch
    >>> torch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, requires_grad, _cos_window(0.5, 0.5))


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Hamming window (``alpha - beta cos(2 pi n / (N - 1))``).

    >>> import retrograd as torch
    >>> torch.hamming_window(3, False, dtype=torch.float64)
    tensor([0.0800, 1.0000, 0.0800], dtype=torch.float64)
    """
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, _cos_window(alpha, beta))


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """Blackman window.

    >>> import retrograd as torch
    >>> torch.blackman_window(3, False, dtype=torch.float64).round(decimals=4).abs()
    tensor([0., 1., 0.], dtype=torch.float64)
    """
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, _blackman)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """Bartlett (triangular) window.

    >>> import retrograd as torch
    >>> torch.bartlett_window(5, False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   _bartlett)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False) -> Tensor:
    """Kaiser window with shape parameter ``beta``.

    >>> import retrograd as torch
    >>> torch.kaiser_window(3, False, 0.0)
    tensor([1., 1., 1.])
    """
    def fn(k, n):
        alpha = (n - 1) / 2.0
        k = k.astype(np.float64)
        return np.i0(beta * np.sqrt(np.clip(1 - ((k - alpha) / alpha) ** 2, 0, None))) / np.i0(beta)

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, fn)
