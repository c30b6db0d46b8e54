"""Normalization layers as functions (``nn.functional``): batch, layer, RMS, group, instance and
local-response norm, composed from public ops and the batch-norm primitives of the op table.

>>> import retrograd as torch
>>> torch.nn.functional.layer_norm(torch.tensor([[1., 3.]]), (2,))
tensor([[-1.0000,  1.0000]])
"""
from __future__ import annotations

import numpy as np

from .. import _ops as O
from .._tensor import Tensor
from ..autograd import grad_mode
from ._util import const
from .._ops.nn import batch_norm as _ops_nn_batch_norm
from .._ops.nn import normalization as _ops_nn_normalization

__all__ = ["batch_norm", "layer_norm", "rms_norm", "group_norm", "instance_norm", "local_response_norm"]


def _F():
    # nn.functional imports this module (for its public names), so it is reached lazily
    from . import functional

    return functional


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
            return _ops_nn_batch_norm.batch_norm_eval(input, w, b, running_mean._data, running_var._data, eps)
        out, mean, var = _ops_nn_batch_norm.batch_norm_train(input, w, b, eps)
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
    _ops_nn_normalization.check_norm_dtypes("LayerNormKernelImpl", input, weight, bias)
    # one node, NativeLayerNormBackward0, as in PyTorch (src/retrograd/_ops/nn/normalization.py)
    return _ops_nn_normalization.layer_norm(input, k, weight, bias, eps)


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
    _ops_nn_normalization.check_norm_dtypes("GroupNormKernelImpl", input, weight, bias)
    # one node, NativeGroupNormBackward0, as in PyTorch (src/retrograd/_ops/nn/normalization.py)
    return _ops_nn_normalization.group_norm(input, num_groups, weight, bias, eps)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) over its spatial dims; optionally track running stats.

    >>> import retrograd as torch
    >>> torch.nn.functional.instance_norm(torch.tensor([[[1., 3.]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    if use_input_stats:
        if int(np.prod(input.shape[2:])) <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{list(input.shape)}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    # As PyTorch: a batch norm of one sample whose channels are the N * C (sample, channel) pairs,
    # with the per-channel tensors repeated N times (nodes ViewBackward0 <- NativeBatchNormBackward0);
    # the running statistics then take the mean of the N updated copies.
    n, c = input.shape[0], input.shape[1]
    x = input.reshape(1, n * c, *input.shape[2:])
    w, b, rm, rv = (t.repeat(n) if t is not None else None for t in (weight, bias, running_mean, running_var))
    out = _batch_norm_impl(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats and running_mean is not None and running_var is not None:
        with grad_mode.no_grad():
            running_mean.copy_(rm.view(n, c).mean(0))
            running_var.copy_(rv.view(n, c).mean(0))
    return out.view(input.shape)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels) ** beta.

    >>> import retrograd as torch
    >>> torch.nn.functional.local_response_norm(torch.ones(1, 2, 1), 2).shape
    torch.Size([1, 2, 1])
    """
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    pad = [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2]
    sq = _F().pad(sq, pad)
    acc = sq.narrow(1, 0, c)
    for j in range(1, size):
        acc = acc + sq.narrow(1, j, c)
    div = O.pow(acc * (alpha / size) + k, beta)
    return input / div
