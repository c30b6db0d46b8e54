"""Stochastic gradient descent (momentum, dampening, nesterov, weight decay, maximize)."""
from __future__ import annotations

from ..autograd.grad_mode import no_grad
from .optimizer import Optimizer, required

__all__ = ["SGD"]


class SGD(Optimizer):
    """PyTorch's SGD, with its exact order of operations.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.5)
    >>> (2 * w).sum().backward(); opt.step(); w
    tensor([0.], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, momentum: float = 0, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False, foreach=None, differentiable: bool = False,
                 fused=None) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                                      nesterov=nesterov, maximize=maximize, foreach=foreach,
                                      differentiable=differentiable, fused=fused))

    @no_grad()
    def step(self, closure=None):
        loss = None
        if closure is not None:
            from ..autograd.grad_mode import enable_grad

            with enable_grad():
                loss = closure()
        for group in self.param_groups:
            lr, mom, damp = group["lr"], group["momentum"], group["dampening"]
            wd, nesterov, maximize = group["weight_decay"], group["nesterov"], group["maximize"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                d_p = p._grad if not maximize else -p._grad
                if wd != 0:
                    d_p = d_p.add(p, alpha=wd)
                if mom != 0:
                    state = self.state.setdefault(p, {})
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = d_p.clone().detach()
                        state["momentum_buffer"] = buf
                    else:
                        buf.mul_(mom).add_(d_p, alpha=1 - damp)
                    d_p = d_p.add(buf, alpha=mom) if nesterov else buf
                p.add_(d_p, alpha=-lr)
        return loss
