"""Loss functions of ``nn.functional``, composed from public ops (PyTorch's formulas)."""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _ops as O
from .._creation import zeros_like as _zeros_like
from .._ops._common import binary_operands as _binary_operands
from .._ops._registry import apply as _apply
from .._size import Size
from .._tensor import Tensor
from ..autograd import grad_mode as _grad_mode
from ._ctc import ctc_loss
from ._util import const
from .._ops.nn import activation as _ops_nn_activation
from .._ops.nn import fused_loss as _ops_nn_fused_loss
from .._ops.nn import loss as _ops_nn_loss

__all__ = ["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div", "legacy_get_string",
           "cosine_embedding_loss", "ctc_loss", "gaussian_nll_loss", "hinge_embedding_loss", "margin_ranking_loss",
           "multi_margin_loss", "multilabel_margin_loss", "multilabel_soft_margin_loss", "poisson_nll_loss",
           "soft_margin_loss", "triplet_margin_loss", "triplet_margin_with_distance_loss"]


def legacy_get_string(size_average, reduce, emit_warning: bool = True) -> str:
    """The old (size_average, reduce) flags as a reduction string."""
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    ret = "mean" if (size_average and reduce) else ("sum" if reduce else "none")
    if emit_warning:
        warnings.warn(f"size_average and reduce args will be deprecated, please use reduction='{ret}' instead.",
                      stacklevel=3)
    return ret


def _reduce(loss: Tensor, reduction: str) -> Tensor:
    if reduction == "none":
        return loss
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    raise ValueError(f"{reduction} is not a valid value for reduction")


def _check_reduction(reduction: str) -> None:
    if reduction not in ("none", "mean", "sum", "elementwise_mean"):
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _pointwise_prep(input: Tensor, target: Tensor, size_average, reduce, reduction: str):
    if tuple(target.shape) != tuple(input.shape):
        warnings.warn(f"Using a target size ({target.size()}) that is different to the input size ({input.size()}). "
                      "This will likely lead to incorrect results due to broadcasting. Please ensure they have the "
                      "same size.", stacklevel=3)
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    return reduction


def mse_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
             weight: Tensor | None = None) -> Tensor:
    """Mean squared error.

    >>> import retrograd as torch
    >>> torch.nn.functional.mse_loss(torch.tensor([1., 3.]), torch.tensor([0., 0.]))
    tensor(5.)
    """
    reduction = _pointwise_prep(input, target, size_average, reduce, reduction)
    if weight is None:
        a, b, cast = _binary_operands(input, target, "mse_loss")
        return _apply(_ops_nn_loss._mse_op, (a, b), {"reduction": reduction}, cast)
    d = input - target
    return _reduce(d * d * weight, reduction)


def l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
            weight: Tensor | None = None) -> Tensor:
    """Mean absolute error."""
    reduction = _pointwise_prep(input, target, size_average, reduce, reduction)
    loss = O.abs(input - target)
    if weight is not None:
        loss = loss * weight
    return _reduce(loss, reduction)


