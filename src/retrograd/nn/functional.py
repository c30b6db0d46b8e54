"""``nn.functional``: layers as functions, composed from public retrograd ops.

Nothing here defines a gradient: convolution, pooling, softmax, embedding and the
activations with their own backward nodes are op-table primitives (``_ops/nn/``: ``conv.py``,
``pooling.py``, ``activation.py`` ...); everything else (normalisation, attention, losses,
dropout, interpolation) composes ops.
This module is the public namespace; the larger subjects live in private modules beside it and
are re-exported here: ``_normalization``, ``_interpolation``, ``_multi_head_attention``,
``_pooling`` (LP pooling, ``*_with_indices``, ``max_unpool``), ``_grid_sample`` (``grid_sample``,
``affine_grid``) and ``_losses``.

>>> import retrograd as torch
>>> import retrograd.nn.functional as F
>>> F.relu(torch.tensor([-1., 2.]))
tensor([0., 2.])
"""

import math
import warnings

import numpy as np

from .. import _dtype as _D
from .. import _ops as _O
from .. import _rng
from .._creation import _eng
from .._ops._registry import apply_inplace as _apply_inplace
from .._ops._registry import apply as _apply
from .._ops.shape import _unsafe_view
from .._ops.shape import reshape_to as _reshape_to
from .._tensor import Tensor, bump_version as _bump_version
from ._grid_sample import affine_grid, grid_sample  # noqa: F401
from ._interpolation import interpolate, upsample, upsample_bilinear, upsample_nearest  # noqa: F401
from ._losses import (binary_cross_entropy, binary_cross_entropy_with_logits, cross_entropy,  # noqa: F401
                      huber_loss, kl_div, l1_loss, mse_loss, nll_loss, smooth_l1_loss)
from ._losses import (cosine_embedding_loss, ctc_loss, gaussian_nll_loss, hinge_embedding_loss,  # noqa: F401
                      margin_ranking_loss, multi_margin_loss, multilabel_margin_loss, multilabel_soft_margin_loss,
                      poisson_nll_loss, soft_margin_loss, triplet_margin_loss, triplet_margin_with_distance_loss)
from ._multi_head_attention import multi_head_attention_forward, scaled_dot_product_attention  # noqa: F401
from ._normalization import (batch_norm, group_norm, instance_norm, layer_norm, local_response_norm,  # noqa: F401
                             rms_norm)
from ._pooling import (adaptive_max_pool1d_with_indices, adaptive_max_pool2d_with_indices,  # noqa: F401
                       fractional_max_pool2d_with_indices, fractional_max_pool3d_with_indices, lp_pool1d, lp_pool2d,
                       lp_pool3d, max_pool1d_with_indices, max_pool2d_with_indices, max_pool3d_with_indices,
                       max_unpool1d, max_unpool2d, max_unpool3d)
from ._util import const as _const
from .._ops.nn import activation as _ops_nn_activation
from .._ops.nn import adaptive_pooling as _ops_nn_adaptive_pooling
from .._ops.nn import conv as _ops_nn_conv
from .._ops.nn import embedding as _ops_nn_embedding
from .._ops.nn import linear as _ops_nn_linear
from .._ops.nn import padding as _ops_nn_padding
from .._ops.nn import pooling as _ops_nn_pooling

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
        return _O.relu_(input)
    # floating point: the nn primitive, whose backward is one masked copy
    return _apply(_ops_nn_activation._relu_op, (input,)) if input._data.dtype.kind == "f" else _O.relu(input)


def relu_(input: Tensor) -> Tensor:
    return _O.relu_(input)


def relu6(input: Tensor, inplace: bool = False) -> Tensor:
    """min(max(x, 0), 6) (backward node HardtanhBackward0, as in PyTorch)."""
    return _ops_nn_activation.hardtanh(input, 0.0, 6.0, inplace)


def leaky_relu(input: Tensor, negative_slope: float = 0.01, inplace: bool = False) -> Tensor:
    """x if x > 0 else negative_slope * x (backward node LeakyReluBackward0; in place LeakyReluBackward1)."""
    if inplace:
        return _ops_nn_activation.leaky_relu_inplace(input, negative_slope)
    return _ops_nn_activation.leaky_relu(input, negative_slope)


