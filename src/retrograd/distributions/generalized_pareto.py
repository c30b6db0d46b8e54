"""Generalized Pareto distribution (location, scale, shape ``concentration``)."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import _is_number, broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalized Pareto distribution; ``concentration = 0`` is the (shifted) exponential.

    Samples are drawn by inverting the CDF of a uniform draw, so ``rsample`` is differentiable.

    >>> import retrograd as torch
    >>> from retrograd.distributions import GeneralizedPareto
    >>> GeneralizedPareto(0.0, 1.0, 0.0).log_prob(torch.tensor(1.0))
    tensor(-1.)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, concentration: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        numbers = _is_number(loc) and _is_number(scale) and _is_number(concentration)
        super().__init__(Size() if numbers else self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "GeneralizedPareto":
        return self._expand_params(GeneralizedPareto, batch_shape, _instance, ("loc", "scale", "concentration"))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        return self.icdf(torch.rand(shape, dtype=self.loc.dtype))

    def _safe_concentration(self) -> tuple[Tensor, Tensor]:
        # Where the shape is (close to) zero, use 1 in the general formula and pick the
        # exponential-limit branch instead: keeps values and gradients finite.
        c = self.concentration
        eq_zero = torch.isclose(c, torch.zeros_like(c))
        return eq_zero, torch.where(eq_zero, torch.ones_like(c), c)

    def _z(self, x: Tensor) -> Tensor:
        return (x - self.loc) / self.scale

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, c = self._safe_concentration()
        y = 1 / c + torch.ones_like(z)
        nonzero = torch.where(y == 0, y, y * torch.log1p(c * z))
        return -self.scale.log() - torch.where(eq_zero, z, nonzero)

    def log_survival_function(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = self._z(value)
        eq_zero, c = self._safe_concentration()
        return torch.where(eq_zero, -z, -torch.log1p(c * z) / c)

    def log_cdf(self, value: Tensor) -> Tensor:
        return torch.log1p(-torch.exp(self.log_survival_function(value)))

    def cdf(self, value: Tensor) -> Tensor:
        return torch.exp(self.log_cdf(value))

    def icdf(self, value: Tensor) -> Tensor:
        eq_zero, c = self._safe_concentration()
        logu = torch.log1p(-value)
        nonzero = self.loc + self.scale / c * torch.expm1(-c * logu)
        return torch.where(eq_zero, self.loc - self.scale * logu, nonzero)

    @property
    def mean(self) -> Tensor:
        c = self.concentration
        valid = c < 1
        result = self.loc + self.scale / (1 - torch.where(valid, c, 0.5))
        return torch.where(valid, result, math.nan)

    @property
    def variance(self) -> Tensor:
        c = self.concentration
        valid = c < 0.5
        c = torch.where(valid, c, 0.25)
        result = self.scale ** 2 / ((1 - c) ** 2 * (1 - 2 * c))
        return torch.where(valid, result, math.nan)

    def entropy(self) -> Tensor:
        return torch.broadcast_to(torch.log(self.scale) + self.concentration + 1, self._batch_shape)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self) -> constraints.Constraint:
        lower = self.loc
        upper = torch.where(self.concentration < 0, lower - self.scale / self.concentration, math.inf)
        return constraints.interval(lower, upper)
