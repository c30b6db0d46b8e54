"""Beta distribution on ``[0, 1]`` (a two-component Dirichlet)."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .dirichlet import Dirichlet
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all

__all__ = ["Beta"]


class Beta(ExponentialFamily):
    """Beta distribution with shape parameters ``concentration1`` (alpha), ``concentration0`` (beta).

    >>> import retrograd as torch
    >>> from retrograd.distributions import Beta
    >>> Beta(1.0, 1.0).log_prob(torch.tensor(0.3))
    tensor(0.)
    """

    arg_constraints = {"concentration1": constraints.positive, "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1: Tensor | float, concentration0: Tensor | float,
                 validate_args: bool | None = None) -> None:
        if _is_number(concentration1) and _is_number(concentration0):
            both = torch.tensor([float(concentration1), float(concentration0)])
        else:
            c1, c0 = broadcast_all(concentration1, concentration0)
            both = torch.stack([c1, c0], -1)
        self._dirichlet = Dirichlet(both, validate_args=validate_args)
        super().__init__(self._dirichlet._batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Beta":
        new = self._get_checked_instance(Beta, _instance)
        new._dirichlet = self._dirichlet.expand(batch_shape)
        return self._finish_expand(Beta, new, batch_shape)

    @property
    def concentration1(self) -> Tensor:
        return self._dirichlet.concentration[..., 0]

    @property
    def concentration0(self) -> Tensor:
        return self._dirichlet.concentration[..., 1]

    @property
    def mean(self) -> Tensor:
        return self.concentration1 / (self.concentration1 + self.concentration0)

    @property
    def mode(self) -> Tensor:
        return self._dirichlet.mode[..., 0]

    @property
    def variance(self) -> Tensor:
        total = self.concentration1 + self.concentration0
        return self.concentration1 * self.concentration0 / (total.pow(2) * (total + 1))

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        return self._dirichlet.rsample(sample_shape).select(-1, 0)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._dirichlet.log_prob(torch.stack([value, 1.0 - value], -1))

    def entropy(self) -> Tensor:
        return self._dirichlet.entropy()

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return self.concentration1, self.concentration0

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return torch.lgamma(x) + torch.lgamma(y) - torch.lgamma(x + y)
