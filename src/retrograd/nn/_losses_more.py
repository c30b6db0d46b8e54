"""More ``nn.functional`` losses (margin, embedding, Poisson/Gaussian NLL), composed from public ops
with PyTorch's formulas, so no gradients are defined here."""
from __future__ import annotations

import math

import numpy as np

from .. import _ops as O
from .._creation import zeros_like as _zeros_like
from .._tensor import Tensor
from ..autograd import grad_mode as _grad_mode
from ._ctc import ctc_loss
from ._losses import legacy_get_string

__all__ = [
    "cosine_embedding_loss",
    "ctc_loss",
    "gaussian_nll_loss",
    "hinge_embedding_loss",
    "margin_ranking_loss",
    "multi_margin_loss",
    "multilabel_margin_loss",
    "multilabel_soft_margin_loss",
    "poisson_nll_loss",
    "soft_margin_loss",
    "triplet_margin_loss",
    "triplet_margin_with_distance_loss",
]


def _F():
    # nn.functional imports this module at its end, so it is only reachable lazily
    from . import functional

    return functional


def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                          reduce=None, reduction: str = "mean") -> Tensor:
    """1 - cos(x1, x2) where target is 1, max(0, cos(x1, x2) - margin) where it is -1.

    >>> import retrograd as torch
    >>> x = torch.tensor([[1., 0.]])
    >>> torch.nn.functional.cosine_embedding_loss(x, x, torch.tensor([1.]))
    tensor(0.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if target.ndim > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    eps = 1e-12
    prod = (input1 * input2).sum(-1)
    mag1 = (input1 * input1).sum(-1) + eps
    mag2 = (input2 * input2).sum(-1) + eps
    cos = prod / O.sqrt(mag1 * mag2)
    zeros = cos * 0
    pos = O.where(target == 1, 1 - cos, zeros)
    neg = O.where(target == -1, O.clamp_min(cos - margin, 0), zeros)
    return _reduce(pos + neg, reduction)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, size_average=None, reduce=None,
                         reduction: str = "mean") -> Tensor:
    """x where target is 1, max(0, margin - x) where it is -1.

    >>> import retrograd as torch
    >>> torch.nn.functional.hinge_embedding_loss(torch.tensor([0.5, 2.]), torch.tensor([1., -1.]))
    tensor(0.2500)
    """
    reduction = _reduction(size_average, reduce, reduction)
    zeros = _zeros_like(input)  # (not input * 0: NaN at +-inf)
    margin_clamp = O.clamp_min(margin - input, 0)
    out_margin = O.where(target != 1, margin_clamp, zeros)
    out_self = O.where(target != -1, input, zeros)
    return _reduce(out_margin + out_self, reduction)


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0, size_average=None,
                        reduce=None, reduction: str = "mean") -> Tensor:
    """max(0, -target * (x1 - x2) + margin).

    >>> import retrograd as torch
    >>> torch.nn.functional.margin_ranking_loss(torch.tensor([1.]), torch.tensor([2.]), torch.tensor([1.]))
    tensor(1.)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if input1.ndim != input2.ndim or input1.ndim != target.ndim:
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension but got sizes: "
                           f"input1: {input1.size()}, input2: {input2.size()}, target: {target.size()} ")
    return _reduce(O.clamp_min(-target * (input1 - input2) + margin, 0), reduction)


