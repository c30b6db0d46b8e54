"""Losses with one fused node each, as in PyTorch: binary_cross_entropy_with_logits,
soft_margin_loss, multi_margin_loss, multilabel_margin_loss."""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._registry import apply, primitive
from ..reduction import sum as _sum
from ..unary import sigmoid
from .activation import logsigmoid
from .normalization import _const

__all__ = []


# ====================================================================== losses
def _reduce_np(loss: np.ndarray, reduction: str) -> np.ndarray:
    if reduction == "mean":  # (of nothing: NaN, as in PyTorch)
        with np.errstate(invalid="ignore"):
            return np.asarray(np.sum(loss) / loss.dtype.type(loss.size), dtype=loss.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=loss.dtype)
    return loss


def _scaled(g: Tensor, reduction: str, numel: int) -> Tensor:
    """The output gradient as seen by each loss element (mean: divided by their number)."""
    return g / numel if reduction == "mean" and numel else g


# ---- binary_cross_entropy_with_logits: loss = (1 - t) x - lw log_sigmoid(x) (times weight),
# lw = 1 + (pos_weight - 1) t.  Inputs x and target; weight and pos_weight are statics.
def _bce_fw(x, t, *, weight, pos_weight, reduction):
    with np.errstate(over="ignore", invalid="ignore"):
        ls = np.minimum(x, 0) - np.log1p(np.exp(-np.abs(x)))
        if pos_weight is not None:
            ls = ls * ((pos_weight - 1) * t + 1)
        loss = (1 - t) * x - ls
        if weight is not None:
            loss = loss * weight
    return _reduce_np(loss.astype(x.dtype, copy=False), reduction)


def _bce_dx(g, x, t, weight, pos_weight, reduction):
    # PyTorch's form: (pw t + 1 - t) sigmoid(x) - pw t
    if pos_weight is None:
        d = sigmoid(x) - t
    else:
        pt = _const(pos_weight) * t
        d = (pt + 1 - t) * sigmoid(x) - pt
    if weight is not None:
        d = d * _const(weight)
    return _scaled(g, reduction, x._data.size) * d


def _bce_dt(g, x, weight, pos_weight, reduction):
    d = -x if pos_weight is None else -x - _const(pos_weight - 1) * logsigmoid(x)
    if weight is not None:
        d = d * _const(weight)
    return _scaled(g, reduction, x._data.size) * d


_bce_op = primitive("binary_cross_entropy_with_logits", _bce_fw, node="BinaryCrossEntropyWithLogitsBackward0",
                    x=_bce_dx, t=_bce_dt, batch="loss")


def binary_cross_entropy_with_logits(x: Tensor, t: Tensor, weight, pos_weight, reduction: str, dtype) -> Tensor:
    """The loss as one node (arguments checked by nn.functional; weights as arrays of ``dtype``)."""
    same = x._data.dtype == t._data.dtype
    return apply(_bce_op, (x, t), {"weight": weight, "pos_weight": pos_weight, "reduction": reduction},
                 cast=None if same else dtype)


# ---- soft_margin_loss: log1p(exp(-t x)); the target is a static
def _soft_margin_fw(x, *, target, reduction):
    with np.errstate(over="ignore"):
        return _reduce_np(np.log1p(np.exp(-x * target)).astype(x.dtype, copy=False), reduction)


def _soft_margin_dx(g, x, target, reduction):
    # d/dx = -t e / (1 + e) with e = exp(-t x), i.e. -t sigmoid(-t x)
    nt = _const(-target)
    return _scaled(g, reduction, x._data.size) * nt * sigmoid(nt * x)


_soft_margin_op = primitive("soft_margin_loss", _soft_margin_fw, node="SoftMarginLossBackward0", x=_soft_margin_dx)


def soft_margin_loss(x: Tensor, target: np.ndarray, reduction: str) -> Tensor:
    """log(1 + exp(-target * x)) reduced, as one node (``target``: an array of x's dtype and shape)."""
    return apply(_soft_margin_op, (x,), {"target": target, "reduction": reduction})


