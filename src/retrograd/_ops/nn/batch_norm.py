"""Batch normalisation as one op, as PyTorch records it (node NativeBatchNormBackward0).

Built from public ops, ``F.batch_norm`` recorded about ten nodes per call and its backward
made some twenty full-size NumPy passes.  Here a training-mode call is one node whose
forward is one fused NumPy function and whose backward is one fused function giving all
three gradients (the rules share its result through a one-entry cache):

    xhat = (x - mean) * invstd           (batch statistics, biased variance, as PyTorch)
    dx   = invstd * (gw - mean(gw) - xhat * mean(gw * xhat)),   gw = g * weight
    dw   = sum(g * xhat),   db = sum(g)   (means and sums over every dim but the channels)

The rules compute the formulas from public ops (``_composite_dx`` / ``_composite_dw``), so
autograd differentiates them again (their nodes then carry those ops' names, not PyTorch's
NativeBatchNormBackwardBackward0); a first-order backward runs the op's declared fast path,
the fused NumPy function.  In eval mode (running statistics)
the op is affine in ``x`` and its rules are written directly.
"""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._keep_graph import keep_graph
from .._registry import apply, primitive
from ..reduction import mean as _mean, sum as _sum
from ..unary import sqrt

__all__ = []


def _const(a: np.ndarray) -> Tensor:
    return Tensor._wrap(a, False, None, 0)


def _np_stats_xc(x: np.ndarray, dims: tuple, eps: float):
    """(mean, var, invstd) over ``dims``, kept broadcastable against x (biased variance), and the
    centred ``x - mean`` computed on the way (a fresh array the caller may overwrite)."""
    mean = x.mean(axis=dims, keepdims=True)
    xc = x - mean
    var = np.mean(xc * xc, axis=dims, keepdims=True)
    return mean, var, 1 / np.sqrt(var + x.dtype.type(eps)), xc


