"""The losses with their own nodes: mse, nll, smooth_l1/huber, bce, soft/multi margin ...
(torch's top-level ``kl_div``, ``triplet_margin_loss`` ... call ``nn.functional``: ``nn/_top_level.py``)."""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._keep_graph import keep_graph
from .._registry import apply, primitive
from ..shape import unsqueeze
from .activation import _err, _sel
from .conv import _t

__all__: list[str] = []


# ====================================================================== losses with their own nodes
def _reduce_np(loss, reduction):
    if reduction == "mean":
        return np.asarray(loss.mean(), dtype=loss.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=loss.dtype)
    return loss


def _mse_fw(a, b, *, reduction):
    d = a - b
    return _reduce_np(d * d, reduction)


def _mse_rule(g, a, b, reduction, sign):
    d = a - b
    scale = 2.0 * sign
    if reduction == "mean":
        scale /= max(int(np.prod(np.broadcast_shapes(a.shape, b.shape))), 1)
    return g * d * scale


_mse_op = primitive("mse_loss", _mse_fw, node="MseLossBackward0",
                    a=lambda g, a, b, reduction: _mse_rule(g, a, b, reduction, 1.0),
                    b=lambda g, a, b, reduction: _mse_rule(g, a, b, reduction, -1.0))


def _nll_parts(target, weight, c, ignore_index, ndim):
    """The constant (N, C, ...) matrix of per-element weights w[t] at the target class, and its total."""
    valid = target != ignore_index
    tc = np.where(valid, target, 0)
    shape = (1, c) + (1,) * (ndim - 2)
    sel = (np.expand_dims(tc, 1) == np.arange(c).reshape(shape)) & np.expand_dims(valid, 1)
    w = sel.astype(weight.dtype) * weight.reshape(shape)
    return w, w.sum()


def _nll_fw(x, target, weight, *, ignore_index, reduction):
    if x.ndim == 1:  # unbatched: (C,) and a 0-d target
        out = _nll_fw(x[None], target.reshape(1), weight, ignore_index=ignore_index, reduction=reduction)
        return out.reshape(()) if reduction == "none" else out
    # the target class's entry, gathered (a product with a one-hot weight matrix would turn
    # a -inf in any other class, or in an ignored row, into NaN)
    valid = target != ignore_index
    tc = np.where(valid, target, 0)
    picked = np.take_along_axis(x, np.expand_dims(tc, 1), axis=1).squeeze(1)
    wt = weight[tc]
    loss = np.where(valid, -(picked * wt), x.dtype.type(0))
    total = np.where(valid, wt, 0).sum(dtype=x.dtype)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(loss.sum() / total, dtype=x.dtype)
    return _reduce_np(loss, reduction)


def _nll_rule(g, x_shape, target, weight, ignore_index, reduction):
    unbatched = len(x_shape) == 1
    t = target._data.reshape(1) if unbatched else target._data
    w, total = _nll_parts(t, weight._data, x_shape[-1] if unbatched else x_shape[1], ignore_index,
                          2 if unbatched else len(x_shape))
    if reduction == "mean" and (total != 0 or w.any()):
        # (every target ignored: torch's kernel writes no gradient, so zeros, not 0/0 = NaN)
        with np.errstate(invalid="ignore", divide="ignore"):
            w = w / total
    if unbatched:
        w = w[0]
    elif reduction == "none":
        g = unsqueeze(g, 1)
    return g * _t(0 - w)  # (0 - w, not -w: no -0. where a target is ignored, as in torch)


def _nll_plain_fw(x, target, *, reduction):
    """nll_loss of (N, C) ``x`` without class weights, every target valid (checked by the caller)."""
    picked = x[np.arange(x.shape[0]), target]
    if reduction == "none":
        return -picked
    total = -picked.sum()
    if reduction == "mean":
        total = total / x.dtype.type(x.shape[0])
    return np.asarray(total, dtype=x.dtype)


def _nll_plain_weights(dt, x_shape, target: np.ndarray, reduction: str) -> np.ndarray:
    n = x_shape[0]
    w = np.zeros(x_shape, dtype=dt)
    w[np.arange(n), target] = -(dt.type(1) / dt.type(n)) if reduction == "mean" else -1
    return w


def _nll_plain_rule(g, x_shape, target, reduction):
    w = _nll_plain_weights(g._data.dtype, x_shape, target._data, reduction)
    if reduction == "none":
        g = unsqueeze(g, 1)
    return g * _t(w)


def _nll_plain_twin(g, x, x_shape, target, reduction):
    """_nll_plain_rule on arrays (the first-order backward's NumPy twin)."""
    w = _nll_plain_weights(g.dtype, x_shape, target, reduction)
    if reduction == "none":
        g = g[:, None]
    return g * w


# (the gradient is constant in x; under create_graph it stays linked to x as PyTorch's
# nll_loss_backward(grad, self, ...) node is, see _keep_graph.py)
_nll_plain_op = primitive("nll_loss_plain", _nll_plain_fw, node="NllLossBackward0",
                          fast={"x": _nll_plain_twin},
                          x=lambda g, x, x_shape, target, reduction: keep_graph(
                              _nll_plain_rule(g, x_shape, target, reduction), x, node="NllLossBackwardBackward0"))


def _nll_rules(node: str) -> dict:
    return dict(x=lambda g, x, x_shape, target, weight, ignore_index, reduction: keep_graph(_nll_rule(
        g, x_shape, target, weight, ignore_index, reduction), x, node=node))


