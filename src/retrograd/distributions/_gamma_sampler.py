"""Standard Gamma sampling (Marsaglia-Tsang) with implicit reparameterisation gradients.

retrograd has no public ``_standard_gamma`` op, so samples are drawn here from the public
``randn``/``rand`` streams (``manual_seed`` reproduces them, though they differ from torch's).

The gradient of a sample x ~ Gamma(a, 1) w.r.t. ``a`` is the implicit one torch uses:
``dx/da = -(dP(a, x)/da) / p(a, x)`` where P is the regularised lower incomplete gamma
function and p the density (evaluated in float64 from P's series or Q's continued fraction). It is computed here without a new autograd rule: the returned
tensor is ``x + (a - a.detach()) * dxda`` with ``dxda`` a constant, whose value is exactly x and
whose first derivative is ``dxda``. (Its second derivative w.r.t. ``a`` is therefore 0, not the
true one; torch does not support double backward through Gamma samples either.)

>>> import retrograd as torch
>>> from retrograd.distributions._gamma_sampler import standard_gamma
>>> _ = torch.manual_seed(0)
>>> standard_gamma(torch.full((4,), 2.0)).shape
torch.Size([4])
"""
from __future__ import annotations

import numpy as np

import retrograd as torch
from retrograd import Tensor

__all__ = ["standard_gamma", "standard_gamma_grad"]


def _marsaglia_tsang(alpha_in: np.ndarray, dtype) -> np.ndarray:
    """Gamma(alpha, 1) draws (float64 NumPy) for alpha of any shape."""
    # Like torch: alpha <= 0 or NaN gives the smallest normal number, alpha = inf gives inf.
    # They are settled up front so the rejection loop below only sees valid shapes.
    valid = (alpha_in > 0) & np.isfinite(alpha_in)
    alpha = np.where(valid, alpha_in, 1.0)
    # alpha < 1 is boosted: Gamma(a) = Gamma(a + 1) * U ** (1 / a).
    boost = alpha < 1
    a = np.where(boost, alpha + 1.0, alpha)
    d = a - 1.0 / 3.0
    c = 1.0 / np.sqrt(9.0 * d)
    out = np.empty_like(a)
    pending = valid.copy()
    shape = tuple(a.shape)
    while pending.any():
        z = torch.randn(shape, dtype=torch.float64).numpy()
        u = torch.rand(shape, dtype=torch.float64).numpy()
        v = (1.0 + c * z) ** 3
        with np.errstate(invalid="ignore", divide="ignore"):
            ok = (v > 0) & (np.log(u) < 0.5 * z * z + d - d * v + d * np.log(np.where(v > 0, v, 1.0)))
        take = pending & ok
        out[take] = (d * v)[take]
        pending &= ~ok
    if boost.any():
        u = torch.rand(shape, dtype=torch.float64).numpy()
        with np.errstate(divide="ignore"):
            out = np.where(boost, out * u ** (1.0 / np.where(boost, alpha, 1.0)), out)
    tiny = np.finfo(np.float32 if dtype == torch.float32 else np.float64).tiny
    out = np.where(valid, out, np.where(alpha_in == np.inf, np.inf, 0.0))
    return np.maximum(out, tiny)


def _series_dxda(a: np.ndarray, x: np.ndarray, psi1: np.ndarray) -> np.ndarray:
    """dx/da for x <= a + 1, from the power series of P(a, x)."""
    # P(a, x) = x^a e^-x / Gamma(a+1) * S with S = sum_n T_n, T_n = x^n / ((a+1)...(a+n)).
    # dT_n/da = -T_n H_n, H_n = sum_{k<=n} 1/(a+k). With the density p = x^(a-1) e^-x / Gamma(a),
    # P / p = x S / a, so dx/da = -(dP/da) / p = -(x / a) (S (log x - psi(a+1)) + dS/da).
    term = np.ones_like(a)
    s = np.ones_like(a)
    ds = np.zeros_like(a)
    h = np.zeros_like(a)
    for n in range(1, 100001):
        term = term * x / (a + n)
        h = h + 1.0 / (a + n)
        s += term
        ds -= term * h
        # Terms shrink geometrically once a + n > x; stop when they no longer matter.
        if n > 10 and np.all((term <= 1e-17 * s) & (term * h <= 1e-17 * np.abs(ds) + 1e-300)):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        return -(x / a) * (s * (np.log(x) - psi1) + ds)


