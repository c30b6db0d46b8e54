"""Small built-in ``autograd.Function`` classes (``torch.autograd._functions``).

>>> import retrograd as torch
>>> import retrograd.autograd._functions as F
>>> x = torch.ones(2, 3, requires_grad=True)
>>> y = F.Resize.apply(x, (3, 2))
>>> y.sum().backward(); x.grad.shape
torch.Size([2, 3])
"""
from __future__ import annotations

from functools import reduce
from operator import mul

from .function import Function

__all__ = ["Resize"]


class Resize(Function):
    """Reshape to ``sizes`` (same number of elements); the gradient is reshaped back."""

    @staticmethod
    def forward(ctx, tensor, sizes):
        ctx.sizes = tuple(sizes)
        ctx.numel = reduce(mul, ctx.sizes, 1)
        if tensor.numel() != ctx.numel:
            raise RuntimeError(
                f"requested resize to {'x'.join(map(str, ctx.sizes))} ({ctx.numel} elements in total), "
                f"but the given tensor has a size of {'x'.join(map(str, tensor.size()))} "
                f"({tensor.numel()} elements). autograd's resize can only change the shape of a given "
                "tensor, while preserving the number of elements. ")
        ctx.input_sizes = tensor.size()
        # a copy, as in PyTorch: the result never aliases the input
        return tensor.contiguous().view(*ctx.sizes).clone()

    @staticmethod
    def backward(ctx, grad_output):
        if grad_output.numel() != ctx.numel:
            raise RuntimeError("Resize: gradient has the wrong number of elements")
        return grad_output.contiguous().view(ctx.input_sizes), None