def leaky_relu_(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    return leaky_relu(input, negative_slope, True)


def elu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """x if x > 0 else alpha * (exp(x) - 1) (backward node EluBackward0; in place EluBackward1)."""
    return _ops_nn_activation.elu_like(input, alpha, 1.0, 1.0, inplace, False)


def elu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return elu(input, alpha, True)


_SELU_ALPHA = 1.6732632423543772848170429916717
_SELU_SCALE = 1.0507009873554804934193349852946


def selu(input: Tensor, inplace: bool = False) -> Tensor:
    """scale * elu(x, alpha) with SELU's constants (backward node EluBackward0)."""
    return _ops_nn_activation.elu_like(input, _SELU_ALPHA, _SELU_SCALE, 1.0, inplace, False)


def celu(input: Tensor, alpha: float = 1.0, inplace: bool = False) -> Tensor:
    """max(0, x) + min(0, alpha * (exp(x / alpha) - 1)) (backward node CeluBackward0)."""
    if alpha == 0:
        raise RuntimeError("ZeroDivisionError")
    return _ops_nn_activation.elu_like(input, alpha, 1.0, 1.0 / alpha, inplace, True)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x); ``approximate='tanh'`` for the tanh formula."""
    return _ops_nn_activation.gelu(input, approximate)


def silu(input: Tensor, inplace: bool = False) -> Tensor:
    """x * sigmoid(x)."""
    if inplace:  # (the node needs the old x: apply_inplace snapshots it, as PyTorch saves original_self)
        return _apply_inplace(_ops_nn_activation._silu_op, input, ())
    return _ops_nn_activation.silu(input)


def mish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * tanh(softplus(x))."""
    if inplace:
        return _apply_inplace(_ops_nn_activation._mish_op, input, ())
    return _ops_nn_activation.mish(input)


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta x)) / beta."""
    return _ops_nn_activation.softplus(input, beta, threshold)


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """Clamp to [min_val, max_val] (backward node HardtanhBackward0)."""
    return _ops_nn_activation.hardtanh(input, min_val, max_val, inplace)


def hardtanh_(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    return hardtanh(input, min_val, max_val, True)


def tanh(input: Tensor) -> Tensor:
    return _O.tanh(input)


def sigmoid(input: Tensor) -> Tensor:
    return _O.sigmoid(input)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)), stable for large |x| (backward node LogSigmoidBackward0)."""
    return _ops_nn_activation.logsigmoid(input)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6 (backward node HardsigmoidBackward0)."""
    return _ops_nn_activation.hardsigmoid(input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6 (backward node HardswishBackward0)."""
    return _ops_nn_activation.hardswish(input, inplace)


def softsign(input: Tensor) -> Tensor:
    return input / (_O.abs(input) + 1)


def tanhshrink(input: Tensor) -> Tensor:
    return input - _O.tanh(input)


def threshold(input: Tensor, threshold: float, value: float, inplace: bool = False) -> Tensor:
    """value where x <= threshold, else x (backward node ThresholdBackward0; in place ThresholdBackward1)."""
    if inplace:
        # a real in-place op: the node keeps the value x had (copying an out-of-place result into x
        # would leave that result's node reading the overwritten x)
        if input._data.dtype.kind == "b":
            raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
        return _apply_inplace(_ops_nn_activation._threshold_inplace_op, input, (), {"threshold": threshold, "value": value})
    return _ops_nn_activation.threshold(input, threshold, value)


_threshold = threshold  # (for threshold_, whose argument of the same name hides the function)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the halves a, b of ``dim`` (backward node GluBackward0)."""
    return _ops_nn_activation.glu(input, dim)


def _get_softmax_dim(name: str, ndim: int, stacklevel: int) -> int:
    warnings.warn(f"Implicit dimension choice for {name} has been deprecated. Change the call to include dim=X "
                  "as an argument.", stacklevel=stacklevel)
    return 0 if ndim in (0, 1, 3) else 1


def softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim`` (backward node SoftmaxBackward0)."""
    if dim is None:
        dim = _get_softmax_dim("softmax", input.ndim, _stacklevel)
    return _ops_nn_activation.softmax(input, dim, dtype)


def softmin(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    if dim is None:
        dim = _get_softmax_dim("softmin", input.ndim, _stacklevel)
    if dtype is not None:
        input = input.to(dtype)
    return _ops_nn_activation.softmax(-input, dim)


def log_softmax(input: Tensor, dim: int | None = None, _stacklevel: int = 3, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim``, computed stably (backward node LogSoftmaxBackward0)."""
    if dim is None:
        dim = _get_softmax_dim("log_softmax", input.ndim, _stacklevel)
    return _ops_nn_activation.log_softmax(input, dim, dtype)


def selu_(input: Tensor) -> Tensor:
    return selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return celu(input, alpha, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _threshold(input, threshold, value, inplace=True)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """Sample from the Gumbel-softmax distribution; ``hard`` gives one-hot values with soft gradients.

    >>> import retrograd as torch
    >>> torch.nn.functional.gumbel_softmax(torch.zeros(3), hard=True).sum()
    tensor(1.)
    """
    # PyTorch's draw: -log(exponential_()) in the logits' dtype
    e = _rng.exponential(_eng(None), logits._data.size, 1.0).astype(logits._data.dtype)
    g = -np.log(e.reshape(logits._data.shape))
    gumbels = (logits + _const(g)) / tau
    y_soft = softmax(gumbels, dim)
    if not hard:
        return y_soft
    idx = np.argmax(y_soft._data, axis=dim)
    hard_np = np.zeros_like(y_soft._data)
    np.put_along_axis(hard_np, np.expand_dims(idx, dim), 1.0, axis=dim)
    return _const(hard_np) - y_soft.detach() + y_soft


# ====================================================================== dropout
def _check_p(p: float) -> None:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(shape, p: float, dtype) -> Tensor:
    """PyTorch's CPU dropout noise: ``bernoulli_(1 - p)`` (same draws), divided by 1 - p in
    the input's dtype; p == 1 draws nothing and gives zeros."""
    shape = tuple(shape)
    if p >= 1.0:
        return _const(np.zeros(shape, dtype.np))
    n = 1
    for s in shape:
        n *= s
    keep = _rng.bernoulli_scalar(_eng(None), n, 1.0 - p).reshape(shape).astype(dtype.np)
    return _const(keep / dtype.np.type(1.0 - p))


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


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0
        return input.copy_(out) if inplace else out
    shape = tuple(input.shape)
    if feature:
        shape = shape[:2] + (1,) * (input.ndim - 2)
    n = int(np.prod(shape))
    keep = _rng.bernoulli_scalar(_eng(None), n, 1.0 - p).reshape(shape).astype(input._data.dtype)
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = (keep - 1) * (alpha * a) + alpha * a * p
    out = input * _const(keep * a) + _const(b)
    return input.copy_(out) if inplace else out


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps SELU's zero mean and unit variance (dropped values go to -alpha' then rescale).

    >>> import retrograd as torch
    >>> torch.nn.functional.alpha_dropout(torch.ones(2), 0.5)
    tensor([1., 1.])
    """
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    return _alpha_dropout(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) input.

    >>> import retrograd as torch
    >>> torch.nn.functional.dropout3d(torch.ones(1, 1, 1, 1, 1), training=False).shape
    torch.Size([1, 1, 1, 1, 1])
    """
    return _feature_dropout(input, p, training, inplace, 5)


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
            return _apply(_ops_nn_linear._linear_op, (input, weight))
        bd = bias._data
        if bd.dtype is dt and bd.shape == (wd.shape[0],):
            return _apply(_ops_nn_linear._linear_b_op, (bias, input, weight))
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
            out = _ops_nn_linear.linear_2d(x2, weight, bias)
        elif bias is not None and bias.ndim == 1 and x2.shape[1] == weight.shape[1]:
            out = _O.addmm(bias, x2, weight.t())
        else:
            out = _O.mm(x2, weight.t())
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
    out = _O.matmul(input, weight.t() if weight.ndim == 2 else weight)
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
    tmp = _O.mm(x1, weight.permute(1, 0, 2).reshape(i1, o * i2)).reshape(-1, o, i2)
    out = (tmp * x2.unsqueeze(1)).sum(-1).reshape(*lead, o)
    # the bias last, as PyTorch (output node AddBackward0)
    return out if bias is None else out + bias


