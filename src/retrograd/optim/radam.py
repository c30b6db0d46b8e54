"""RAdam: Adam with a rectified adaptive learning rate."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .adam import _check_betas
from .optimizer import Optimizer, _grad, _new_state, _scalar, _step_tensor

__all__ = ["RAdam"]


class RAdam(Optimizer):
    """PyTorch's RAdam with its order of operations (``torch/optim/radam.py``, single-tensor path).

    While the approximated SMA length ``rho_t <= 5`` the step is un-adapted momentum SGD;
    afterwards it is Adam's step scaled by the variance rectification term.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.RAdam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.8000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in dict(foreach=None, maximize=False, differentiable=False, decoupled_weight_decay=False,
                             capturable=False).items():
                group.setdefault(k, v)

    @no_grad()
    def step(self, closure=None):
        """One RAdam step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, wd, eps = _scalar(group["lr"]), group["weight_decay"], group["eps"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["exp_avg"] = _new_state(np.zeros_like(p._data))
                    state["exp_avg_sq"] = _new_state(np.zeros_like(p._data))
                step_t = state["step"]
                x, g = p._data, _grad(p, group["maximize"])
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                step_t._data += 1
                step = float(step_t._data)
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        K.mul(x, 1 - lr * wd, out=x)
                    else:
                        g = K.add(g, x, wd)
                K.lerp(m, g, 1 - beta1, out=m)
                K.mul(v, beta2, out=v)
                K.addcmul(v, g, g, 1 - beta2, out=v)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                corrected = K.div(m, bias_correction1)
                rho_inf = 2 / (1 - beta2) - 1
                rho_t = rho_inf - 2 * step * (beta2 ** step) / bias_correction2
                if rho_t > 5.0:
                    rect = ((rho_t - 4) * (rho_t - 2) * rho_inf / ((rho_inf - 4) * (rho_inf - 2) * rho_t)) ** 0.5
                    sq = K.sqrt(v)
                    sq += sq.dtype.type(eps)
                    adaptive_lr = K.rdiv(bias_correction2 ** 0.5, sq)
                    update = K.mul(K.mul(corrected, lr) * adaptive_lr, rect)
                else:
                    update = K.mul(corrected, lr)
                K.add(x, update, -1.0, out=x)
                K.touch(p, step_t, state["exp_avg"], state["exp_avg_sq"])
        return loss