def soft_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                     reduction: str = "mean") -> Tensor:
    """log(1 + exp(-target * x)).

    >>> import retrograd as torch
    >>> torch.nn.functional.soft_margin_loss(torch.tensor([0.]), torch.tensor([1.]))
    tensor(0.6931)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if isinstance(target, Tensor) and target.requires_grad and _grad_mode.state.enabled:
        raise RuntimeError("The function 'soft_margin_loss' is not differentiable with respect to argument 'target'. "
                           "This input cannot have requires_grad True.")
    t = target._data if isinstance(target, Tensor) else np.asarray(target)
    shape = tuple(input.shape)
    try:
        full = np.broadcast_shapes(shape, t.shape)
    except ValueError:
        from .._ops._common import broadcast_error

        raise broadcast_error(shape, t.shape) from None
    if full != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")
    # one node, SoftMarginLossBackward0, as in PyTorch (the target gets no edge)
    return O.nn.fused_loss.soft_margin_loss(input, t.astype(input._data.dtype, copy=False), reduction)


def multilabel_soft_margin_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                                reduce=None, reduction: str = "mean") -> Tensor:
    """Per-class binary logistic loss, averaged over the classes (last dim).

    >>> import retrograd as torch
    >>> torch.nn.functional.multilabel_soft_margin_loss(torch.tensor([[0., 0.]]), torch.tensor([[1., 0.]]))
    tensor(0.6931)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    F = _F()
    loss = -(target * F.logsigmoid(input) + (1 - target) * F.logsigmoid(-input))
    if weight is not None:
        loss = loss * weight
    class_dim = input.ndim - 1
    loss = loss.sum(dim=class_dim) / input.size(class_dim)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool = True, full: bool = False,
                     size_average=None, eps: float = 1e-8, reduce=None, reduction: str = "mean") -> Tensor:
    """exp(x) - target * x (log_input) or x - target * log(x + eps), plus Stirling's term if ``full``.

    >>> import retrograd as torch
    >>> torch.nn.functional.poisson_nll_loss(torch.tensor([0.]), torch.tensor([1.]))
    tensor(1.)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not a valid value for reduction")
    if log_input:
        loss = O.exp(input) - target * input
    else:
        loss = input - target * O.log(input + eps)
    if full:
        t = target.detach() if isinstance(target, Tensor) else target
        safe = O.where(t > 1, t, t * 0 + 2)  # keeps log finite where the term is masked anyway
        stirling = target * O.log(safe) - target + 0.5 * O.log(2 * math.pi * safe)
        loss = loss + O.masked_fill(stirling, t <= 1, 0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input: Tensor, target: Tensor, var: Tensor | float, full: bool = False, eps: float = 1e-6,
                      reduction: str = "mean") -> Tensor:
    """0.5 (log(max(var, eps)) + (input - target)^2 / max(var, eps)) (+ 0.5 log(2 pi) if ``full``).

    >>> import retrograd as torch
    >>> torch.nn.functional.gaussian_nll_loss(torch.tensor([1.]), torch.tensor([1.]), torch.tensor([1.]))
    tensor(0.)
    """
    if isinstance(var, (int, float)) and not isinstance(var, bool):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = input.detach() * 0 + float(var)
    elif bool((var._data < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif input.ndim == var.ndim and sum(y for x, y in zip(input.shape, var.shape) if x != y) == 1:
            pass
        else:
            raise ValueError("var is of incorrect size")
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(reduction + " is not valid")
    # PyTorch clamps in place under no_grad: the clamped value, with var's gradient passed straight through
    var = var + (O.clamp_min(var.detach(), eps) - var.detach())
    loss = 0.5 * (O.log(var) + (input - target) ** 2 / var)
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


def multi_margin_loss(input: Tensor, target: Tensor, p: int = 1, margin: float = 1.0, weight: Tensor | None = None,
                      size_average=None, reduce=None, reduction: str = "mean") -> Tensor:
    """sum_{i != y} max(0, margin - x[y] + x[i])^p / C (times weight[y]) per sample.

    >>> import retrograd as torch
    >>> torch.nn.functional.multi_margin_loss(torch.tensor([[0.1, 0.2, 0.4, 0.8]]), torch.tensor([3]))
    tensor(0.3250)
    """
    reduction = _reduction(size_average, reduce, reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.ndim != 1:
        raise ValueError("weight must be one-dimensional")
    unbatched = input.ndim <= 1
    x = input.reshape(1, -1) if unbatched else input
    if x.ndim != 2 or x.shape[1] == 0:
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    n, c = x.shape
    if target.ndim > 1 or target.numel() != n:
        raise RuntimeError(f"multi_margin_loss: target tensor should be 1-D with size equal to the number of input "
                           f"samples (batch size). Expected target size [{n}], but got {list(target.shape)}. "
                           f"Input has shape {list(input.shape)}.")
    t = np.asarray(target._data).reshape(-1)
    from .._tensor import _scalar_type_name

    # (PyTorch's order: the weight's size, the target's and the weight's dtype, then the target's values)
    if weight is not None and weight.numel() != c:
        raise RuntimeError(f"inconsistent weight size, expected {c} but got {list(weight.shape)}")
    if _scalar_type_name(target.dtype) != "Long":
        raise RuntimeError(f"expected scalar type Long but found {_scalar_type_name(target.dtype)}")
    if weight is not None and weight.dtype != input.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_type_name(input.dtype)} but found "
                           f"{_scalar_type_name(weight.dtype)}")
    if t.size and (t.min() < 0 or t.max() >= c):
        raise RuntimeError("target out of range")
    w = None
    if weight is not None:
        if weight.requires_grad and _grad_mode.state.enabled:
            raise RuntimeError("The function 'multi_margin_loss' is not differentiable with respect to argument "
                               "'weight'. This input cannot have requires_grad True.")
        w = weight._data.astype(input._data.dtype, copy=False)
    # one node, MultiMarginLossBackward0, as in PyTorch (target and weight get no edges)
    return O.nn.fused_loss.multi_margin_loss(input, t.astype(np.int64), p, margin, w, reduction)


def multilabel_margin_loss(input: Tensor, target: Tensor, size_average=None, reduce=None,
                           reduction: str = "mean") -> Tensor:
    """sum over target classes j (up to the first -1) and non-target classes i of max(0, 1 - (x[j] - x[i])), / C.

    >>> import retrograd as torch
    >>> x = torch.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> torch.nn.functional.multilabel_margin_loss(x, torch.tensor([[3, 0, -1, 1]]))
    tensor(0.8500)
    """
    reduction = _reduction(size_average, reduce, reduction)
    unbatched = input.ndim <= 1
    if input.ndim > 2 or (input.ndim == 1 and input.shape[0] == 0) or (input.ndim == 2 and input.shape[1] == 0):
        raise RuntimeError(f"Expected non-empty vector or matrix with optional 0-dim batch size, but got: "
                           f"{list(input.shape)}")
    x = input.reshape(1, -1) if unbatched else input
    ok = (target.ndim <= 1 and target.numel() == x.shape[1]) if unbatched else tuple(target.shape) == tuple(x.shape)
    if not ok:
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: {list(input.shape)}")
    from .._tensor import _scalar_type_name

    if _scalar_type_name(target.dtype) != "Long":
        raise RuntimeError(f"expected scalar type Long but found {_scalar_type_name(target.dtype)}")
    t = np.asarray(target._data).reshape(x.shape)
    n, c = x.shape
    # each row's targets run up to its first negative entry
    if t.size and (t.min() < -1 or t.max() >= c):
        raise RuntimeError("argument #2 'target' is out of range")
    listed = np.cumprod(t >= 0, axis=1).astype(bool)
    counts = np.zeros((n, c), dtype=input._data.dtype)
    rows = np.broadcast_to(np.arange(n)[:, None], t.shape)
    np.add.at(counts, (rows[listed], t[listed]), 1)
    mask = counts[:, :, None] * (counts == 0)[:, None, :]
    # one node, MultilabelMarginLossBackward0, as in PyTorch (the target gets no edge)
    return O.nn.fused_loss.multilabel_margin_loss(input, mask, reduction)


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-6, swap: bool = False, size_average=None, reduce=None,
                        reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with the pairwise p-norm distance.

    >>> import retrograd as torch
    >>> a = torch.zeros(1, 2)
    >>> torch.nn.functional.triplet_margin_loss(a, a, a + 10).item()
    0.0
    """
    reduction = _reduction(size_average, reduce, reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    F = _F()
    d_pos = F.pairwise_distance(anchor, positive, p, eps)
    d_neg = F.pairwise_distance(anchor, negative, p, eps)
    if swap:
        d_neg = O.minimum(d_neg, F.pairwise_distance(positive, negative, p, eps))
    return _reduce(O.clamp_min(margin + d_pos - d_neg, 0), reduction)


def triplet_margin_with_distance_loss(anchor: Tensor, positive: Tensor, negative: Tensor, *,
                                      distance_function=None, margin: float = 1.0, swap: bool = False,
                                      reduction: str = "mean") -> Tensor:
    """max(0, margin + d(a, p) - d(a, n)) with a custom ``distance_function`` (pairwise_distance by default).

    >>> import retrograd as torch
    >>> a = torch.zeros(1, 2)
    >>> torch.nn.functional.triplet_margin_with_distance_loss(a, a, a + 10).item()
    0.0
    """
    if reduction not in ("mean", "sum", "none"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    a_dim, p_dim, n_dim = anchor.ndim, positive.ndim, negative.ndim
    if not (a_dim == p_dim == n_dim):
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the same number of "
                           f"dimensions, but got: anchor {a_dim}D, positive {p_dim}D, and negative {n_dim}D inputs")
    if distance_function is None:
        distance_function = _F().pairwise_distance
    d_pos = distance_function(anchor, positive)
    d_neg = distance_function(anchor, negative)
    if swap:
        d_neg = O.minimum(d_neg, distance_function(positive, negative))
    return _reduce(O.clamp_min(margin + d_pos - d_neg, 0), reduction)
