"""``nn.functional``: layers as functions, composed from public retrograd ops.

Nothing here defines a gradient: convolution, pooling, softmax, embedding and the
activations with their own backward nodes are op-table primitives (``_ops/nn/``);
everything else (normalisation, attention, losses, dropout, interpolation) composes ops.

>>> import retrograd as torch
>>> import retrograd.nn.functional as F
>>> F.relu(torch.tensor([-1., 2.]))
tensor([0., 2.])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _dtype as D
from .. import _ops as O
from .. import _rng
from .._creation import _eng
from .._ops.nn import batch_norm as _bnorm
from .._ops.nn import (adaptive_pooling as _adaptive_pooling, activation as _activation, conv as _conv,
                       padding as _padding, linear as _linear, pooling as _pooling, embedding as _embedding)
from .._ops.nn import padding as _pad
from .._ops._registry import apply_inplace as _apply_inplace
from .._ops._registry import apply as _apply
from .._ops.shape import _unsafe_view
from .._ops.shape import reshape_to as _reshape_to
from .._tensor import Tensor, bump_version
from ..autograd import grad_mode
from ._losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,  # noqa: F401
                      huber_loss, kl_div, l1_loss, mse_loss, nll_loss, smooth_l1_loss)
from ._util import cat, const

__all__ = [
    "relu", "relu_", "relu6", "leaky_relu", "leaky_relu_", "elu", "elu_", "selu", "celu", "gelu", "silu",
    "mish", "softplus", "hardtanh", "hardtanh_", "tanh", "sigmoid", "logsigmoid", "hardsigmoid", "hardswish",
    "softsign", "tanhshrink", "threshold", "glu", "softmax", "softmin", "log_softmax", "dropout", "dropout1d",
    "dropout2d", "linear", "bilinear", "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
    "max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "adaptive_avg_pool1d",
    "adaptive_avg_pool2d", "adaptive_max_pool1d", "adaptive_max_pool2d", "batch_norm", "layer_norm",
    "group_norm", "rms_norm", "embedding", "one_hot", "pad", "interpolate", "normalize", "cosine_similarity",
    "pairwise_distance", "unfold", "fold", "scaled_dot_product_attention", "multi_head_attention_forward",
    "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "cross_entropy", "nll_loss", "binary_cross_entropy",
    "binary_cross_entropy_with_logits", "kl_div", "pixel_shuffle"]


def _inplace(input: Tensor, result: Tensor, inplace: bool) -> Tensor:
    return input.copy_(result) if inplace else result


# ====================================================================== activations
def relu(input: Tensor, inplace: bool = False) -> Tensor:
    """max(x, 0) (backward node ReluBackward0)."""
    if inplace:
        return O.relu_(input)
    # floating point: the nn primitive, whose backward is one masked copy
    return _apply(_activation._relu_op, (input,)) if input._data.dtype.kind == "f" else O.relu(input)


def relu_(input: Tensor) -> Tensor:
    return O.relu_(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6) (backward node HardtanhBackward0, as in PyTorch)."""
    return _activation.hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x (backward node LeakyReluBackward0; in place LeakyReluBackward1)."""
    if inplace:
        return _activation.leaky_relu_inplace(input, negative_slope)
    return _activation.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else alpha * (exp(x) - 1) (backward node EluBackward0; in place EluBackward1)."""
    return _activation.elu_like(input, alpha, 1.0, 1.0, inplace, False)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with SELU's constants (backward node EluBackward0)."""
    return _activation.elu_like(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace, False)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (backward node CeluBackward0)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _activation.elu_like(input, alpha, 1.0, 1.0 / alpha, inplace, True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x); ``approximate='tanh'`` for the tanh formula."""
    return _activation.gelu(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    if inplace:  # (the node needs the old x: apply_inplace snapshots it, as PyTorch saves original_self)
        return _apply_inplace(_activation._silu_op, input, ())
    return _activation.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    if inplace:
        return _apply_inplace(_activation._mish_op, input, ())
    return _activation.mish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta."""
    return _activation.softplus(input, beta, threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """Clamp to [min_val, max_val] (backward node HardtanhBackward0)."""
    return _activation.hardtanh(input, min_val, max_val, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, True)


def tanh(input: Tensor) -> Tensor:
    return O.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    return O.sigmoid(input)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), stable for large |x| (backward node LogSigmoidBackward0)."""
    return _activation.logsigmoid(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6 (backward node HardsigmoidBackward0)."""
    return _activation.hardsigmoid(input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6 (backward node HardswishBackward0)."""
    return _activation.hardswish(input, inplace)


def softsign(input: Tensor) -> Tensor:
    return input / (O.abs(input) + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - O.tanh(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value where x <= threshold, else x (backward node ThresholdBackward0; in place ThresholdBackward1)."""
    if inplace:
        # a real in-place op: the node keeps the value x had (copying an out-of-place result into x
        # would leave that result's node reading the overwritten x)
        if input._data.dtype.kind == "b":
            raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
        return _apply_inplace(_activation._threshold_inplace_op, input, (), {"threshold": threshold, "value": value})
    return _activation.threshold(input, threshold, value)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the halves a, b of ``dim`` (backward node GluBackward0)."""
    return _activation.glu(input, dim)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim`` (backward node SoftmaxBackward0)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.ndim, _stacklevel)
    return _activation.softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmin", input.ndim, _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _activation.softmax(-input, dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``, computed stably (backward node LogSoftmaxBackward0)."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.ndim, _stacklevel)
    return _activation.log_softmax(input, dim, dtype)


# ====================================================================== dropout
def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(shape, p: float, dtype) -> Tensor:
    """PyTorch's CPU dropout noise: ``bernoulli_(1 - p)`` (same draws), divided by 1 - p in
    the input's dtype; p == 1 draws nothing and gives zeros."""
    shape = tuple(shape)
    if p >= 1.0:
        return const(np.zeros(shape, dtype.np))
    n = 1
    for s in shape:
        n *= s
    keep = _rng.bernoulli_scalar(_eng(None), n, 1.0 - p).reshape(shape).astype(dtype.np)
    return const(keep / dtype.np.type(1.0 - p))


def dropout(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero each element with probability p and scale the rest by 1/(1-p) (training only).

    >>> import retrograd as torch
    >>> torch.nn.functional.dropout(torch.ones(3), 0.5, training=False)
    tensor([1., 1., 1.])
    """
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _inplace(input, input * _keep_mask(input.shape, p, input.dtype), inplace)


def _feature_dropout(input: Tensor, p: float, training: bool, inplace: bool, batched_ndim: int) -> Tensor:
    _check_p(p)
    if not training or p == 0.0:
        return input
    shape = input.shape[:-(batched_ndim - 2)] + (1,) * (batched_ndim - 2) if input.ndim == batched_ndim \
        else input.shape[:1] + (1,) * (batched_ndim - 2)
    return _inplace(input, input * _keep_mask(shape, p, input.dtype), inplace)


def dropout1d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, L) input."""
    _check_p(p)
    if input.ndim not in (2, 3):
        raise RuntimeError(f"dropout1d: Expected 2D or 3D input, but received a {input.ndim}D input. Note that "
                           "dropout1d exists to provide channel-wise dropout on inputs with 1 spatial dimension, a "
                           "channel dimension, and an optional batch dimension (i.e. 2D or 3D inputs).")
    return _feature_dropout(input, p, training, inplace, 3)


def dropout2d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, H, W) input."""
    _check_p(p)
    nd = input.ndim
    if nd not in (3, 4):
        warnings.warn(f"dropout2d: Received a {nd}-D input to dropout2d, which is deprecated and will result in an "
                      "error in a future release. To retain the behavior and silence this warning, please use "
                      "dropout instead. Note that dropout2d exists to provide channel-wise dropout on inputs with 2 "
                      "spatial dimensions, a channel dimension, and an optional batch dimension (i.e. 3D or 4D "
                      "inputs).", stacklevel=2)
    if nd == 4:
        return _feature_dropout(input, p, training, inplace, 4)
    # like torch: any other rank (3-D included) is taken as (N, C, *) and whole (n, c) slices are dropped
    if nd == 3:
        warnings.warn("dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D dropout "
                      "behavior is desired - input is interpreted as shape (N, C, L), where C is the channel dim. "
                      "This behavior will change in a future release to interpret the input as one without a "
                      "batch dimension, i.e. shape (C, H, W). To maintain the 1D channel-wise dropout behavior, "
                      "please switch to using dropout1d instead.", stacklevel=2)
    if not training or p == 0.0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (nd - 2)
    return _inplace(input, input * _keep_mask(shape, p, input.dtype), inplace)


# ====================================================================== linear
def linear(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """input @ weight.T + bias.

    >>> import retrograd as torch
    >>> torch.nn.functional.linear(torch.ones(1, 2), torch.ones(3, 2))
    tensor([[2., 2., 2.]])
    """
    xd, wd = input._data, weight._data
    dt = xd.dtype
    if xd.ndim == 2 and wd.ndim == 2 and wd.dtype is dt and dt.kind == "f" and xd.shape[1] == wd.shape[1]:
        # nn.Linear's everyday case, checked up front: one fused node (AddmmBackward0, or
        # MmBackward0 without bias), the general checks below skipped
        if bias is None:
            return _apply(_linear._linear_op, (input, weight))
        bd = bias._data
        if bd.dtype is dt and bd.shape == (wd.shape[0],):
            return _apply(_linear._linear_b_op, (bias, input, weight))
    if xd.dtype != wd.dtype:
        raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got {_short(input.dtype)} and "
                           f"{_short(weight.dtype)}")
    if wd.ndim == 2 and xd.ndim >= 2:
        # one matrix product over the flattened leading dims (PyTorch's error text for bad shapes);
        # with a bias it is addmm, as in PyTorch (AddmmBackward0)
        k = xd.shape[-1]
        x2 = input if xd.ndim == 2 else _reshape_to(input, (xd.size // k, k)) if k else input.reshape(-1, k)
        if xd.shape[-1] == wd.shape[1] and xd.dtype.kind == "f" and (
                bias is None or (bias._data.shape == wd.shape[:1] and bias._data.dtype == xd.dtype)):
            # the common case: one fused node (AddmmBackward0, or MmBackward0 without bias)
            out = _linear.linear_2d(x2, weight, bias)
        elif bias is not None and bias.ndim == 1 and x2.shape[1] == weight.shape[1]:
            out = O.addmm(bias, x2, weight.t())
        else:
            out = O.mm(x2, weight.t())
            if bias is not None:
                out = out + bias
        if xd.ndim == 2:
            return out
        shape = xd.shape[:-1] + (wd.shape[0],)
        # (PyTorch: with a bias, addmm viewed back (ViewBackward0); without, matmul's result
        # reshaped as a new tensor (UnsafeViewBackward0))
        return _reshape_to(out, shape) if bias is not None else _apply(_unsafe_view, (out,), {"shape": shape})
    if xd.ndim == 1 and wd.ndim == 2 and bias is not None and bias.ndim == 1:
        # as PyTorch: a (1, in) view through addmm, viewed back (ViewBackward0 <- AddmmBackward0)
        return linear(input.view(1, -1), weight, bias).view(-1)
    out = O.matmul(input, weight.t() if weight.ndim == 2 else weight)
    return out if bias is None else out + bias


def _short(dt) -> str:
    from .._tensor import _scalar_type_name

    return _scalar_type_name(dt)


def bilinear(input1: Tensor, input2: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """y = x1^T A x2 + b for each output feature (weight: (out, in1, in2))."""
    o, i1, i2 = weight.shape
    lead = input1.shape[:-1]
    x1 = input1.reshape(-1, i1)
    x2 = input2.reshape(-1, i2)
    tmp = O.mm(x1, weight.permute(1, 0, 2).reshape(i1, o * i2)).reshape(-1, o, i2)
    out = (tmp * x2.unsqueeze(1)).sum(-1).reshape(*lead, o)
    # the bias last, as PyTorch (output node AddBackward0)
    return out if bias is None else out + bias


# ====================================================================== convolution / pooling
conv1d = _conv.conv1d
conv2d = _conv.conv2d
conv3d = _conv.conv3d
conv_transpose1d = _conv.conv_transpose1d
conv_transpose2d = _conv.conv_transpose2d
max_pool1d = _pooling.max_pool1d
max_pool2d = _pooling.max_pool2d
max_pool3d = _pooling.max_pool3d
avg_pool1d = _pooling.avg_pool1d
avg_pool2d = _pooling.avg_pool2d
adaptive_avg_pool1d = _adaptive_pooling.adaptive_avg_pool1d
adaptive_avg_pool2d = _adaptive_pooling.adaptive_avg_pool2d


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling of (N, C, L) to a fixed length."""
    out, idx = _adaptive_pooling.adaptive_max_pool1d(input, output_size)
    return (out, idx) if return_indices else out


adaptive_max_pool2d = _adaptive_pooling.adaptive_max_pool2d


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks as columns: (N, C, H, W) -> (N, C*kH*kW, L)."""
    return _conv.im2col(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns (N, C*kH*kW, L) back into (N, C, H, W) (the adjoint of unfold)."""
    return _conv.col2im(input, output_size, kernel_size, dilation, padding, stride)


# ====================================================================== normalization
def _bn_stats(input: Tensor, dims):
    mean = input.mean(dims, keepdim=True)
    d = input - mean
    var = (d * d).mean(dims, keepdim=True)
    return mean, var


def _verify_batch_size(size) -> None:
    n = size[0]
    for s in size[2:]:
        n *= s
    if n == 1:
        from .._size import Size

        raise ValueError(f"Expected more than 1 value per channel when training, got input size {Size(size)}")


def batch_norm(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None, weight: Tensor | None = None,
               bias: Tensor | None = None, training: bool = False, momentum: float = 0.1,
               eps: float = 1e-5) -> Tensor:
    """Normalise each channel (dim 1) by batch statistics (training) or running ones (eval).

    In training the running statistics are updated in place: the mean with the batch mean,
    the variance with the unbiased batch variance, each weighted by ``momentum``.
    """
    if training:
        _verify_batch_size(input.shape)
    if training and eps <= 0.0:
        raise ValueError(f"batch_norm eps must be positive during training, but got {eps}")
    elif eps < 0.0:
        raise ValueError(f"batch_norm eps must be non-negative, but got {eps}")
    return _batch_norm_impl(input, running_mean, running_var, weight, bias, training, momentum, eps)


def _batch_norm_impl(input: Tensor, running_mean: Tensor | None, running_var: Tensor | None,
                     weight: Tensor | None, bias: Tensor | None, training: bool, momentum: float,
                     eps: float) -> Tensor:
    """batch_norm without the argument checks of the Python-level function (instance_norm, like
    PyTorch's, reaches the kernel directly, so it accepts any eps)."""
    if input.numel() == 0:
        # PyTorch's early exit for an empty input: no statistics, no size checks, the running
        # averages untouched; a copy (not a view, so the graph goes on) scaled by the first
        # weight and shifted by the first bias element
        out = input.clone()
        if weight is not None:
            out = out * weight[0]
        if bias is not None:
            out = out + bias[0]
        return out
    c = input.shape[1]
    for name, t in (("running_mean", running_mean), ("running_var", running_var), ("weight", weight),
                    ("bias", bias)):
        if t is not None and t.numel() != c:
            raise RuntimeError(f"{name} should contain {c} elements not {t.numel()}")
    shape = (1, c) + (1,) * (input.ndim - 2)
    dims = (0,) + tuple(range(2, input.ndim))
    batch_stats = training or running_mean is None or running_var is None
    dt = input._data.dtype
    if dt.kind == "f" and all(t is None or (isinstance(t, Tensor) and t._data.dtype == dt and t._data.shape == (c,))
                              for t in (weight, bias) + (() if batch_stats else (running_mean, running_var))):
        # the common case: one fused op (PyTorch's NativeBatchNormBackward0)
        w = weight if weight is not None else const(np.ones(c, dtype=dt))
        b = bias if bias is not None else const(np.zeros(c, dtype=dt))
        if not batch_stats:
            return _bnorm.batch_norm_eval(input, w, b, running_mean._data, running_var._data, eps)
        out, mean, var = _bnorm.batch_norm_train(input, w, b, eps)
        if training and running_mean is not None and running_var is not None:
            n = input.numel() / c
            with grad_mode.no_grad():
                running_mean.mul_(1 - momentum).add_(const(mean) * momentum)
                running_var.mul_(1 - momentum).add_(const(var) * (momentum * n / max(n - 1, 1)))
        return out
    if batch_stats:
        mean, var = _bn_stats(input, dims)
        if training and running_mean is not None and running_var is not None:
            n = input.numel() / c
            with grad_mode.no_grad():
                running_mean.mul_(1 - momentum).add_(mean.detach().reshape(c) * momentum)
                running_var.mul_(1 - momentum).add_(var.detach().reshape(c) * (momentum * n / max(n - 1, 1)))
        out = (input - mean) / O.sqrt(var + eps)
    else:
        out = (input - running_mean.reshape(shape)) / O.sqrt(running_var.reshape(shape) + eps)
    if weight is not None:
        out = out * weight.reshape(shape)
    if bias is not None:
        out = out + bias.reshape(shape)
    return out


def layer_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise over the last ``len(normalized_shape)`` dims, then scale and shift (one node, as PyTorch).

    >>> import retrograd as torch
    >>> torch.nn.functional.layer_norm(torch.tensor([[1., 3.]], requires_grad=True), (2,))
    tensor([[-1.0000,  1.0000]], grad_fn=<NativeLayerNormBackward0>)
    """
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    k = len(ns)
    if k == 0:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if tuple(input.shape[input.ndim - k:]) != ns or input.ndim < k:
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*, {', '.join(map(str, ns))}], but got input of size{list(input.shape)}")
    for name, p in (("weight", weight), ("bias", bias)):
        if p is not None and tuple(p.shape) != ns:
            raise RuntimeError(f"Expected {name} to be of same shape as normalized_shape, but got {name} of shape "
                               f"{list(p.shape)} and normalized_shape = {list(ns)}")
    O.nn.normalization.check_norm_dtypes("LayerNormKernelImpl", input, weight, bias)
    # one node, NativeLayerNormBackward0, as in PyTorch (src/retrograd/_ops/nn/normalization.py)
    return O.nn.normalization.layer_norm(input, k, weight, bias, eps)


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """x / sqrt(mean(x^2) + eps) over the last dims, times weight."""
    ns = (normalized_shape,) if isinstance(normalized_shape, int) else tuple(normalized_shape)
    if not ns:
        raise RuntimeError("Expected normalized_shape to be at least 1-dimensional, i.e., containing at least one "
                           "element, but got normalized_shape = []")
    if tuple(input.shape[input.ndim - len(ns):]) != ns or input.ndim < len(ns):
        raise RuntimeError(f"Given normalized_shape={list(ns)}, expected input with shape "
                           f"[*{', '.join(map(str, ns))}], but got input of size{list(input.shape)}")
    if weight is not None and tuple(weight.shape) != ns:
        raise RuntimeError(f"Expected weight to be of same shape as normalized_shape, but got weight of shape "
                           f"{list(weight.shape)} and normalized_shape = {list(ns)}")
    dims = tuple(range(input.ndim - len(ns), input.ndim))
    if eps is None:
        eps = float(np.finfo(input._data.dtype).eps)
    # PyTorch's composition: x * rsqrt(mean(x^2) + eps) (nodes MulBackward0 <- RsqrtBackward0)
    out = input * O.rsqrt(input.pow(2).mean(dims, keepdim=True) + eps)
    return out if weight is None else out * weight


def group_norm(input: Tensor, num_groups: int, weight: Tensor | None = None, bias: Tensor | None = None,
               eps: float = 1e-5) -> Tensor:
    """Normalise each group of channels over (channels in group, spatial dims) (one node, as PyTorch).

    >>> import retrograd as torch
    >>> torch.nn.functional.group_norm(torch.tensor([[1., 3.]]), 1)
    tensor([[-1.0000,  1.0000]])
    """
    if input.ndim < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received {input.ndim}")
    c = input.shape[1]
    if c % num_groups:
        raise RuntimeError(f"Expected number of channels in input to be divisible by num_groups, but got input of "
                           f"shape {list(input.shape)} and num_groups={num_groups}")
    if weight is not None and (weight.ndim != 1 or weight.numel() != c):
        raise RuntimeError(f"Expected weight to be a vector of size equal to the number of channels in input, but "
                           f"got weight of shape {list(weight.shape)} and input of shape {list(input.shape)}")
    if bias is not None and (bias.ndim != 1 or bias.numel() != c):
        # torch's message prints the weight's shape here
        shown = weight if weight is not None else bias
        raise RuntimeError(f"Expected bias to be a vector of size equal to the number of channels in input, but "
                           f"got bias of shape {list(shown.shape)} and input of shape {list(input.shape)}")
    O.nn.normalization.check_norm_dtypes("GroupNormKernelImpl", input, weight, bias)
    # one node, NativeGroupNormBackward0, as in PyTorch (src/retrograd/_ops/nn/normalization.py)
    return O.nn.normalization.group_norm(input, num_groups, weight, bias, eps)


# ====================================================================== embedding / one_hot
def embedding(input: Tensor, weight: Tensor, padding_idx: int | None = None, max_norm: float | None = None,
              norm_type: float = 2.0, scale_grad_by_freq: bool = False, sparse: bool = False) -> Tensor:
    """Rows of ``weight`` looked up by integer ``input`` (backward node EmbeddingBackward0)."""
    if weight.ndim != 2:
        raise RuntimeError("'weight' must be 2-D")
    if padding_idx is not None:
        if padding_idx > 0:
            assert padding_idx < weight.size(0), "Padding_idx must be within num_embeddings"
        elif padding_idx < 0:
            assert padding_idx >= -weight.size(0), "Padding_idx must be within num_embeddings"
            padding_idx = weight.size(0) + padding_idx
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    return _embedding.embedding(weight, input, -1 if padding_idx is None else padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    # PyTorch rescales the referenced rows in place, outside autograd.
    w = weight._data
    rows = np.unique(input._data)
    norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        w[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(w.dtype)
        bump_version(weight)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a trailing class dim.

    >>> import retrograd as torch
    >>> torch.nn.functional.one_hot(torch.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if tensor.dtype is not D.int64:
        raise RuntimeError("one_hot is only applicable to index tensor of type LongTensor.")
    d = tensor._data
    if d.size and d.min() < 0:
        raise RuntimeError("Class values must be non-negative.")
    if num_classes == -1:
        if d.size == 0:
            raise RuntimeError("Can not infer total number of classes from empty tensor.")
        num_classes = int(d.max()) + 1
    elif d.size and d.max() >= num_classes:
        raise RuntimeError("Class values must be smaller than num_classes.")
    out = (d[..., None] == np.arange(num_classes)).astype(np.int64)
    return const(out)


# ====================================================================== pad / interpolate
def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last len(pad)//2 dims: (left, right, top, bottom, ...); modes constant/reflect/replicate/circular."""
    # torch's F.pad checks the pad length for every mode first, with its own wording
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        return _padding.constant_pad_nd(input, pad, 0 if value is None else value)
    if value is not None and value != 0:
        raise AssertionError(f'Padding mode "{mode}" doesn\'t take in value argument.')
    np_mode = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}.get(mode)
    if np_mode is None:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    npad = len(pad) // 2
    if len(pad) % 2 == 0 and npad in (1, 2, 3) and input.ndim not in (npad + 1, npad + 2) or npad > 3:
        raise NotImplementedError(
            f"Padding size {len(pad)} is not supported for {input.ndim}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    if mode == "circular":
        for i in range(npad):
            size = input.shape[input.ndim - 1 - i]
            if int(pad[2 * i]) > size or int(pad[2 * i + 1]) > size:
                raise RuntimeError("Padding value causes wrapping around more than once.")
    out = input
    index = []  # reflect / replicate: one primitive reading (ax, source positions) per dim
    for i in range(npad):
        ax = input.ndim - 1 - i
        lo, hi = int(pad[2 * i]), int(pad[2 * i + 1])
        size = input.shape[ax]
        if mode == "reflect" and (lo >= size or hi >= size):
            raise RuntimeError(f"Argument #{2 * i + 4}: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({lo}, {hi}) at dimension {ax} of input "
                               f"{list(input.shape)}")
        if mode == "circular":
            # torch crops the negative sides first, then wraps the cropped tensor
            idx = np.arange(size)[max(-lo, 0):size - max(-hi, 0)]
            idx = np.pad(idx, (max(lo, 0), max(hi, 0)), mode=np_mode)
        else:
            idx = np.pad(np.arange(size), (max(lo, 0), max(hi, 0)), mode=np_mode)
            idx = idx[max(-lo, 0):len(idx) - max(-hi, 0)]
            index.append((ax, idx.astype(np.int64)))
            continue
        out = out[(slice(None),) * ax + (const(idx.astype(np.int64)),)]
    if index:
        return _pad.gather_pad(input, tuple(index), mode, npad)
    return out


def _interp_indices(in_size: int, out_size: int, scale, mode: str, align_corners):
    """Source positions for each output position along one dim (PyTorch's formulas)."""
    dst = np.arange(out_size, dtype=np.float64)
    if mode in ("nearest", "nearest-exact"):
        s = (1.0 / scale) if scale is not None else in_size / out_size
        src = np.floor((dst + 0.5) * s) if mode == "nearest-exact" else np.floor(dst * s)
        return np.minimum(src.astype(np.int64), in_size - 1)
    if align_corners:
        s = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        src = dst * s
    else:
        s = (1.0 / scale) if scale is not None else in_size / out_size
        src = np.maximum((dst + 0.5) * s - 0.5, 0.0)
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    i1 = np.minimum(i0 + 1, in_size - 1)
    lam = src - i0
    return i0, i1, lam


def _bicubic_taps(in_size: int, out_size: int, scale, align_corners: bool):
    """Source rows and weights of PyTorch's bicubic kernel (A = -0.75, edge-clamped taps) along one dim."""
    dst = np.arange(out_size, dtype=np.float64)
    if align_corners:
        s = (in_size - 1) / (out_size - 1) if out_size > 1 else 0.0
        src = dst * s
    else:
        s = (1.0 / scale) if scale is not None and scale > 0 else in_size / out_size
        src = (dst + 0.5) * s - 0.5  # not clamped at 0 for cubic
    i0 = np.minimum(np.floor(src).astype(np.int64), in_size - 1)
    t = np.clip(src - i0, 0.0, 1.0)
    a = -0.75

    def conv1(x):
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def conv2(x):
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    w = [conv2(t + 1.0), conv1(t), conv1(1.0 - t), conv2(2.0 - t)]
    idx = [np.clip(i0 - 1 + k, 0, in_size - 1) for k in range(4)]
    return idx, w


def interpolate(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None,
                recompute_scale_factor=None, antialias: bool = False) -> Tensor:
    """Resize the spatial dims: 'nearest', 'nearest-exact', 'linear', 'bilinear', 'trilinear', 'bicubic', 'area'."""
    nd = input.ndim - 2
    if mode in ("nearest", "nearest-exact", "area") and align_corners is not None:
        raise ValueError("align_corners option can only be set with the interpolating modes: linear | bilinear | "
                         "bicubic | trilinear")
    if mode in ("linear", "bilinear", "trilinear") and align_corners is None:
        align_corners = False
    if mode == "bicubic" and align_corners is None:
        align_corners = False
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    spatial = input.shape[2:]
    if size is not None:
        if isinstance(size, (list, tuple)) and len(size) != nd:
            raise ValueError("Input and output must have the same number of spatial dimensions, but got input with "
                             f"spatial dimensions of {list(spatial)} and output size of {size}. Please provide input "
                             "tensor in (N, C, d1, d2, ...,dK) format and output size in (o1, o2, ...,oK) format.")
        out_size = tuple(size) if isinstance(size, (list, tuple)) else (size,) * nd
        scales = (None,) * nd
    elif scale_factor is not None:
        if isinstance(scale_factor, (list, tuple)) and len(scale_factor) != nd:
            raise ValueError("Input and scale_factor must have the same number of spatial dimensions, but got input "
                             f"with spatial dimensions of {list(spatial)} and scale_factor of shape {scale_factor}. "
                             "Please provide input tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             "(s1, s2, ...,sK) format.")
        sf = tuple(scale_factor) if isinstance(scale_factor, (list, tuple)) else (scale_factor,) * nd
        out_size = tuple(int(math.floor(s * f)) for s, f in zip(spatial, sf))
        scales = (None,) * nd if recompute_scale_factor or mode == "area" else sf
    else:
        raise ValueError("either size or scale_factor should be defined")
    if recompute_scale_factor and size is not None:
        raise ValueError("recompute_scale_factor is not meaningful with an explicit size.")
    if antialias and not (mode in ("bilinear", "bicubic", "lanczos") and input.ndim == 4):
        raise ValueError("Anti-alias option is restricted to bilinear, bicubic, and lanczos modes and requires a "
                         "4-D tensor as input")
    wants = {"nearest": (3, 4, 5), "nearest-exact": (3, 4, 5), "area": (3, 4, 5), "linear": (3,), "bilinear": (4,),
             "trilinear": (5,), "bicubic": (4,)}
    if input.ndim not in wants.get(mode, ()):
        need = {"linear": 3, "bilinear": 4, "trilinear": 5}
        if input.ndim in (3, 4, 5) and mode in need:
            raise NotImplementedError(f"Got {input.ndim}D input, but {mode} mode needs {need[mode]}D input")
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got {input.ndim}D) for "
                                  "the modes: nearest | linear | bilinear | bicubic | trilinear | lanczos | area | "
                                  f"nearest-exact (got {mode})")
    if antialias or mode == "lanczos":
        raise NotImplementedError("retrograd: interpolate with antialias=True is not implemented")
    if mode == "area":
        fn = (_adaptive_pooling.adaptive_avg_pool1d, _adaptive_pooling.adaptive_avg_pool2d, _adaptive_pooling.adaptive_avg_pool3d)[nd - 1]
        return fn(input, out_size)
    out = input
    for i in range(nd):
        ax = 2 + i
        key = (slice(None),) * ax
        if mode == "bicubic":
            idx, w = _bicubic_taps(spatial[i], out_size[i], scales[i], align_corners)
            shape = (-1,) + (1,) * (input.ndim - ax - 1)
            acc = None
            for k in range(4):
                term = out[key + (const(idx[k]),)] * const(w[k].reshape(shape).astype(input._data.dtype))
                acc = term if acc is None else acc + term
            out = acc
        elif mode.startswith("nearest"):
            idx = _interp_indices(spatial[i], out_size[i], scales[i], mode, align_corners)
            out = out[key + (const(idx),)]
        else:
            i0, i1, lam = _interp_indices(spatial[i], out_size[i], scales[i], mode, align_corners)
            shape = (-1,) + (1,) * (input.ndim - ax - 1)
            l1 = const(lam.reshape(shape).astype(input._data.dtype))
            out = out[key + (const(i0),)] * (1 - l1) + out[key + (const(i1),)] * l1
    return out


