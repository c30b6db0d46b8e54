"""Adamax: Adam with the infinity norm."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .adam import _check_betas
from .optimizer import Optimizer, _grad, _new_state, _scalar, _step_tensor

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

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 foreach: bool | None = None, *, maximize: bool = False, differentiable: bool = False,
                 capturable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in dict(foreach=None, maximize=False, differentiable=False, capturable=False).items():
                group.setdefault(k, v)

    @no_grad()
    def step(self, closure=None):
        """One Adamax step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, eps, wd = _scalar(group["lr"]), group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _new_state(np.zeros_like(p._data))
                    state["exp_inf"] = _new_state(np.zeros_like(p._data))
                step_t = state["step"]
                step_t._data += 1
                x, g = p._data, _grad(p, group["maximize"])
                if wd != 0:
                    g = K.add(g, x, wd)
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
