"""``torch.signal.windows``: window functions (SciPy's definitions, torch's argument checks).

Each takes the window length ``M`` and keyword-only ``sym`` (True: symmetric, for filter
design; False: periodic, for spectral analysis: the first ``M`` points of an ``M + 1`` window),
``dtype`` (float32 or float64; default: the default dtype), ``layout``, ``device`` and
``requires_grad``.

>>> import retrograd as torch
>>> torch.signal.windows.bartlett(5)
tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
"""
from __future__ import annotations

import math
from collections.abc import Iterable

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor

__all__ = ["bartlett", "blackman", "cosine", "exponential", "gaussian", "general_cosine", "general_hamming",
           "hamming", "hann", "kaiser", "nuttall"]


def _check(name: str, M: int, dtype, layout) -> D.dtype:
    from .._layout import strided

    if M < 0:
        raise ValueError(f"{name} requires non-negative window length, got M={M}")
    if layout is not None and layout is not strided:
        raise ValueError(f"{name} is implemented for strided tensors only, got: {layout}")
    dt = D.get_default_dtype() if dtype is None else dtype
    if dt not in (D.float32, D.float64):
        raise ValueError(f"{name} expects float32 or float64 dtypes, got: {dt}")
    return dt


def _make(values: np.ndarray, dt: D.dtype, device, requires_grad: bool) -> Tensor:
    import retrograd as R

    return R.tensor(values.astype(dt.np), dtype=dt, device=device, requires_grad=requires_grad)


def _points(M: int, sym: bool) -> tuple[np.ndarray, int]:
    # sample positions 0..M-1 and the length N whose symmetric window they come from
    n = M if sym else M + 1
    return np.arange(M, dtype=np.float64), n


def _window(name: str, M: int, sym: bool, dtype, layout, device, requires_grad: bool, fn) -> Tensor:
    dt = _check(name, M, dtype, layout)
    if M == 0:
        return _make(np.zeros(0), dt, device, requires_grad)
    if M == 1:
        return _make(np.ones(1), dt, device, requires_grad)
    k, n = _points(M, sym)
    return _make(fn(k, n), dt, device, requires_grad)


def general_cosine(M, *, a: Iterable, sym: bool = True, dtype=None, layout=None, device=None,
                   requires_grad: bool = False) -> Tensor:
    """Sum of cosines: ``w[n] = sum_k (-1)^k a[k] cos(2 pi k n / (N - 1))``.

    >>> import retrograd as torch
    >>> torch.signal.windows.general_cosine(3, a=[0.5, 0.5])
    tensor([0., 1., 0.])
    """
    if not isinstance(a, (list, tuple)):
        raise TypeError("Coefficients must be a list/tuple")
    if not a:
        raise ValueError("Coefficients cannot be empty")
    coeffs = [float(c) for c in a]

    def fn(k, n):
        x = 2 * math.pi * k / (n - 1)
        return sum((-1) ** i * c * np.cos(i * x) for i, c in enumerate(coeffs))

    return _window("general_cosine", M, sym, dtype, layout, device, requires_grad, fn)


