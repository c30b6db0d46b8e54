"""Bernoulli distribution, parametrised by ``probs`` or ``logits``."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor
from retrograd.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .exp_family import ExponentialFamily
from .utils import _enumerate_along_batch, _held_param, _lazy_probs_logits, _probs_or_logits, broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(ExponentialFamily):
    """Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``), else 0.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Bernoulli
    >>> Bernoulli(logits=torch.tensor([0.0])).probs
    tensor([0.5000])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs: Tensor | float | None = None, logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        name, value = _probs_or_logits(probs, logits)
        (self._param,) = broadcast_all(value)
        setattr(self, name, self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Bernoulli":
        new = self._expand_params(Bernoulli, batch_shape, _instance, ("probs", "logits"))
        new._param = _held_param(new)
        return new

    logits, probs = _lazy_probs_logits(is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return self.probs

    @property
    def mode(self) -> Tensor:
        # Both outcomes are modes at p = 0.5; torch reports NaN there.
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return torch.where(self.probs == 0.5, torch.full_like(mode, math.nan), mode)

    @property
    def variance(self) -> Tensor:
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            return torch.bernoulli(self.probs.expand(shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand: bool = True) -> Tensor:
        return _enumerate_along_batch(torch.arange(2, dtype=self._param.dtype), self._batch_shape, expand)

    @property
    def _natural_params(self) -> tuple[Tensor]:
        return (torch.logit(self.probs),)

    def _log_normalizer(self, x: Tensor) -> Tensor:
        return torch.log1p(torch.exp(x))
