"""Adagrad (learning-rate decay, initial accumulator, weight decay, maximize)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _grad, _new_state, _scalar, _step_tensor

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """PyTorch's Adagrad with its order of operations (``torch/optim/adagrad.py``, single-tensor path).

    ``clr = lr / (1 + (t - 1) * lr_decay)``; ``s += g * g``; ``p -= clr * g / (sqrt(s) + eps)``.
    Like PyTorch, the state (``step``, ``sum``) is created for every parameter at construction.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.Adagrad([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.9000], requires_grad=True)
    """

    def __init__(self, params, lr=1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        if not 0.0 <= lr:
            raise ValueError(f"Invalid learning rate: {lr}")
        if not 0.0 <= lr_decay:
            raise ValueError(f"Invalid lr_decay value: {lr_decay}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if not 0.0 <= initial_accumulator_value:
            raise ValueError(f"Invalid initial_accumulator_value value: {initial_accumulator_value}")
        if not 0.0 <= eps:
            raise ValueError(f"Invalid epsilon value: {eps}")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p, initial_accumulator_value)

    def _init_state(self, p, init_value) -> dict:
        state = self.state[p]
        if len(state) == 0:
            state["step"] = _step_tensor()
            state["sum"] = _new_state(np.full_like(p._data, init_value))
        return state

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("foreach", None)
            group.setdefault("maximize", False)
            group.setdefault("differentiable", False)
            group.setdefault("fused", None)

    def share_memory(self) -> None:
        """No-op: retrograd tensors live in ordinary process memory."""

    @no_grad()
    def step(self, closure=None):
        """One Adagrad step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, wd, lr_decay, eps = _scalar(group["lr"]), group["weight_decay"], group["lr_decay"], group["eps"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                state = self._init_state(p, self.defaults["initial_accumulator_value"])
                step_t = state["step"]
                step_t._data += 1
                step = float(step_t._data)
                x, g = p._data, _grad(p, group["maximize"])
                if wd != 0:
                    g = K.add(g, x, wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                s = state["sum"]._data
                K.addcmul(s, g, g, 1, out=s)
                std = K.sqrt(s)
                std += std.dtype.type(eps)
                K.addcdiv(x, g, std, -clr, out=x)
                K.touch(p, step_t, state["sum"])
        return loss
