"""Fused nn ops that PyTorch records as one node each: layer/group norm, four losses, embedding_bag.

Built from public ops these recorded many small nodes, and their outputs showed the last
one's name (``AddBackward0`` after a LayerNorm where PyTorch shows
``NativeLayerNormBackward0``).  Here each is one primitive with PyTorch's node name and
PyTorch's edges: an input PyTorch does not differentiate (a loss's class weights, an integer
target) is a static argument, not an input, so it has no edge; an optional input that is
absent (LayerNorm without bias) is a constant placeholder, so its edge is ``None`` as there.

* ``native_layer_norm`` / ``native_group_norm`` (inputs x, weight, bias): statistics over the
  rows of ``x`` viewed as (R, L), affine over a view in which the parameters broadcast.
  NumPy forward (statistics in the input's dtype, ``rstd = 1 / sqrt(var + eps)``); the
  first-order backward runs NumPy twins (``array_rules``) that reuse the forward's mean and
  rstd; the Tensor rules recompute everything from public ops, so a graph of the backward
  (``create_graph``) is differentiable again (its nodes carry those ops' names, not
  PyTorch's ``NativeLayerNormBackwardBackward0``).
* ``binary_cross_entropy_with_logits`` (inputs x, target), ``soft_margin_loss``,
  ``multi_margin_loss`` and ``multilabel_margin_loss`` (input x): PyTorch's formulas.
  PyTorch has no second derivative for the two margin losses; ours exists (zero where the
  loss is piecewise linear).
* ``embedding_bag`` (inputs weight, per_sample_weights): sum / mean / max of bags of rows.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._keep_graph import keep_graph
from ._registry import apply, primitive
from .indexing_more import index_select, scatter_add
from .nn_ops import _embedding_bw_op
from .nn_ops_more import logsigmoid
from .pointwise import sigmoid, sqrt
from .reduce import mean as _mean
from .reduce import sum as _sum

__all__: list[str] = []  # private: reached through nn.functional


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
    with np.errstate(invalid="ignore", divide="ignore"):
        dx = xhat * _rowmean_np(gw * xhat)
        np.subtract(gw, dx, out=dx)
        dx -= _rowmean_np(gw)
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
                           array_rules={"x": _dx_np, "w": _dw_np2, "b": _db_np2},
                           **_layer_norm_rules("NativeLayerNormBackwardBackward0"))
_group_norm_op = primitive("native_group_norm", _norm_fw, node="NativeGroupNormBackward0",
                           array_rules={"x": _dx_np, "w": _dw_np, "b": _db_np}, x=_group_dx_rule, w=_dw_rule,
                           b=_db_rule)


def check_norm_dtypes(kernel: str, x: Tensor, w: Tensor | None, b: Tensor | None) -> None:
    """PyTorch's dtype rules for layer/group norm (CPU): one dtype, or a float16 input with float32 parameters."""
    from .._dtype import from_numpy_dtype
    from .._tensor import _scalar_type_name

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
                    x=_bce_dx, t=_bce_dt)


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


# ====================================================================== embedding_bag
# Inputs weight (V, D) and per_sample_weights (a placeholder when absent).  Statics:
# ``idx`` the flat indices, ``bag`` each entry's bag (-1: not counted, e.g. padding_idx),
# ``coef`` each entry's constant factor (1, or 1/bag size for mean), ``nb`` the bag count,
# ``mode``, ``has_psw``, ``gcoef`` (None, or coef with scale_grad_by_freq's factors: the weight
# gradient's), ``stash`` (max: the arg-max rows).
def _eb_rows(bag: np.ndarray):
    keep = bag >= 0
    return np.nonzero(keep)[0], bag[keep]


def _embedding_bag_fw(weight, psw, *, idx, bag, coef, nb, mode, has_psw, gcoef, stash):
    d = weight.shape[1]
    out = np.zeros((nb, d), dtype=weight.dtype)
    ent, bags = _eb_rows(bag)
    rows = weight[idx[ent]]
    if mode == "max":
        arg = np.full((nb, d), -1, dtype=np.int64)
        for b_ in range(nb):
            sel = ent[bags == b_]
            if len(sel):
                r = weight[idx[sel]]
                k = np.argmax(r, axis=0)  # (first of equal maxima, as PyTorch)
                out[b_] = r[k, np.arange(d)]
                arg[b_] = idx[sel][k]
        stash.append(arg)
        return out
    c = coef[ent].astype(weight.dtype)
    if has_psw:
        c = c * psw[ent]
    np.add.at(out, bags, rows * c[:, None])
    return out


def _eb_dweight(g, psw, weight_shape, idx, bag, coef, mode, has_psw, gcoef, stash):
    ent, bags = _eb_rows(bag)
    if mode == "max":
        arg = stash[0]
        full = arg >= 0
        src = g * _const(full.astype(g._data.dtype))
        zeros = _const(np.zeros(weight_shape, dtype=g._data.dtype))
        return scatter_add(zeros, 0, _const(np.where(full, arg, 0)), src)
    rows = index_select(g, 0, _const(bags))
    c = _const((coef if gcoef is None else gcoef)[ent].astype(g._data.dtype))
    if has_psw:
        c = c * index_select(psw, 0, _const(ent))
    return apply(_embedding_bw_op, (rows * c.reshape(-1, 1), _const(idx[ent])),
                 {"num_weights": weight_shape[0], "padding_idx": None, "scale_grad_by_freq": False})


def _eb_dpsw(g, weight, psw_shape, idx, bag):
    ent, bags = _eb_rows(bag)
    picked = _sum(index_select(g, 0, _const(bags)) * index_select(weight, 0, _const(idx[ent])), 1)
    if len(ent) == psw_shape[0]:
        return picked
    zeros = _const(np.zeros(psw_shape, dtype=g._data.dtype))
    return scatter_add(zeros, 0, _const(ent), picked)


_embedding_bag_op = primitive("embedding_bag", _embedding_bag_fw, node="EmbeddingBagBackward0",
                              weight=_eb_dweight, psw=_eb_dpsw)


def embedding_bag(weight: Tensor, psw: Tensor | None, idx: np.ndarray, bag: np.ndarray, coef: np.ndarray,
                  nb: int, mode: str, scale_grad_by_freq: bool) -> Tensor:
    """(nb, D) bags of ``weight``'s rows as one node (see the statics above; checked by nn.functional)."""
    p = _placeholder(weight._data.dtype) if psw is None else psw
    gcoef = coef * _freq_scale(idx) if scale_grad_by_freq and mode != "max" else None
    return apply(_embedding_bag_op, (weight, p), {
        "idx": idx, "bag": bag, "coef": coef, "nb": int(nb), "mode": mode, "has_psw": psw is not None,
        "gcoef": gcoef, "stash": []})


def _freq_scale(idx: np.ndarray) -> np.ndarray:
    """Each entry's scale_grad_by_freq factor, as PyTorch's CPU kernel computes it.

    That kernel walks the sorted indices and scales the k-th distinct index's gradient by
    1 / count(sorted[k]) (the count of the index at *position* k of the sorted list, which
    is not always the k-th distinct index's own count): reproduced here, matched to torch.
    """
    if idx.size == 0:
        return np.ones(0)
    srt = np.sort(idx)
    counts = np.bincount(srt)
    uniq = np.unique(srt)
    per_value = np.zeros(counts.size)
    per_value[uniq] = 1.0 / counts[srt[:uniq.size]]
    return per_value[idx]
