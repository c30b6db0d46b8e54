"""Stochastic gradient descent (momentum, dampening, nesterov, weight decay, maximize)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _grad, _new_state, _scalar, required

__all__ = ["SGD"]

# x += alpha * g with one rounding (K.add: the product is exact in float64, the sum rounds once
# to float32, as PyTorch's fused multiply-add does), done over cache-sized chunks with one
# reused float64 scratch buffer: whole-array float64 temporaries cost ~3x the update itself.
_CHUNK = 1 << 15


def _fused_add_(x: np.ndarray, g: np.ndarray, alpha: float) -> None:
    """``x += alpha * g`` in place, rounded once like ``K.add`` (float32/float16, contiguous)."""
    dt = x.dtype
    if dt.kind != "f" or dt.itemsize >= 8 or g.dtype != dt or g.shape != x.shape or not (
            x.flags.c_contiguous and g.flags.c_contiguous):
        K.add(x, g, alpha, out=x)
        return
    a = dt.type(alpha)
    n = x.size
    if n <= _CHUNK:
        t = np.multiply(g, a, dtype=np.float64)
        t += x
        np.copyto(x, t, casting="unsafe")
        return
    xf, gf = x.reshape(-1), g.reshape(-1)
    scratch = np.empty(_CHUNK, dtype=np.float64)
    f64, mul, copyto = np.float64, np.multiply, np.copyto
    for s in range(0, n, _CHUNK):
        e = min(n, s + _CHUNK)
        t = scratch[:e - s]
        xs = xf[s:e]
        mul(gf[s:e], a, out=t, dtype=f64)
        t += xs
        copyto(xs, t, casting="unsafe")


class SGD(Optimizer):
    """PyTorch's SGD with its order of operations (``torch/optim/sgd.py``, single-tensor path).

    ``buf = momentum * buf + (1 - dampening) * g`` (the first step copies ``g``), then
    ``p -= lr * (g + momentum * buf if nesterov else buf)``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.SGD([w], lr=0.5)
    >>> (2 * w).sum().backward(); opt.step(); w
    tensor([0.], requires_grad=True)
    """

    def __init__(self, params, lr=1e-3, momentum: float = 0, dampening: float = 0, weight_decay: float = 0,
                 nesterov: bool = False, *, maximize: bool = False, foreach: bool | None = None,
                 differentiable: bool = False, fused: bool | None = None) -> None:
        if lr is not required and lr < 0.0:
            raise ValueError(f"Invalid learning rate: {lr}")
        if momentum < 0.0:
            raise ValueError(f"Invalid momentum value: {momentum}")
        if weight_decay < 0.0:
            raise ValueError(f"Invalid weight_decay value: {weight_decay}")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening, weight_decay=weight_decay,
                        nesterov=nesterov, maximize=maximize, foreach=foreach, differentiable=differentiable,
                        fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        self._check_differentiable(differentiable)
        super().__init__(params, defaults)

    def __setstate__(self, state) -> None:
        super().__setstate__(state)
        for group in self.param_groups:
            group.setdefault("nesterov", False)
            group.setdefault("maximize", False)
            group.setdefault("foreach", None)
            group.setdefault("differentiable", False)
            group.setdefault("fused", False)

    @no_grad()
    def step(self, closure=None):
        """One SGD step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr, momentum, dampening = _scalar(group["lr"]), group["momentum"], group["dampening"]
            wd, nesterov = _scalar(group["weight_decay"]), group["nesterov"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                x = p._data
                g = _grad(p, group["maximize"])
                if wd != 0:
                    g = K.add(g, x, wd)
                if momentum != 0:
                    state = self.state[p]
                    buf = state.get("momentum_buffer")
                    if buf is None:
                        buf = state["momentum_buffer"] = _new_state(g.copy())
                    else:
                        K.mul(buf._data, momentum, out=buf._data)
                        K.add(buf._data, g, 1 - dampening, out=buf._data)
                        K.touch(buf)
                    g = K.add(g, buf._data, momentum) if nesterov else buf._data
                _fused_add_(x, g, -lr)
                p._vc[0] += 1
        return loss