# ---- multi_margin_loss: sum_{i != y} max(0, margin - x[y] + x[i])^p * w[y] / C per sample
def _mm_parts(x2: np.ndarray, target: np.ndarray, margin: float):
    n, c = x2.shape
    rows = np.arange(n)
    z = x2 - x2[rows, target][:, None]
    z += x2.dtype.type(margin)
    other = np.ones((n, c), dtype=bool)
    other[rows, target] = False
    return z, (z > 0) & other


def _multi_margin_fw(x, *, target, p, margin, weight, reduction):
    x2 = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    z, active = _mm_parts(x2, target, margin)
    z = np.where(active, z, 0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[target][:, None]
    loss = (z.sum(axis=1) / x2.dtype.type(x2.shape[1])).astype(x.dtype, copy=False)
    if x.ndim <= 1:
        loss = loss.reshape(())
    return _reduce_np(loss, reduction)


def _multi_margin_dx(g, x, target, p, margin, weight, reduction):
    d = x._data
    x2 = x.reshape(-1, d.shape[-1]) if d.ndim else x.reshape(1, 1)
    n, c = x2.shape
    _, active = _mm_parts(x2._data, target, margin)
    scale = active.astype(d.dtype) / d.dtype.type(c)
    if weight is not None:
        scale = scale * weight[target][:, None]
    coef = _const(scale)
    onehot = _const((np.arange(c) == target[:, None]).astype(d.dtype))
    if p == 2:  # 2 z, with z = margin - x[y] + x[i] computed from x again (a function of x)
        coef = coef * 2 * (x2 - _sum(x2 * onehot, 1, True) + margin)
    gi = coef - onehot * _sum(coef, 1, True)
    if reduction == "none":
        gs = g.reshape(n, 1)
    else:
        gs = _scaled(g, reduction, n)
    return (gs * gi).reshape(x.shape)


_multi_margin_op = primitive("multi_margin_loss", _multi_margin_fw, node="MultiMarginLossBackward0",
                             x=_multi_margin_dx)


def multi_margin_loss(x: Tensor, target: np.ndarray, p: int, margin: float, weight, reduction: str) -> Tensor:
    """The loss as one node (checked by nn.functional; ``target``: int64 (N,), ``weight`` an array or None)."""
    return apply(_multi_margin_op, (x,), {"target": target, "p": p, "margin": float(margin), "weight": weight,
                                          "reduction": reduction})


# ---- multilabel_margin_loss: sum over target classes j (up to the first -1) and non-target
# classes i of max(0, 1 - x[j] + x[i]), / C.  ``mask`` (static, (N, C, C)): how often j is a
# target (repeats count) where i is not one.
def _mlm_active(x2: np.ndarray, mask: np.ndarray) -> tuple:
    z = 1 - x2[:, :, None] + x2[:, None, :]
    return z, mask * (z > 0)


def _multilabel_margin_fw(x, *, mask, reduction):
    x2 = x.reshape(-1, x.shape[-1]) if x.ndim else x.reshape(1, 1)
    z, active = _mlm_active(x2, mask)
    loss = ((z * active).sum(axis=(1, 2)) / x2.dtype.type(x2.shape[1])).astype(x.dtype, copy=False)
    if x.ndim <= 1:
        loss = loss.reshape(())
    return _reduce_np(loss, reduction)


def _multilabel_margin_dx(g, x, mask, reduction):
    # piecewise linear in x: the gradient's coefficients are constants (second derivative 0)
    d = x._data
    x2 = d.reshape(-1, d.shape[-1]) if d.ndim else d.reshape(1, 1)
    n, c = x2.shape
    _, active = _mlm_active(x2, mask)
    coef = (active.sum(axis=1) - active.sum(axis=2)) / d.dtype.type(c)
    gs = g.reshape(n, 1) if reduction == "none" else _scaled(g, reduction, n)
    return (gs * _const(coef.astype(d.dtype))).reshape(x.shape)


_multilabel_margin_op = primitive("multilabel_margin_loss", _multilabel_margin_fw,
                                  node="MultilabelMarginLossBackward0", x=_multilabel_margin_dx)


def multilabel_margin_loss(x: Tensor, mask: np.ndarray, reduction: str) -> Tensor:
    """The loss as one node (``mask``: (N, C, C) counts of (target j, non-target i) pairs, x's dtype)."""
    return apply(_multilabel_margin_op, (x,), {"mask": mask, "reduction": reduction})
