"""NAdam: Adam with Nesterov momentum (and optional decoupled weight decay)."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import (Optimizer, _check_capturable, _check_lr, _lr, _check_betas, _check_nonnegative, _grad,
                        _step_tensor, _weight_decay, _zeros_like)

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

    _group_setstate_defaults = dict(maximize=False, foreach=None, capturable=False, differentiable=False,
                                    decoupled_weight_decay=False)

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 momentum_decay: float = 4e-3, decoupled_weight_decay: bool = False, *,
                 foreach: bool | None = None, maximize: bool = False, capturable: bool = False,
                 differentiable: bool = False) -> None:
        _check_lr(lr)
        _check_nonnegative(eps, "epsilon value")
        _check_betas(betas)
        _check_nonnegative(weight_decay, "weight_decay value")
        _check_nonnegative(momentum_decay, "momentum_decay value")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["mu_product"] = _step_tensor(1.0)
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One NAdam step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group, "params, mu_products and state_steps")
            beta1, beta2 = group["betas"]
            lr, wd, eps = _lr(group["lr"]), group["weight_decay"], group["eps"]
            momentum_decay = group["momentum_decay"]
            for p, state in self._params_with_grad(group):
                step_t, mu_product = state["step"], state["mu_product"]
                x, g = p._data, _grad(p, group["maximize"])
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                step_t._data += 1
                step = float(step_t._data)
                bias_correction2 = 1 - beta2 ** step
                g = _weight_decay(x, g, lr, wd, group["decoupled_weight_decay"])
                if wd != 0 and group["decoupled_weight_decay"]:
                    K.touch(p)  # (PyTorch's param.mul_ is an in-place op of its own: one more version)
                mu = beta1 * (1.0 - 0.5 * (0.96 ** (step * momentum_decay)))
                mu_next = beta1 * (1.0 - 0.5 * (0.96 ** ((step + 1) * momentum_decay)))
                K.mul(mu_product._data, mu, out=mu_product._data)  # in the 0-d tensor's precision
                K.lerp(m, g, 1 - beta1, out=m)
                K.square_avg(v, g, beta2)
                denom = K.sqrt(K.div(v, bias_correction2))
                mu_prod = float(mu_product._data)
                mu_product_next = mu_prod * mu_next
                denom += denom.dtype.type(eps)
                K.addcdiv(x, g, denom, -lr * (1.0 - mu) / (1.0 - mu_prod), out=x)
                K.addcdiv(x, m, denom, (-lr * mu_next) / (1.0 - mu_product_next), out=x)
                K.touch(p, p, step_t, mu_product, state["exp_avg"], state["exp_avg_sq"])  # (two addcdiv_ on p)
        return loss
