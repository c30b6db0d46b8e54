"""NAdam: Adam with Nesterov momentum (and optional decoupled weight decay)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .adam import _check_betas
from .optimizer import Optimizer, _grad, _new_state, _scalar, _step_tensor

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """PyTorch's NAdam with its order of operations (``torch/optim/nadam.py``, single-tensor path).

    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``; ``mu_product`` (a float32 0-d
    tensor, as in PyTorch) accumulates them; the update mixes ``g`` and ``m`` through ``addcdiv``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.NAdam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.8944], requires_grad=True)
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= momentum_decay:
            raise ValueError(f"Invalid momentum_decay value: {momentum_decay}")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            for k, v in dict(maximize=False, foreach=None, capturable=False, differentiable=False,
                             decoupled_weight_decay=False).items():
                group.setdefault(k, v)

    @no_grad()
    def step(self, closure=None):
        """One NAdam step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = group["betas"]
            lr, wd, eps = _scalar(group["lr"]), group["weight_decay"], group["eps"]
            momentum_decay = group["momentum_decay"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self.state[p]
                if len(state) == 0:
                    state["step"] = _step_tensor()
                    state["mu_product"] = _step_tensor(1.0)
                    state["exp_avg"] = _new_state(np.zeros_like(p._data))
                    state["exp_avg_sq"] = _new_state(np.zeros_like(p._data))
                step_t, mu_product = state["step"], state["mu_product"]
                x, g = p._data, _grad(p, group["maximize"])
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                step_t._data += 1
                step = float(step_t._data)
                bias_correction2 = 1 - beta2 ** step
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        K.mul(x, 1 - lr * wd, out=x)
                    else:
                        g = K.add(g, x, wd)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                K.mul(mu_product._data, mu, out=mu_product._data)  # in the 0-d tensor's precision
                K.lerp(m, g, 1 - beta1, out=m)
                K.mul(v, beta2, out=v)
                K.addcmul(v, g, g, 1 - beta2, out=v)
                denom = K.sqrt(K.div(v, bias_correction2))
                mu_prod = float(mu_product._data)
                mu_product_next = mu_prod * mu_next
                denom += denom.dtype.type(eps)
                K.addcdiv(x, g, denom, -lr * (1.0 - mu) / (1.0 - mu_prod), out=x)
                K.addcdiv(x, m, denom, (-lr * mu_next) / (1.0 - mu_product_next), out=x)
                K.touch(p, step_t, mu_product, state["exp_avg"], state["exp_avg_sq"])
        return loss
