"""Layer_norm, group_norm, batch_norm (train/eval), norm_except_dim (torch.rms_norm: ``nn/_top_level.py``)."""
from __future__ import annotations

import numpy as np

from ..._tensor import Tensor
from .._keep_graph import keep_graph
from .._registry import apply, primitive
from ..copies import _tensor_arg
from ..reduction import mean as _mean, sum as _sum
from ..unary import sqrt

__all__ = ["norm_except_dim"]


def norm_except_dim(v: Tensor, pow: float = 2, dim: int = 0) -> Tensor:  # noqa: A002
    """The ``pow``-norm of ``v`` over every dimension but ``dim`` (kept, the others size 1);
    ``dim=-1`` gives the norm of the whole tensor (weight normalisation's helper).

    >>> import retrograd as torch
    >>> torch.norm_except_dim(torch.tensor([[3., 4.], [6., 8.]]), 2, 0)
    tensor([[ 5.],
            [10.]])
    """
    _tensor_arg("norm_except_dim", v, name="v")
    if dim == -1:
        return v.norm(pow)
    if dim == 0:
        shape = [v.shape[0]] + [1] * (v.dim() - 1)
        return v.contiguous().view(v.shape[0], -1).norm(pow, 1).view(shape)
    if dim == v.dim() - 1:
        shape = [1] * (v.dim() - 1) + [v.shape[-1]]
        return v.contiguous().view(-1, v.shape[-1]).norm(pow, 0).view(shape)
    # (any other dim: move it to the front, take dim-0's norm, move it back)
    return norm_except_dim(v.transpose(0, dim), pow, 0).transpose(0, dim)


def _const(a) -> Tensor:
    return Tensor._wrap(np.asarray(a), False, None, 0)


def _placeholder(dtype) -> Tensor:
    """The input standing for an absent optional tensor: no grad, so its edge is None."""
    return Tensor._wrap(np.empty(0, dtype=dtype), False, None, 0)


# ====================================================================== layer / group norm
# Statics: ``rows`` (R, L) the view whose rows are normalised; ``aff`` the view in which
# the parameters broadcast as ``pshape``; ``pdims`` the dims of ``aff`` the parameter
# gradients sum over; ``wb`` (has weight, has bias); ``stash`` receives (mean, rstd).
#   LayerNorm:  rows = aff = (M, N), pshape = (1, N), pdims = (0,)
#   GroupNorm:  rows = (N*G, C/G*HW), aff = (N, C, HW), pshape = (1, C, 1), pdims = (0, 2)
def _np_moments(xr: np.ndarray, eps: float):
    if xr.size == 0:  # (no rows, or empty ones: the output is empty too)
        ones = np.ones((xr.shape[0], 1), dtype=xr.dtype)
        return ones * 0, ones, xr.copy()
    mean = xr.mean(axis=1, keepdims=True)
    xc = xr - mean
    var = np.mean(xc * xc, axis=1, keepdims=True)
    rstd = 1 / np.sqrt(var + xr.dtype.type(eps))
    return mean, rstd, xc


def _up(a: np.ndarray) -> np.ndarray:
    # float16/bfloat16 are normalised in float32 (PyTorch's CPU kernels accumulate so too)
    return a if a.dtype.itemsize >= 4 else a.astype(np.float32)


def _norm_fw(x, w, b, *, eps, rows, aff, pshape, pdims, wb, stash):
    if x.dtype.itemsize < 4:
        return _norm_fw(_up(x), _up(w), _up(b), eps=eps, rows=rows, aff=aff, pshape=pshape, pdims=pdims, wb=wb,
                        stash=stash).astype(x.dtype)
    mean, rstd, y = _np_moments(x.reshape(rows), eps)
    stash.append((mean, rstd))
    y *= rstd
    if wb[0] or wb[1]:
        y = y.reshape(aff)
        if wb[0]:
            y *= w.reshape(pshape)
        if wb[1]:
            y += b.reshape(pshape)
    return y.reshape(x.shape)


