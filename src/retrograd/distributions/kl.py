"""``kl_divergence(p, q)`` with a registry of closed forms (``register_kl``), torch's pairs.

>>> import retrograd as torch
>>> from retrograd.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0))
tensor(0.5000)
>>> from retrograd.distributions import Gumbel
>>> kl_divergence(Gumbel(0.0, 1.0), Gumbel(0.0, 1.0)).abs().item() < 1e-6
True
"""
from __future__ import annotations

import math
import warnings
from functools import total_ordering
from typing import Callable

import retrograd as torch
from retrograd import Tensor
from retrograd.nn.functional import softplus

from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost, euler_constant as _euler_gamma

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY: dict[tuple[type, type], Callable] = {}
_KL_MEMOIZE: dict[tuple[type, type], Callable] = {}


def register_kl(type_p: type, type_q: type) -> Callable:
    """Decorator registering ``fn(p, q)`` as the KL divergence for a pair of distribution types.

    >>> from retrograd.distributions import Normal, register_kl
    >>> class MyNormal(Normal):
    ...     pass
    >>> @register_kl(MyNormal, MyNormal)
    ... def _kl(p, q):
    ...     return (p.loc - q.loc) ** 2
    """
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun: Callable) -> Callable:
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


@total_ordering
class _Match:
    """Orders registered (p, q) type pairs by specificity, left type first."""

    __slots__ = ["types"]

    def __init__(self, *types: type) -> None:
        self.types = types

    def __eq__(self, other: object) -> bool:
        return self.types == other.types

    def __le__(self, other: "_Match") -> bool:
        for x, y in zip(self.types, other.types):
            if not issubclass(x, y):
                return False
            if x is not y:
                break
        return True


def _dispatch_kl(type_p: type, type_q: type):
    matches = [(sp, sq) for sp, sq in _KL_REGISTRY if issubclass(type_p, sp) and issubclass(type_q, sq)]
    if not matches:
        return NotImplemented
    # The most specific match, judged left-first and right-first; they should agree.
    left_p, left_q = min(_Match(*m) for m in matches).types
    right_q, right_p = min(_Match(*reversed(m)) for m in matches).types
    left_fun = _KL_REGISTRY[left_p, left_q]
    if left_fun is not _KL_REGISTRY[right_p, right_q]:
        warnings.warn(f"Ambiguous kl_divergence({type_p.__name__}, {type_q.__name__}). "
                      f"Please register_kl({left_p.__name__}, {right_q.__name__})", RuntimeWarning, stacklevel=2)
    return left_fun