# ====================================================================== distances
def _norm_keepdim(x: Tensor, p: float, dim: int, eps: float) -> Tensor:
    """max(||x||_p, eps) along dim, with a zero (not NaN) gradient where the norm is clamped."""
    if p == 2:
        return O.sqrt(O.clamp(O.sum(x * x, dim, True), min=eps * eps))
    return O.clamp(O.pow(O.sum(O.pow(O.abs(x), p), dim, True), 1.0 / p), min=eps)


def normalize(input: Tensor, p: float = 2.0, dim: int = 1, eps: float = 1e-12, out=None) -> Tensor:
    """x / max(||x||_p, eps) along ``dim``."""
    return input / _norm_keepdim(input, p, dim, eps)


def cosine_similarity(x1: Tensor, x2: Tensor, dim: int = 1, eps: float = 1e-8) -> Tensor:
    """sum(x1 * x2) / (max(||x1||, eps) * max(||x2||, eps)) along ``dim``."""
    shape = np.broadcast_shapes(tuple(x1.shape), tuple(x2.shape))
    if tuple(x1.shape) != shape:
        x1 = x1.expand(*shape)
    if tuple(x2.shape) != shape:
        x2 = x2.expand(*shape)
    n1 = _norm_keepdim(x1, 2, dim, eps)
    n2 = _norm_keepdim(x2, 2, dim, eps)
    return O.sum((x1 / n1) * (x2 / n2), dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    d = x1 - x2 + eps
    return O.pow(O.sum(O.pow(O.abs(d), p), -1, keepdim), 1.0 / p)


def pixel_shuffle(input: Tensor, upscale_factor: int) -> Tensor:
    r = upscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if r <= 0:
        raise RuntimeError(f"pixel_shuffle expects a positive upscale_factor, but got {r}")
    if input.shape[-3] % (r * r):
        raise RuntimeError(f"pixel_shuffle expects its input's 'channel' dimension to be divisible by the square of "
                           f"upscale_factor, but input.size(-3)={input.shape[-3]} is not divisible by {r * r}")
    n, c, h, w = input.shape[-4:] if input.ndim >= 4 else (1,) + tuple(input.shape)
    lead = input.shape[:-3]
    x = input.reshape(*lead, c // (r * r), r, r, h, w)
    k = len(lead)
    x = x.permute(*range(k), k, k + 3, k + 1, k + 4, k + 2)
    return x.reshape(*lead, c // (r * r), h * r, w * r)


# ====================================================================== attention
def scaled_dot_product_attention(query: Tensor, key: Tensor, value: Tensor, attn_mask: Tensor | None = None,
                                 dropout_p: float = 0.0, is_causal: bool = False, scale: float | None = None,
                                 enable_gqa: bool = False) -> Tensor:
    """softmax(q k^T * scale + mask) v, with a boolean (True = keep) or additive float mask."""
    L, S = query.shape[-2], key.shape[-2]
    scale_factor = 1 / math.sqrt(query.shape[-1]) if scale is None else scale
    if enable_gqa and key.ndim >= 3 and key.shape[-3] != query.shape[-3]:
        rep = query.shape[-3] // key.shape[-3]
        key = _repeat_heads(key, rep)
        value = _repeat_heads(value, rep)
    scores = O.matmul(query, key.transpose(-2, -1)) * scale_factor
    if is_causal:
        keep = np.tril(np.ones((L, S), dtype=bool))
        scores = O.where(const(keep), scores, -math.inf)
    if attn_mask is not None:
        if attn_mask.dtype is D.bool_:
            scores = O.where(attn_mask, scores, -math.inf)
        else:
            scores = scores + attn_mask
    attn = _safe_softmax(scores)
    if dropout_p > 0.0:
        attn = dropout(attn, dropout_p, True)
    return O.matmul(attn, value)


def _safe_softmax(scores: Tensor) -> Tensor:
    """Softmax over the last dim where rows with every entry masked (-inf) give zeros, not NaN.

    PyTorch's SDPA does this; the masked rows are replaced before the softmax so that no NaN
    reaches the backward pass either.
    """
    dead = np.isneginf(scores._data).all(axis=-1, keepdims=True)
    if not dead.any():
        return _activation.softmax(scores, -1)
    dead_t = const(dead)
    attn = _activation.softmax(O.where(dead_t, 0.0, scores), -1)
    return attn * const((~dead).astype(scores._data.dtype))


def _repeat_heads(x: Tensor, rep: int) -> Tensor:
    shape = x.shape
    x = x.unsqueeze(-3).expand(*shape[:-2], rep, *shape[-2:])
    return x.reshape(*shape[:-3], shape[-3] * rep, *shape[-2:])


def _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads) -> bool:
    # torch's _mha_shape_check (same messages); returns whether the input is batched
    if query.ndim not in (2, 3):
        raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but received {query.ndim}-D query "
                             "tensor")
    b = query.ndim == 3
    kind = "batched (3-D)" if b else "unbatched (2-D)"
    if key.ndim != query.ndim or value.ndim != query.ndim:
        raise AssertionError(f"For {kind} `query`, expected `key` and `value` to be {query.ndim}-D but found "
                             f"{key.ndim}-D and {value.ndim}-D tensors respectively")
    if key_padding_mask is not None and key_padding_mask.ndim != query.ndim - 1:
        raise AssertionError(f"For {kind} `query`, expected `key_padding_mask` to be `None` or {query.ndim - 1}-D "
                             f"but found {key_padding_mask.ndim}-D tensor instead")
    if attn_mask is not None:
        if attn_mask.ndim not in (2, 3):
            raise AssertionError(f"For {kind} `query`, expected `attn_mask` to be `None`, 2-D or 3-D but found "
                                 f"{attn_mask.ndim}-D tensor instead")
        if not b and attn_mask.ndim == 3 and tuple(attn_mask.shape) != (num_heads, query.shape[0], key.shape[0]):
            raise AssertionError(f"Expected `attn_mask` shape to be {(num_heads, query.shape[0], key.shape[0])} but "
                                 f"got {attn_mask.shape}")
    return b


def _mha_static(t: Tensor, name: str, bh: int, head_dim: int) -> Tensor:
    """A precomputed (batch * heads, S, head_dim) key or value, checked as PyTorch does."""
    if t.shape[0] != bh:
        raise AssertionError(f"expecting {name}.size(0) of {bh}, but got {t.shape[0]}")
    if t.shape[2] != head_dim:
        raise AssertionError(f"expecting {name}.size(2) of {head_dim}, but got {t.shape[2]}")
    return t


def multi_head_attention_forward(query: Tensor, key: Tensor, value: Tensor, embed_dim_to_check: int,
                                 num_heads: int, in_proj_weight: Tensor | None, in_proj_bias: Tensor | None,
                                 bias_k: Tensor | None, bias_v: Tensor | None, add_zero_attn: bool,
                                 dropout_p: float, out_proj_weight: Tensor, out_proj_bias: Tensor | None,
                                 training: bool = True, key_padding_mask: Tensor | None = None,
                                 need_weights: bool = True, attn_mask: Tensor | None = None,
                                 use_separate_proj_weight: bool = False, q_proj_weight: Tensor | None = None,
                                 k_proj_weight: Tensor | None = None, v_proj_weight: Tensor | None = None,
                                 static_k=None, static_v=None, average_attn_weights: bool = True,
                                 is_causal: bool = False) -> tuple:
    """Multi-head attention on (L, N, E) inputs (or unbatched (L, E)); returns (output, weights)."""
    batched = _mha_shape_check(query, key, value, key_padding_mask, attn_mask, num_heads)
    if not batched:
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, embed_dim = query.shape
    src_len = key.shape[0]
    if embed_dim != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but got {embed_dim}")
    head_dim = embed_dim // num_heads
    if use_separate_proj_weight:
        b = (None, None, None) if in_proj_bias is None else (
            in_proj_bias.narrow(0, 0, embed_dim), in_proj_bias.narrow(0, embed_dim, embed_dim),
            in_proj_bias.narrow(0, 2 * embed_dim, embed_dim))
        q = linear(query, q_proj_weight, b[0])
        k = linear(key, k_proj_weight, b[1])
        v = linear(value, v_proj_weight, b[2])
    else:
        ws = [in_proj_weight.narrow(0, i * embed_dim, embed_dim) for i in range(3)]
        bs = [None] * 3 if in_proj_bias is None else [in_proj_bias.narrow(0, i * embed_dim, embed_dim)
                                                      for i in range(3)]
        q = linear(query, ws[0], bs[0])
        k = linear(key, ws[1], bs[1])
        v = linear(value, ws[2], bs[2])
    # masks -> one additive float mask of shape (bsz, heads, tgt, src) or broadcastable
    mask = None
    if attn_mask is not None:
        want = (tgt_len, src_len) if attn_mask.ndim == 2 else (bsz * num_heads, tgt_len, src_len)
        if tuple(attn_mask.shape) != want:
            raise RuntimeError(f"The shape of the {attn_mask.ndim}D attn_mask is {attn_mask.shape}, but should be "
                               f"{want}.")
        if attn_mask.dtype is D.bool_:
            attn_mask = const(np.where(attn_mask._data, -np.inf, 0.0).astype(q._data.dtype))
        if attn_mask.ndim == 3:
            attn_mask = attn_mask.reshape(bsz, num_heads, tgt_len, src_len)
        mask = attn_mask
    if bias_k is not None and bias_v is not None:
        if static_k is not None:
            raise AssertionError("bias cannot be added to static key.")
        if static_v is not None:
            raise AssertionError("bias cannot be added to static value.")
        k = cat([k, bias_k.expand(1, bsz, embed_dim)], 0)
        v = cat([v, bias_v.expand(1, bsz, embed_dim)], 0)
        if mask is not None:
            mask = pad(mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    # (L, N, E) -> (N * heads, L, head_dim); static_k / static_v come in that layout already
    bh = bsz * num_heads
    q = _reshape_to(q, (tgt_len, bh, head_dim)).transpose(0, 1)
    k = _reshape_to(k, (k.shape[0], bh, head_dim)).transpose(0, 1) if static_k is None \
        else _mha_static(static_k, "static_k", bh, head_dim)
    v = _reshape_to(v, (v.shape[0], bh, head_dim)).transpose(0, 1) if static_v is None \
        else _mha_static(static_v, "static_v", bh, head_dim)
    if add_zero_attn:
        zeros = const(np.zeros((bh, 1, head_dim), dtype=k._data.dtype))
        k = cat([k, zeros], 1)
        v = cat([v, zeros], 1)
        if mask is not None:
            mask = pad(mask, (0, 1))
        if key_padding_mask is not None:
            key_padding_mask = pad(key_padding_mask, (0, 1))
    src_len = k.shape[1]
    if key_padding_mask is not None:
        for i, want in enumerate((bsz, src_len)):
            if key_padding_mask.shape[i] != want:
                raise AssertionError(f"Expected key_padded_mask.shape[{i}] to be {want}, but got "
                                     f"{key_padding_mask.shape[i]}")
        kpm = key_padding_mask._data
        kpm = np.where(kpm, -np.inf, 0.0) if kpm.dtype == bool else kpm
        kpm = const(kpm.astype(q._data.dtype).reshape(bsz, 1, 1, src_len))
        mask = kpm if mask is None else mask + kpm
    if is_causal and attn_mask is None:
        causal = np.triu(np.full((tgt_len, src_len), -np.inf), 1).astype(q._data.dtype)
        mask = const(causal) if mask is None else mask + const(causal)
    q = _reshape_to(q, (bsz, num_heads, tgt_len, head_dim))
    k = _reshape_to(k, (bsz, num_heads, src_len, head_dim))
    v = _reshape_to(v, (bsz, num_heads, src_len, head_dim))
    scores = O.matmul(q * (1.0 / math.sqrt(head_dim)), k.transpose(-2, -1))
    if mask is not None:
        scores = scores + mask
    # like PyTorch: the need_weights=False path (SDPA) gives zeros for fully masked rows, the other NaN
    attn = _activation.softmax(scores, -1) if need_weights else _safe_softmax(scores)
    if dropout_p > 0.0 and training:
        attn = dropout(attn, dropout_p, True)
    out = O.matmul(attn, v)  # (N, heads, L, head_dim)
    out = _reshape_to(out.permute(2, 0, 1, 3), (tgt_len * bsz, embed_dim))
    out = _reshape_to(linear(out, out_proj_weight, out_proj_bias), (tgt_len, bsz, embed_dim))
    weights = None
    if need_weights:
        weights = attn.mean(1) if average_attn_weights else attn
        if not batched:
            weights = weights.squeeze(0)
    if not batched:
        out = out.squeeze(1)
    return out, weights
from ._functional_more import *  # noqa
from ._losses_more import *  # noqa
from ._linear_cross_entropy import linear_cross_entropy  # noqa: E402,F401
# softshrink / hardshrink / prelu / rrelu: primitives with PyTorch's nodes and special-value behaviour
from .._ops.nn.activation import hardshrink, prelu, softshrink  # noqa: E402,F401
from .._ops.nn.adaptive_pooling import fractional_max_pool2d, fractional_max_pool3d  # noqa: E402,F401


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None) -> tuple:
    """(values, indices) of :func:`fractional_max_pool2d`."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None) -> tuple:
    """(values, indices) of :func:`fractional_max_pool3d`."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU with a random slope in [lower, upper] per element (training), else their mean.

    >>> import retrograd as torch
    >>> torch.nn.functional.rrelu(torch.tensor([-3.]), 0.1, 0.3)
    tensor([-0.6000])
    """
    if training:
        a = const(_rng.rrelu_noise(_eng(None), input._data, lower, upper))
        out = input * a  # (the noise is 1 where input > 0)
        return input.copy_(out) if inplace else out
    static = {"slope": (lower + upper) / 2}
    if inplace:
        return _apply_inplace(_activation._rrelu_eval_inplace_op, input, (), static)
    return _apply(_activation._rrelu_eval_op, (input,), static)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, True)
