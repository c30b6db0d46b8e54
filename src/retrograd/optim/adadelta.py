"""Adadelta (weight decay, maximize)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _grad, _new_state, _scalar, _step_tensor

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """PyTorch's Adadelta with its order of operations (``torch/optim/adadelta.py``, single-tensor path).

    ``v = rho * v + (1 - rho) * g * g``; ``d = sqrt(u + eps) / sqrt(v + eps) * g``;
    ``u = rho * u + (1 - rho) * d * d``; ``p -= lr * d``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.Adadelta([w], lr=1.0)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.9968], requires_grad=True)
    """

    def __init__(self, params, lr=1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in dict(foreach=None, maximize=False, differentiable=False, capturable=False).items():
                group.setdefault(k, v)

    @no_grad()
    def step(self, closure=None):
        """One Adadelta step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, rho, eps, wd = _scalar(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["square_avg"] = _new_state(np.zeros_like(p._data))
                    state["acc_delta"] = _new_state(np.zeros_like(p._data))
                state["step"]._data += 1
                x, g = p._data, _grad(p, group["maximize"])
                if wd != 0:
                    g = K.add(g, x, wd)
                v, u = state["square_avg"]._data, state["acc_delta"]._data
                K.mul(v, rho, out=v)
                K.addcmul(v, g, g, 1 - rho, out=v)
                std = K.sqrt(K.add(v, v.dtype.type(eps)))
                delta = K.sqrt(K.add(u, u.dtype.type(eps)))
                delta /= std
                delta *= g
                K.mul(u, rho, out=u)
                K.addcmul(u, delta, delta, 1 - rho, out=u)
                K.add(x, delta, -lr, out=x)
                K.touch(p, state["step"], state["square_avg"], state["acc_delta"])
        return loss
