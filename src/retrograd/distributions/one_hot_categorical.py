"""One-hot categorical distribution: samples are one-hot vectors of length K."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor

from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from .utils import _enumerate_along_batch

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(Distribution):
    """Categorical distribution whose samples are one-hot encoded (event_shape ``(K,)``).

    >>> import retrograd as torch
    >>> from retrograd.distributions import OneHotCategorical
    >>> d = OneHotCategorical(logits=torch.zeros(3))
    >>> d.event_shape, d.log_prob(torch.tensor([0.0, 1.0, 0.0]))
    (torch.Size([3]), tensor(-1.0986))
    """

    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs: Tensor | None = None, logits: Tensor | None = None,
                 validate_args: bool | None = None) -> None:
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "OneHotCategorical":
        new = self._get_checked_instance(OneHotCategorical, _instance)
        new._categorical = self._categorical.expand(batch_shape)
        return self._finish_expand(OneHotCategorical, new, batch_shape)

    @property
    def _param(self) -> Tensor:
        return self._categorical._param

    @property
    def probs(self) -> Tensor:
        return self._categorical.probs

    @property
    def logits(self) -> Tensor:
        return self._categorical.logits

    @property
    def mean(self) -> Tensor:
        return self._categorical.probs

    @property
    def mode(self) -> Tensor:
        probs = self._categorical.probs
        return torch.nn.functional.one_hot(probs.argmax(-1), probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self) -> Tensor:
        p = self._categorical.probs
        return p * (1 - p)

    @property
    def param_shape(self) -> Size:
        return self._categorical.param_shape

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        sample_shape = Size(sample_shape)
        probs = self._categorical.probs
        k = self._categorical._num_events
        idx = self._categorical.sample(sample_shape)
        return torch.nn.functional.one_hot(idx, k).to(probs.dtype)

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        return self._categorical.log_prob(value.max(-1)[1])

    def entropy(self) -> Tensor:
        return self._categorical.entropy()

    def enumerate_support(self, expand: bool = True) -> Tensor:
        return _enumerate_along_batch(torch.eye(self.event_shape[0], dtype=self._param.dtype), self.batch_shape, expand)


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """OneHotCategorical whose ``rsample`` is the one-hot sample with the straight-through
    gradient of ``probs`` (forward value unchanged, backward as if the sample were ``probs``).

    >>> import retrograd as torch
    >>> from retrograd.distributions import OneHotCategoricalStraightThrough
    >>> p = torch.tensor([0.2, 0.8], requires_grad=True)
    >>> OneHotCategoricalStraightThrough(probs=p).rsample().sum().item()
    1.0
    """

    has_rsample = True

    def rsample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
