"""Categorical distribution over ``{0, ..., K-1}``, parametrised by ``probs`` or ``logits``."""
from __future__ import annotations

import math
from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import _enumerate_along_batch, _held_param, _lazy_probs_logits, _probs_or_logits

__all__ = ["Categorical"]


def _check_param(name: str, value: object) -> None:
    if not isinstance(value, Tensor):
        # torch fails on `value.dim()`; raise the same AttributeError up front.
        raise AttributeError(f"'{type(value).__name__}' object has no attribute 'dim'")
    if value.dim() < 1:
        raise ValueError(f"`{name}` parameter must be at least one-dimensional.")


class Categorical(Distribution):
    """Categorical distribution; the last dim of ``probs``/``logits`` indexes the categories.

    ``probs`` need not sum to one (they are normalised); ``logits`` are unnormalised log-probs.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Categorical
    >>> d = Categorical(logits=torch.zeros(2, 3))
    >>> d.batch_shape, d.sample((4,)).shape
    (torch.Size([2]), torch.Size([4, 2]))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        name, value = _probs_or_logits(probs, logits)
        _check_param(name, value)
        # Normalised: probs to sum to one, logits to log-probs.
        if name == "probs":
            self._param = value / value.sum(-1, keepdim=True)
        else:
            self._param = value - value.logsumexp(dim=-1, keepdim=True)
        setattr(self, name, self._param)
        self._num_events = self._param.size()[-1]
        batch_shape = self._param.size()[:-1] if self._param.dim() > 1 else Size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Categorical":
        new = self._expand_params(Categorical, batch_shape, _instance, ("probs", "logits"), (self._num_events,))
        new._param = _held_param(new)
        new._num_events = self._num_events
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self._num_events - 1)

    logits, probs = _lazy_probs_logits(is_binary=False)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    @property
    def mode(self) -> Tensor:
        return self.probs.argmax(dim=-1)

    @property
    def variance(self) -> Tensor:
        return torch.full(self._extended_shape(), math.nan, dtype=self.probs.dtype)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        sample_shape = Size(sample_shape)
        with torch.no_grad():
            probs_2d = self.probs.reshape(-1, self._num_events)
            samples_2d = torch.multinomial(probs_2d, sample_shape.numel(), True).T
            return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = torch.broadcast_tensors(value, self.logits)
        return log_pmf.gather(-1, value[..., :1]).squeeze(-1)

    def entropy(self) -> Tensor:
        # Clamp -inf logits (zero-probability classes) so 0 * -inf does not make NaN.
        logits = torch.clamp(self.logits, min=torch.finfo(self.logits.dtype).min)
        return -(logits * self.probs).sum(-1)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        return _enumerate_along_batch(torch.arange(self._num_events, dtype=torch.long), self._batch_shape, expand)
