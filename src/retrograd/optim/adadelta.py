"""Adadelta (weight decay, maximize)."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import (Optimizer, _check_capturable, _check_lr, _lr, _check_nonnegative, _grad, _weight_decay,
                        _zeros_like)

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

    _group_setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=1.0, rho: float = 0.9, eps: float = 1e-6, weight_decay: float = 0,
                 foreach: bool | None = None, *, capturable: bool = False, maximize: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonnegative(eps, "epsilon value")
        _check_nonnegative(weight_decay, "weight_decay value")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["square_avg"] = _zeros_like(p)
        state["acc_delta"] = _zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One Adadelta step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group, devices="['cuda', 'xpu', 'hpu', 'privateuseone']")
            lr, rho, eps, wd = _lr(group["lr"]), group["rho"], group["eps"], group["weight_decay"]
            for p, state in self._params_with_grad(group):
                state["step"]._data += 1
                x, g = p._data, _grad(p, group["maximize"])
                g = _weight_decay(x, g, lr, wd)
                v, u = state["square_avg"]._data, state["acc_delta"]._data
                K.square_avg(v, g, rho)
                std = K.sqrt(K.add(v, v.dtype.type(eps)))
                delta = K.sqrt(K.add(u, u.dtype.type(eps)))
                delta /= std
                delta *= g
                K.square_avg(u, delta, rho)
                K.add(x, delta, -lr, out=x)
                K.touch(p, state["step"], state["square_avg"], state["acc_delta"])
        return loss
