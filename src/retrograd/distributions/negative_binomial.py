"""Negative binomial distribution: failures before ``total_count`` successes."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor
from retrograd.nn.functional import logsigmoid

from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import _held_param, _lazy_probs_logits, _probs_or_logits, broadcast_all, lazy_property

__all__ = ["NegativeBinomial"]


class NegativeBinomial(Distribution):
    """Negative binomial with ``total_count`` and per-trial success ``probs`` (or ``logits``).

    >>> import retrograd as torch
    >>> from retrograd.distributions import NegativeBinomial
    >>> NegativeBinomial(1.0, probs=torch.tensor(0.5)).log_prob(torch.tensor(0.0))
    tensor(-0.6931)
    """

    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0), "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count: Tensor | float, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None, validate_args: bool | None = None) -> None:
        name, value = _probs_or_logits(probs, logits)
        total_count, self._param = broadcast_all(total_count, value)
        self.total_count = total_count.type_as(self._param)
        setattr(self, name, self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "NegativeBinomial":
        new = self._expand_params(NegativeBinomial, batch_shape, _instance, ("total_count", "probs", "logits"))
        new._param = _held_param(new)
        return new

    logits, probs = _lazy_probs_logits(is_binary=True)

    @property
    def mean(self) -> Tensor:
        return self.total_count * torch.exp(self.logits)

    @property
    def mode(self) -> Tensor:
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self) -> Tensor:
        return self.mean / torch.sigmoid(-self.logits)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @lazy_property
    def _gamma(self) -> Gamma:
        # Gamma-Poisson mixture: rate ~ Gamma(total_count, exp(-logits)), value ~ Poisson(rate).
        return Gamma(concentration=self.total_count, rate=torch.exp(-self.logits), validate_args=False)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        with torch.no_grad():
            return torch.poisson(self._gamma.sample(sample_shape=sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized = self.total_count * logsigmoid(-self.logits) + value * logsigmoid(self.logits)
        log_normalization = (-torch.lgamma(self.total_count + value) + torch.lgamma(1.0 + value)
                             + torch.lgamma(self.total_count))
        # total_count = value = 0 is a point mass at 0: its normaliser is 0, not lgamma(0) = inf.
        log_normalization = log_normalization.masked_fill(self.total_count + value == 0.0, 0.0)
        return log_unnormalized - log_normalization
