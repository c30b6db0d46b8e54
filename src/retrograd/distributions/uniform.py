"""Continuous uniform distribution on ``[low, high)``."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Uniform"]


class Uniform(Distribution):
    """Uniform distribution on the half-open interval ``[low, high)``.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Uniform
    >>> Uniform(0.0, 2.0).cdf(torch.tensor(0.5))
    tensor(0.2500)
    """

    has_rsample = True

    def __init__(self, low: Tensor | float, high: Tensor | float, validate_args: bool | None = None) -> None:
        self.low, self.high = broadcast_all(low, high)
        super().__init__(self.low.size(), validate_args=validate_args)

    @property
    def arg_constraints(self) -> dict:
        return {"low": constraints.less_than(self.high), "high": constraints.greater_than(self.low)}

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Uniform":
        return self._expand_params(Uniform, batch_shape, _instance, ("low", "high"))

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.interval(self.low, self.high)

    @property
    def mean(self) -> Tensor:
        return (self.high + self.low) / 2

    @property
    def mode(self) -> Tensor:
        return math.nan * self.high

    @property
    def stddev(self) -> Tensor:
        return (self.high - self.low) / 12 ** 0.5

    @property
    def variance(self) -> Tensor:
        return (self.high - self.low).pow(2) / 12

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        u = torch.rand(shape, dtype=self.low.dtype)
        return self.low + u * (self.high - self.low)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        inside = self.low.le(value).type_as(self.low) * self.high.gt(value).type_as(self.low)
        return torch.log(inside) - torch.log(self.high - self.low)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return ((value - self.low) / (self.high - self.low)).clamp(min=0, max=1)

    def icdf(self, value: Tensor) -> Tensor:
        return value * (self.high - self.low) + self.low

    def entropy(self) -> Tensor:
        return torch.log(self.high - self.low)
