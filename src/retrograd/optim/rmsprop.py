"""RMSprop (centered variant, momentum, weight decay, maximize)."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import (Optimizer, _check_capturable, _check_lr, _lr, _check_nonnegative, _grad, _weight_decay,
                        _zeros_like)

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """PyTorch's RMSprop with its order of operations (``torch/optim/rmsprop.py``, single-tensor path).

    ``v = alpha * v + (1 - alpha) * g * g``; ``avg = sqrt(v - gbar**2 if centered else v) + eps``;
    ``p -= lr * g / avg`` (or through a momentum buffer ``buf = momentum * buf + g / avg``).

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.RMSprop([w], lr=0.01)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.9000], requires_grad=True)
    """

    _group_setstate_defaults = dict(momentum=0, centered=False, foreach=None, maximize=False, differentiable=False,
                                    capturable=False)

    def __init__(self, params, lr=1e-2, alpha: float = 0.99, eps: float = 1e-8, weight_decay: float = 0,
                 momentum: float = 0, centered: bool = False, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_nonnegative(eps, "epsilon value")
        _check_nonnegative(momentum, "momentum value")
        _check_nonnegative(weight_decay, "weight_decay value")
        _check_nonnegative(alpha, "alpha value")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach, maximize=maximize,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["square_avg"] = _zeros_like(p)
        if group["momentum"] > 0:
            state["momentum_buffer"] = _zeros_like(p)
        if group["centered"]:
            state["grad_avg"] = _zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One RMSprop step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group)
            lr, alpha, eps = _lr(group["lr"]), group["alpha"], group["eps"]
            wd, momentum = group["weight_decay"], group["momentum"]
            for p, state in self._params_with_grad(group):
                x, g = p._data, _grad(p, group["maximize"])
                state["step"]._data += 1
                g = _weight_decay(x, g, lr, wd)
                v = state["square_avg"]._data
                K.square_avg(v, g, alpha)
                if group["centered"]:
                    gbar = state["grad_avg"]._data
                    K.lerp(gbar, g, 1 - alpha, out=gbar)
                    avg = K.sqrt(K.addcmul(v, gbar, gbar, -1))
                    K.touch(state["grad_avg"])
                else:
                    avg = K.sqrt(v)
                avg += avg.dtype.type(eps)
                if momentum > 0:
                    buf = state["momentum_buffer"]._data
                    K.mul(buf, momentum, out=buf)
                    K.addcdiv(buf, g, avg, out=buf)
                    K.add(x, buf, -lr, out=x)
                    K.touch(state["momentum_buffer"])
                else:
                    K.addcdiv(x, g, avg, -lr, out=x)
                K.touch(p, state["step"], state["square_avg"])
        return loss
