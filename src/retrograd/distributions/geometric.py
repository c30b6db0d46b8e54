"""Geometric distribution: number of failures before the first success."""
from __future__ import annotations

from typing import Sequence

import retrograd as torch
from retrograd import Size, Tensor
from retrograd.nn.functional import binary_cross_entropy_with_logits

from . import constraints
from .distribution import Distribution
from .utils import _lazy_probs_logits, _probs_or_logits, broadcast_all

__all__ = ["Geometric"]


class Geometric(Distribution):
    """Geometric distribution on ``{0, 1, 2, ...}`` with success probability ``probs``.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Geometric
    >>> Geometric(probs=torch.tensor(0.5)).log_prob(torch.tensor(1.0))
    tensor(-1.3863)
    """

    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs: Tensor | float | None = None, logits: Tensor | float | None = None,
                 validate_args: bool | None = None) -> None:
        name, value = _probs_or_logits(probs, logits)
        (param,) = broadcast_all(value)
        setattr(self, name, param)
        super().__init__(param.size(), validate_args=validate_args)
        if self._validate_args and name == "probs":
            # p = 0 passes unit_interval but makes no distribution; torch rejects it separately.
            valid = self.probs > 0
            if not bool(valid.all()):
                bad = self.probs.detach()[~valid]
                raise ValueError(f"Expected parameter probs ({type(self.probs).__name__} of shape "
                                 f"{tuple(self.probs.shape)}) of distribution {self!r} to be positive "
                                 f"but found invalid values:\n{bad}")

    def expand(self, batch_shape: Sequence[int], _instance=None) -> "Geometric":
        return self._expand_params(Geometric, batch_shape, _instance, ("probs", "logits"))

    logits, probs = _lazy_probs_logits(is_binary=True)

    @property
    def mean(self) -> Tensor:
        return 1.0 / self.probs - 1.0

    @property
    def mode(self) -> Tensor:
        return torch.zeros_like(self.probs)

    @property
    def variance(self) -> Tensor:
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape: Sequence[int] = Size()) -> Tensor:
        shape = self._extended_shape(sample_shape)
        with torch.no_grad():
            tiny = torch.finfo(self.probs.dtype).tiny
            u = torch.empty(shape, dtype=self.probs.dtype).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value: Tensor) -> Tensor:
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # P(0) = 1 when p = 1: avoid 0 * log(0) = NaN there.
        probs = torch.where((probs == 1) & (value == 0), torch.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self) -> Tensor:
        return binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none") / self.probs
