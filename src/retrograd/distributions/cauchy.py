"""Cauchy (Lorentz) distribution."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Cauchy distribution with median ``loc`` and half width ``scale``; mean is NaN, variance inf.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Cauchy
    >>> Cauchy(torch.tensor([0.0]), torch.tensor([1.0])).entropy()
    tensor([2.5310])
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Cauchy":
        return self._expand_params(Cauchy, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return torch.full(self._extended_shape(), math.nan, dtype=self.loc.dtype)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return torch.full(self._extended_shape(), math.inf, dtype=self.loc.dtype)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        eps = torch.empty(shape, dtype=self.loc.dtype).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -math.log(math.pi) - self.scale.log() - (((value - self.loc) / self.scale) ** 2).log1p()

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return torch.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value: Tensor) -> Tensor:
        return torch.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self) -> Tensor:
        return math.log(4 * math.pi) + self.scale.log()
