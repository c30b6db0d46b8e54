"""Float64 NumPy kernels for torch.special's Bessel-type functions that PyTorch does not
differentiate: bessel_j0/j1, bessel_y0/y1, modified_bessel_k0/k1 (plain and scaled by e^x) and
airy_ai.  No SciPy; each method is textbook:

* J0, J1, Y0, Y1 for 1e-5 <= |x| <= 25: Miller's backward recurrence for J_m(x), normalised by
  1 = J0 + 2 (J2 + J4 + ...); Y0 from Neumann's series
  Y0 = (2/pi)(ln(x/2) + gamma) J0 - (4/pi) sum_k (-1)^k J_2k / k, and Y1 = -Y0' term by term.
  Below, the leading terms of the power series; above, Hankel's asymptotic expansion
  (its smallest term is about e^-2x, far below double precision there).
* K0, K1 for x <= 2: their power series (Abramowitz & Stegun 9.6.11/13); for 2 < x <= 25 the
  trapezoidal rule on e^x K_nu(x) = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt (geometric
  convergence: the integrand is analytic in a strip around the real axis); above, the
  asymptotic expansion of e^x K_nu(x).
* Ai: Maclaurin series for -7 <= x <= 2; for x > 2 Ai = sqrt(x/3) K_1/3(zeta) / pi with
  zeta = 2 x^1.5 / 3 (K as above); for x < -6.5 the oscillatory asymptotic expansion.
"""
from __future__ import annotations

import math

import numpy as np

_EULER = 0.57721566490153286061
_TWO_OVER_PI = 2 / math.pi
_SQRT1_2 = math.sqrt(0.5)
_SQRT_PI = math.sqrt(math.pi)
_MILLER_MAX = 25.0
_TINY = 1e-5


def _f(x) -> np.ndarray:
    return np.array(x, dtype=np.float64, ndmin=0, copy=True)


# ---------------------------------------------------------------- J0, J1, Y0, Y1
def _miller(x: np.ndarray):
    """J0, J1 and Neumann's sums for Y0 and Y1 at 0 < x <= 25 (one backward recurrence)."""
    n = int(1.3 * float(x.max()) + 40) // 2 * 2 + 2  # even; J_n(x) is far below 1e-17 there
    j_next = np.zeros_like(x)       # j_{m+1}
    j = np.full_like(x, 1e-30)      # j_m, unnormalised
    norm = np.zeros_like(x)         # J0 + 2 sum J_2k
    s0 = np.zeros_like(x)           # sum_k (-1)^k J_2k / k
    s1 = np.zeros_like(x)           # sum_k (-1)^k (J_2k-1 - J_2k+1) / k
    j1 = np.zeros_like(x)
    inv = 1 / x
    for m in range(n, 0, -1):
        if m % 2 == 0:
            k = m // 2
            norm += 2 * j
            s0 += (-1) ** k / k * j
        else:
            k = (m + 1) // 2  # J_m is J_{2k-1} for this k and J_{2(k-1)+1} for k - 1
            c = (-1) ** k / k + ((-1) ** k / (k - 1) if k > 1 else 0.0)
            s1 += c * j
        j_prev = 2 * m * inv * j - j_next  # J_{m-1} = (2m/x) J_m - J_{m+1}
        j_next, j = j, j_prev
        if m == 1:
            j1 = j_next
        big = np.abs(j) > 1e200  # rescale everything (the recurrence is linear)
        if big.any():
            sc = np.where(big, 1e-200, 1.0)
            j *= sc
            j_next *= sc
            norm *= sc
            s0 *= sc
            s1 *= sc
    norm += j
    return j / norm, j1 / norm, s0 / norm, s1 / norm


def _hankel(x: np.ndarray, mu: float):
    """Hankel's P and Q for order nu (mu = 4 nu^2) at large x."""
    p = np.ones_like(x)
    q = np.zeros_like(x)
    t = np.ones_like(x)
    for k in range(1, 40):
        t = t * ((mu - (2 * k - 1) ** 2) / (8 * k)) / x
        if k % 2:
            q += t if k % 4 == 1 else -t
        else:
            p += t if k % 4 == 0 else -t
    return p, q


