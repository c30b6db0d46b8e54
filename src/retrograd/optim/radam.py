"""RAdam: Adam with a rectified adaptive learning rate."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import (Optimizer, _check_capturable, _check_lr, _lr, _check_betas, _check_nonnegative, _grad,
                        _weight_decay, _zeros_like)

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

    _group_setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, decoupled_weight_decay=False,
                                    capturable=False)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 decoupled_weight_decay: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_nonnegative(eps, "epsilon value")
        _check_betas(betas)
        _check_nonnegative(weight_decay, "weight_decay value")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, decoupled_weight_decay=decoupled_weight_decay,
                        differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One RAdam step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group)
            beta1, beta2 = group["betas"]
            lr, wd, eps = _lr(group["lr"]), group["weight_decay"], group["eps"]
            for p, state in self._params_with_grad(group):
                step_t = state["step"]
                x, g = p._data, _grad(p, group["maximize"])
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                step_t._data += 1
                step = float(step_t._data)
                g = _weight_decay(x, g, lr, wd, group["decoupled_weight_decay"])
                if wd != 0 and group["decoupled_weight_decay"]:
                    K.touch(p)  # (PyTorch's param.mul_ is an in-place op of its own: one more version)
                K.lerp(m, g, 1 - beta1, out=m)
                K.square_avg(v, g, beta2)
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
