"""Exponential distribution with rate ``rate``."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution, density ``rate * exp(-rate * x)`` on ``x >= 0``.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Exponential
    >>> Exponential(1.0).log_prob(torch.tensor(1.0))
    tensor(-1.)
    """

    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Exponential":
        return self._expand_params(Exponential, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def mode(self) -> Tensor:
        return torch.zeros_like(self.rate)

    @property
    def stddev(self) -> Tensor:
        return self.rate.reciprocal()

    @property
    def variance(self) -> Tensor:
        return self.rate.pow(-2)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return torch.empty(shape, dtype=self.rate.dtype).exponential_() / self.rate

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return 1 - torch.exp(-self.rate * value)

    def icdf(self, value: Tensor) -> Tensor:
        return -torch.log1p(-value) / self.rate

    def entropy(self) -> Tensor:
        return 1.0 - torch.log(self.rate)

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (-self.rate,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return -torch.log(-x)