# ====================================================================== convolution / pooling
conv1d = _ops_nn_conv.conv1d
conv2d = _ops_nn_conv.conv2d
conv3d = _ops_nn_conv.conv3d
conv_transpose1d = _ops_nn_conv.conv_transpose1d
conv_transpose2d = _ops_nn_conv.conv_transpose2d
max_pool1d = _ops_nn_pooling.max_pool1d
max_pool2d = _ops_nn_pooling.max_pool2d
max_pool3d = _ops_nn_pooling.max_pool3d
avg_pool1d = _ops_nn_pooling.avg_pool1d
avg_pool2d = _ops_nn_pooling.avg_pool2d
adaptive_avg_pool1d = _ops_nn_adaptive_pooling.adaptive_avg_pool1d
adaptive_avg_pool2d = _ops_nn_adaptive_pooling.adaptive_avg_pool2d
conv_transpose3d = _ops_nn_adaptive_pooling.conv_transpose3d
avg_pool3d = _ops_nn_pooling.avg_pool3d
adaptive_avg_pool3d = _ops_nn_adaptive_pooling.adaptive_avg_pool3d
adaptive_max_pool3d = _ops_nn_adaptive_pooling.adaptive_max_pool3d
adaptive_max_pool3d_with_indices = _ops_nn_adaptive_pooling.adaptive_max_pool3d_with_indices


def adaptive_max_pool1d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling of (N, C, L) to a fixed length."""
    out, idx = _ops_nn_adaptive_pooling.adaptive_max_pool1d(input, output_size)
    return (out, idx) if return_indices else out


adaptive_max_pool2d = _ops_nn_adaptive_pooling.adaptive_max_pool2d


def unfold(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding local blocks as columns: (N, C, H, W) -> (N, C*kH*kW, L)."""
    return _ops_nn_conv.im2col(input, kernel_size, dilation, padding, stride)


def fold(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns (N, C*kH*kW, L) back into (N, C, H, W) (the adjoint of unfold)."""
    return _ops_nn_conv.col2im(input, output_size, kernel_size, dilation, padding, stride)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution over a (time, batch, channels) input; weight is (kernel, C_in, C_out).

    >>> import retrograd as torch
    >>> torch.nn.functional.conv_tbc(torch.ones(5, 2, 3), torch.ones(2, 3, 4), torch.zeros(4), 1).shape
    torch.Size([6, 2, 4])
    """
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    # (T, B, C) -> (B, C, T) for conv1d, and the (K, C_in, C_out) weight -> (C_out, C_in, K)
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=int(pad))
    return out.permute(2, 0, 1)


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
    return _ops_nn_embedding.embedding(weight, input, -1 if padding_idx is None else padding_idx, scale_grad_by_freq, sparse)


def _embedding_renorm_(weight: Tensor, input: Tensor, max_norm: float, norm_type: float) -> None:
    # PyTorch rescales the referenced rows in place, outside autograd.
    w = weight._data
    rows = np.unique(input._data)
    norms = np.linalg.norm(w[rows], ord=norm_type, axis=1)
    big = norms > max_norm
    if big.any():
        w[rows[big]] *= (max_norm / (norms[big] + 1e-7))[:, None].astype(w.dtype)
        _bump_version(weight)


