"""3-D pooling primitives (average, adaptive average, adaptive max) and conv_transpose3d.

They reuse the N-d NumPy kernels of ``nn_ops.py``; they are separate primitives only so that the
backward nodes carry PyTorch's 3-D names (AvgPool3DBackward0 ...). Rules mirror the 2-D ones:
avg_pool3d <-> avg_pool3d_backward, adaptive_avg_pool3d <-> its transpose, adaptive max -> scatter.
"""
from __future__ import annotations

from .._tensor import Tensor
from ._registry import apply, primitive
from .nn_ops import (
    _adaptive_avg_bw_fw,
    _adaptive_avg_fw,
    _adaptive_max_fw,
    _adaptive_max_with_indices,
    _avg_pool_bw_fw,
    _avg_pool_fw,
    _check_pool,
    _conv_transposend,
    _out_size,
    _pool_bw_rule,
    _tuple,
)
from .shape import squeeze, unsqueeze

# only conv_transpose3d is a torch.* export; nn.functional imports the rest from here
__all__ = ["conv_transpose3d"]


def _avg_static(ksize, stride, padding, ceil_mode, count_include_pad, divisor_override) -> dict:
    return dict(ksize=ksize, stride=stride, padding=padding, ceil_mode=ceil_mode,
                count_include_pad=count_include_pad, divisor_override=divisor_override)


_avg_pool3d_op = primitive(
    "avg_pool3d", _avg_pool_fw, node="AvgPool3DBackward0",
    x=lambda g, x_shape, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override: apply(
        _avg_pool3d_bw, (g,), dict(x_shape=x_shape, **_avg_static(ksize, stride, padding, ceil_mode,
                                                                 count_include_pad, divisor_override))))
_avg_pool3d_bw = primitive(
    "avg_pool3d_backward", _avg_pool_bw_fw, node="AvgPool3DBackwardBackward0",
    g=lambda g, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override: apply(
        _avg_pool3d_op, (g,), _avg_static(ksize, stride, padding, ceil_mode, count_include_pad, divisor_override)))


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    """3-D average pooling over (N, C, D, H, W) (backward node AvgPool3DBackward0).

    >>> import retrograd as torch
    >>> torch.nn.functional.avg_pool3d(torch.ones(1, 1, 2, 2, 2), 2)
    tensor([[[[[1.]]]]])
    """
    ks = _tuple(kernel_size, 3)
    st = ks if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 3)
    pd = _tuple(padding, 3)
    _check_pool("avg_pool", input, 3, ks, st, pd, (1, 1, 1))
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    batched = input.ndim == 5
    x = input if batched else unsqueeze(input, 0)
    out = apply(_avg_pool3d_op, (x,), _avg_static(ks, st, pd, bool(ceil_mode), bool(count_include_pad),
                                                   divisor_override))
    return out if batched else squeeze(out, 0)


_adaptive_avg3d_op = primitive(
    "adaptive_avg_pool3d", _adaptive_avg_fw, node="AdaptiveAvgPool3DBackward0",
    x=lambda g, x_shape, out_size: apply(_adaptive_avg3d_bw, (g,), {"in_size": tuple(x_shape[-len(out_size):])}))
_adaptive_avg3d_bw = primitive(
    "adaptive_avg_pool3d_backward", _adaptive_avg_bw_fw, node="AdaptiveAvgPool3DBackwardBackward0",
    g=lambda g, g_shape, in_size: apply(_adaptive_avg3d_op, (g,), {"out_size": tuple(g_shape[-len(in_size):])}))


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Average pooling of (N, C, D, H, W) to a fixed output size.

    >>> import retrograd as torch
    >>> torch.nn.functional.adaptive_avg_pool3d(torch.ones(1, 1, 3, 3, 3), 2).shape
    retrograd.Size([1, 1, 2, 2, 2])
    """
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    out_size = _out_size(output_size, input.shape[-3:])
    if out_size == (1, 1, 1):
        from .reduce import mean

        return mean(input, (-3, -2, -1), keepdim=True)
    return apply(_adaptive_avg3d_op, (input,), {"out_size": out_size})


_adaptive_max3d_op = primitive("adaptive_max_pool3d", _adaptive_max_fw, node="AdaptiveMaxPool3DBackward0",
                               n_out=2, x=_pool_bw_rule)


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    """(values, flat D*H*W indices) of 3-D adaptive max pooling."""
    return _adaptive_max_with_indices(_adaptive_max3d_op, 3, input, output_size)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling of (N, C, D, H, W) to a fixed output size (backward node AdaptiveMaxPool3DBackward0)."""
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """Transposed 3-D convolution; weight is (C_in, C_out / groups, kD, kH, kW).

    >>> import retrograd as torch
    >>> torch.conv_transpose3d(torch.ones(1, 2, 2, 2, 2), torch.ones(2, 1, 2, 2, 2), stride=2).shape
    retrograd.Size([1, 1, 4, 4, 4])
    """
    return _conv_transposend(3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups,
                             dilation)
