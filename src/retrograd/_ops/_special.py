"""Special functions in plain NumPy: erf, erfc, erfinv, lgamma, digamma, trigamma, zeta.

retrograd needs only NumPy at run time, so these are computed here rather than taken
from SciPy.  Everything works in float64 (callers cast back to the input dtype); edge
values (0, negative integers, +-inf, NaN) follow PyTorch's CPU kernels.

The methods are textbook ones, chosen so that one idea serves several functions:
series near zero and Laplace's continued fraction for erf/erfc, shifting the argument up
with the recurrence and then the asymptotic (Stirling / Euler-Maclaurin) series for the
gamma family.  Float64 accuracy is ~1e-15 relative (erfc near 2: ~3e-13).
"""
from __future__ import annotations

import math

import numpy as np

__all__ = ["erf", "erfc", "erfinv", "lgamma", "digamma", "trigamma", "zeta", "polygamma"]

_SQRT_PI = math.sqrt(math.pi)
_ERF_SPLIT = 2.0  # |x| below: Taylor series for erf; above: continued fraction for erfc


def _f64(x) -> np.ndarray:
    return np.asarray(x, dtype=np.float64)


# erf(x) = x * sum_k c_k x^(2k), c_k = 2/sqrt(pi) (-1)^k / (k! (2k+1)); 45 terms reach 1e-16 for |x| < 2.
_ERF_TAYLOR = tuple(2 / _SQRT_PI * (-1) ** k / (math.factorial(k) * (2 * k + 1)) for k in range(45))


def _erf_series(x: np.ndarray) -> np.ndarray:
    u = x * x
    p = np.full_like(x, _ERF_TAYLOR[-1])
    for c in _ERF_TAYLOR[-2::-1]:  # Horner, in place
        p *= u
        p += c
    p *= x
    return p


def _erfc_cf(x: np.ndarray, terms: int) -> np.ndarray:
    # Laplace: erfc(x) = exp(-x^2)/sqrt(pi) / (x + (1/2)/(x + 1/(x + (3/2)/(x + ...)))), x >= 2;
    # evaluated bottom-up.  60 terms reach 1e-16 at x = 2, 30 at x = 3.
    f = x.copy()
    for k in range(terms, 0, -1):
        np.divide(k / 2, f, out=f)
        f += x
    f *= _SQRT_PI
    return np.exp(-x * x) / f


def _erf_parts(x: np.ndarray):
    """(erf, erfc) of float64 ``x``, each accurate where it is the small one."""
    ax = np.abs(x)
    erf_abs = np.empty_like(x)  # erf(|x|)
    erfc_abs = np.empty_like(x)  # erfc(|x|)
    small = ax < _ERF_SPLIT
    if small.any():
        s = _erf_series(ax[small])
        erf_abs[small] = s
        erfc_abs[small] = 1 - s
    for lo, hi, terms in ((_ERF_SPLIT, 3.0, 60), (3.0, np.inf, 30)):
        m = (ax >= lo) & (ax < hi)
        if m.any():
            c = _erfc_cf(ax[m], terms)
            erfc_abs[m] = c
            erf_abs[m] = 1 - c
    odd = ~(ax < np.inf)  # inf and NaN
    erf_abs[odd] = np.where(np.isnan(ax[odd]), np.nan, 1.0)
    erfc_abs[odd] = np.where(np.isnan(ax[odd]), np.nan, 0.0)
    erf_v = np.copysign(erf_abs, x)
    erfc_v = np.where(x < 0, 2 - erfc_abs, erfc_abs)
    return erf_v, erfc_v, erfc_abs


def erf(x) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _erf_parts(_f64(x))[0]


def erfc(x) -> np.ndarray:
    with np.errstate(all="ignore"):
        return _erf_parts(_f64(x))[1]


