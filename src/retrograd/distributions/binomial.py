"""Binomial distribution: successes in ``total_count`` Bernoulli trials."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .distribution import Distribution
from .utils import _enumerate_along_batch, _held_param, _lazy_probs_logits, _probs_or_logits, broadcast_all

__all__ = ["Binomial"]

_CHUNK = 256  # trials drawn per pass when sampling (bounds the memory of the Bernoulli sum)


def _clamp_by_zero(x: Tensor) -> Tensor:
    # max(x, 0) whose gradient at 0 is 1/2 (the average of both sides), as torch uses.
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(Distribution):
    """Binomial distribution with ``total_count`` trials and success ``probs`` (or ``logits``).

    >>> import retrograd as torch
    >>> from retrograd.distributions import Binomial
    >>> Binomial(2, probs=torch.tensor(0.5)).log_prob(torch.tensor(1.0))
    tensor(-0.6931)
    """

    arg_constraints = {"total_count": constraints.nonnegative_integer, "probs": constraints.unit_interval,
                       "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count: Tensor | int = 1, probs: Tensor | float | None = None,
                 logits: Tensor | float | None = None, validate_args: bool | None = None) -> None:
        name, value = _probs_or_logits(probs, logits)
        total_count, self._param = broadcast_all(total_count, value)
        self.total_count = total_count.type_as(self._param)
        setattr(self, name, self._param)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Binomial":
        new = self._expand_params(Binomial, batch_shape, _instance, ("total_count", "probs", "logits"))
        new._param = _held_param(new)
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self) -> constraints.Constraint:
        return constraints.integer_interval(0, self.total_count)

    logits, probs = _lazy_probs_logits(is_binary=True)

    @property
    def param_shape(self) -> Size:
        return self._param.size()

    @property
    def mean(self) -> Tensor:
        return self.total_count * self.probs

    @property
    def mode(self) -> Tensor:
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self) -> Tensor:
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        # No public binomial sampler: count Bernoulli successes, _CHUNK trials at a time,
        # masking the trials past each element's total_count. Exact, O(total_count) work.
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            n = self.total_count.expand(shape)
            p = self.probs.expand(shape)
            n_max = int(n.max().item()) if n.numel() else 0
            out = torch.zeros(shape, dtype=p.dtype)
            done = 0
            while done < n_max:
                k = min(_CHUNK, n_max - done)
                trial = torch.arange(done, done + k, dtype=p.dtype).reshape((k,) + (1,) * len(shape))
                draws = torch.bernoulli(p.unsqueeze(0).expand((k,) + tuple(shape)))
                out = out + (draws * (trial < n.unsqueeze(0)).to(p.dtype)).sum(0)
                done += k
            return out

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        n = self.total_count
        log_n_fact = torch.lgamma(n + 1)
        log_k_fact = torch.lgamma(value + 1)
        log_nmk_fact = torch.lgamma(n - value + 1)
        # n * log(1 + exp(logits)) written stably: n * (max(l, 0) + log1p(exp(-|l|))).
        normalize = n * _clamp_by_zero(self.logits) + n * torch.log1p(torch.exp(-torch.abs(self.logits))) - log_n_fact
        return value * self.logits - log_k_fact - log_nmk_fact - normalize

    def entropy(self) -> Tensor:
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        lp = self.log_prob(self.enumerate_support(False))
        return -(torch.exp(lp) * lp).sum(0)

    def enumerate_support(self, expand: bool = True) -> Tensor:
        n = int(self.total_count.max())
        if not self.total_count.min() == n:
            raise NotImplementedError("Inhomogeneous total count not supported by `enumerate_support`.")
        return _enumerate_along_batch(torch.arange(1 + n, dtype=self._param.dtype), self._batch_shape, expand)
