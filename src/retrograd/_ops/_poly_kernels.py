"""NumPy kernels for torch.special's orthogonal polynomials P_n(x) (Chebyshev T/U/V/W and their
shifted forms, Hermite H/He, Laguerre L, Legendre P).

Behaviour follows PyTorch's CPU kernels: the degree is truncated to an integer (NaN, +-inf and
values beyond int64 count as negative), a negative degree gives 0, the boundary points have
closed forms, the Chebyshev families use their trigonometric forms for larger degrees inside
(-1, 1), and everything else runs the three-term recurrence in the input's own float dtype
(so overflow to inf / NaN happens where PyTorch's does).  Hermite degrees above 128 (float32)
or 512 (float64) give NaN, as in PyTorch.
"""
from __future__ import annotations

import numpy as np


def _degrees(n: np.ndarray) -> np.ndarray:
    """The int64 degree of each element of n (any dtype): truncated; NaN/inf/out of range -> -1."""
    if n.dtype.kind in "iub":
        return n.astype(np.int64)
    ok = np.isfinite(n) & (np.abs(n) < 2.0 ** 63)
    return np.where(ok, np.trunc(np.where(ok, n, 0)), -1).astype(np.int64)


def _recurrence(p: np.ndarray, q: np.ndarray, n: np.ndarray, step) -> np.ndarray:
    """P_n from P_0 = p, P_1 = q (n >= 2 everywhere): ``step(j, p_{j-1}, p_j)`` gives p_{j+1}."""
    for j in range(1, int(n.max())):
        act = n > j
        if not act.any() or np.isnan(q[act]).all():
            break  # (NaN stays NaN: PyTorch stops there too)
        r = step(j, p, q)
        p, q = np.where(act, q, p), np.where(act, r, q)
    return q


def _chebyshev(kind: str, y: np.ndarray, n: np.ndarray, trig_from: int, plus: np.ndarray,
               minus: np.ndarray, t, shifted: bool = False):
    """T/U/V/W at y (the shifted forms pass y = 2x - 1; ``plus``/``minus``: where y is +1/-1)."""
    one = t(1)
    out = np.zeros(y.shape, y.dtype)
    done = n < 0
    nf = n.astype(y.dtype)
    # values at y = +1 and y = -1 (sign by parity where the family alternates)
    odd = (n % 2) == 1
    at_p = {"t": one, "u": nf + 1, "v": one, "w": nf + nf + 1}[kind]
    at_m = {"t": np.where(odd, -one, one), "u": np.where(odd, -(nf + 1), nf + 1),
            "v": np.where(odd, -(nf + nf + 1), nf + nf + 1), "w": np.where(odd, -one, one)}[kind]
    for where, val in ((plus, at_p), (minus, at_m)):
        m = where & ~done
        out = np.where(m, val, out)
        done |= m
    with np.errstate(all="ignore"):
        th = np.arccos(np.clip(y, -1, 1))
        trig = ~done & (n > trig_from) & (np.abs(y) < 1)
        if trig.any():
            if kind == "t":
                v = np.cos(nf * th)
            elif kind == "u":
                s = np.sin(th)
                v = np.where(s != 0, np.sin((nf + 1) * th) / s, (nf + 1) * np.cos((nf + 1) * th) / y)
            elif kind == "v":
                v = np.where(np.sin(th / t(2)) != 1, np.cos((nf + t(0.5)) * th) / np.cos(th / t(2)), at_m)
            else:
                # (where cos(theta/2) rounds to 1 the shifted kernel gives +-1, the plain one 2n+1)
                v = np.where(np.cos(th / t(2)) != 1, np.sin((nf + t(0.5)) * th) / np.sin(th / t(2)),
                             at_m if shifted else np.where(y > 0, at_p, at_m))
            out = np.where(trig, v, out)
            done |= trig
        p1 = {"t": y, "u": y + y, "v": y + y - one, "w": y + y + one}[kind]
        out = np.where(~done & (n == 0), one, np.where(~done & (n == 1), p1, out))
        done |= n <= 1
        rec = ~done
        if rec.any():
            yr = y[rec]
            r = _recurrence(np.ones_like(yr), p1[rec], n[rec], lambda j, p, q: (yr + yr) * q - p)
            out[rec] = r
    return out


def polynomial(name: str, x: np.ndarray, n: np.ndarray) -> np.ndarray:
    """PyTorch's ``special.<name>(x, n)`` on arrays of one float dtype (broadcast together)."""
    x, n = np.broadcast_arrays(x, n)
    t = x.dtype.type
    n = _degrees(n)
    if name.startswith("chebyshev_polynomial_"):
        kind = name[-1]
        return _chebyshev(kind, x, n, 6 if kind == "t" else 8, x == 1, x == -1, t)
    if name.startswith("shifted_chebyshev_polynomial_"):
        kind = name[-1]
        y = x + x - t(1)
        return _chebyshev(kind, y, n, 4 if kind == "w" else 6, x == 1, x == 0, t, shifted=True)
    one = t(1)
    out = np.zeros(x.shape, x.dtype)
    with np.errstate(all="ignore"):
        if name.startswith("hermite"):
            phys = name == "hermite_polynomial_h"
            p1 = x + x if phys else x
            out = np.where(n == 0, one, np.where(n == 1, p1, out))
            limit = 128 if x.dtype == np.float32 else 512
            out = np.where(n > limit, t(np.nan), out)
            rec = (n >= 2) & (n <= limit)
            if rec.any():
                xr = x[rec]
                if phys:
                    def step(j, p, q):
                        return (xr + xr) * q - t(2 * j) * p
                else:
                    def step(j, p, q):
                        return xr * q - t(j) * p
                out[rec] = _recurrence(np.ones_like(xr), p1[rec], n[rec], step)
            return out
        if name == "laguerre_polynomial_l":
            p1 = one - x
            out = np.where(n >= 0, np.where(n == 1, p1, one), out)  # (x = 0 and n = 0: 1)
            rec = (n >= 2) & (x != 0)
            if rec.any():
                xr = x[rec]
                out[rec] = _recurrence(np.ones_like(xr), p1[rec], n[rec],
                                       lambda j, p, q: ((t(2 * j) + (one - xr)) * q - t(j) * p) / t(j + 1))
            return out
        if name == "legendre_polynomial_p":
            ends = (np.abs(x) == 1) & (n >= 0)
            out = np.where(ends, np.where((x > 0) | (n % 2 == 0), one, -one), out)
            out = np.where(~ends & (n == 0), one, np.where(~ends & (n == 1), x, out))
            rec = ~ends & (n >= 2)
            if rec.any():
                xr = x[rec]
                out[rec] = _recurrence(np.ones_like(xr), xr, n[rec],
                                       lambda j, p, q: (t(2 * j + 1) * xr * q - t(j) * p) / t(j + 1))
            return out
    raise ValueError(name)


NAMES = ("chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
         "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
         "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
         "laguerre_polynomial_l", "legendre_polynomial_p")
