"""Stochastic gradient descent (momentum, dampening, nesterov, weight decay, maximize)."""
from __future__ import annotations

import numpy as np

from ..autograd.grad_mode import no_grad
from .._tensor import bump_version
from . import _kernels as K
from .optimizer import Optimizer, _grad, _new_state, _scalar, required

__all__ = ["SGD"]

# The update ``p += (-lr) * g`` is computed in the parameter's own dtype, product then sum
# (two roundings), exactly what ``p.add_(g, alpha=-lr)`` computes in retrograd.  PyTorch's
# AVX2 kernel fuses it into one multiply-add, so a float32 parameter may differ from
# torch's by one unit in the last place per step; emulating the fused rounding (float64
# temporaries) made SGD's step 3x slower, the largest single cost of a small MLP's
# training step.  Large tensors go through cache-sized chunks with one reused scratch
# buffer instead of a whole-array temporary.
_CHUNK = 1 << 16  # (measured: 32k-128k elements per chunk are fastest on a 784-512-512-10 MLP)


def _axpy_(x: np.ndarray, g: np.ndarray, alpha: float) -> None:
    """``x += alpha * g`` in place, in ``x``'s dtype (alpha cast to it first, as PyTorch does)."""
    dt = x.dtype
    a = dt.type(alpha) if dt.kind == "f" else alpha
    n = x.size
    if n <= _CHUNK or g.dtype != dt or g.shape != x.shape or not (
            x.flags.c_contiguous and g.flags.c_contiguous):
        np.add(x, np.multiply(g, a, dtype=dt), out=x, casting="unsafe")
        return
    xf, gf = x.reshape(-1), g.reshape(-1)
    scratch = np.empty(_CHUNK, dtype=dt)
    mul, add = np.multiply, np.add
    for s in range(0, n, _CHUNK):
        e = min(n, s + _CHUNK)
        t = scratch[:e - s]
        xs = xf[s:e]
        mul(gf[s:e], a, out=t)
        add(xs, t, out=xs)


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
                _axpy_(x, g, -lr)
                bump_version(p)
        return loss
