"""ASGD: averaged stochastic gradient descent."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import (Optimizer, _check_capturable, _check_lr, _lr, _check_nonnegative, _grad, _new_state, _scalar,
                        _zeros_like)

__all__ = ["ASGD"]


class ASGD(Optimizer):
    """PyTorch's ASGD with its order of operations (``torch/optim/asgd.py``, single-tensor path).

    ``p *= 1 - lambd * eta``; ``p -= eta * g``; ``ax += (p - ax) * mu`` (or ``ax = p`` while ``mu == 1``);
    then ``eta = lr / (1 + lambd * lr * t) ** alpha`` and ``mu = 1 / max(1, t - t0)``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.ASGD([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.8000], requires_grad=True)
    """

    _group_setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=1e-2, lambd: float = 1e-4, alpha: float = 0.75, t0: float = 1e6,
                 weight_decay: float = 0, foreach: bool | None = None, maximize: bool = False,
                 differentiable: bool = False, capturable: bool = False) -> None:
        _check_lr(lr)
        _check_nonnegative(weight_decay, "weight_decay value")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, lambd=lambd, alpha=alpha, t0=t0, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        dt = state["step"]._data.dtype
        state["eta"] = _new_state(np.array(_scalar(group["lr"]), dtype=dt))
        state["mu"] = _new_state(np.array(1.0, dtype=dt))
        state["ax"] = _zeros_like(p)

    @no_grad()
    def step(self, closure=None):
        """One ASGD step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group, "params, mus, etas, and state_steps")
            lr, lambd, alpha, t0, wd = (_lr(group["lr"]), group["lambd"], group["alpha"], group["t0"],
                                        group["weight_decay"])
            for p, state in self._params_with_grad(group):
                x, g = p._data, _grad(p, group["maximize"])
                step_t, eta_t, mu_t, ax_t = state["step"], state["eta"], state["mu"], state["ax"]
                step_t._data += 1
                if wd != 0:
                    g = K.add(g, x, wd)
                eta = float(eta_t._data)
                K.mul(x, 1 - lambd * eta, out=x)
                K.add(x, g, -eta, out=x)
                ax = ax_t._data
                if float(mu_t._data) != 1:
                    d = x - ax
                    d *= mu_t._data.astype(d.dtype)
                    ax += d
                else:
                    np.copyto(ax, x)
                step = float(step_t._data)
                # PyTorch builds the new values with ``torch.as_tensor`` (default dtype) before
                # copying them into the state, so a float64 state holds float32-rounded values.
                eta_t._data[...] = _default_dtype_value(lr / ((1 + lambd * lr * step) ** alpha))
                mu_t._data[...] = _default_dtype_value(1 / max(1, step - t0))
                K.touch(p, p, step_t, eta_t, mu_t, ax_t)  # (p: mul_ then add_, two in-place ops as in PyTorch)
        return loss


def _default_dtype_value(x: float) -> float:
    """``x`` rounded to the default dtype (what ``torch.as_tensor(x)`` holds)."""
    from .. import get_default_dtype
    return float(np.asarray(x, dtype=get_default_dtype().np))
