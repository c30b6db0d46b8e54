"""Muon: momentum SGD whose update is orthogonalised by a Newton-Schulz iteration (2-D parameters only).

PyTorch runs the Newton-Schulz iteration in bfloat16.  retrograd stores bfloat16 as float32,
so the iteration below rounds every intermediate result to bfloat16 explicitly
(round-to-nearest-even on the float32 bits), the way PyTorch's CPU kernels round: products
accumulate in float32, ``addmm`` adds ``beta * input`` with a fused multiply-add, and each op's
result is rounded once.  Only the order of the float32 accumulation differs from PyTorch's
GEMM, so a sum that lands next to a bfloat16 rounding tie can round the other way (rare,
one bfloat16 ulp; the iteration can then spread it a little).
"""
from __future__ import annotations

import math

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _new_state, _scalar

__all__ = ["Muon"]

EPS = 1e-7
DEFAULT_A = 3.4445
DEFAULT_B = -4.7750
DEFAULT_C = 2.0315
DEFAULT_NS_STEPS = 5


def _bf16(a) -> np.ndarray:
    """Round float32 values to the nearest bfloat16 (ties to even), kept in a float32 array."""
    a = np.asarray(a, dtype=np.float32)
    bits = a.view(np.uint32).astype(np.uint64)
    rounded = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16 << 16).astype(np.uint32).view(np.float32)
    return np.where(np.isnan(a), a, rounded)


def _mm(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """A bfloat16 matrix product's float32 accumulator (before the final rounding)."""
    return np.matmul(a.astype(np.float64), b.astype(np.float64)).astype(np.float32)


def _addmm(c_in: np.ndarray, a: np.ndarray, b: np.ndarray, beta, alpha) -> np.ndarray:
    """bfloat16 ``addmm``: ``beta * c_in`` joins the float32 ``alpha * (a @ b)`` in one fused
    multiply-add (a single float32 rounding), then the result is rounded to bfloat16."""
    prod = _mm(a, b)
    if alpha != 1.0:
        prod = (np.float32(alpha) * prod).astype(np.float32)
    return _bf16((beta * c_in.astype(np.float64) + prod.astype(np.float64)).astype(np.float32))


def _newton_schulz(grad: np.ndarray, coefficients, steps: int, eps: float) -> np.ndarray:
    """PyTorch's quintic Newton-Schulz orthogonalisation of ``grad``, in (emulated) bfloat16."""
    if steps >= 100:
        raise ValueError("Number of steps must be less than 100 for computational efficiency")
    if grad.ndim != 2:
        raise ValueError("Input tensor gradient must be a 2D matrix")
    if len(coefficients) != 3:
        raise ValueError("Coefficients must be a tuple of exactly 3 values")
    a, b, c = (np.float64(np.float32(v)) for v in coefficients)
    x = _bf16(grad.astype(np.float32))
    tall = grad.shape[0] > grad.shape[1]
    if tall:  # iterate on the wide orientation: the Gram matrix is the smaller one
        x = x.T
    norm = _bf16(np.sqrt(np.sum(x.astype(np.float64) ** 2)))
    norm = _bf16(np.maximum(norm, _bf16(np.float32(eps))))
    x = _bf16(x / norm)
    for _ in range(steps):
        gram = _bf16(_mm(x, x.T))
        update = _addmm(gram, gram, gram, b, c)
        x = _addmm(x, update, x, a, 1.0)
    return x.T if tall else x


def _adjust_lr(lr: float, adjust_lr_fn: str | None, shape) -> float:
    """Scale ``lr`` so the orthogonalised update has a shape-independent RMS."""
    rows, cols = shape[:2]
    if adjust_lr_fn is None or adjust_lr_fn == "original":
        ratio = math.sqrt(max(1, rows / cols))
    elif adjust_lr_fn == "match_rms_adamw":
        ratio = 0.2 * math.sqrt(max(rows, cols))
    else:
        ratio = 1.0
    return lr * ratio


class Muon(Optimizer):
    """PyTorch's Muon (``torch.optim.Muon``): orthogonalised momentum for 2-D weight matrices.

    Per step: ``B = lerp(B, g, 1 - momentum)``; the update is ``lerp(g, B, momentum)`` (Nesterov)
    or ``B``, orthogonalised by ``ns_steps`` Newton-Schulz iterations; then decoupled weight
    decay ``p *= 1 - lr * weight_decay`` and ``p -= adjusted_lr * update``.  Use another
    optimizer (AdamW) for biases, embeddings and other non-matrix parameters.

    >>> import retrograd as torch
    >>> w = torch.nn.Parameter(torch.eye(2))
    >>> opt = torch.optim.Muon([w], lr=0.1, weight_decay=0.0)
    >>> (w * torch.tensor([[1., 0.], [0., 2.]])).sum().backward(); opt.step()
    >>> w.shape
    torch.Size([2, 2])
    """

    def __init__(self, params, lr: float = 1e-3, weight_decay: float = 0.1, momentum: float = 0.95,
                 nesterov: bool = True, ns_coefficients: tuple[float, float, float] = (DEFAULT_A, DEFAULT_B, DEFAULT_C),
                 eps: float = EPS, ns_steps: int = DEFAULT_NS_STEPS, adjust_lr_fn: str | None = None) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 <= momentum:
            raise ValueError(f"momentum should be >= 0 but is: {momentum}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight decay should be >= 0 but is: {weight_decay}")
        if adjust_lr_fn is not None and adjust_lr_fn not in ("original", "match_rms_adamw"):
            raise ValueError(f"Adjust learning rate function {adjust_lr_fn} is not supported")
        defaults = dict(lr=lr, weight_decay=weight_decay, momentum=momentum, nesterov=nesterov,
                        ns_coefficients=ns_coefficients, eps=eps, ns_steps=ns_steps, adjust_lr_fn=adjust_lr_fn)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                if p.ndim != 2:
                    raise ValueError(f"Muon only supports 2D parameters whereas we found a parameter with size: "
                                     f"{p.size()}")

    @no_grad()
    def step(self, closure=None):
        """One Muon step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            lr = _scalar(group["lr"])
            wd, momentum = group["weight_decay"], group["momentum"]
            for p in group["params"]:
                if p._grad is None:
                    continue
                if p.is_complex():
                    raise RuntimeError("Muon does not support complex parameters")
                if p._grad.is_sparse:
                    raise RuntimeError("Muon does not support sparse gradients")
                g = p._grad._data
                if g.ndim != 2:
                    raise ValueError("Param gradient must be a 2D matrix")
                state = self.state[p]  # (PyTorch's Muon keeps no "step" count)
                if "momentum_buffer" not in state:
                    state["momentum_buffer"] = _new_state(np.zeros_like(g))
                buf_t = state["momentum_buffer"]
                buf = buf_t._data
                K.lerp(buf, g, 1 - momentum, out=buf)
                update = K.lerp(g, buf, momentum) if group["nesterov"] else buf
                ortho = _newton_schulz(update, group["ns_coefficients"], group["ns_steps"], group["eps"])
                x = p._data
                K.mul(x, 1 - lr * wd, out=x)
                K.add(x, ortho.astype(x.dtype), -_adjust_lr(lr, group["adjust_lr_fn"], p.shape), out=x)
                K.touch(p, buf_t)
        return loss