def _cfrac_dxda(a: np.ndarray, x: np.ndarray, psi: np.ndarray) -> np.ndarray:
    """dx/da for x > a + 1, from the continued fraction of Q(a, x) = 1 - P(a, x)."""
    # Q = x^a e^-x / Gamma(a) * F with F a continued fraction (modified Lentz), so
    # dP/da = -Q (log x - psi(a) + dlogF/da) and Q / p = x F: dx/da = x F (log x - psi(a) + dlogF/da).
    # dlogF/da is carried along the Lentz recursion as a forward-mode derivative; working with
    # Q rather than 1 - P avoids the cancellation deep in the upper tail.
    tiny = 1e-300
    b = x + 1.0 - a
    db = -1.0
    c, dc = np.full_like(a, 1.0 / tiny), np.zeros_like(a)
    d = 1.0 / b
    dd = -db / b**2
    f = d.copy()
    dlogf = dd / d
    for i in range(1, 20001):
        an, dan = -i * (i - a), float(i)
        b = b + 2.0
        dn = an * d + b
        ddn = dan * d + an * dd + db
        dn = np.where(np.abs(dn) < tiny, tiny, dn)
        cn = b + an / c
        dcn = db + dan / c - (an / c) * (dc / c)  # written so 1/tiny**2 cannot overflow
        cn = np.where(np.abs(cn) < tiny, tiny, cn)
        d, dd = 1.0 / dn, -ddn / dn**2
        c, dc = cn, dcn
        delta = d * c
        ddelta = dd * c + d * dc
        f = f * delta
        dlogf = dlogf + ddelta / delta
        # delta -> 1 can stall one ulp away from 1, so the test allows a few ulps.
        if np.all((np.abs(delta - 1.0) < 1e-15) & (np.abs(ddelta) < 1e-15 * (1.0 + np.abs(dlogf)))):
            break
    with np.errstate(divide="ignore", invalid="ignore"):
        return x * f * (np.log(x) - psi + dlogf)


def standard_gamma_grad(alpha: Tensor, x: Tensor) -> Tensor:
    """``dx/dalpha`` of a Gamma(alpha, 1) sample x held at a fixed quantile (no graph).

    >>> import retrograd as torch
    >>> from retrograd.distributions._gamma_sampler import standard_gamma_grad
    >>> standard_gamma_grad(torch.tensor([1.0]), torch.tensor([1.0]))  # Exp(1): dx/da at x=1
    tensor([1.1736])
    """
    with torch.no_grad():
        a64 = alpha.detach().to(torch.float64)
        x64 = x.detach().to(torch.float64)
        psi = torch.digamma(a64).numpy()
        psi1 = torch.digamma(a64 + 1).numpy()
    a, xv = np.broadcast_arrays(a64.numpy(), x64.numpy())
    psi, psi1 = np.broadcast_to(psi, a.shape), np.broadcast_to(psi1, a.shape)
    lower = xv <= a + 1.0
    grad = np.zeros(a.shape)
    if lower.any():
        grad[lower] = _series_dxda(a[lower], xv[lower], psi1[lower])
    if (~lower).any():
        grad[~lower] = _cfrac_dxda(a[~lower], xv[~lower], psi[~lower])
    grad = np.where(np.isfinite(grad), grad, 0.0)
    return torch.from_numpy(np.ascontiguousarray(grad)).to(x.dtype)


def standard_gamma(alpha: Tensor) -> Tensor:
    """Gamma(alpha, 1) samples shaped like ``alpha``, differentiable w.r.t. ``alpha``.

    >>> import retrograd as torch
    >>> from retrograd.distributions._gamma_sampler import standard_gamma
    >>> a = torch.tensor([3.0], requires_grad=True)
    >>> standard_gamma(a).sum().backward(); a.grad.shape
    torch.Size([1])
    """
    with torch.no_grad():
        a64 = alpha.detach().to(torch.float64).numpy()
        sample = torch.from_numpy(_marsaglia_tsang(np.ascontiguousarray(a64), alpha.dtype)).to(alpha.dtype)
    if not alpha.requires_grad or not torch.is_grad_enabled():
        return sample
    dxda = standard_gamma_grad(alpha, sample)
    delta = alpha - alpha.detach()  # 0 in value, 1 in derivative
    if not bool(torch.isfinite(alpha.detach()).all()):
        delta = torch.where(torch.isfinite(alpha.detach()), delta, torch.zeros_like(delta))  # inf - inf
    return sample + delta * dxda
