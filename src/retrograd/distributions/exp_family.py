"""``ExponentialFamily``: entropy from the log-normaliser (via autograd) for exponential families.

>>> import retrograd as torch
>>> from retrograd.distributions import ExponentialFamily, Normal
>>> isinstance(Normal(0.0, 1.0), ExponentialFamily)
True
"""
from __future__ import annotations

import retrograd as torch
from retrograd import Tensor

from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base for densities ``p(x) = h(x) exp(<t(x), theta> - F(theta))``.

    Subclasses give ``_natural_params``, ``_log_normalizer`` (F) and ``_mean_carrier_measure``
    (E[log h(x)]); the generic entropy (and the Bregman-divergence KL) follow from them.

    >>> import retrograd as torch
    >>> from retrograd.distributions import Exponential
    >>> ExponentialFamily.entropy(Exponential(torch.tensor([2.0])))
    tensor([0.3069], grad_fn=<SubBackward0>)
    """

    @property
    def _natural_params(self) -> tuple[Tensor, ...]:
        raise NotImplementedError

    def _log_normalizer(self, *natural_params: Tensor) -> Tensor:
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self) -> float:
        raise NotImplementedError

    def entropy(self) -> Tensor:
        # H = F(theta) - <theta, grad F(theta)> - E[log h(x)]
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with torch.enable_grad():
            lg = self._log_normalizer(*nparams)
            grads = torch.autograd.grad(lg.sum(), nparams, create_graph=True)
        result = lg - self._mean_carrier_measure
        for p, g in zip(nparams, grads):
            result = result - (p * g).reshape(tuple(self._batch_shape) + (-1,)).sum(-1)
        return result