def _bessel_jy(x: np.ndarray, which: str) -> np.ndarray:
    """J0 / J1 / Y0 / Y1 (``which``) for x >= 0 (NaN passes through)."""
    out = np.full_like(x, np.nan)
    small = (x > 0) & (x < _TINY)
    mid = (x >= _TINY) & (x <= _MILLER_MAX)
    large = (x > _MILLER_MAX) & np.isfinite(x)
    if small.any():
        z = x[small]
        lg = np.log(z) - math.log(2) + _EULER  # (z / 2 would underflow for the smallest subnormals)
        if which == "j0":
            out[small] = 1 - z * z / 4
        elif which == "j1":
            out[small] = z / 2 - z ** 3 / 16
        elif which == "y0":
            out[small] = _TWO_OVER_PI * (lg * (1 - z * z / 4) + z * z / 4)
        else:
            out[small] = -_TWO_OVER_PI / z + z / math.pi * (lg - 0.5)
    if mid.any():
        z = x[mid]
        j0, j1, s0, s1 = _miller(z)
        lg = np.log(z / 2) + _EULER
        out[mid] = {"j0": lambda: j0, "j1": lambda: j1,
                    "y0": lambda: _TWO_OVER_PI * (lg * j0 - 2 * s0),
                    "y1": lambda: _TWO_OVER_PI * (lg * j1 - j0 / z + s1)}[which]()
    if large.any():
        z = x[large]
        c, s = np.cos(z), np.sin(z)
        amp = np.sqrt(_TWO_OVER_PI / z)
        if which in ("j0", "y0"):
            p, q = _hankel(z, 0.0)
            cx, sx = (c + s) * _SQRT1_2, (s - c) * _SQRT1_2  # cos, sin of x - pi/4
        else:
            p, q = _hankel(z, 4.0)
            cx, sx = (s - c) * _SQRT1_2, -(s + c) * _SQRT1_2  # cos, sin of x - 3 pi/4
        out[large] = amp * (p * cx - q * sx if which[0] == "j" else p * sx + q * cx)
    # (+-inf: NaN, as PyTorch's kernels return)
    if which[0] == "j":
        out[x == 0] = 1.0 if which == "j0" else 0.0
    else:
        out[x == 0] = -np.inf
    return out


def bessel_j0(x):
    x = _f(x)
    return _bessel_jy(np.abs(x), "j0")


def bessel_j1(x):
    x = _f(x)
    r = _bessel_jy(np.abs(x), "j1")
    return np.where(x < 0, -r, r)


def bessel_y0(x):
    x = _f(x)
    return np.where(x < 0, np.nan, _bessel_jy(np.where(x < 0, 1.0, x), "y0"))


def bessel_y1(x):
    x = _f(x)
    return np.where(x < 0, np.nan, _bessel_jy(np.where(x < 0, 1.0, x), "y1"))


# ---------------------------------------------------------------- K0, K1 and e^x K_nu
def _k_series(z: np.ndarray, nu: int) -> np.ndarray:
    """K0 / K1 at 0 < z <= 2 (power series)."""
    y = z * z / 4
    lg = np.log(z / 2)
    term = np.ones_like(z)  # (z^2/4)^k / (k! (k + nu)!)
    i_sum = np.zeros_like(z)
    k_sum = np.zeros_like(z)
    psi1 = -_EULER                # psi(k + 1)
    psi2 = -_EULER + (1 if nu else 0)  # psi(k + nu + 1)
    for k in range(30):
        i_sum += term
        k_sum += (psi1 + psi2) * term
        psi1 += 1 / (k + 1)
        psi2 += 1 / (k + 1 + nu)
        term = term * y / ((k + 1) * (k + 1 + nu))
    if nu == 0:
        return -lg * i_sum + k_sum / 2  # -(ln(z/2) + gamma) I0 + sum H_k ... (folded into psi)
    return 1 / z + lg * (z / 2) * i_sum - (z / 4) * k_sum


def _k_scaled_trapezoid(z: np.ndarray, nu: float) -> np.ndarray:
    """e^z K_nu(z) for 1 <= z <= 25: the trapezoidal rule with step 0.1 (error ~1e-17)."""
    h = 0.1
    acc = 0.5 * np.ones_like(z)  # t = 0 counts half
    t_end = math.acosh(1 + 745 / float(z.min()))
    for i in range(1, int(t_end / h) + 2):
        t = i * h
        acc += np.exp(-z * (math.cosh(t) - 1)) * math.cosh(nu * t)
    return h * acc


