"""Fold an eval-mode BatchNorm into the preceding conv or linear layer (PyTorch's formulas)."""
from __future__ import annotations

import copy

from ... import _ops as O
from ..._tensor import Tensor
from ..parameter import Parameter

__all__ = ["fuse_conv_bn_eval", "fuse_conv_bn_weights", "fuse_linear_bn_eval", "fuse_linear_bn_weights"]


def fuse_conv_bn_eval(conv, bn, transpose: bool = False):
    """A copy of ``conv`` whose weight and bias include ``bn`` (both in eval mode).

    >>> import retrograd as torch
    >>> conv, bn = torch.nn.Conv2d(2, 3, 1).eval(), torch.nn.BatchNorm2d(3).eval()
    >>> fused = torch.nn.utils.fuse_conv_bn_eval(conv, bn)
    >>> x = torch.randn(1, 2, 4, 4)
    >>> bool((fused(x) - bn(conv(x))).abs().max() < 1e-5)
    True
    """
    assert not (conv.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(conv)
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_conv_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                    bn.eps, bn.weight, bn.bias, transpose)
    return fused


def fuse_conv_bn_weights(conv_w: Tensor, conv_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor, bn_eps: float,
                         bn_w: Tensor | None, bn_b: Tensor | None, transpose: bool = False):
    """(weight, bias) Parameters of the conv with the batch norm folded in."""
    w_dtype = conv_w.dtype
    b_dtype = conv_b.dtype if conv_b is not None else w_dtype
    if conv_b is None:
        conv_b = bn_rm.detach() * 0
    if bn_w is None:
        bn_w = bn_rm.detach() * 0 + 1
    if bn_b is None:
        bn_b = bn_rm.detach() * 0
    rsqrt = O.rsqrt(bn_rv + bn_eps)
    shape = ([1, -1] if transpose else [-1, 1]) + [1] * (conv_w.ndim - 2)
    fused_w = (conv_w * (bn_w * rsqrt).reshape(shape)).to(dtype=w_dtype)
    fused_b = ((conv_b - bn_rm) * rsqrt * bn_w + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, conv_w.requires_grad), Parameter(fused_b, conv_b.requires_grad)


def fuse_linear_bn_eval(linear, bn):
    """A copy of ``linear`` whose weight and bias include ``bn`` (both in eval mode)."""
    assert not (linear.training or bn.training), "Fusion only for eval!"
    fused = copy.deepcopy(linear)
    if linear.out_features != bn.num_features and bn.num_features != 1:
        raise AssertionError("To fuse, linear.out_features == bn.num_features or bn.num_features == 1, got "
                             f"linear.out_features={linear.out_features} and bn.num_features={bn.num_features}")
    assert bn.running_mean is not None and bn.running_var is not None
    fused.weight, fused.bias = fuse_linear_bn_weights(fused.weight, fused.bias, bn.running_mean, bn.running_var,
                                                      bn.eps, bn.weight, bn.bias)
    return fused


def fuse_linear_bn_weights(linear_w: Tensor, linear_b: Tensor | None, bn_rm: Tensor, bn_rv: Tensor,
                           bn_eps: float, bn_w: Tensor, bn_b: Tensor):
    """(weight, bias) Parameters of the linear layer with the batch norm folded in."""
    w_dtype = linear_w.dtype
    b_dtype = linear_b.dtype if linear_b is not None else w_dtype
    if linear_b is None:
        linear_b = bn_rm.detach() * 0
    scale = bn_w * O.rsqrt(bn_rv + bn_eps)
    fused_w = linear_w * scale.unsqueeze(-1).to(dtype=w_dtype)
    fused_b = ((linear_b - bn_rm) * scale + bn_b).to(dtype=b_dtype)
    return Parameter(fused_w, linear_w.requires_grad), Parameter(fused_b, linear_b.requires_grad)