def smooth_l1_loss(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
                   beta: float = 1.0) -> Tensor:
    """0.5 d^2 / beta where |d| < beta, else |d| - beta / 2."""
    reduction = _pointwise_prep(input, target, size_average, reduce, reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    a, b, cast = _binary_operands(input, target, "smooth_l1_loss")
    return _ops_nn_loss.smooth_l1(a, b, reduction, beta, False, cast)


def huber_loss(input: Tensor, target: Tensor, reduction: str = "mean", delta: float = 1.0,
               weight: Tensor | None = None) -> Tensor:
    """0.5 d^2 where |d| < delta, else delta (|d| - delta / 2)."""
    reduction = _pointwise_prep(input, target, None, None, reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    if weight is None:
        a, b, cast = _binary_operands(input, target, "huber_loss")
        return _ops_nn_loss.smooth_l1(a, b, reduction, delta, True, cast)
    d = O.abs(input - target)
    loss = O.where(d < delta, d * d * 0.5, (d - 0.5 * delta) * delta)
    return _reduce(loss * weight, reduction)


# ---------------------------------------------------------------------- classification
_umax = np.maximum.reduce
_INT64, _UINT64, _UINT8 = np.dtype(np.int64), np.dtype(np.uint64), np.dtype(np.uint8)
# statics shared by every node of cross_entropy's fast path (never mutated)
_DIM1 = {"dim": 1}
_PLAIN_REDUCTIONS = {r: {"reduction": r} for r in ("mean", "sum", "none")}


def _check_target_dtype(target: Tensor) -> None:
    """Class indices must be int64 or uint8, as torch's nll_loss kernels require."""
    if target._data.dtype not in (_INT64, _UINT8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got {_scalar(target)}")


def _class_shape(c: int, ndim: int) -> tuple:
    return (1, c) + (1,) * (ndim - 2)


def _check_nll_shapes(input: Tensor, target: Tensor, weight: Tensor | None) -> None:
    """PyTorch's shape checks of a batched nll_loss, in its order and words: the 2-d kernel's,
    the spatial kernel's (4-d input), or the K-dim reshape's (3-d and over 4-d input)."""
    shape, tshape, c = list(input.shape), list(target.shape), input.shape[1]
    if input.ndim == 2:
        if target.ndim > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        if weight is not None and (weight.ndim != 1 or weight.numel() != c):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but "
                               f"got weight tensor of shape: {list(weight.shape)}")
        return
    if input.ndim != 4 and tshape[1:] != shape[2:]:
        raise RuntimeError(f"Expected target size {[shape[0]] + shape[2:]}, got {tshape}")
    if input.ndim == 4 and target.ndim != 3:
        raise RuntimeError(f"only batches of spatial targets supported (3D tensors) but got targets of dimension: "
                           f"{target.ndim}")
    if weight is not None and weight.numel() != c:
        raise RuntimeError("weight tensor should be defined either for all or no classes")
    if input.ndim == 4 and tshape != [shape[0]] + shape[2:]:
        # (PyTorch's message has no closing parenthesis)
        raise RuntimeError(f"size mismatch (got input: {shape} , target: {tshape}")


def _check_weight_dtype(input: Tensor, weight: Tensor | None) -> None:
    if weight is not None and weight._data.dtype != input._data.dtype:
        raise RuntimeError(f"expected scalar type {_scalar(input)} but found {_scalar(weight)}")


def nll_loss(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
             ignore_index: int = -100, reduce=None, reduction: str = "mean") -> Tensor:
    """-input[n, target[n]] (weighted), averaged over the weights of non-ignored targets.

    input: (N, C) or (N, C, d1, ...) log-probabilities, or (C,) unbatched; target: class indices.
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    if input.ndim < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.ndim})")
    unbatched = input.ndim == 1
    if unbatched:
        _check_target_dtype(target)
        if target.ndim != 0:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        c = input.shape[0]
        if weight is not None and (weight.ndim != 1 or weight.numel() != c):
            raise RuntimeError(f"weight tensor should be defined either for all {c} classes or no classes but "
                               f"got weight tensor of shape: {list(weight.shape)}")
        _check_weight_dtype(input, weight)
        t = target._data
        if t != ignore_index and not 0 <= t < c:
            raise IndexError(f"Target {int(t)} is out of bounds.")
        if weight is None:
            weight = const(np.ones(c, dtype=input._data.dtype))
        return _apply(_ops_nn_loss._nll_op, (input, target, weight), {"ignore_index": ignore_index, "reduction": reduction})
    shape, t = input._data.shape, target._data
    if not t.ndim or shape[0] != t.shape[0]:
        raise ValueError(f"Expected input batch_size ({input.shape[0]}) to match target batch_size "
                         f"({target.shape[0]}).")
    _check_target_dtype(target)
    _check_nll_shapes(input, target, weight)
    _check_weight_dtype(input, weight)
    c = shape[1]
    # (as unsigned, a negative index is huge: one reduction checks both bounds)
    if weight is None and len(shape) == 2 and t.ndim == 1 and t.size and t.dtype.itemsize == 8 and \
            _umax(t.view(np.uint64)) < c and (not 0 <= ignore_index < c or not (t == ignore_index).any()):
        # the common case (unweighted, nothing ignored): a gather, and a scatter in the backward
        return _apply(_ops_nn_loss._nll_plain_op, (input, target), {"reduction": reduction})
    valid = t != ignore_index
    bad = t[valid & ((t < 0) | (t >= c))]
    if bad.size:
        raise IndexError(f"Target {int(bad.flat[0])} is out of bounds.")
    if weight is None:
        weight = const(np.ones(c, dtype=input._data.dtype))
    static = {"ignore_index": ignore_index, "reduction": reduction}
    if input.ndim == 2:
        loss = _apply(_ops_nn_loss._nll_op, (input, target, weight), static)
    elif input.ndim == 4:
        loss = _apply(_ops_nn_loss._nll2d_op, (input, target, weight), static)
    else:
        # like PyTorch: other K-dim inputs go through the 2-d kernel on a (N, C, d1, rest) view
        n, d1 = input.shape[0], input.shape[2]
        loss = _apply(_ops_nn_loss._nll2d_op, (input.reshape(n, c, d1, -1), target.reshape(n, d1, -1), weight), static)
        if reduction == "none":
            loss = loss.reshape(target.shape)
    return loss


def _scalar(t: Tensor) -> str:
    from .._tensor import _scalar_type_name

    return _scalar_type_name(t.dtype)


def cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                  ignore_index: int = -100, reduce=None, reduction: str = "mean",
                  label_smoothing: float = 0.0) -> Tensor:
    """log_softmax over dim 1 (dim 0 unbatched), then NLL; targets may be class indices or probabilities."""
    if weight is None and not label_smoothing and size_average is None and reduce is None:
        xd, td = input._data, target._data
        if xd.ndim == 2 and td.ndim == 1 and td.dtype == _INT64 and xd.dtype.kind == "f" and \
                xd.shape[0] == td.shape[0] and td.size and reduction in ("mean", "sum", "none"):
            c = xd.shape[1]
            if _umax(td.view(_UINT64)) < c and (not 0 <= ignore_index < c or not (td == ignore_index).any()):
                # A training loop's usual call (class indices in range, no weights, no smoothing),
                # checked up front: the LogSoftmaxBackward0 and NllLossBackward0 nodes PyTorch
                # records, made directly (the same two ops the general path below reaches).
                logp = _apply(_ops_nn_activation._log_softmax_op, (input,), _DIM1)
                return _apply(_ops_nn_loss._nll_plain_op, (logp, target), _PLAIN_REDUCTIONS[reduction])
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    class_dim = 0 if input.ndim == 1 else 1
    logp = _ops_nn_activation.log_softmax(input, class_dim)
    c = input.shape[class_dim]
    if tuple(target.shape) == tuple(input.shape):
        # class probabilities (torch decides by shape; any other shape means class indices)
        if target._data.dtype.kind != "f":
            raise RuntimeError(f"Expected floating point type for target with class probabilities, got "
                               f"{_scalar(target)}")
        if ignore_index >= 0:
            raise RuntimeError("ignore_index is not supported for floating point target")
        if weight is not None and (weight.ndim != 1 or weight.numel() != c):
            raise RuntimeError(f"cross_entropy: weight tensor should be defined either for all {c} classes or no "
                               f"classes but got weight tensor of shape: {list(weight.shape)}")
        if label_smoothing > 0:
            target = target * (1 - label_smoothing) + label_smoothing / c
        prod = logp * target
        if weight is not None:
            prod = prod * (weight if class_dim == 0 else weight.reshape(_class_shape(c, input.ndim)))
        if reduction == "none":
            return -prod.sum(class_dim)
        if reduction == "sum":
            return -prod.sum()  # (PyTorch's order: the node is NegBackward0)
        # (PyTorch divides in C++: node DivBackward1)
        return _ops_nn_loss.div_scalar(-prod.sum(), input.numel() / c)
    nll = nll_loss(logp, target, weight, ignore_index=ignore_index, reduction=reduction)
    if label_smoothing == 0:
        return nll
    unbatched = input.ndim == 1
    lp = logp.unsqueeze(0) if unbatched else logp
    t = (target.unsqueeze(0) if unbatched else target)._data
    ignore = t == ignore_index
    if weight is not None:
        smooth = -(lp * weight.reshape(_class_shape(c, lp.ndim))).sum(1)
    else:
        smooth = -lp.sum(1)
    # (ignored rows exactly 0: a -inf log-probability times a 0 mask would be NaN)
    smooth = O.where(const(ignore), 0.0, smooth)
    if reduction == "mean":
        if weight is not None:
            ret = smooth.sum() / weight[const(t[~ignore])].sum()
        else:
            ret = smooth.sum() / float((~ignore).sum())
    elif reduction == "sum":
        ret = smooth.sum()
    else:
        ret = smooth.squeeze(0) if unbatched else smooth
    return nll * (1 - label_smoothing) + ret * (label_smoothing / c)


def binary_cross_entropy(input: Tensor, target: Tensor, weight: Tensor | None = None, size_average=None,
                         reduce=None, reduction: str = "mean") -> Tensor:
    """-(t log x + (1 - t) log(1 - x)), each log clamped at -100 as in PyTorch."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({target.size()}) that is different to the input size "
                         f"({input.size()}) is deprecated. Please ensure they have the same size.")
    d = input._data
    if d.size and not ((d >= 0) & (d <= 1)).all():  # (a NaN fails too, as in PyTorch)
        raise RuntimeError("all elements of input should be between 0 and 1")
    if weight is None or not weight.requires_grad:
        w = weight if weight is not None else const(np.ones((), dtype=d.dtype))
        return _ops_nn_loss.binary_cross_entropy(input, target, w, reduction)
    loss = (target - 1) * O.clamp(O.log1p(-input), min=-100) - target * O.clamp(O.log(input), min=-100)
    return _reduce(loss * weight, reduction)


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     size_average=None, reduce=None, reduction: str = "mean",
                                     pos_weight: Tensor | None = None) -> Tensor:
    """Sigmoid + binary cross entropy in one stable formula; ``pos_weight`` scales positive targets.

    One node, as in PyTorch (weight and pos_weight get no gradient there either):

    >>> import retrograd as torch
    >>> x = torch.zeros(2, requires_grad=True)
    >>> torch.nn.functional.binary_cross_entropy_with_logits(x, torch.tensor([0., 1.]))
    tensor(0.6931, grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)
    """
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({Size(target.shape)}) must be the same as input size "
                         f"({Size(input.shape)})")
    from .. import _dtype as D
    from ..autograd import grad_mode
    from .._tensor import _scalar_type_name

    dt = D.promote_types(input.dtype, target.dtype)
    if not target.is_floating_point():  # (PyTorch writes the loss into a tensor like the target)
        raise RuntimeError(f"result type {_scalar_type_name(dt)} can't be cast to the desired output type "
                           f"{_scalar_type_name(target.dtype)}")
    arrays = {}
    for name, w in (("weight", weight), ("pos_weight", pos_weight)):
        if w is None:
            continue
        if w.requires_grad and grad_mode.state.enabled:
            raise RuntimeError(f"The function 'binary_cross_entropy_with_logits' is not differentiable with "
                               f"respect to argument '{name}'. This input cannot have requires_grad True.")
        arrays[name] = w._data.astype(dt.np, copy=False)
    shape = tuple(input.shape)
    full = np.broadcast_shapes(shape, *[a.shape for a in arrays.values()])
    if full != shape:
        raise RuntimeError(f"output with shape {list(shape)} doesn't match the broadcast shape {list(full)}")
    # one node, BinaryCrossEntropyWithLogitsBackward0, with edges to input and target as in PyTorch
    return _ops_nn_fused_loss.binary_cross_entropy_with_logits(input, target, arrays.get("weight"),
                                                      arrays.get("pos_weight"), reduction, dt)