def _xhat_np(x, rows, stash):
    mean, rstd = stash[0]
    xhat = _up(x).reshape(rows) - mean
    xhat *= rstd
    return xhat, rstd


def _rowmean_np(a: np.ndarray) -> np.ndarray:
    return a.mean(axis=1, keepdims=True)


# ---- NumPy twins of the rules below (the first-order backward): the forward's statistics reused
def _dx_np(g, x, w, eps, rows, aff, pshape, wb, stash):
    if x.size == 0:
        return np.zeros(x.shape, x.dtype)
    xhat, rstd = _xhat_np(x, rows, stash)
    g = _up(g)
    gw = (g.reshape(aff) * _up(w).reshape(pshape)).reshape(rows) if wb[0] else g.reshape(rows)
    with np.errstate(invalid="ignore", divide="ignore"):  # (in the rule's order: the same roundings)
        dx = gw - _rowmean_np(gw)
        dx -= xhat * _rowmean_np(gw * xhat)
        dx *= rstd
    return dx.reshape(x.shape).astype(x.dtype, copy=False)


def _dw_np(g, x, eps, rows, aff, pdims, stash, w_shape):
    xhat, _ = _xhat_np(x, rows, stash)
    return np.sum(_up(g).reshape(aff) * xhat.reshape(aff), axis=pdims).reshape(w_shape).astype(g.dtype, copy=False)


def _db_np(g, aff, pdims, b_shape):
    return np.sum(_up(g).reshape(aff), axis=pdims).reshape(b_shape).astype(g.dtype, copy=False)


# ---- the same from public ops (differentiable again)
def _xhat(x: Tensor, rows: tuple, eps: float) -> tuple:
    xr = x.reshape(rows)
    xc = xr - _mean(xr, 1, True)
    rstd = 1 / sqrt(_mean(xc * xc, 1, True) + eps)
    return xc * rstd, rstd


def _dx_rule(g, x, w, eps, rows, aff, pshape, wb, stash):
    if x._data.size == 0:
        return g * 0
    xhat, rstd = _xhat(x, rows, eps)
    gw = (g.reshape(aff) * w.reshape(pshape)).reshape(rows) if wb[0] else g.reshape(rows)
    return (rstd * (gw - _mean(gw, 1, True) - xhat * _mean(gw * xhat, 1, True))).reshape(x.shape)


def _dw_rule(g, x, eps, rows, aff, pdims, stash, w_shape):
    xhat, _ = _xhat(x, rows, eps)
    return _sum(g.reshape(aff) * xhat.reshape(aff), pdims).reshape(w_shape)


def _db_rule(g, aff, pdims, b_shape):
    return _sum(g.reshape(aff), pdims).reshape(b_shape)


def _layer_norm_rules(node: str) -> dict:
    # PyTorch's three layer-norm gradients come from one native_layer_norm_backward(grad, input, ...,
    # weight) node: under create_graph each is linked to the input and the weight (a zero derivative
    # where the formula does not use them, as for the bias gradient), see _keep_graph.py
    def x(g, x, w, eps, rows, aff, pshape, wb, stash):
        return keep_graph(_dx_rule(g, x, w, eps, rows, aff, pshape, wb, stash), x, w, node=node)

    def w(g, x, w, eps, rows, aff, pdims, stash, w_shape):
        return keep_graph(_dw_rule(g, x, eps, rows, aff, pdims, stash, w_shape), x, w, node=node)

    def b(g, x, w, aff, pdims, b_shape):
        return keep_graph(_db_rule(g, aff, pdims, b_shape), x, w, node=node)

    return {"x": x, "w": w, "b": b}


