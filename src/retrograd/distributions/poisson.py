"""Poisson distribution with rate ``rate``."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution: ``P(k) = rate^k exp(-rate) / k!``.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Poisson
    >>> Poisson(torch.tensor([4.0])).mode
    tensor([4.])
    """

    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    def __init__(self, rate: Tensor | float, validate_args: bool | None = None) -> None:
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Poisson":
        return self._expand_params(Poisson, batch_shape, _instance, ("rate",))

    @property
    def mean(self) -> Tensor:
        return self.rate

    @property
    def mode(self) -> Tensor:
        return self.rate.floor()

    @property
    def variance(self) -> Tensor:
        return self.rate

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.poisson(self.rate.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return torch.xlogy(value, rate) - rate - (value + 1).lgamma()

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (torch.log(self.rate),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return torch.exp(x)
