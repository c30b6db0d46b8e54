"""Log-normal distribution: ``exp(X)`` with ``X ~ Normal(loc, scale)``."""
from __future__ import annotations

from typing import Sequence

from retrograd import Tensor

from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform

__all__ = ["LogNormal"]


class LogNormal(TransformedDistribution):
    """Log-normal distribution parametrised by the underlying normal's ``loc`` and ``scale``.

    >>> import retrograd as torch
    >>> from retrograd.distributions import LogNormal
    >>> LogNormal(0.0, 1.0).mode
    tensor(0.3679)
    """

    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, loc: Tensor | float, scale: Tensor | float, validate_args: bool | None = None) -> None:
        super().__init__(Normal(loc, scale, validate_args=validate_args), ExpTransform(),
                         validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "LogNormal":
        new = self._get_checked_instance(LogNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self) -> Tensor:
        return self.base_dist.loc

    @property
    def scale(self) -> Tensor:
        return self.base_dist.scale

    @property
    def mean(self) -> Tensor:
        return (self.loc + self.scale.pow(2) / 2).exp()

    @property
    def mode(self) -> Tensor:
        return (self.loc - self.scale.square()).exp()

    @property
    def variance(self) -> Tensor:
        s2 = self.scale.pow(2)
        return s2.expm1() * (2 * self.loc + s2).exp()

    def entropy(self) -> Tensor:
        return self.base_dist.entropy() + self.loc