def _channel_dot(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """sum(a * b) per channel (dim 1), shape (C,): one fused pass instead of a product and a sum."""
    n, c = a.shape[:2]
    return np.einsum("ncl,ncl->c", a.reshape(n, c, -1), b.reshape(n, c, -1))


def _channel_sum(a: np.ndarray) -> np.ndarray:
    n, c = a.shape[:2]
    return np.einsum("ncl->c", a.reshape(n, c, -1))


def _train_fw(x, w, b, *, eps, dims, shape, stash):
    # ``stash`` (a static of the node): the forward's statistics, for the caller's running
    # averages and for the backward, which then need not recompute them
    mean, var, invstd, out = _np_stats_xc(x, dims, eps)
    stash.append((mean, var, invstd))
    # (the centred x is the variance's by-product: the same values ``x - mean`` would give
    # again, one full pass over the data fewer)
    out *= invstd
    out *= w.reshape(shape)
    out += b.reshape(shape)
    return out


def _bw_np(gy, x, w, stats, shape) -> tuple:
    """(dx, dw, db) of a training-mode call, in eight passes over the data.

    With gw = g * w per channel, mean(gw) = w db / m and mean(gw xhat) = w dw / m, so
    dx = w invstd (g - db / m - xhat dw / m): the weight and bias gradients are part of dx's.
    """
    mean, _, invstd = stats
    xhat = x - mean
    xhat *= invstd
    m = x.size // x.shape[1]
    dw = _channel_dot(gy, xhat)
    db = _channel_sum(gy)
    dx = xhat
    dx *= (dw / m).reshape(shape)
    np.subtract(gy, dx, out=dx)
    dx -= (db / m).reshape(shape)
    dx *= (w.reshape(shape) * invstd)
    return dx, dw.astype(w.dtype, copy=False), db.astype(w.dtype, copy=False)


_last: list = [None]  # (gradient, x, (dx, dw, db)): one first-order backward computes all three


def _all_np(g: np.ndarray, x: np.ndarray, w: np.ndarray, stash: list, shape: tuple) -> tuple:
    """The three gradients of the fast path (arrays), computed once for the node's three inputs."""
    entry = _last[0]
    if entry is None or entry[0] is not g or entry[1] is not x:
        entry = _last[0] = (g, x, _bw_np(g, x, w, stash[0], shape))
    return entry[2]


# ---- the same two functions from public ops: what double backward differentiates
def _xhat(x: Tensor, eps: float, dims: tuple) -> tuple:
    xc = x - _mean(x, dims, True)
    invstd = 1 / sqrt(_mean(xc * xc, dims, True) + eps)
    return xc * invstd, invstd


def _composite_dx(gy, x, w, eps, dims, shape):
    xhat, invstd = _xhat(x, eps, dims)
    gw = gy * w.reshape(shape)
    return invstd * (gw - _mean(gw, dims, True) - xhat * _mean(gw * xhat, dims, True))


def _composite_dw(gy, x, eps, dims, shape):
    return _sum(gy * _xhat(x, eps, dims)[0], dims)


# (under create_graph the three gradients are linked to x and w, as PyTorch's single
# native_batch_norm_backward node is: see _keep_graph.py)
_BNBB = "NativeBatchNormBackwardBackward0"


def _rule_x(g, x, w, stash, eps, dims, shape):
    return keep_graph(_composite_dx(g, x, w, eps, dims, shape), x, w, node=_BNBB)


def _rule_w(g, x, w, stash, eps, dims, shape):
    return keep_graph(_composite_dw(g, x, eps, dims, shape), x, w, node=_BNBB)


def _rule_b(g, x, w, stash, dims, shape):
    return keep_graph(_sum(g, dims), x, w, node=_BNBB)


# The fast path: one fused NumPy function for all three gradients (the same formulas, the sums
# in another order: equal to the rules within roundings, tests/autograd/test_fast_paths.py)
_train_op = primitive(
    "native_batch_norm", _train_fw, node="NativeBatchNormBackward0",
    fast={"x": lambda g, x, w, stash, shape: _all_np(g, x, w, stash, shape)[0],
          "w": lambda g, x, w, stash, shape: _all_np(g, x, w, stash, shape)[1],
          "b": lambda g, x, w, stash, shape: _all_np(g, x, w, stash, shape)[2]},
    x=_rule_x, w=_rule_w, b=_rule_b)


def _eval_fw(x, w, b, *, mean, invstd, dims, shape):
    out = x - mean.reshape(shape)
    out *= (invstd * w).reshape(shape)
    out += b.reshape(shape)
    return out


# dx = g * invstd * w does not depend on x, but (as in PyTorch) x is an input of the
# gradient's node, so a graph of the backward reaches x (with a zero derivative)
_eval_bw_x_op = primitive(
    "native_batch_norm_eval_backward_input", lambda gy, x, w, *, invstd, dims, shape: gy * (invstd * w).reshape(shape),
    node="NativeBatchNormBackwardBackward0",
    gy=lambda g, w, invstd, shape: g * (w * _const(invstd)).reshape(shape),
    x=lambda g: g * 0,
    w=lambda g, gy, invstd, dims, shape: _sum(g * gy * _const(invstd).reshape(shape), dims))
_eval_op = primitive(
    "native_batch_norm_eval", _eval_fw, node="NativeBatchNormBackward0",
    x=lambda g, x, w, invstd, dims, shape: apply(_eval_bw_x_op, (g, x, w), {"invstd": invstd, "dims": dims,
                                                                           "shape": shape}),
    w=lambda g, x, w, mean, invstd, dims, shape: keep_graph(_sum(
        g * ((x - _const(mean).reshape(shape)) * _const(invstd).reshape(shape)), dims), x, w, node=_BNBB),
    b=lambda g, x, w, dims: keep_graph(_sum(g, dims), x, w, node=_BNBB))


def batch_norm_train(x: Tensor, w: Tensor, b: Tensor, eps: float) -> tuple:
    """(output, batch mean, biased batch variance) with batch statistics; the statistics
    are NumPy arrays of shape (C,) (from the forward itself) for the running averages."""
    dims = (0,) + tuple(range(2, x._data.ndim))
    shape = (1, x._data.shape[1]) + (1,) * (x._data.ndim - 2)
    stash: list = []
    out = apply(_train_op, (x, w, b), {"eps": eps, "dims": dims, "shape": shape, "stash": stash})
    mean, var, _ = stash[0]
    return out, mean.reshape(-1), var.reshape(-1)


def batch_norm_eval(x: Tensor, w: Tensor, b: Tensor, mean: np.ndarray, var: np.ndarray, eps: float) -> Tensor:
    """Normalised with the given (running) statistics: affine in ``x``."""
    dims = (0,) + tuple(range(2, x._data.ndim))
    shape = (1, x._data.shape[1]) + (1,) * (x._data.ndim - 2)
    invstd = 1 / np.sqrt(var + var.dtype.type(eps))
    return apply(_eval_op, (x, w, b), {"mean": mean, "invstd": invstd, "dims": dims, "shape": shape})
