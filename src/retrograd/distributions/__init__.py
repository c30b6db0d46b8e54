"""``retrograd.distributions``: PyTorch's ``torch.distributions`` API on retrograd tensors.

Distributions are built from public retrograd ops, so ``log_prob``, ``entropy``, ``rsample``
and ``kl_divergence`` are differentiable w.r.t. the parameters. See docs/distributions.md.

>>> import retrograd as torch
>>> from retrograd.distributions import Normal
>>> loc = torch.tensor(0.0, requires_grad=True)
>>> Normal(loc, 1.0).log_prob(torch.tensor(1.0)).backward()
>>> loc.grad
tensor(1.)
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Chi2, Gamma
from .geometric import Geometric
from .independent import Independent
from .kl import kl_divergence, register_kl
from .laplace import Laplace
from .log_normal import LogNormal
from .multivariate_normal import MultivariateNormal
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .poisson import Poisson
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import (AffineTransform, ComposeTransform, ExpTransform, SigmoidTransform,
                         SoftplusTransform, TanhTransform, Transform)
from .uniform import Uniform

__all__ = ["AffineTransform", "Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2",
           "ComposeTransform", "Dirichlet", "Distribution", "ExpTransform", "Exponential",
           "ExponentialFamily", "Gamma", "Geometric", "Independent", "Laplace", "LogNormal",
           "MultivariateNormal", "Normal", "OneHotCategorical", "Poisson", "SigmoidTransform",
           "SoftplusTransform", "StudentT", "TanhTransform", "Transform", "TransformedDistribution",
           "Uniform", "constraints", "kl_divergence", "register_kl", "transforms"]
