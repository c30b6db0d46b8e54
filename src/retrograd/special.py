"""``retrograd.special``: PyTorch's ``torch.special`` namespace.

Most names are retrograd ops under their SciPy-style names (``expit`` is ``sigmoid``,
``gammaln`` is ``lgamma`` ...); the rest are the ops of ``_ops/special.py``.
Functions PyTorch does not differentiate (the Bessel family) return tensors that never
require grad, as in PyTorch.

>>> import retrograd as torch
>>> torch.special.expit(torch.tensor([0.]))
tensor([0.5000])
"""
from __future__ import annotations

from ._ops import special as _sf
from ._ops.special import POLYNOMIALS as _POLYNOMIALS
from ._ops.special import i0, mvlgamma
from ._ops.nn.activation import log_softmax as _log_softmax, softmax as _softmax
from ._ops.unary import sigmoid
from ._ops.unary import (digamma, erf, erfc, erfinv, exp2, expm1, lgamma, log1p, logit, polygamma, round as _round,
                         sinc)
from ._ops.binary import xlogy
from ._ops.reduction import logsumexp
from ._tensor import Tensor

__all__ = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w",
    "shifted_chebyshev_polynomial_t", "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he", "laguerre_polynomial_l",
    "legendre_polynomial_p",
    "digamma", "entr", "erf", "erfc", "erfcx",
    "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc", "gammaln", "i0", "i0e", "i1", "i1e", "log1p",
    "log_ndtr", "log_softmax", "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "multigammaln",
    "ndtr", "ndtri", "polygamma", "psi", "round", "sinc", "softmax", "spherical_bessel_j0", "xlog1py", "xlogy",
    "zeta",
]

# ---------------------------------------------------------------- other names for existing ops
expit = sigmoid
gammaln = lgamma
psi = digamma
multigammaln = mvlgamma

# ---------------------------------------------------------------- ops of _ops/special.py
entr = _sf.special_entr
xlog1py = _sf.special_xlog1py
ndtr = _sf.special_ndtr
ndtri = _sf.special_ndtri
log_ndtr = _sf.special_log_ndtr
erfcx = _sf.special_erfcx
i0e = _sf.special_i0e
i1 = _sf.special_i1
i1e = _sf.special_i1e
zeta = _sf.special_zeta
gammainc = _sf.special_gammainc
gammaincc = _sf.special_gammaincc
spherical_bessel_j0 = _sf.special_spherical_bessel_j0
modified_bessel_i0 = _sf.special_modified_bessel_i0
modified_bessel_i1 = _sf.special_modified_bessel_i1
bessel_j0 = _sf.special_bessel_j0
bessel_j1 = _sf.special_bessel_j1
bessel_y0 = _sf.special_bessel_y0
bessel_y1 = _sf.special_bessel_y1
modified_bessel_k0 = _sf.special_modified_bessel_k0
modified_bessel_k1 = _sf.special_modified_bessel_k1
scaled_modified_bessel_k0 = _sf.special_scaled_modified_bessel_k0
scaled_modified_bessel_k1 = _sf.special_scaled_modified_bessel_k1
airy_ai = _sf.special_airy_ai
chebyshev_polynomial_t = _POLYNOMIALS["chebyshev_polynomial_t"]
chebyshev_polynomial_u = _POLYNOMIALS["chebyshev_polynomial_u"]
chebyshev_polynomial_v = _POLYNOMIALS["chebyshev_polynomial_v"]
chebyshev_polynomial_w = _POLYNOMIALS["chebyshev_polynomial_w"]
shifted_chebyshev_polynomial_t = _POLYNOMIALS["shifted_chebyshev_polynomial_t"]
shifted_chebyshev_polynomial_u = _POLYNOMIALS["shifted_chebyshev_polynomial_u"]
shifted_chebyshev_polynomial_v = _POLYNOMIALS["shifted_chebyshev_polynomial_v"]
shifted_chebyshev_polynomial_w = _POLYNOMIALS["shifted_chebyshev_polynomial_w"]
hermite_polynomial_h = _POLYNOMIALS["hermite_polynomial_h"]
hermite_polynomial_he = _POLYNOMIALS["hermite_polynomial_he"]
laguerre_polynomial_l = _POLYNOMIALS["laguerre_polynomial_l"]
legendre_polynomial_p = _POLYNOMIALS["legendre_polynomial_p"]


# ---------------------------------------------------------------- signatures that differ from the top level
def round(input: Tensor, *, decimals: int = 0, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """``torch.round`` with ``decimals`` defaulting to 0 (so its node is RoundBackward1, as PyTorch's).

    >>> import retrograd as torch
    >>> torch.special.round(torch.tensor([1.26]), decimals=1)
    tensor([1.3000])
    """
    return _round(input, decimals=decimals, out=out)


def softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Softmax along ``dim`` (``dtype``: cast the input first).

    >>> import retrograd as torch
    >>> torch.special.softmax(torch.tensor([0., 0.]), 0)
    tensor([0.5000, 0.5000])
    """
    return _softmax(input, dim, dtype)


def log_softmax(input: Tensor, dim: int, *, dtype=None) -> Tensor:
    """Log-softmax along ``dim`` (``dtype``: cast the input first).

    >>> import retrograd as torch
    >>> torch.special.log_softmax(torch.tensor([0., 0.]), 0)
    tensor([-0.6931, -0.6931])
    """
    return _log_softmax(input, dim, dtype)