def kl_div(input: Tensor, target: Tensor, size_average=None, reduce=None, reduction: str = "mean",
           log_target: bool = False) -> Tensor:
    """target * (log target - input) pointwise (input holds log-probabilities)."""
    if size_average is not None or reduce is not None:
        reduction = legacy_get_string(size_average, reduce)
    if reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the support size."
                      "'batchmean' divides only by the batch size, and aligns with the KL div math definition."
                      "'mean' will be changed to behave the same as 'batchmean' in the next major release.",
                      stacklevel=2)
    if log_target:
        loss = O.exp(target) * (target - input)
    else:
        # PyTorch's formula, so t == 0 and t < 0 (and their gradients) come out as there
        loss = O.xlogy(target, target) - target * input
    if reduction == "batchmean":
        if input.ndim == 0:
            return loss.sum()
        return loss.sum() / input.shape[0]
    if reduction in ("none", "mean", "sum"):
        return _reduce(loss, reduction)
    raise ValueError(f"{reduction} is not a valid value for reduction")


# ---------------------------------------------------------------------- margin, embedding, Poisson/Gaussian NLL
def _F():
    # nn.functional imports this module (for its public names), so it is reached lazily
    from . import functional

    return functional


def _reduction(size_average, reduce, reduction: str) -> str:
    if size_average is not None or reduce is not None:
        return legacy_get_string(size_average, reduce)
    if reduction not in ("none", "mean", "sum"):
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return reduction


def _reduce_unchecked(loss: Tensor, reduction: str) -> Tensor:
    # (unlike _reduce, for callers that have already validated reduction)
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
    return _reduce_unchecked(pos + neg, reduction)


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
    return _reduce_unchecked(out_margin + out_self, reduction)


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
    return _reduce_unchecked(O.clamp_min(-target * (input1 - input2) + margin, 0), reduction)


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
    return _ops_nn_fused_loss.soft_margin_loss(input, t.astype(input._data.dtype, copy=False), reduction)


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
    return _reduce_unchecked(loss, reduction)


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
    return _reduce_unchecked(loss, reduction)


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
    return _reduce_unchecked(loss, reduction)


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
    return _ops_nn_fused_loss.multi_margin_loss(input, t.astype(np.int64), p, margin, w, reduction)


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
    return _ops_nn_fused_loss.multilabel_margin_loss(input, mask, reduction)


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
    return _reduce_unchecked(O.clamp_min(margin + d_pos - d_neg, 0), reduction)


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
    return _reduce_unchecked(O.clamp_min(margin + d_pos - d_neg, 0), reduction)