def kl_divergence(p: Distribution, q: Distribution) -> Tensor:
    """``KL(p || q)``, batched over the distributions' batch shape.

    Raises ``NotImplementedError`` for a pair without a registered closed form.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Bernoulli, kl_divergence
    >>> kl_divergence(Bernoulli(torch.tensor(0.5)), Bernoulli(torch.tensor(0.5)))
    tensor(0.)
    """
    key = (type(p), type(q))
    fun = _KL_MEMOIZE.get(key)
    if fun is None:
        fun = _KL_MEMOIZE[key] = _dispatch_kl(*key)
    if fun is NotImplemented:
        raise NotImplementedError(f"No KL(p || q) is implemented for p type {p.__class__.__name__} "
                                  f"and q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(t: Tensor) -> Tensor:
    return torch.full_like(t, math.inf)


def _set_inf(t: Tensor, mask: Tensor) -> Tensor:
    # Out-of-place version of torch's `t[mask] = inf` (no gradient flows where masked).
    return torch.where(mask, torch.full_like(t, math.inf), t)


def _register_kl_infinity(type_p: type, param: str, *types_q: type) -> Callable:
    """Register ``KL(p || q) = inf`` (shaped like ``p.<param>``) for each q type: p puts mass
    where these q have none. One function serves all of a p type's pairs, as in torch."""
    def kl(p: Distribution, q: Distribution) -> Tensor:
        return _infinite_like(getattr(p, param))

    kl.__name__ = kl.__qualname__ = f"_kl_{type_p.__name__.lower()}_infinity"
    for type_q in types_q:
        register_kl(type_p, type_q)(kl)
    return kl


def _x_log_x(t: Tensor) -> Tensor:
    return torch.xlogy(t, t)


def _batch_trace_XXT(bmat: Tensor) -> Tensor:
    """Trace of ``X @ X.mT`` over batches: the sum of squares of each matrix."""
    return bmat.pow(2).sum((-2, -1))


# ---- same-family pairs ----

@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (softplus(-q.logits) - softplus(-p.logits))
    t1 = _set_inf(t1, q.probs == 0)
    t1 = torch.where(p.probs == 0, torch.zeros_like(t1), t1)
    t2 = (1 - p.probs) * (softplus(q.logits) - softplus(p.logits))
    t2 = _set_inf(t2, q.probs == 1)
    t2 = torch.where(p.probs == 1, torch.zeros_like(t2), t2)
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_p = p.concentration1 + p.concentration0
    sum_q = q.concentration1 + q.concentration0
    t1 = q.concentration1.lgamma() + q.concentration0.lgamma() + sum_p.lgamma()
    t2 = p.concentration1.lgamma() + p.concentration0.lgamma() + sum_q.lgamma()
    t3 = (p.concentration1 - q.concentration1) * torch.digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * torch.digamma(p.concentration0)
    t5 = (sum_q - sum_p) * torch.digamma(sum_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits) + (-p.probs).log1p() - (-q.probs).log1p())
    return _set_inf(kl, p.total_count > q.total_count)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = _set_inf(t, (q.probs == 0).expand_as(t))
    t = torch.where((p.probs == 0).expand_as(t), torch.zeros_like(t), t)
    return t.sum(-1)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p = p.concentration.sum(-1)
    sum_q = q.concentration.sum(-1)
    t1 = sum_p.lgamma() - sum_q.lgamma()
    t2 = (p.concentration.lgamma() - q.concentration.lgamma()).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = p.concentration.digamma() - sum_p.digamma().unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    ratio = q.rate / p.rate
    return -ratio.log() + ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    # Bregman divergence of the log-normaliser between the two natural parameter vectors.
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential families cannot "
                                  "                            be computed using Bregman divergences")
    p_np = [n.detach().requires_grad_() for n in p._natural_params]
    q_np = q._natural_params
    with torch.enable_grad():
        lg = p._log_normalizer(*p_np)
        grads = torch.autograd.grad(lg.sum(), p_np, create_graph=True)
    result = q._log_normalizer(*q_np) - lg
    for pn, qn, g in zip(p_np, q_np, grads):
        result = result - _sum_rightmost((qn - pn) * g, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * (p.rate / q.rate).log()
    t2 = torch.lgamma(q.concentration) - torch.lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * torch.digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - torch.log1p(-q.probs) / p.probs - q.logits


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    return -scale_ratio.log() + loc_abs_diff / q.scale + scale_ratio * torch.exp(-loc_abs_diff / p.scale) - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with                          "
                         "different event shapes cannot be computed")
    qL, pL = q._unbroadcasted_scale_tril, p._unbroadcasted_scale_tril
    half_term1 = qL.diagonal(dim1=-2, dim2=-1).log().sum(-1) - pL.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    batch = tuple(torch.broadcast_shapes(tuple(qL.shape[:-2]), tuple(pL.shape[:-2])))
    n = p.event_shape[0]
    term2 = _batch_trace_XXT(torch.linalg.solve_triangular(qL.expand(batch + (n, n)), pL.expand(batch + (n, n)),
                                                           upper=False))
    term3 = _batch_mahalanobis(qL, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms or p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    return _set_inf(result, (q.low > p.low) | (q.high < p.high))


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    return _sum_rightmost(kl_divergence(p.base_dist, q.base_dist), p.reinterpreted_batch_ndims)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    return t1 - (4 * p.scale * q.scale).log()


# ---- cross-family pairs ----

@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, Exponential)
def _kl_beta_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration1 / (p.concentration1 + p.concentration0))


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (q.concentration - 1) * (p.concentration1.digamma() - (p.concentration1 + p.concentration0).digamma())
    t4 = q.rate * p.concentration1 / (p.concentration1 + p.concentration0)
    return -p.entropy() + t2 - t3 + t4


