"""Adam (and the AMSGrad variant, L2 or decoupled weight decay)."""
from __future__ import annotations

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import (Optimizer, _check_capturable, _check_lr, _check_fused, _lr, _check_betas, _check_nonnegative,
                        _grad, _scalar, _weight_decay, _zeros_like)

__all__ = ["Adam"]


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

    _group_setstate_defaults = dict(amsgrad=False, maximize=False, foreach=None, capturable=False,
                                    differentiable=False, fused=None, decoupled_weight_decay=False)

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps: float = 1e-8, weight_decay: float = 0,
                 amsgrad: bool = False, *, foreach: bool | None = None, maximize: bool = False,
                 capturable: bool = False, differentiable: bool = False, fused: bool | None = None,
                 decoupled_weight_decay: bool = False) -> None:
        _check_lr(lr, foreach, capturable, tensor_foreach=True)
        _check_nonnegative(eps, "epsilon value")
        _check_betas(betas)
        _check_nonnegative(weight_decay, "weight_decay value")
        if not (all(isinstance(b, float) for b in betas[:2]) or all(isinstance(b, Tensor) for b in betas[:2])):
            raise ValueError("betas must be either both floats or both Tensors")
        _check_fused(fused, foreach, differentiable)
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, betas=tuple(betas), eps=eps, weight_decay=weight_decay, amsgrad=amsgrad,
                        maximize=maximize, foreach=foreach, capturable=capturable, differentiable=differentiable,
                        fused=fused, decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["exp_avg"] = _zeros_like(p)
        state["exp_avg_sq"] = _zeros_like(p)
        if group["amsgrad"]:
            state["max_exp_avg_sq"] = _zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One Adam step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group)
            beta1, beta2 = (_scalar(b) for b in group["betas"])
            # (the fused kernel reads a tensor lr as a double: no float32 rounding of lr arithmetic)
            lr = _scalar(group["lr"]) if group["fused"] else _lr(group["lr"])
            wd, eps = group["weight_decay"], group["eps"]
            for p, state in self._params_with_grad(group):
                x, g = p._data, _grad(p, group["maximize"])
                m, v = state["exp_avg"]._data, state["exp_avg_sq"]._data
                step_t = state["step"]
                step_t._data += 1
                g = _weight_decay(x, g, lr, wd, group["decoupled_weight_decay"])
                if wd != 0 and group["decoupled_weight_decay"]:
                    K.touch(p)  # (PyTorch's param.mul_ is an in-place op of its own: one more version)
                K.lerp(m, g, 1 - beta1, out=m)
                K.square_avg(v, g, beta2)
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
