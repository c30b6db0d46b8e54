"""Rprop: resilient backpropagation (sign-based, per-element step sizes)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _check_capturable, _check_lr, _grad, _new_state, _scalar, _zeros_like

__all__ = ["Rprop"]


class Rprop(Optimizer):
    """PyTorch's Rprop with its order of operations (``torch/optim/rprop.py``, single-tensor path).

    ``s = sign(g * prev)``; step sizes grow by ``etaplus`` where ``s > 0``, shrink by ``etaminus`` where
    ``s < 0`` (and that gradient is zeroed), clamped to ``step_sizes``; ``p -= sign(g) * step_size``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.Rprop([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.9000], requires_grad=True)
    """

    _group_setstate_defaults = dict(foreach=None, maximize=False, differentiable=False, capturable=False)

    def __init__(self, params, lr=1e-2, etas: tuple[float, float] = (0.5, 1.2),
                 step_sizes: tuple[float, float] = (1e-6, 50), *, capturable: bool = False,
                 foreach: bool | None = None, maximize: bool = False, differentiable: bool = False) -> None:
        _check_lr(lr)
        if not 0.0 < etas[0] < 1.0 < etas[1]:
            raise ValueError(f"Invalid eta values: {etas[0]}, {etas[1]}")
        self._check_differentiable(differentiable)
        defaults = dict(lr=lr, etas=etas, step_sizes=step_sizes, foreach=foreach, maximize=maximize,
                        differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        state["prev"] = _zeros_like(p)
        state["step_size"] = _new_state(np.full_like(p._grad._data, _scalar(group["lr"])))

    @no_grad()
    def step(self, closure=None):
        """One Rprop step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            _check_capturable(self, group)
            etaminus, etaplus = group["etas"]
            smin, smax = group["step_sizes"]
            for p, state in self._params_with_grad(group):
                x, g = p._data, _grad(p, group["maximize"])
                prev, ss = state["prev"]._data, state["step_size"]._data
                state["step"]._data += 1
                sign = np.sign(g * prev)
                t = x.dtype.type
                factor = np.where(sign > 0, t(etaplus), np.where(sign < 0, t(etaminus), t(1))).astype(x.dtype)
                ss *= factor
                np.clip(ss, t(smin), t(smax), out=ss)
                g = np.where(factor == t(etaminus), t(0), g).astype(x.dtype)
                K.addcmul(x, np.sign(g), ss, -1, out=x)
                np.copyto(prev, g)
                K.touch(p, state["step"], state["prev"], state["step_size"])
        return loss