def one_hot(tensor: Tensor, num_classes: int = -1) -> Tensor:
    """int64 one-hot encoding with a trailing class dim.

    >>> import retrograd as torch
    >>> torch.nn.functional.one_hot(torch.tensor([0, 2]), 3)
    tensor([[1, 0, 0],
            [0, 0, 1]])
    """
    if tensor.dtype is not _D.int64:
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
    return _const(out)


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sum, mean or max of the embeddings of each bag (rows of a 2-D input, or 1-D input cut at ``offsets``).

    >>> import retrograd as torch
    >>> w = torch.arange(6.).reshape(3, 2)
    >>> torch.nn.functional.embedding_bag(torch.tensor([0, 2, 1]), w, torch.tensor([0, 2]), mode="sum")
    tensor([[4., 6.],
            [2., 3.]])
    """
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                         f"then it must have the same shape as the input ({tuple(input.shape)})")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on the Pytorch GitHub.")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if padding_idx is not None:
        n_emb = weight.shape[0]
        if not -n_emb <= padding_idx < n_emb:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n_emb} through "
                               f"{n_emb - 1}, but got {padding_idx}")
        if padding_idx < 0:
            padding_idx = n_emb + padding_idx
    idx = input._data
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        b, length = idx.shape
        starts = np.arange(b) * length
        flat = idx.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
        ends = starts + length
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = offsets._data.astype(np.int64)
        flat = idx
        psw = per_sample_weights
        if off.size and off[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {int(off[0])}\n[ torch.LongTensor{{}} ]")
        if off.size and off[-1] > len(idx):
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {len(idx)} but got "
                               f"offsets[-1] of {int(off[-1])}")
        if include_last_offset:
            # as torch: the last bag runs to the end of the input whatever offsets[-1] says
            starts, ends = off[:-1], np.append(off[1:-1], len(idx))
        else:
            starts, ends = off, np.append(off[1:], len(idx))
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if max_norm is not None:
        _embedding_renorm_(weight, input, max_norm, norm_type)
    flat = flat.astype(np.int64)
    n = weight.shape[0]
    bad = (flat < 0) | (flat >= n)
    if bad.any():
        k = int(np.argmax(bad))
        if mode != "max" and padding_idx is None and weight._data.dtype != np.float64:
            # (torch's fast sum/mean kernel, used for float32/16 weights without padding_idx, reports
            # the index_select message; its other kernels report the embedding_bag one)
            raise RuntimeError(f"Index {k} of input takes value {int(flat[k])} which is not in the valid range "
                               f"[0, {n})")
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                           f"{int(flat[k])}")
    keep = np.ones(len(flat), dtype=bool) if padding_idx is None else flat != padding_idx
    # each entry's bag (-1: in none, or padding) and constant factor (mean: 1 / the bag's size)
    bag = np.full(len(flat), -1, dtype=np.int64)
    coef = np.ones(len(flat), dtype=np.float64)
    for b_, (s, e) in enumerate(zip(starts, ends)):
        bag[s:e] = b_
        if mode == "mean":
            cnt = keep[s:e].sum()
            if cnt:
                coef[s:e] = 1.0 / cnt
    bag[~keep] = -1
    if psw is not None and psw.dtype != weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {weight.type()} does not equal {psw.type()} (while "
                           "checking arguments for embedding_bag)")
    # one node, EmbeddingBagBackward0, with edges to weight and per_sample_weights as in PyTorch
    return _ops_nn_embedding.embedding_bag(weight, psw, flat, bag, coef,
                                    len(starts), mode, scale_grad_by_freq)


# ====================================================================== pad
def pad(input: Tensor, pad, mode: str = "constant", value: float | None = None) -> Tensor:
    """Pad the last len(pad)//2 dims: (left, right, top, bottom, ...); modes constant/reflect/replicate/circular."""
    # torch's F.pad checks the pad length for every mode first, with its own wording
    if len(pad) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(pad) // 2 > input.ndim:
        raise RuntimeError("Padding length should be less than or equal to two times the input dimension but got "
                           f"padding length {len(pad)} and input of dimension {input.ndim}")
    if mode == "constant":
        return _ops_nn_padding.constant_pad_nd(input, pad, 0 if value is None else value)
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
    if mode in ("reflect", "replicate"):  # (PyTorch's check_valid_input: only a batch dim may be empty)
        batch = input.ndim == npad + 2
        if any(n == 0 for n in input.shape[int(batch):]):
            raise RuntimeError(f"Expected {npad + 1}D or {npad + 2}D (batch mode) tensor with possibly 0 batch size "
                               f"and other non-zero dimensions for input, but got: {list(input.shape)}")
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
        out = out[(slice(None),) * ax + (_const(idx.astype(np.int64)),)]
    if index:
        return _ops_nn_padding.gather_pad(input, tuple(index), mode, npad)
    return out


