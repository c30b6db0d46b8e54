"""Adagrad (learning-rate decay, initial accumulator, weight decay, maximize)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _check_lr, _check_fused, _lr, _check_nonnegative, _grad, _new_state, _weight_decay

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

    _group_setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, fused=None)

    def __init__(self, params, lr=1e-2, lr_decay: float = 0, weight_decay: float = 0,
                 initial_accumulator_value: float = 0, eps: float = 1e-10, foreach: bool | None = None, *,
                 maximize: bool = False, differentiable: bool = False, fused: bool | None = None) -> None:
        _check_lr(lr)
        _check_nonnegative(lr_decay, "lr_decay value")
        _check_nonnegative(weight_decay, "weight_decay value")
        _check_nonnegative(initial_accumulator_value, "initial_accumulator_value value")
        _check_nonnegative(eps, "epsilon value")
        _check_fused(fused, foreach, differentiable)
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._state_of(p, group)

    def _init_state(self, state, p, group) -> None:
        # the constructor's value, as in PyTorch (a group's own initial_accumulator_value is not used)
        state["sum"] = _new_state(np.full_like(p._data, self.defaults["initial_accumulator_value"]))

    def share_memory(self) -> None:
        """No-op: retrograd tensors live in ordinary process memory."""

    @no_grad()
    def step(self, closure=None):
        """One Adagrad step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, wd, lr_decay, eps = _lr(group["lr"]), group["weight_decay"], group["lr_decay"], group["eps"]
            for p, state in self._params_with_grad(group):
                step_t = state["step"]
                step_t._data += 1
                step = float(step_t._data)
                x, g = p._data, _grad(p, group["maximize"])
                g = _weight_decay(x, g, lr, wd)
                clr = lr / (1 + (step - 1) * lr_decay)
                s = state["sum"]._data
                K.addcmul(s, g, g, 1, out=s)
                std = K.sqrt(s)
                std += std.dtype.type(eps)
                K.addcdiv(x, g, std, -clr, out=x)
                K.touch(p, step_t, state["sum"])
        return loss
