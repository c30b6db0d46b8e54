"""Adamax: Adam with the infinity norm."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import (Optimizer, _check_capturable, _check_lr, _lr, _check_betas, _check_nonnegative, _grad,
                        _weight_decay, _zeros_like)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """PyTorch's Adamax with its order of operations (``torch/optim/adamax.py``, single-tensor path).

    ``m.lerp_(g, 1 - beta1)``; ``u = max(beta2 * u, |g| + eps)``; ``p -= lr / (1 - beta1**t) * m / u``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.Adamax([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.9000], requires_grad=True)
    """

    _group_setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        _check_lr(lr)
        _check_nonnegative(eps, "epsilon value")
        _check_betas(betas)
        _check_nonnegative(weight_decay, "weight_decay value")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["exp_avg"] = _zeros_like(p)
        state["exp_inf"] = _zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One Adamax step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group)
            beta1, beta2 = group["betas"]
            lr, eps, wd = _lr(group["lr"]), group["eps"], group["weight_decay"]
            for p, state in self._params_with_grad(group):
                step_t = state["step"]
                step_t._data += 1
                x, g = p._data, _grad(p, group["maximize"])
                g = _weight_decay(x, g, lr, wd)
                m, u = state["exp_avg"]._data, state["exp_inf"]._data
                K.lerp(m, g, 1 - beta1, out=m)
                K.mul(u, beta2, out=u)
                abs_g = np.abs(g)
                abs_g += abs_g.dtype.type(eps)
                K.maximum(u, abs_g, out=u)
                clr = lr / (1 - beta1 ** float(step_t._data))
                K.addcdiv(x, m, u, -clr, out=x)
                K.touch(p, step_t, state["exp_avg"], state["exp_inf"])
        return loss
