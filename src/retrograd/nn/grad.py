"""``torch.nn.grad``: the gradients of a convolution with respect to its input and its weight.

Each function evaluates one half of a convolution's backward directly, from the shapes of
the tensor it is the gradient of (no forward pass is run).  The results are differentiable.

>>> import retrograd as torch
>>> x, w = torch.randn(1, 1, 5), torch.randn(1, 1, 3)
>>> torch.nn.grad.conv1d_input(x.shape, w, torch.ones(1, 1, 3)).shape
torch.Size([1, 1, 5])
"""
from __future__ import annotations

from .._ops.nn import conv as _nn
from .._tensor import Tensor

__all__ = ["conv1d_input", "conv1d_weight", "conv2d_input", "conv2d_weight", "conv3d_input", "conv3d_weight"]


def _geometry(nd: int, stride, padding, dilation) -> tuple:
    stride = _nn._tuple(stride, nd, "stride")
    padding = _nn._tuple(padding, nd, "padding")
    dilation = _nn._tuple(dilation, nd, "dilation")
    _nn._conv_param_checks(stride, padding, dilation)
    return stride, tuple((p, p) for p in padding), dilation


def _input_grad(nd: int, input_size, weight: Tensor, grad_output: Tensor, stride, padding, dilation,
                groups: int) -> Tensor:
    size = tuple(int(s) for s in input_size)
    if len(size) != nd + 2 or grad_output.ndim != nd + 2:
        raise RuntimeError(f"conv{nd}d_input: expected a {nd + 2}-D input_size and grad_output, got "
                           f"input_size={list(size)} and grad_output of size {list(grad_output.shape)}")
    stride, pads, dilation = _geometry(nd, stride, padding, dilation)
    return _nn._conv_input(grad_output, weight, size, stride, pads, dilation, int(groups))


def _weight_grad(nd: int, input: Tensor, weight_size, grad_output: Tensor, stride, padding, dilation,
                 groups: int) -> Tensor:
    size = tuple(int(s) for s in weight_size)
    if len(size) != nd + 2 or input.ndim != nd + 2 or grad_output.ndim != nd + 2:
        raise RuntimeError(f"conv{nd}d_weight: expected {nd + 2}-D input, weight_size and grad_output, got "
                           f"input of size {list(input.shape)}, weight_size={list(size)} and grad_output of size "
                           f"{list(grad_output.shape)}")
    stride, pads, dilation = _geometry(nd, stride, padding, dilation)
    return _nn._conv_weight(input, grad_output, size, stride, pads, dilation, int(groups))


def conv1d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """Gradient of ``conv1d`` with respect to an input of shape ``input_size``."""
    return _input_grad(1, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv1d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """Gradient of ``conv1d`` with respect to a weight of shape ``weight_size``."""
    return _weight_grad(1, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv2d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """Gradient of ``conv2d`` with respect to an input of shape ``input_size``."""
    return _input_grad(2, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv2d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """Gradient of ``conv2d`` with respect to a weight of shape ``weight_size``."""
    return _weight_grad(2, input, weight_size, grad_output, stride, padding, dilation, groups)


def conv3d_input(input_size, weight: Tensor, grad_output: Tensor, stride=1, padding=0, dilation=1,
                 groups: int = 1) -> Tensor:
    """Gradient of ``conv3d`` with respect to an input of shape ``input_size``."""
    return _input_grad(3, input_size, weight, grad_output, stride, padding, dilation, groups)


def conv3d_weight(input: Tensor, weight_size, grad_output: Tensor, stride=1, padding=0, dilation=1,
                  groups: int = 1) -> Tensor:
    """Gradient of ``conv3d`` with respect to a weight of shape ``weight_size``."""
    return _weight_grad(3, input, weight_size, grad_output, stride, padding, dilation, groups)