def _k_scaled_asymptotic(z: np.ndarray, nu: float) -> np.ndarray:
    """e^z K_nu(z) for z > 25: sqrt(pi / 2z) sum_k a_k(nu) / z^k."""
    mu = 4 * nu * nu
    s = np.ones_like(z)
    t = np.ones_like(z)
    for k in range(1, 40):
        t = t * ((mu - (2 * k - 1) ** 2) / (8 * k)) / z
        s += t
    return np.sqrt(math.pi / (2 * z)) * s


def _k_scaled(z: np.ndarray, nu: float) -> np.ndarray:
    """e^z K_nu(z) for z >= 1 (finite)."""
    out = np.empty_like(z)
    lo = z <= _MILLER_MAX
    if lo.any():
        out[lo] = _k_scaled_trapezoid(z[lo], nu)
    if (~lo).any():
        out[~lo] = _k_scaled_asymptotic(z[~lo], nu)
    return out


def _modified_k(x: np.ndarray, nu: int, scaled: bool) -> np.ndarray:
    out = np.full_like(x, np.nan)  # x < 0 and NaN
    small = (x > 0) & (x <= 2)
    big = (x > 2) & np.isfinite(x)
    if small.any():
        z = x[small]
        k = _k_series(z, nu)
        out[small] = k * np.exp(z) if scaled else k
    if big.any():
        z = x[big]
        k = _k_scaled(z, float(nu))
        out[big] = k if scaled else k * np.exp(-z)
    out[x == 0] = np.inf
    out[x == np.inf] = 0.0
    return out


def modified_bessel_k0(x):
    return _modified_k(_f(x), 0, False)


def modified_bessel_k1(x):
    return _modified_k(_f(x), 1, False)


def scaled_modified_bessel_k0(x):
    return _modified_k(_f(x), 0, True)


def scaled_modified_bessel_k1(x):
    return _modified_k(_f(x), 1, True)


# ---------------------------------------------------------------- Airy Ai
_AI0 = 1 / (3 ** (2 / 3) * math.gamma(2 / 3))    # Ai(0)
_DAI0 = 1 / (3 ** (1 / 3) * math.gamma(1 / 3))   # -Ai'(0)
_AIRY_NEG = -7.0


def _airy_maclaurin(x: np.ndarray) -> np.ndarray:
    x3 = x * x * x
    f = np.ones_like(x)
    g = x.copy()
    tf, tg = f.copy(), g.copy()
    for k in range(1, 80):
        tf = tf * x3 / ((3 * k - 1) * (3 * k))
        tg = tg * x3 / ((3 * k) * (3 * k + 1))
        f += tf
        g += tg
    return _AI0 * f - _DAI0 * g


def _airy_negative(x: np.ndarray) -> np.ndarray:
    """Ai(x) for x < -7: z^-1/4 (cos(zeta - pi/4) P + sin(zeta - pi/4) Q) / sqrt(pi), z = -x."""
    z = -x
    zeta = 2 / 3 * z * np.sqrt(z)
    p = np.ones_like(z)
    q = np.zeros_like(z)
    u = 1.0
    t = np.ones_like(z)
    last = np.ones_like(z)
    for k in range(1, 40):
        u = u * (6 * k - 5) * (6 * k - 3) * (6 * k - 1) / (216 * k * (2 * k - 1))
        t = t / zeta
        term = u * t
        # an asymptotic series: stop each element's sum at its smallest term
        term = np.where(term < last, term, 0.0)
        last = np.where(term > 0, term, 0.0)
        if k % 2:
            q += term if k % 4 == 1 else -term
        else:
            p += term if k % 4 == 0 else -term
    c, s = np.cos(zeta), np.sin(zeta)
    cx, sx = (c + s) * _SQRT1_2, (s - c) * _SQRT1_2  # cos, sin of zeta - pi/4
    return (cx * p + sx * q) / (_SQRT_PI * np.sqrt(np.sqrt(z)))


def airy_ai(x):
    x = _f(x)
    out = np.full_like(x, np.nan)
    mac = (x >= _AIRY_NEG) & (x <= 2)
    pos = (x > 2) & np.isfinite(x)
    neg = (x < _AIRY_NEG) & np.isfinite(x)
    if mac.any():
        out[mac] = _airy_maclaurin(x[mac])
    if pos.any():
        z = x[pos]
        zeta = 2 / 3 * z * np.sqrt(z)
        with np.errstate(under="ignore"):
            out[pos] = np.sqrt(z / 3) / math.pi * _k_scaled(zeta, 1 / 3) * np.exp(-zeta)
    if neg.any():
        out[neg] = _airy_negative(x[neg])
    return out  # (+-inf: NaN, as PyTorch's kernel returns)
