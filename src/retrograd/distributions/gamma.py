"""Gamma distribution (shape ``concentration``, inverse scale ``rate``) and Chi2."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from ._gamma_sampler import standard_gamma
from .exp_family import ExponentialFamily
from .utils import _is_number, broadcast_all

__all__ = ["Gamma", "Chi2"]


class Gamma(ExponentialFamily):
    """Gamma distribution with density ``rate^a x^(a-1) exp(-rate x) / Gamma(a)``.

    ``rsample`` is differentiable w.r.t. both parameters (implicit reparameterisation for
    ``concentration``, see ``_gamma_sampler``). ``cdf`` uses ``torch.igamma`` (regularised lower
    incomplete gamma), differentiable w.r.t. ``rate`` only, as in torch.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Gamma
    >>> Gamma(torch.tensor(1.0), torch.tensor(1.0)).log_prob(torch.tensor(2.0))
    tensor(-2.)
    """

    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    def __init__(self, concentration: Tensor | float, rate: Tensor | float,
                 validate_args: bool | None = None) -> None:
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Gamma":
        return self._expand_params(Gamma, batch_shape, _instance, ("concentration", "rate"))

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.rate

    @property
    def mode(self) -> Tensor:
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self) -> Tensor:
        return self.concentration / self.rate.pow(2)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        # Dividing by a huge rate can underflow to 0, outside the support: lift the value in
        # place through a detached alias, which leaves the gradient untouched (as torch does).
        value.detach().clamp_(min=torch.finfo(value.dtype).tiny)
        return value

    def log_prob(self, value: Tensor) -> Tensor:
        value = torch.as_tensor(value, dtype=self.rate.dtype)
        if self._validate_args:
            self._validate_sample(value)
        return (torch.xlogy(self.concentration, self.rate) + torch.xlogy(self.concentration - 1, value)
                - self.rate * value - torch.lgamma(self.concentration))

    def entropy(self) -> Tensor:
        a = self.concentration
        return a - torch.log(self.rate) + torch.lgamma(a) + (1.0 - a) * torch.digamma(a)

    def cdf(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        igamma = getattr(torch, "igamma", None)
        if igamma is None:  # the special-functions family is optional in this build
            raise NotImplementedError("Gamma.cdf needs torch.igamma, which this build lacks")
        return igamma(self.concentration, self.rate * value)

    @property
    def _natural_params(self) -> tuple[Tensor, Tensor]:
        return self.concentration - 1, -self.rate

    def _log_normalizer(self, x: Tensor, y: Tensor) -> Tensor:
        return torch.lgamma(x + 1) + (x + 1) * torch.log(-y.reciprocal())


class Chi2(Gamma):
    """Chi-squared distribution with ``df`` degrees of freedom (Gamma(df / 2, 1 / 2)).

    >>> import retrograd as torch
    >>> from retrograd.distributions import Chi2
    >>> Chi2(torch.tensor(4.0)).mean
    tensor(4.)
    """

    arg_constraints = {"df": constraints.positive}

    def __init__(self, df: Tensor | float, validate_args: bool | None = None) -> None:
        (df,) = broadcast_all(df) if not _is_number(df) else (df,)
        super().__init__(0.5 * df, 0.5, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Chi2":
        new = self._get_checked_instance(Chi2, _instance)
        return super().expand(batch_shape, new)

    @property
    def df(self) -> Tensor:
        return self.concentration * 2
