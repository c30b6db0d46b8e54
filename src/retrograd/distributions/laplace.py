"""Laplace (double exponential) distribution."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace distribution with location ``loc`` and scale ``scale``.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Laplace
    >>> Laplace(torch.tensor(0.0), torch.tensor(1.0)).cdf(torch.tensor(0.0))
    tensor(0.5000)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, validate_args: bool | None = None) -> None:
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Laplace":
        return self._expand_params(Laplace, batch_shape, _instance, ("loc", "scale"))

    @property
    def mean(self) -> Tensor:
        return self.loc

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        return 2 * self.scale.pow(2)

    @property
    def stddev(self) -> Tensor:
        return 2 ** 0.5 * self.scale

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        # u in (eps - 1, 1) keeps log1p(-|u|) finite.
        u = torch.empty(shape, dtype=self.loc.dtype).uniform_(torch.finfo(self.loc.dtype).eps - 1, 1)
        return self.loc - self.scale * u.sign() * torch.log1p(-u.abs())

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return -torch.log(2 * self.scale) - torch.abs(value - self.loc) / self.scale

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        z = value - self.loc
        return 0.5 - 0.5 * z.sign() * torch.expm1(-z.abs() / self.scale)

    def icdf(self, value: Tensor) -> Tensor:
        t = value - 0.5
        return self.loc - self.scale * t.sign() * torch.log1p(-2 * t.abs())

    def entropy(self) -> Tensor:
        return 1 + torch.log(2 * self.scale)