def _group_dx_rule(g, x, w, eps, rows, aff, pshape, wb, stash):
    # (PyTorch's group-norm double backward is a composite: the x and w gradients have their own
    # graphs, the bias gradient none; an empty input still gets a node linked to x and w)
    dx = _dx_rule(g, x, w, eps, rows, aff, pshape, wb, stash)
    return keep_graph(dx, x, w, node="NativeGroupNormBackwardBackward0") if x._data.size == 0 else dx


def _db_np2(g, x, w, aff, pdims, b_shape):
    return _db_np(g, aff, pdims, b_shape)


def _dw_np2(g, x, w, eps, rows, aff, pdims, stash, w_shape):
    return _dw_np(g, x, eps, rows, aff, pdims, stash, w_shape)


_layer_norm_op = primitive("native_layer_norm", _norm_fw, node="NativeLayerNormBackward0",
                           fast={"x": _dx_np, "w": _dw_np2, "b": _db_np2},
                           **_layer_norm_rules("NativeLayerNormBackwardBackward0"))
_group_norm_op = primitive("native_group_norm", _norm_fw, node="NativeGroupNormBackward0",
                           fast={"x": _dx_np, "w": _dw_np, "b": _db_np}, x=_group_dx_rule, w=_dw_rule,
                           b=_db_rule)


def check_norm_dtypes(kernel: str, x: Tensor, w: Tensor | None, b: Tensor | None) -> None:
    """PyTorch's dtype rules for layer/group norm (CPU): one dtype, or a float16 input with float32 parameters."""
    from ..._dtype import from_numpy_dtype
    from ..._tensor import _scalar_type_name

    def name(a: Tensor) -> str:
        return _scalar_type_name(from_numpy_dtype(a._data.dtype))

    dt = x._data.dtype
    if dt.kind != "f":
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name(x)}\'')
    params = [p for p in (w, b) if p is not None]
    if not params:
        return
    if params[0]._data.dtype != dt:  # "mixed type": only a reduced-precision input with float32 parameters
        if any(p._data.dtype != np.float32 for p in params):
            raise RuntimeError("mixed dtype (CPU): expect parameter to have scalar type of Float")
        if dt.itemsize >= 4:
            raise RuntimeError("mixed dtype (CPU): all inputs must share same datatype.")
        return
    for p in params:
        if p._data.dtype != dt:
            raise RuntimeError(f"expected scalar type {name(x)} but found {name(p)}")


def _norm(op, x: Tensor, w, b, eps: float, rows: tuple, aff: tuple, pshape: tuple, pdims: tuple) -> Tensor:
    dt = x._data.dtype  # (the caller checked weight's and bias's dtypes: check_norm_dtypes)
    ww = _placeholder(dt) if w is None else w
    bb = _placeholder(dt) if b is None else b
    return apply(op, (x, ww, bb), {"eps": float(eps), "rows": rows, "aff": aff, "pshape": pshape,
                                   "pdims": pdims, "wb": (w is not None, b is not None), "stash": []})


def layer_norm(x: Tensor, k: int, weight: Tensor | None, bias: Tensor | None, eps: float) -> Tensor:
    """Layer norm over the last ``k`` dims of ``x`` (arguments checked by nn.functional): one node."""
    shape = x._data.shape
    n = int(np.prod(shape[len(shape) - k:], dtype=np.int64))
    m = int(np.prod(shape[:len(shape) - k], dtype=np.int64))
    return _norm(_layer_norm_op, x, weight, bias, eps, (m, n), (m, n), (1, n), (0,))


def group_norm(x: Tensor, groups: int, weight: Tensor | None, bias: Tensor | None, eps: float) -> Tensor:
    """Group norm of (N, C, *) ``x`` (arguments checked by nn.functional): one node."""
    shape = x._data.shape
    n, c = shape[0], shape[1]
    hw = int(np.prod(shape[2:], dtype=np.int64))
    return _norm(_group_norm_op, x, weight, bias, eps, (n * groups, (c // groups) * hw), (n, c, hw),
                 (1, c, 1), (0, 2))