def erfinv(y) -> np.ndarray:
    """Inverse of erf on [-1, 1]: +-inf at +-1, NaN outside."""
    y = _f64(y)
    with np.errstate(all="ignore"):
        # Winitzki's closed form (relative error ~2e-3) as the start ...
        a = 0.147
        ln = np.log1p(-y * y)
        t = 2 / (math.pi * a) + ln / 2
        x = np.copysign(np.sqrt(np.sqrt(t * t - ln / a) - t), y)
        # ... then Halley steps on f(x) = erf(x) - y (cubic convergence).
        inside = np.abs(y) < 1
        x = np.where(inside, x, 0.0)
        ay = np.abs(y)
        tail = ay > 0.5
        for _ in range(2):  # from 2e-3: 1e-8, then below float64's resolution
            e, _, ec_abs = _erf_parts(x)
            # Near |y| = 1 the residual is taken through erfc: 1 - |y| is exact there.
            f = np.where(tail, np.sign(y) * ((1 - ay) - ec_abs), e - y)
            u = f / ((2 / _SQRT_PI) * np.exp(-x * x))
            x = x - u / (1 + x * u)
        x = np.where(inside, x, np.where(np.abs(y) == 1, np.copysign(np.inf, y), np.nan))
    return x


# ---------------------------------------------------------------- gamma family
def _sinpi(x: np.ndarray) -> np.ndarray:
    """sin(pi x) with the argument reduced first (exact zeros at integers)."""
    r = x - 2 * np.round(x / 2)  # in [-1, 1]
    s = np.sin(math.pi * r)
    return np.where(r == np.round(r), 0.0, s)


def _lgamma_pos(x: np.ndarray) -> np.ndarray:
    """log Gamma(x) for x >= 0 (inf at 0)."""
    # Shift up to z >= 15 with log Gamma(x) = log Gamma(x + n) - log(x (x+1) ... (x+n-1)) ...
    # (at most 15 factors, each < 15: the product cannot overflow)
    z = x.copy()
    prod = np.ones_like(x)
    for _ in range(15):
        m = z < 15
        if not m.any():
            break
        prod = np.where(m, prod * z, prod)
        z = np.where(m, z + 1, z)
    logprod = np.log(prod)
    # ... then Stirling's series; the z^-13 term is below 1e-17 for z >= 15.
    iz = 1 / z
    iz2 = iz * iz
    series = iz * (1 / 12 + iz2 * (-1 / 360 + iz2 * (1 / 1260 + iz2 * (-1 / 1680 + iz2 * (
        1 / 1188 + iz2 * (-691 / 360360 + iz2 * (1 / 156)))))))
    res = (z - 0.5) * np.log(z) - z + 0.5 * math.log(2 * math.pi) + series - logprod
    return np.where(np.isinf(x), np.inf, res)


def lgamma(x) -> np.ndarray:
    """log |Gamma(x)|: inf at 0, negative integers and +-inf (as PyTorch)."""
    x = _f64(x)
    with np.errstate(all="ignore"):
        neg = x < 0
        pos_part = _lgamma_pos(np.where(neg, 1 - x, x))
        # reflection: Gamma(x) Gamma(1-x) = pi / sin(pi x)
        refl = math.log(math.pi) - np.log(np.abs(_sinpi(x))) - pos_part
        res = np.where(neg, refl, pos_part)
        # tiny negative x: sin(pi x) loses its digits in the subnormal range; use the series
        # log Gamma(x) = -log|x| - gamma x + O(x^2) instead
        res = np.where(neg & (x > -1e-10), -np.log(-x) - 0.5772156649015329 * x, res)
        res = np.where(neg & (x == np.floor(x)), np.inf, res)
        res = np.where((x == 1) | (x == 2), 0.0, res)  # exact zeros, as PyTorch
    return res


# Bernoulli-number coefficients B_2k / (2k) of the digamma asymptotic series.
_PSI_COEF = (1 / 12, -1 / 120, 1 / 252, -1 / 240, 1 / 132, -691 / 32760, 1 / 12)


