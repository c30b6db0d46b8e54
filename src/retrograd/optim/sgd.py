"""Stochastic gradient descent (momentum, dampening, nesterov, weight decay, maximize)."""
from __future__ import annotations

import threading

import numpy as np

from ..autograd.grad_mode import no_grad
from .._blas import axpy_ as blas_axpy_
from .._tensor import bump_version
from ..autograd import _sites
from . import _kernels as K
from .._tensor import Tensor
from .optimizer import Optimizer, _check_fused, _grad, _new_state, _scalar, required

__all__ = ["SGD"]

# The update ``p += (-lr) * g`` is one fused multiply-add per element in PyTorch's AVX2
# kernel (``p.add_(g, alpha=-lr)``).  BLAS ``axpy`` from NumPy's own OpenBLAS computes the
# same thing in one pass (``_blas.axpy_``: bit-identical to torch, and ~40% less time than
# two ufunc passes on a 784-512-512-10 MLP).  Where that BLAS is not available the update
# falls back to product then sum in the parameter's dtype (two roundings: one unit in the
# last place from torch at most per step), through cache-sized chunks of a scratch buffer
# kept between calls (one per thread and dtype) instead of a whole-array temporary.
_CHUNK = 1 << 16  # (measured: 32k-128k elements per chunk are fastest on a 784-512-512-10 MLP)
_tls = threading.local()


def _scratch(dt: np.dtype) -> np.ndarray:
    """This thread's reusable ``_CHUNK``-element buffer of dtype ``dt``."""
    try:
        bufs = _tls.bufs
    except AttributeError:
        bufs = _tls.bufs = {}
    buf = bufs.get(dt)
    if buf is None:
        buf = bufs[dt] = np.empty(_CHUNK, dtype=dt)
    return buf


def _axpy_(x: np.ndarray, g: np.ndarray, alpha: float) -> None:
    """``x += alpha * g`` in place, in ``x``'s dtype (alpha cast to it first, as PyTorch does)."""
    if blas_axpy_(x, g, alpha):
        return
    dt = x.dtype
    if dt.kind != "f" or g.dtype != dt or g.shape != x.shape or not (x.flags.c_contiguous and g.flags.c_contiguous):
        np.add(x, np.multiply(g, alpha if dt.kind != "f" else dt.type(alpha), dtype=dt), out=x, casting="unsafe")
        return
    a = dt.type(alpha)
    xf, gf = x.reshape(-1), g.reshape(-1)
    scratch = _scratch(dt)
    mul, add = np.multiply, np.add
    # (positional ``out`` arguments, no keyword options, one slice per operand: on a small
    # tensor the ufunc calls, not the arithmetic, are the cost)
    for s in range(0, xf.size, _CHUNK):
        xs = xf[s:s + _CHUNK]
        add(xs, mul(gf[s:s + _CHUNK], a, scratch[:xs.size]), xs)


def _plain_sgd_(params, alpha: float) -> None:
    """``p += alpha * p.grad`` for each parameter with a gradient: plain SGD's whole update."""
    site = False  # (the user's line, found once: the write site of every parameter a graph saved)
    for p in params:
        gt = p._grad
        if gt is None:
            continue
        _axpy_(p._data, gt._data, alpha)
        vc = p._vc
        if vc is None:
            bump_version(p)
        else:
            vc[0] += 1
            if _sites.record_writes:
                if site is False:
                    site = _sites.here()
                _sites.note_write(vc, site)


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
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
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
        _check_fused(fused, foreach, differentiable)
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
        loss = None if closure is None else self._closure_loss(closure)
        for group in self.param_groups:
            lr, momentum, dampening = _scalar(group["lr"]), group["momentum"], group["dampening"]
            wd, nesterov = _scalar(group["weight_decay"]), group["nesterov"]
            if momentum == 0 and wd == 0 and not group["maximize"]:
                _plain_sgd_(group["params"], -lr)  # the loop below without its branches
                continue
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
