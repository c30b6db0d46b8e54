"""Float64 NumPy kernels for ``special_fns.py`` (no SciPy at run time).

Each takes and returns float64 arrays; edge values (0, +-inf, NaN, poles) follow PyTorch's
CPU kernels.  Methods, all textbook:

* ndtr / log_ndtr / erfcx: through erf/erfc of ``_special`` and Laplace's continued fraction
  for erfc, kept without its ``exp(-x**2)`` factor so erfcx cannot underflow;
* ndtri: Acklam's rational start (~1e-9), then Halley steps against ndtr's erfc;
* i0e / i1e: power series (|x| <= 30), the Hankel asymptotic series beyond;
* zeta: ``_special.zeta`` (Euler-Maclaurin) per distinct exponent;
* gammainc / gammaincc: the power series for x < a + 1, Legendre's continued fraction
  (modified Lentz) otherwise, each giving the function that is not close to 1.
"""
from __future__ import annotations

import math

import numpy as np

from . import _special

_SQRT_PI = math.sqrt(math.pi)
_SQRT1_2 = math.sqrt(0.5)
_SQRT_2PI = math.sqrt(2 * math.pi)


def _f(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


# ---------------------------------------------------------------- entr, xlog1py
def entr(x):
    x = _f(x)
    r = -x * np.log(np.where(x > 0, x, 1.0))
    r = np.where(x == 0, 0.0, r)
    r = np.where(x < 0, -np.inf, r)
    return np.where(np.isnan(x), np.nan, np.where(np.isinf(x) & (x > 0), -np.inf, r))


def xlog1py(x, y):
    x, y = np.broadcast_arrays(_f(x), _f(y))
    r = x * np.log1p(y)
    r = np.where(x == 0, 0.0, r)
    return np.where(np.isnan(y), np.nan, r)


# ---------------------------------------------------------------- normal distribution, erfcx
def ndtr(x):
    return 0.5 * _special.erfc(-_f(x) * _SQRT1_2)


def _erfcx_cf(x: np.ndarray, terms: int) -> np.ndarray:
    # erfc(x) exp(x^2) = 1 / (sqrt(pi) (x + (1/2)/(x + 1/(x + (3/2)/(x + ...))))), x >= 2
    f = x.copy()
    for k in range(terms, 0, -1):
        f = x + (k / 2) / f
    return 1 / (_SQRT_PI * f)


def _erfcx_nonneg(x: np.ndarray) -> np.ndarray:
    # exact enough below 2: erfc(2) is not tiny yet (an array even for 0-d x: patched in place below)
    out = np.asarray(np.exp(x * x) * _special.erfc(x), dtype=np.float64)
    for lo, hi, terms in ((2.0, 3.0, 60), (3.0, np.inf, 30)):
        m = (x >= lo) & (x < hi)
        if m.any():
            out[m] = _erfcx_cf(x[m], terms)
    return np.where(x == np.inf, 0.0, out)


def erfcx(x):
    x = _f(x)
    pos = _erfcx_nonneg(np.abs(x))
    # reflection: erfcx(-x) = 2 exp(x^2) - erfcx(x)  (inf once exp(x^2) overflows)
    neg = 2 * np.exp(x * x) - pos
    r = np.where(x < 0, neg, pos)
    return np.where(np.isnan(x), np.nan, r)


def log_ndtr(x):
    x = _f(x)
    t = x * _SQRT1_2
    # left tail: log(erfc(-t)/2) = log(erfcx(-t)/2) - t^2, which cannot underflow
    left = np.log(erfcx(-t) / 2) - t * t
    right = np.log1p(-_special.erfc(t) / 2)
    return np.where(x < -1, left, right)


_ACKLAM_A = (-3.969683028665376e+01, 2.209460984245205e+02, -2.759285104469687e+02,
             1.383577518672690e+02, -3.066479806614716e+01, 2.506628277459239e+00)
_ACKLAM_B = (-5.447609879822406e+01, 1.615858368580409e+02, -1.556989798598866e+02,
             6.680131188771972e+01, -1.328068155288572e+01)
_ACKLAM_C = (-7.784894002430293e-03, -3.223964580411365e-01, -2.400758277161838e+00,
             -2.549671010515030e+00, 4.374664141464968e+00, 2.938163982698783e+00)
_ACKLAM_D = (7.784695709041462e-03, 3.224671290700398e-01, 2.445134137142996e+00,
             3.754408661907416e+00)


def _horner(coefs, x):
    r = np.zeros_like(x)
    for c in coefs:
        r = r * x + c
    return r


def ndtri(p):
    p = _f(p)
    # work on the lower half only: 1 - p is exact for p >= 1/2, and ndtri(1-p) = -ndtri(p)
    upper = p > 0.5
    q = np.where(upper, 1 - p, p)
    qs = np.where(q > 0, np.minimum(q, 0.5), 0.25)  # (0 and NaN are patched at the end)
    r = np.sqrt(-2 * np.log(qs))
    tail = _horner(_ACKLAM_C, r) / (_horner(_ACKLAM_D, r) * r + 1)
    c = qs - 0.5
    cc = c * c
    central = _horner(_ACKLAM_A, cc) * c / (_horner(_ACKLAM_B, cc) * cc + 1)
    in_tail = qs < 0.02425
    x = np.where(in_tail, tail, central)
    for _ in range(2):  # Newton: quadratic convergence from ~1e-9
        # centre: on ndtr(x) - q; tail: on log ndtr(x) - log q, whose step
        # ndtr / pdf = sqrt(2 pi) erfcx(-x/sqrt 2) / 2 cannot overflow
        e = 0.5 * _special.erfc(-x * _SQRT1_2) - qs
        step = np.where(in_tail, (log_ndtr(x) - np.log(qs)) * (_SQRT_2PI / 2) * erfcx(-x * _SQRT1_2),
                        e * _SQRT_2PI * np.exp(x * x / 2))
        x = np.where(np.isfinite(step), x - step, x)
    x = np.where(upper, -x, x)
    x = np.where(p == 0, -np.inf, np.where(p == 1, np.inf, x))
    return np.where((p < 0) | (p > 1) | np.isnan(p), np.nan, x)


# ---------------------------------------------------------------- exponentially scaled Bessel I
_ASYM_FROM = 30.0  # |x| above: Hankel's series (its error ~exp(-2|x|) is far below float64's)


def _bessel_i_series(x: np.ndarray, order: int) -> np.ndarray:
    """I_order(x) (order 0 or 1) by its power series; stops once a term no longer changes the sum
    (at most 500 terms: enough for any argument whose result float64 can hold)."""
    half = x / 2
    term = np.ones_like(x) if order == 0 else half.copy()
    total = term.copy()
    q = half * half
    for k in range(1, 500):
        term = term * q / (k * (k + order))
        total = total + term
        if np.all(np.abs(term) <= 1e-17 * np.abs(total)):
            break
    return total


def _bessel_i_scaled_asym(ax: np.ndarray, order: int) -> np.ndarray:
    """I_order(x) exp(-x) for large x > 0 (Hankel)."""
    mu = 4.0 * order * order
    term = np.ones_like(ax)
    total = term.copy()
    for k in range(1, 40):
        term = term * -(mu - (2 * k - 1) ** 2) / (8 * k * ax)
        total = total + term
    return total / np.sqrt(2 * math.pi * ax)


def _scaled_i(x, order: int) -> np.ndarray:
    x = _f(x)
    ax = np.abs(x)
    small = ax <= _ASYM_FROM
    out = np.empty_like(ax)
    if small.any():
        xs = ax[small]
        out[small] = np.exp(-xs) * (np.i0(xs) if order == 0 else _bessel_i_series(xs, 1))
    big = ~small & np.isfinite(ax)
    if big.any():
        out[big] = _bessel_i_scaled_asym(ax[big], order)
    out = np.where(np.isinf(ax), 0.0, out)
    if order == 1:
        out = np.copysign(out, x)
    return np.where(np.isnan(x), np.nan, out)


def i0e(x):
    return _scaled_i(x, 0)


def i1e(x):
    return _scaled_i(x, 1)


def modified_bessel_i0(x):
    x = _f(x)
    # PyTorch's kernel gives NaN at +-inf (its Chebyshev tail evaluates inf * 0)
    return np.where(np.isinf(x), np.nan, np.i0(np.where(np.isinf(x), 0.0, x)))


def modified_bessel_i1(x):
    x = _f(x)
    ax = np.abs(x)
    small = ax <= _ASYM_FROM
    out = np.empty_like(ax)
    out[small] = _bessel_i_series(ax[small], 1)
    big = ~small & np.isfinite(ax)
    out[big] = _bessel_i_scaled_asym(ax[big], 1) * np.exp(ax[big])
    out = np.copysign(out, x)
    return np.where(np.isinf(x) | np.isnan(x), np.nan, out)  # NaN at +-inf, as PyTorch


def spherical_bessel_j0(x):
    x = _f(x)
    xx = x * x
    series = 1 - xx / 6 * (1 - xx / 20 * (1 - xx / 42 * (1 - xx / 72 * (1 - xx / 110 * (1 - xx / 156)))))
    r = np.where(np.abs(x) < 0.5, series, np.sin(x) / np.where(x == 0, 1.0, x))
    return np.where(np.isinf(x), 0.0, r)


# ---------------------------------------------------------------- Hurwitz zeta
def zeta(s, q):
    s, q = np.broadcast_arrays(_f(s), _f(q))
    out = np.full(s.shape, np.nan)
    out[s == 1] = np.inf
    pole = (q <= 0) & (q == np.floor(q))
    out[np.isnan(s) & pole] = np.inf  # (PyTorch tests the pole before the exponent)
    # s = inf: q^-s is inf below 1 and 1 at 1; above 1 PyTorch's tail gives inf * 0 = NaN
    sinf = s == np.inf
    out[sinf] = np.where(q[sinf] == 1, 1.0, np.where((q[sinf] > 1) | np.isnan(q[sinf]), np.nan, np.inf))
    live = (s > 1) & np.isfinite(s)
    for v in np.unique(s[live]):
        m = s == v
        out[m] = _special.zeta(float(v), q[m])
    return out


# ---------------------------------------------------------------- incomplete gamma
_TINY = 1e-300
_EPS = 1e-16


def _gamma_prefactor(a, x):
    """x^a e^-x / Gamma(a), in logs so nothing overflows on the way."""
    return np.exp(a * np.log(x) - x - _special.lgamma(a))


def _p_series(a, x):
    ap = a.copy()
    term = 1 / a
    total = term.copy()
    live = np.arange(a.size)
    for _ in range(20000):
        ap[live] += 1
        term[live] *= x[live] / ap[live]
        total[live] += term[live]
        live = live[np.abs(term[live]) > np.abs(total[live]) * _EPS]
        if live.size == 0:
            break
    return total * _gamma_prefactor(a, x)


def _q_cf(a, x):
    b = x + 1 - a
    c = np.full_like(a, 1 / _TINY)
    d = 1 / b
    h = d.copy()
    live = np.arange(a.size)
    for i in range(1, 20000):
        an = -i * (i - a[live])
        b[live] += 2
        dl = an * d[live] + b[live]
        dl = np.where(np.abs(dl) < _TINY, _TINY, dl)
        cl = b[live] + an / c[live]
        cl = np.where(np.abs(cl) < _TINY, _TINY, cl)
        dl = 1 / dl
        delta = dl * cl
        d[live], c[live] = dl, cl
        h[live] *= delta
        live = live[np.abs(delta - 1) > _EPS]
        if live.size == 0:
            break
    return h * _gamma_prefactor(a, x)


def _igamma_pair(a, x):
    """(P, Q) of the regularised incomplete gamma functions, with PyTorch's edge values."""
    a, x = np.broadcast_arrays(_f(a), _f(x))
    a, x = a.ravel(), x.ravel()
    p = np.full(a.shape, np.nan)
    q = np.full(a.shape, np.nan)
    regular = (a > 0) & (x > 0) & np.isfinite(a) & np.isfinite(x)
    ser = regular & (x < a + 1)
    cf = regular & ~ser
    if ser.any():
        p[ser] = _p_series(a[ser], x[ser])
        q[ser] = 1 - p[ser]
    if cf.any():
        q[cf] = _q_cf(a[cf], x[cf])
        p[cf] = 1 - q[cf]
    # edges: P(a, 0) = 0; P(0, x > 0) = 1; P(a, inf) = 1; P(inf, x finite) = 0
    # (PyTorch checks x first: a NaN ``a`` still gives P(a, 0) = 0 and P(a, inf) = 1)
    nan_a = np.isnan(a)
    one = ((a == 0) & (x > 0)) | ((x == np.inf) & (((a > 0) & np.isfinite(a)) | nan_a))
    zero = ((x == 0) & ((a > 0) | nan_a)) | ((a == np.inf) & (x >= 0) & np.isfinite(x))
    p[one], q[one] = 1.0, 0.0
    p[zero], q[zero] = 0.0, 1.0
    return p, q


def gammainc(a, x):
    shape = np.broadcast_shapes(np.shape(a), np.shape(x))
    return _igamma_pair(a, x)[0].reshape(shape)


def gammaincc(a, x):
    shape = np.broadcast_shapes(np.shape(a), np.shape(x))
    return _igamma_pair(a, x)[1].reshape(shape)