def digamma(x) -> np.ndarray:
    """psi(x) = d/dx log Gamma(x); +-inf at +-0 (sign flipped), NaN at negative integers."""
    x = _f64(x)
    with np.errstate(all="ignore"):
        neg = x < 0
        # reflection for x < 0: psi(x) = psi(1 - x) - pi / tan(pi * frac(x))
        frac = x - np.trunc(x)
        z = np.where(neg, 1 - x, x)
        acc = np.zeros_like(x)
        for _ in range(10):  # push z up to >= 10
            m = z < 10
            if not m.any():
                break
            acc = np.where(m, acc - 1 / z, acc)
            z = np.where(m, z + 1, z)
        iz2 = 1 / (z * z)
        poly = 0.0
        for c in reversed(_PSI_COEF):
            poly = poly * iz2 + c
        res = acc + np.log(z) - 0.5 / z - np.where(z < 1e17, iz2 * poly, 0.0)
        res = np.where(neg, res - math.pi / np.tan(math.pi * frac), res)
        res = np.where(x == 0, np.copysign(np.inf, -x), res)
        res = np.where(neg & (x == np.trunc(x)), np.nan, res)
    return res


def trigamma(x) -> np.ndarray:
    """psi'(x), PyTorch's algorithm: reflection below 0.5, six recurrence steps, asymptotics.

    float32 input is computed in float32, as PyTorch does: its values near the poles
    (sin(pi x) not reduced) and for huge negative x (pi x overflows: NaN) depend on it.
    """
    x = np.asarray(x)
    if x.dtype != np.float32:
        x = _f64(x)
    with np.errstate(all="ignore"):
        refl = x < 0.5
        s = np.sin(math.pi * x)  # not reduced: PyTorch's values near the poles are finite
        res = np.where(refl, -(math.pi * math.pi) / (s * s), 0.0)
        z = np.where(refl, 1 - x, x)
        for _ in range(6):
            res = res + 1 / (z * z)
            z = z + 1
        ixx = 1 / (z * z)
        res = res + (1 + 1 / (2 * z) + ixx * (1 / 6 - ixx * (1 / 30 - ixx * (1 / 42)))) / z
        res = np.where(refl, -res, res)
    return res


# (2k)! / B_2k for the Euler-Maclaurin tail of the Hurwitz zeta function.
_ZETA_A = (12.0, -720.0, 30240.0, -1209600.0, 47900160.0, -1.8924375803183791606e9, 7.47242496e10,
           -2.950130727918164224e12, 1.1646782814350067249e14, -4.5979787224074726105e15,
           1.8152105401943546773e17, -7.1661652561756670113e18)


def zeta(s: float, q) -> np.ndarray:
    """Hurwitz zeta sum_k (q + k)^-s for a scalar s > 1 (PyTorch's edge values)."""
    q = _f64(q)
    with np.errstate(all="ignore"):
        pole = (q <= 0) & (q == np.floor(q))  # includes -inf
        # direct sum until q + k > 9 (at least 9 terms), then Euler-Maclaurin
        total = np.power(q, -s)
        a = np.where(pole | np.isnan(q), 10.0, q)
        b = np.zeros_like(q)
        k = 0
        while True:
            m = (a <= 9.0) | (k < 9)
            m &= np.isfinite(a)
            if not m.any():
                break
            a = np.where(m, a + 1, a)
            b = np.where(m, np.power(a, -s), b)
            total = np.where(m, total + b, total)
            k += 1
        w = a
        total = total + b * w / (s - 1) - 0.5 * b
        fac = 1.0
        kk = 0.0
        bb = b
        for coef in _ZETA_A:
            fac = fac * (s + kk)
            bb = bb / w
            total = total + fac * bb / coef
            kk += 1
            fac = fac * (s + kk)
            bb = bb / w
            kk += 1
        # (q = +inf gives NaN, from inf * 0 in the tail, as in PyTorch)
        total = np.where(pole, np.inf, total)
        total = np.where(np.isnan(q), np.nan, total)
        if float(s) != math.floor(s):
            total = np.where((q < 0) & ~pole, np.nan, total)
    return total


def polygamma(n: int, x) -> np.ndarray:
    """The n-th derivative of digamma (n >= 0)."""
    if n == 0:
        return digamma(x)
    if n == 1:
        return trigamma(x)
    sign = 1.0 if n % 2 else -1.0
    return sign * math.factorial(n) * zeta(n + 1.0, x)