@register_kl(Beta, Normal)
def _kl_beta_normal(p, q):
    mean = p.concentration1 / (p.concentration1 + p.concentration0)
    var_normal = q.scale.pow(2)
    t2 = 0.5 * (var_normal * 2 * math.pi).log()
    t3 = (mean * (1 - mean) / (p.concentration1 + p.concentration0 + 1) + mean.pow(2)) * 0.5
    t4 = q.loc * mean
    t5 = q.loc.pow(2) * 0.5
    return -p.entropy() + t2 + (t3 - t4 + t5) / var_normal


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    return _set_inf(result, (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound))


_kl_exponential_infinity = _register_kl_infinity(Exponential, "rate", Uniform, Beta)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * torch.log(ratio)
    return t1 + ratio + q.concentration.lgamma() + q.concentration * _euler_gamma - (1 + _euler_gamma)


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * torch.log(rate_sqr * var_normal * 2 * math.pi)
    return t1 - 1 + (rate_sqr.reciprocal() - q.loc / p.rate + q.loc.pow(2) * 0.5) / var_normal


_kl_gamma_infinity = _register_kl_infinity(Gamma, "concentration", Uniform, Beta)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.concentration / p.rate


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    a = p.concentration
    t1 = 0.5 * torch.log(beta_sqr * var_normal * 2 * math.pi) - a - a.lgamma()
    t2 = 0.5 * (a.pow(2) + a) / beta_sqr
    t3 = q.loc * a / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return t1 + (a - 1) * a.digamma() + (t2 - t3 + t4) / var_normal


_kl_laplace_infinity = _register_kl_infinity(Laplace, "loc", Uniform, Gamma, Exponential, Beta)


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * torch.log(2 * ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + ratio + (t2 - t3 + t4) / var_normal - 1


_kl_normal_infinity = _register_kl_infinity(Normal, "loc", Uniform, Gamma, Exponential, Beta)


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    z = loc_diff / p.scale
    t2 = math.sqrt(2 / math.pi) * p.scale * torch.exp(-0.5 * z.pow(2))
    t3 = loc_diff * torch.erf(math.sqrt(0.5) * z)
    return -torch.log(scale_ratio) + (t2 + t3) / q.scale - 0.5 * (1 + math.log(0.5 * math.pi))


_kl_poisson_infinity = _register_kl_infinity(Poisson, "rate", Binomial, Bernoulli)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    width = p.high - p.low
    t1 = torch.log(width)
    t2 = (q.concentration1 - 1) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t3 = (q.concentration0 - 1) * (_x_log_x(1 - p.high) - _x_log_x(1 - p.low) + width) / width
    t4 = q.concentration1.lgamma() + q.concentration0.lgamma() - (q.concentration1 + q.concentration0).lgamma()
    result = t3 + t4 - t1 - t2
    return _set_inf(result, (p.high > q.support.upper_bound) | (p.low < q.support.lower_bound))


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return _set_inf(result, p.low < q.support.lower_bound)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    width = p.high - p.low
    t1 = width.log()
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    return _set_inf(result, p.low < q.support.lower_bound)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    width = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / width).log()
    t2 = width.pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


# ---------------------------------------------------------------- ContinuousBernoulli, Gumbel,
# Pareto, HalfNormal and LowRankMultivariateNormal pairs
# ---- same-family pairs ----


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    t1 = p.mean * (p.logits - q.logits)
    t2 = p._cont_bern_log_norm() + torch.log1p(-p.probs)
    t3 = -q._cont_bern_log_norm() - torch.log1p(-q.probs)
    return t1 + t2 + t3


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * _euler_gamma
    t3 = torch.exp(ct2 + (1 + ct1).lgamma() - ct3)
    return t1 + t2 + t3 - (1 + _euler_gamma)


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    result = q.alpha * scale_ratio.log() - alpha_ratio.log() + alpha_ratio - 1
    # p has mass below q's minimum: infinite.
    return _set_inf(result, p.support.lower_bound < q.support.lower_bound)


def _check_event_shapes(p, q, what: str) -> None:
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {what} with different event shapes cannot be computed")


def _woodbury_factor(q):
    # A = L^-1 W^T D^-1 for q's capacitance Cholesky L: q's precision is D^-1 - A^T A.
    qWt_qDinv = q._unbroadcasted_cov_factor.mT / q._unbroadcasted_cov_diag.unsqueeze(-2)
    return torch.linalg.solve_triangular(q._capacitance_tril, qWt_qDinv, upper=False)