_nll_op = primitive("nll_loss", _nll_fw, node="NllLossBackward0", **_nll_rules("NllLossBackwardBackward0"))
_nll2d_op = primitive("nll_loss2d", _nll_fw, node="NllLoss2DBackward0", **_nll_rules("NllLoss2DBackwardBackward0"))


# ====================================================================== smooth L1 / Huber with their own nodes
def _smooth_np(a, b, *, reduction, beta, huber):
    with _err():
        z = np.abs(a - b)
        t = z.dtype.type
        if huber:
            loss = np.where(z < beta, t(0.5) * z * z, t(beta) * (z - t(0.5 * beta)))
        else:
            loss = np.where(z < beta, t(0.5) * z * z / t(beta), z - t(0.5 * beta))
        loss = loss.astype(z.dtype, copy=False)
        if reduction == "mean":
            return np.asarray(loss.mean(), dtype=z.dtype)
        if reduction == "sum":
            return np.asarray(loss.sum(), dtype=z.dtype)
        return loss


def _smooth_rule(g, a, b, reduction, beta, huber, sign):
    # ATen: x <= -beta ? -norm : (x >= beta ? norm : norm * x / beta)  (Huber: times delta, no / delta);
    # a select, so the unused branch's inf never meets a zero
    x = a - b
    d = x._data
    norm = sign
    if reduction == "mean":
        norm /= max(int(np.prod(np.broadcast_shapes(a.shape, b.shape))), 1)
    edge = norm * beta if huber else norm
    mid = x * norm if huber else x * (norm / beta)
    return _sel(d <= -beta, -edge * g, _sel(d >= beta, edge * g, mid * g))


def _smooth_rules():
    return dict(a=lambda g, a, b, reduction, beta, huber: _smooth_rule(g, a, b, reduction, beta, huber, 1.0),
                b=lambda g, a, b, reduction, beta, huber: _smooth_rule(g, a, b, reduction, beta, huber, -1.0))


_smooth_l1_op = primitive("smooth_l1_loss", _smooth_np, node="SmoothL1LossBackward0", **_smooth_rules())
_huber_op = primitive("huber_loss", _smooth_np, node="HuberLossBackward0", **_smooth_rules())


def smooth_l1(a: Tensor, b: Tensor, reduction: str, beta: float, huber: bool, cast=None) -> Tensor:
    """The SmoothL1Loss / HuberLoss node on same-dtype operands (the caller broadcasts and checks)."""
    return apply(_huber_op if huber else _smooth_l1_op, (a, b),
                 {"reduction": reduction, "beta": float(beta), "huber": huber}, cast)


# ====================================================================== binary cross entropy (ATen's kernel)
def _bce_np(x, t, w, *, reduction):
    with _err():
        loss = (t - 1) * np.maximum(np.log1p(-x), x.dtype.type(-100)) - t * np.maximum(np.log(x), x.dtype.type(-100))
        loss = (loss * w).astype(x.dtype, copy=False)
    if reduction == "mean":
        return np.asarray(loss.mean(), dtype=x.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=x.dtype)
    return loss


def _bce_norm(x, t, reduction) -> float:
    if reduction == "mean":
        return 1.0 / max(int(np.prod(np.broadcast_shapes(x.shape, t.shape))), 1)
    return 1.0


_BCE_EPS = float(np.float32(1e-12))  # ATen: the float constant 1e-12f, in double too


def _bce_x_rule(g, x, t, w, reduction):
    # ATen: g * (x - t) / max((1 - x) * x, 1e-12) * w
    from ..clamp import clamp_min

    return g * ((x - t) / clamp_min((1 - x) * x, _BCE_EPS)) * w * _bce_norm(x, t, reduction)


def _bce_t_rule(g, x, t, w, reduction):
    from ..unary import log
    from ..unary import log1p

    # ATen: -(log(x) - log1p(-x)) * g, unclamped (so +-inf at x = 0 / 1, and -0 where the logs agree)
    return -(log(x) - log1p(-x)) * g * w * _bce_norm(x, t, reduction)


_bce_op = primitive("binary_cross_entropy", _bce_np, node="BinaryCrossEntropyBackward0",
                    x=_bce_x_rule, t=_bce_t_rule)


def binary_cross_entropy(x: Tensor, t: Tensor, w: Tensor, reduction: str) -> Tensor:
    """The BinaryCrossEntropy node (the caller checks shapes and the [0, 1] range)."""
    return apply(_bce_op, (x, t, w), {"reduction": reduction})


# ---- PyTorch's C++ composites divide by a number through div(Tensor, Scalar), whose node is
# DivBackward1 (a Python-level ``t / 2.0`` records DivBackward0)
def _div_scalar_fw(x, *, other):
    with np.errstate(divide="ignore", invalid="ignore"):  # (x / 0: inf or nan, as PyTorch, silently)
        return x / x.dtype.type(other) if x.dtype.kind == "f" else x / other


_div_scalar_op = primitive("div_scalar", _div_scalar_fw, node="DivBackward1", x=lambda g, other: g / other)


def div_scalar(input: Tensor, other: float) -> Tensor:
    """``input / other`` recorded as PyTorch's C++ kernels record it (node DivBackward1)."""
    return apply(_div_scalar_op, (input,), {"other": float(other)})
