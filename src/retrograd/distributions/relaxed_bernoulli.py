"""Relaxed (Concrete / Gumbel-softmax) Bernoulli distributions, in logit and probability space."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from .utils import _is_number, _lazy_probs_logits, _probs_or_logits, broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(Distribution):
    """The logit of a RelaxedBernoulli sample: ``(logit(U) + logits) / temperature``.

    >>> import retrograd as torch
    >>> from retrograd.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    >>> LogitRelaxedBernoulli(torch.tensor(1.0), logits=torch.tensor(0.0)).log_prob(torch.tensor(0.0))
    tensor(-1.3863)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature: Tensor, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None, validate_args: bool | None = None) -> None:
        self.temperature = temperature
        name, value = _probs_or_logits(probs, logits)
        is_scalar = _is_number(value)
        (self._param,) = broadcast_all(value)
        setattr(self, name, self._param)
        super().__init__(Size() if is_scalar else self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "LogitRelaxedBernoulli":
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = Size(batch_shape)
        new.temperature = self.temperature
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, getattr(self, name).expand(batch_shape))
                new._param = getattr(new, name)
        return self._finish_expand(LogitRelaxedBernoulli, new, batch_shape)

    logits, probs = _lazy_probs_logits(is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        u = clamp_probs(torch.rand(shape, dtype=probs.dtype))
        return (u.log() - (-u).log1p() + probs.log() - (-probs).log1p()) / self.temperature

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value.mul(self.temperature)
        return self.temperature.log() + diff - 2 * diff.exp().log1p()


class RelaxedBernoulli(TransformedDistribution):
    """Relaxed Bernoulli on ``(0, 1)``: the sigmoid of a LogitRelaxedBernoulli.

    ``rsample`` is differentiable w.r.t. ``probs`` / ``logits``; lower ``temperature`` gives
    samples closer to 0 or 1.

    >>> import retrograd as torch
    >>> from retrograd.distributions import RelaxedBernoulli
    >>> d = RelaxedBernoulli(torch.tensor(0.5), probs=torch.tensor([0.1, 0.9]))
    >>> d.rsample().shape
    torch.Size([2])
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature: Tensor, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None, validate_args: bool | None = None) -> None:
        base = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "RelaxedBernoulli":
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self) -> Tensor:
        return self.base_dist.temperature

    @property
    def logits(self) -> Tensor:
        return self.base_dist.logits

    @property
    def probs(self) -> Tensor:
        return self.base_dist.probs