# ====================================================================== distances / pixel shuffle
def _norm_keepdim(x: Tensor, p: float, dim: int, eps: float) -> Tensor:
    """max(||x||_p, eps) along dim, with a zero (not NaN) gradient where the norm is clamped."""
    if p == 2:
        return _O.sqrt(_O.clamp(_O.sum(x * x, dim, True), min=eps * eps))
    return _O.clamp(_O.pow(_O.sum(_O.pow(_O.abs(x), p), dim, True), 1.0 / p), min=eps)


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
    return _O.sum((x1 / n1) * (x2 / n2), dim)


def pairwise_distance(x1: Tensor, x2: Tensor, p: float = 2.0, eps: float = 1e-6, keepdim: bool = False) -> Tensor:
    d = x1 - x2 + eps
    return _O.pow(_O.sum(_O.pow(_O.abs(d), p), -1, keepdim), 1.0 / p)


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


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """p-norm distances between all pairs of rows of (N, M) input, upper triangle in row order.

    >>> import retrograd as torch
    >>> torch.nn.functional.pdist(torch.tensor([[0., 0.], [3., 4.], [0., 4.]]))
    tensor([5., 4., 3.])
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    d = input[_const(i.astype(np.int64))] - input[_const(j.astype(np.int64))]
    return _O.norm(d, p, -1)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), the inverse of pixel_shuffle.

    >>> import retrograd as torch
    >>> torch.nn.functional.pixel_unshuffle(torch.ones(1, 1, 4, 4), 2).shape
    torch.Size([1, 4, 2, 2])
    """
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    c, h, w = input.shape[-3:]
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)"
                           f"={h} is not divisible by {r}" if h % r else
                           f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)"
                           f"={w} is not divisible by {r}")
    lead = tuple(input.shape[:-3])
    k = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of (N, C, *) from ``groups`` groups: (N, g, C/g, *) -> (N, C/g, g, *).

    >>> import retrograd as torch
    >>> torch.nn.functional.channel_shuffle(torch.arange(4.).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle


from ._linear_cross_entropy import linear_cross_entropy  # noqa: E402,F401
# softshrink / hardshrink / prelu / rrelu: primitives with PyTorch's nodes and special-value behaviour
from .._ops.nn.activation import hardshrink, prelu, softshrink  # noqa: E402,F401
from .._ops.nn.adaptive_pooling import fractional_max_pool2d, fractional_max_pool3d  # noqa: E402,F401


def rrelu(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False,
          inplace: bool = False) -> Tensor:
    """Leaky ReLU with a random slope in [lower, upper] per element (training), else their mean.

    >>> import retrograd as torch
    >>> torch.nn.functional.rrelu(torch.tensor([-3.]), 0.1, 0.3)
    tensor([-0.6000])
    """
    if training:
        a = _const(_rng.rrelu_noise(_eng(None), input._data, lower, upper))
        out = input * a  # (the noise is 1 where input > 0)
        return input.copy_(out) if inplace else out
    static = {"slope": (lower + upper) / 2}
    if inplace:
        return _apply_inplace(_ops_nn_activation._rrelu_eval_inplace_op, input, (), static)
    return _apply(_ops_nn_activation._rrelu_eval_op, (input,), static)


def rrelu_(input: Tensor, lower: float = 1.0 / 8, upper: float = 1.0 / 3, training: bool = False) -> Tensor:
    return rrelu(input, lower, upper, training, True)