def _lowrank_logdet(d):
    return _batch_lowrank_logdet(d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _lowrank_mahalanobis(q, x):
    return _batch_lowrank_mahalanobis(q._unbroadcasted_cov_factor, q._unbroadcasted_cov_diag, x, q._capacitance_tril)


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrankmultivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q, "Low Rank Multivariate Normals")
    term1 = _lowrank_logdet(q) - _lowrank_logdet(p)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    A = _woodbury_factor(q)
    # tr(Sigma_q^-1 Sigma_p), Sigma_p = W_p W_p^T + D_p, expanded term by term.
    term21 = (p._unbroadcasted_cov_diag / q._unbroadcasted_cov_diag).sum(-1)
    term22 = _batch_trace_XXT(p._unbroadcasted_cov_factor * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term23 = _batch_trace_XXT(A * p._unbroadcasted_cov_diag.sqrt().unsqueeze(-2))
    term24 = _batch_trace_XXT(A.matmul(p._unbroadcasted_cov_factor))
    return 0.5 * (term1 + term21 + term22 - term23 - term24 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrankmultivariatenormal(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    term1 = _lowrank_logdet(q) - 2 * p._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
    term3 = _lowrank_mahalanobis(q, q.loc - p.loc)
    A = _woodbury_factor(q)
    term21 = _batch_trace_XXT(p._unbroadcasted_scale_tril * q._unbroadcasted_cov_diag.rsqrt().unsqueeze(-1))
    term22 = _batch_trace_XXT(A.matmul(p._unbroadcasted_scale_tril))
    return 0.5 * (term1 + term21 - term22 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrankmultivariatenormal_multivariatenormal(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    term1 = 2 * q._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1) - _lowrank_logdet(p)
    term3 = _batch_mahalanobis(q._unbroadcasted_scale_tril, q.loc - p.loc)
    batch = torch.broadcast_shapes(tuple(q._unbroadcasted_scale_tril.shape[:-2]),
                                   tuple(p._unbroadcasted_cov_factor.shape[:-2]))
    n = p.event_shape[0]
    q_tril = q._unbroadcasted_scale_tril.expand(batch + (n, n))
    p_factor = p._unbroadcasted_cov_factor.expand(batch + (n, p.cov_factor.size(-1)))
    p_diag = torch.diag_embed(p._unbroadcasted_cov_diag.sqrt()).expand(batch + (n, n))
    term21 = _batch_trace_XXT(torch.linalg.solve_triangular(q_tril, p_factor, upper=False))
    term22 = _batch_trace_XXT(torch.linalg.solve_triangular(q_tril, p_diag, upper=False))
    return 0.5 * (term1 + term21 + term22 + term3 - p.event_shape[0])


# ---- cross-family pairs ----

@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return -p.entropy() - p.mean * q.logits - torch.log1p(-q.probs) - q._cont_bern_log_norm()


@register_kl(ContinuousBernoulli, Exponential)
def _kl_continuous_bernoulli_exponential(p, q):
    return -p.entropy() - torch.log(q.rate) + q.rate * p.mean


@register_kl(ContinuousBernoulli, Normal)
def _kl_continuous_bernoulli_normal(p, q):
    t1 = -p.entropy()
    t2 = 0.5 * (math.log(2.0 * math.pi) + torch.square(q.loc / q.scale)) + torch.log(q.scale)
    t3 = (p.variance + torch.square(p.mean) - 2.0 * q.loc * p.mean) / (2.0 * torch.square(q.scale))
    return t1 + t2 + t3


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    # torch's test: q's interval starts at or above 0, or ends at or below 1.
    outside = (q.low >= p.support.lower_bound) | (q.high <= p.support.upper_bound)
    return torch.where(outside, torch.ones_like(result) * math.inf, result)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    scale_rate_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = scale_rate_prod.log() - 1
    t2 = torch.exp(loc_scale_ratio) * scale_rate_prod / (scale_rate_prod + 1)
    return t1 - loc_scale_ratio + t2 + scale_rate_prod.reciprocal()


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    a = p.concentration
    beta_scale_prod = p.rate * q.scale
    loc_scale_ratio = q.loc / q.scale
    t1 = (a - 1) * a.digamma() - a.lgamma() - a
    t2 = beta_scale_prod.log() + a / beta_scale_prod
    t3 = torch.exp(loc_scale_ratio) * (1 + beta_scale_prod.reciprocal()).pow(-a) - loc_scale_ratio
    return t1 + t2 + t3


@register_kl(Gumbel, Normal)
def _kl_gumbel_normal(p, q):
    param_ratio = p.scale / q.scale
    t1 = (param_ratio / math.sqrt(2 * math.pi)).log()
    t2 = (math.pi * param_ratio * 0.5).pow(2) / 3
    t3 = ((p.loc + p.scale * _euler_gamma - q.loc) / q.scale).pow(2) * 0.5
    return -t1 + t2 + t3 - (_euler_gamma + 1)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    mean_scale_ratio = p.loc / q.scale
    var_scale_sqr_ratio = (p.scale / q.scale).pow(2)
    loc_scale_ratio = q.loc / q.scale
    t1 = var_scale_sqr_ratio.log() * 0.5
    t2 = mean_scale_ratio - loc_scale_ratio
    t3 = torch.exp(-mean_scale_ratio + 0.5 * var_scale_sqr_ratio + loc_scale_ratio)
    return -t1 + t2 + t3 - (0.5 * (1 + math.log(2 * math.pi)))


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    scale_rate_prod = p.scale * q.rate
    result = (p.alpha / scale_rate_prod).log() - p.alpha.reciprocal() + p.alpha * scale_rate_prod / (p.alpha - 1) - 1
    return _set_inf(result, p.alpha <= 1)  # p has no finite mean


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    common = p.scale.log() + p.alpha.reciprocal()
    t1 = p.alpha.log() - common
    t2 = q.concentration.lgamma() - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * common
    t4 = q.rate * p.alpha * p.scale / (p.alpha - 1)
    return _set_inf(t1 + t2 + t3 + t4 - 1, p.alpha <= 1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    var_normal = 2 * q.scale.pow(2)
    common = p.scale / (p.alpha - 1)
    t1 = (math.sqrt(2 * math.pi) * q.scale * p.alpha / p.scale).log()
    t2 = p.alpha.reciprocal()
    t3 = p.alpha * common.pow(2) / (p.alpha - 2)
    t4 = (p.alpha * common - q.loc).pow(2)
    return _set_inf(t1 - t2 + (t3 + t4) / var_normal - 1, p.alpha <= 2)  # p has no finite variance


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = -p.entropy() - p.mean * q.logits - torch.log1p(-q.probs) - q._cont_bern_log_norm()
    outside = (p.high >= q.support.upper_bound) | (p.low <= q.support.lower_bound)
    return torch.where(outside, torch.ones_like(result) * math.inf, result)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    common = q.scale / (p.high - p.low)
    high_loc_diff = (p.high - q.loc) / q.scale
    low_loc_diff = (p.low - q.loc) / q.scale
    t1 = common.log() + 0.5 * (high_loc_diff + low_loc_diff)
    t2 = common * (torch.exp(-high_loc_diff) - torch.exp(-low_loc_diff))
    return t1 - t2


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    width = p.high - p.low
    t1 = (q.alpha * q.scale.pow(q.alpha) * width).log()
    t2 = (_x_log_x(p.high) - _x_log_x(p.low) - width) / width
    return _set_inf(t2 * (q.alpha + 1) - t1, p.low < q.support.lower_bound)


# p puts mass where q has none.
_register_kl_infinity(Beta, "concentration1", Pareto)
_register_kl_infinity(ContinuousBernoulli, "probs", Pareto)
_register_kl_infinity(Gumbel, "loc", Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform)
_register_kl_infinity(Pareto, "scale", Beta, ContinuousBernoulli, Uniform)
_register_kl_infinity(Exponential, "rate", ContinuousBernoulli, Pareto)
_register_kl_infinity(Gamma, "concentration", ContinuousBernoulli, Pareto)
_register_kl_infinity(Laplace, "loc", ContinuousBernoulli, Pareto)
_register_kl_infinity(Normal, "loc", ContinuousBernoulli, Pareto)
