"""Adam (and the AMSGrad variant, L2 or decoupled weight decay)."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _grad, _new_state, _scalar, _step_tensor

__all__ = ["Adam"]


def _check_betas(betas) -> None:
    if not 0.0 <= betas[0] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 0: {betas[0]}")
    if not 0.0 <= betas[1] < 1.0:
        raise ValueError(f"Invalid beta parameter at index 1: {betas[1]}")


class Adam(Optimizer):
    """PyTorch's Adam with its order of operations (``torch/optim/adam.py``, single-tensor path).

    ``m.lerp_(g, 1 - beta1)``; ``v = beta2 * v + (1 - beta2) * g * g``;
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.Adam([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        _check_betas(betas)
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not (all(isinstance(b, float) for b in betas[:2]) or all(isinstance(b, Tensor) for b in betas[:2])):
            raise ValueError("betas must be either both floats or both Tensors")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("amsgrad", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("capturable", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)
            group.setdefault("decoupled_weight_decay", False)

    def _init_state(self, p, group) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["exp_avg"] = _new_state(np.zeros_like(p._data))
            state["exp_avg_sq"] = _new_state(np.zeros_like(p._data))
            if group["amsgrad"]:
                state["max_exp_avg_sq"] = _new_state(np.zeros_like(p._data))
        return state

    @no_grad()
    def step(self, closure=None):
        """One Adam step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            lr, wd, eps = _scalar(group["lr"]), group["weight_decay"], group["eps"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self._init_state(p, group)
                x, g = p._data, _grad(p, group["maximize"])
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                step_t = state["step"]
                step_t._data += 1
                if wd != 0:
                    if group["decoupled_weight_decay"]:
                        K.mul(x, 1 - lr * wd, out=x)
                    else:
                        g = K.add(g, x, wd)
                K.lerp(m, g, 1 - beta1, out=m)
                K.mul(v, beta2, out=v)
                K.addcmul(v, g, g, 1 - beta2, out=v)
                step = float(step_t._data)
                bias_correction1 = 1 - beta1 ** step
                bias_correction2 = 1 - beta2 ** step
                step_size = lr / bias_correction1
                bias_correction2_sqrt = bias_correction2 ** 0.5
                if group["amsgrad"]:
                    vmax = state["max_exp_avg_sq"]._data
                    K.maximum(vmax, v, out=vmax)
                    denom = K.div(K.sqrt(vmax), bias_correction2_sqrt)
                    K.touch(state["max_exp_avg_sq"])
                else:
                    denom = K.div(K.sqrt(v), bias_correction2_sqrt)
                denom += denom.dtype.type(eps)
                K.addcdiv(x, m, denom, -step_size, out=x)
                K.touch(p, step_t, state["exp_avg"], state["exp_avg_sq"])
        return loss
