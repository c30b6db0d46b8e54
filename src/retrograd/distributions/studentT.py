"""Student's t distribution."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .gamma import Chi2
from .utils import _standard_normal, broadcast_all

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t with ``df`` degrees of freedom, location ``loc`` and scale ``scale``.

    >>> import retrograd as torch
    >>> from retrograd.distributions import StudentT
    >>> StudentT(torch.tensor([1.0])).mean  # undefined for df <= 1
    tensor([nan])
    """

    arg_constraints = {"df": constraints.positive, "loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, df: Tensor | float, loc: Tensor | float = 0.0, scale: Tensor | float = 1.0,
                 validate_args: bool | None = None) -> None:
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        super().__init__(self.df.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "StudentT":
        new = self._expand_params(StudentT, batch_shape, _instance, ("df", "loc", "scale"))
        new._chi2 = self._chi2.expand(batch_shape)
        return new

    @property
    def mean(self) -> Tensor:
        return torch.where(self.df <= 1, torch.full_like(self.loc, math.nan), self.loc)

    @property
    def mode(self) -> Tensor:
        return self.loc

    @property
    def variance(self) -> Tensor:
        df = self.df
        # Guard the df > 2 branch so its gradient is finite where another branch is taken.
        safe_df = torch.where(df > 2, df, torch.full_like(df, 3.0))
        finite = self.scale.pow(2) * safe_df / (safe_df - 2)
        other = torch.where(df > 1, torch.full_like(df, math.inf), torch.full_like(df, math.nan))
        return torch.where(df > 2, finite, other)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, self.df.dtype)
        z = self._chi2.rsample(sample_shape)
        return self.loc + self.scale * x * torch.rsqrt(z / self.df)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + torch.lgamma(0.5 * self.df) - torch.lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * torch.log1p(y ** 2.0 / self.df) - z

    def entropy(self) -> Tensor:
        df = self.df
        lbeta = torch.lgamma(0.5 * df) + math.lgamma(0.5) - torch.lgamma(0.5 * (df + 1))
        return (self.scale.log() + 0.5 * (df + 1) * (torch.digamma(0.5 * (df + 1)) - torch.digamma(0.5 * df))
                + 0.5 * df.log() + lbeta)
