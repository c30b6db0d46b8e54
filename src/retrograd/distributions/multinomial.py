"""Multinomial distribution: counts of ``total_count`` categorical draws."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Multinomial"]


class Multinomial(Distribution):
    """Multinomial distribution over count vectors (event_shape ``(K,)``).

    ``total_count`` must be a Python int (as in torch); ``log_prob`` does not need it.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Multinomial
    >>> Multinomial(2, torch.tensor([0.5, 0.5])).log_prob(torch.tensor([1.0, 1.0]))
    tensor(-0.6931)
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    total_count: int

    def __init__(self, total_count: int = 1, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        super().__init__(self._categorical.batch_shape, self._categorical.param_shape[-1:],
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Multinomial":
        new = self._get_checked_instance(Multinomial, _instance)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        return self._finish_expand(Multinomial, new, batch_shape)

    @property
    def mean(self) -> Tensor:
        return self.probs * self.total_count

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self) -> constraints.Constraint:
        return constraints.multinomial(self.total_count)

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        sample_shape = Size(sample_shape)
        with torch.no_grad():
            # total_count category draws on a leading dim, moved last and counted per category.
            idx = self._categorical.sample(Size((self.total_count,)) + sample_shape)
            idx = idx.permute(*range(1, idx.dim()), 0)
            counts = torch.zeros(self._extended_shape(sample_shape), dtype=idx.dtype)
            counts = counts.scatter_add(-1, idx, torch.ones_like(idx))
            return counts.type_as(self.probs)

    def entropy(self) -> Tensor:
        n = torch.tensor(self.total_count)
        term1 = n * self._categorical.entropy() - torch.lgamma(n + 1)
        # E[sum_k log(x_k!)] with x_k ~ Binomial(n, p_k), summed over the support 1..n.
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = torch.exp(self._binomial.log_prob(support))
        term2 = (binomial_probs * torch.lgamma(support + 1)).sum([0, -1])
        return term1 + term2

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        # 0 * log(0) counts as 0: a category that cannot occur and was not observed.
        logits = torch.where((value == 0) & (logits == -math.inf), torch.zeros_like(logits), logits)
        log_factorial_n = torch.lgamma(value.sum(-1) + 1)
        log_factorial_xs = torch.lgamma(value + 1).sum(-1)
        return log_factorial_n - log_factorial_xs + (logits * value).sum(-1)
