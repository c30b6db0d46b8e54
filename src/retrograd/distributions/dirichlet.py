"""Dirichlet distribution over the probability simplex."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from ._gamma_sampler import standard_gamma
from .exp_family import ExponentialFamily

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution with concentration vector ``concentration`` (last dim).

    ``rsample`` normalises independent reparameterised Gamma draws, so its gradient w.r.t.
    ``concentration`` is the exact pathwise one (torch computes the same quantity directly).

    >>> import retrograd as torch
    >>> from retrograd.distributions import Dirichlet
    >>> Dirichlet(torch.ones(3)).log_prob(torch.tensor([0.2, 0.3, 0.5]))
    tensor(0.6931)
    """

    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration: Tensor, validate_args: bool | None = None) -> None:
        if not isinstance(concentration, Tensor):
            raise AttributeError(f"'{type(concentration).__name__}' object has no attribute 'dim'")
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        super().__init__(concentration.shape[:-1], concentration.shape[-1:], validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Dirichlet":
        return self._expand_params(Dirichlet, batch_shape, _instance, ("concentration",), self.event_shape)

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        g = standard_gamma(self.concentration.expand(shape))
        x = g / g.sum(-1, keepdim=True)
        # Tiny concentrations can underflow a component to 0, outside the support: lift the
        # value in place (through a detached alias) so the gradient is left untouched.
        x.detach().clamp_(min=torch.finfo(x.dtype).tiny)
        return x

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        c = self.concentration
        return torch.xlogy(c - 1.0, value).sum(-1) + torch.lgamma(c.sum(-1)) - torch.lgamma(c).sum(-1)

    @property
    def mean(self) -> Tensor:
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self) -> Tensor:
        cm1 = (self.concentration - 1).clamp(min=0.0)
        mode = cm1 / cm1.sum(-1, True)
        # All concentrations < 1: the density peaks at a vertex; torch picks the argmax one.
        all_small = (self.concentration < 1).all(dim=-1, keepdim=True)
        vertex = torch.nn.functional.one_hot(mode.argmax(dim=-1), cm1.shape[-1]).to(mode.dtype)
        return torch.where(all_small, vertex, mode)

    @property
    def variance(self) -> Tensor:
        c0 = self.concentration.sum(-1, True)
        return self.concentration * (c0 - self.concentration) / (c0.pow(2) * (c0 + 1))

    def entropy(self) -> Tensor:
        c = self.concentration
        k = c.size(-1)
        a0 = c.sum(-1)
        return (torch.lgamma(c).sum(-1) - torch.lgamma(a0) - (k - a0) * torch.digamma(a0)
                - ((c - 1.0) * torch.digamma(c)).sum(-1))

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (self.concentration,)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return x.lgamma().sum(-1) - torch.lgamma(x.sum(-1))
