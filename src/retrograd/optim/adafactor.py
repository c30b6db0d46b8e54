"""Adafactor: Adam-like updates with a factored (row x column) second-moment estimate."""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import no_grad
from . import _kernels as K
from .optimizer import Optimizer, _lr, _grad, _new_state

__all__ = ["Adafactor"]


def _norm(a: np.ndarray, axis=None, keepdims: bool = False) -> np.ndarray:
    """``torch.norm(a, 2, dim)`` in ``a``'s dtype (accumulated in float64, rounded once)."""
    wide = a.astype(np.float64)
    return np.sqrt(np.sum(wide * wide, axis=axis, keepdims=keepdims)).astype(a.dtype)


class Adafactor(Optimizer):
    """PyTorch's Adafactor (``torch/optim/_adafactor.py``, single-tensor path).

    For a matrix-like gradient the variance is ``row_var @ col_var / mean(row_var)`` with both factors
    running averages (weight ``t ** beta2_decay``) of ``g * g`` means; vectors keep a full variance.
    ``p -= max(eps2, rms(p)) * min(lr, 1/sqrt(t)) * u / max(1, rms(u) / d)`` with ``u = g / sqrt(var)``.

    >>> import retrograd as torch
    >>> w = torch.tensor([1.], requires_grad=True)
    >>> opt = torch.optim.Adafactor([w], lr=0.1)
    >>> (w * w).sum().backward(); opt.step(); w
    tensor([0.9000], requires_grad=True)
    """

    _group_setstate_defaults = dict(foreach=None)

    def __init__(self, params, lr=1e-2, beta2_decay: float = -0.8, eps: tuple[float | None, float] = (None, 1e-3),
                 d: float = 1.0, weight_decay: float = 0.0, *, foreach: bool | None = None,
                 maximize: bool = False) -> None:
        if isinstance(lr, Tensor) and lr.numel() != 1:
            raise ValueError("Tensor lr must be 1-element")
        if not 0.0 <= lr:
            raise ValueError(f"Learning rate should be >= 0 but is: {lr}")
        if not 0.0 >= beta2_decay:
            raise ValueError(f"beta2_decay should be <= 0 but is: {beta2_decay}")
        if eps[0] is not None and not 0.0 <= eps[0]:
            raise ValueError(f"epsilon1 should be >= 0 but is: {eps[0]}")
        if not 0.0 <= eps[1]:
            raise ValueError(f"epsilon2 should be >= 0 but is: {eps[1]}")
        if not 1.0 <= d:
            raise ValueError(f"Clipping threshold d should be >= 1 but is: {d}")
        if not 0.0 <= weight_decay:
            raise ValueError(f"weight_decay should be >= 0 but is: {weight_decay}")
        defaults = dict(lr=lr, beta2_decay=beta2_decay, eps=eps, d=d, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize)
        super().__init__(params, defaults)

    def _init_state(self, state, p, group) -> None:
        g = p._grad._data
        if g.ndim > 1:
            state["row_var"] = _new_state(np.zeros(g.shape[:-1] + (1,), dtype=g.dtype))
            state["col_var"] = _new_state(np.zeros(g.shape[:-2] + (1,) + g.shape[-1:], dtype=g.dtype))
        else:
            state["variance"] = _new_state(np.zeros_like(g))

    @no_grad()
    def step(self, closure=None):
        """One Adafactor step; ``closure`` (optional) re-evaluates and returns the loss."""
        loss = self._closure_loss(closure)
        for group in self.param_groups:
            for p in group["params"]:
                if p._grad is not None and p.is_complex():
                    raise RuntimeError("Adafactor does not support complex parameters")
            lr, wd, d, beta2_decay = _lr(group["lr"]), group["weight_decay"], group["d"], group["beta2_decay"]
            eps1, eps2 = group["eps"]
            for p, state in self._params_with_grad(group):
                x, g = p._data, _grad(p, group["maximize"])
                e1 = float(np.finfo(x.dtype).eps) if eps1 is None else eps1
                step_t = state["step"]
                step_t._data += 1
                t = float(step_t._data)
                one_minus_beta2_t = t ** beta2_decay
                rho_t = min(lr, 1 / (t ** 0.5))
                alpha = max(eps2, float(_norm(x)) / (x.size ** 0.5)) * rho_t
                if wd != 0:
                    K.mul(x, 1 - lr * wd, out=x)
                if g.ndim > 1:
                    rv, cv = state["row_var"]._data, state["col_var"]._data
                    row_mean = K.div(np.square(_norm(g, -1, True)), g.shape[-1])
                    K.lerp(rv, row_mean, one_minus_beta2_t, out=rv)
                    col_mean = K.div(np.square(_norm(g, -2, True)), g.shape[-2])
                    K.lerp(cv, col_mean, one_minus_beta2_t, out=cv)
                    var = np.matmul(rv, cv)
                    var /= np.maximum(rv.mean(axis=-2, keepdims=True, dtype=np.float64).astype(rv.dtype),
                                      x.dtype.type(e1))
                    K.touch(state["row_var"], state["col_var"])
                else:
                    v = state["variance"]._data
                    K.lerp(v, g * g, one_minus_beta2_t, out=v)
                    var = v.copy()
                    K.touch(state["variance"])
                update = np.reciprocal(np.sqrt(np.maximum(var, x.dtype.type(e1 * e1))))
                update *= g
                denom = max(1.0, float(_norm(update)) / ((update.size ** 0.5) * d))
                K.add(x, update, -alpha / denom, out=x)
                K.touch(p, step_t)
        return loss