def general_hamming(M, *, alpha: float = 0.54, sym: bool = True, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """``general_cosine`` with ``a = [alpha, 1 - alpha]``.

    >>> import retrograd as torch
    >>> torch.signal.windows.general_hamming(3, alpha=0.5)
    tensor([0., 1., 0.])
    """
    return general_cosine(M, a=[alpha, 1.0 - alpha], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def hamming(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Hamming window (``general_hamming`` with alpha 0.54).

    >>> import retrograd as torch
    >>> torch.signal.windows.hamming(3)
    tensor([0.0800, 1.0000, 0.0800])
    """
    return general_hamming(M, sym=sym, dtype=dtype, layout=layout, device=device, requires_grad=requires_grad)


def hann(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Hann window (``general_hamming`` with alpha 0.5).

    >>> import retrograd as torch
    >>> torch.signal.windows.hann(5)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return general_hamming(M, alpha=0.5, sym=sym, dtype=dtype, layout=layout, device=device,
                           requires_grad=requires_grad)


def blackman(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Blackman window (``general_cosine`` with a = [0.42, 0.5, 0.08]).

    >>> import retrograd as torch
    >>> torch.signal.windows.blackman(5)[1:4]
    tensor([0.3400, 1.0000, 0.3400])
    """
    return general_cosine(M, a=[0.42, 0.5, 0.08], sym=sym, dtype=dtype, layout=layout, device=device,
                          requires_grad=requires_grad)


def nuttall(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Minimum 4-term Blackman-Harris window (Nuttall's coefficients).

    >>> import retrograd as torch
    >>> torch.signal.windows.nuttall(3)
    tensor([3.6280e-04, 1.0000e+00, 3.6280e-04])
    """
    return general_cosine(M, a=[0.3635819, 0.4891775, 0.1365995, 0.0106411], sym=sym, dtype=dtype, layout=layout,
                          device=device, requires_grad=requires_grad)


def bartlett(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Triangular window reaching zero at both ends: ``1 - |2 n / (N - 1) - 1|``.

    >>> import retrograd as torch
    >>> torch.signal.windows.bartlett(3)
    tensor([0., 1., 0.])
    """
    return _window("bartlett", M, sym, dtype, layout, device, requires_grad,
                   lambda k, n: 1 - np.abs(2 * k / (n - 1) - 1))


def cosine(M: int, *, sym: bool = True, dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Sine window: ``sin(pi (n + 1/2) / N)``.

    >>> import retrograd as torch
    >>> torch.signal.windows.cosine(2)
    tensor([0.7071, 0.7071])
    """
    return _window("cosine", M, sym, dtype, layout, device, requires_grad,
                   lambda k, n: np.sin(math.pi * (k + 0.5) / n))


def exponential(M: int, *, center: float | None = None, tau: float = 1.0, sym: bool = True, dtype=None, layout=None,
                device=None, requires_grad: bool = False) -> Tensor:
    """Poisson window ``exp(-|n - center| / tau)`` (``center`` only for periodic windows;
    default: the middle).

    >>> import retrograd as torch
    >>> torch.signal.windows.exponential(3, tau=1.0)
    tensor([0.3679, 1.0000, 0.3679])
    """
    if tau <= 0:
        raise ValueError(f"Tau must be positive, got: {tau} instead.")
    if sym and center is not None:
        raise ValueError("Center must be None for symmetric windows")

    def fn(k, n):
        c = (n - 1) / 2 if center is None else center
        return np.exp(-np.abs(k - c) / tau)

    return _window("exponential", M, sym, dtype, layout, device, requires_grad, fn)


def gaussian(M: int, *, std: float = 1.0, sym: bool = True, dtype=None, layout=None, device=None,
             requires_grad: bool = False) -> Tensor:
    """Gaussian window ``exp(-((n - (N - 1) / 2) / std)^2 / 2)``.

    >>> import retrograd as torch
    >>> torch.signal.windows.gaussian(3)
    tensor([0.6065, 1.0000, 0.6065])
    """
    if std <= 0:
        raise ValueError(f"Standard deviation must be positive, got: {std} instead.")
    return _window("gaussian", M, sym, dtype, layout, device, requires_grad,
                   lambda k, n: np.exp(-(((k - (n - 1) / 2) / std) ** 2) / 2))


def kaiser(M: int, *, beta: float = 12.0, sym: bool = True, dtype=None, layout=None, device=None,
           requires_grad: bool = False) -> Tensor:
    """Kaiser window ``I0(beta sqrt(1 - (2 n / (N - 1) - 1)^2)) / I0(beta)``.

    >>> import retrograd as torch
    >>> torch.signal.windows.kaiser(3, beta=0.0)
    tensor([1., 1., 1.])
    """
    if beta < 0:
        raise ValueError(f"beta must be non-negative, got: {beta} instead.")
    return _window("kaiser", M, sym, dtype, layout, device, requires_grad,
                   lambda k, n: np.i0(beta * np.sqrt(np.clip(1 - (2 * k / (n - 1) - 1) ** 2, 0, None))) / np.i0(beta))
