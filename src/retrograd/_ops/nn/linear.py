"""The linear layer's primitives (``linear_2d``): x w^T (+ b) with ``mm`` and the weight-gradient op
as duals."""
from __future__ import annotations

from ..._blas import mm as blas_mm
from ..._tensor import Tensor
from .._registry import apply, primitive
from ..linalg.products import _mm as _mm_op
from ..reduction import _sum_dim as _sum_dim_op
from .activation import _add_reduce

__all__ = []


# ====================================================================== linear
# nn.Linear as one node: y = x @ w.T (+ b).  PyTorch records addmm(b, x, w.t()) (or mm), i.e.
# an AddmmBackward0 fed by a TBackward0 on the weight; fusing the transpose into the op saves a
# node per layer and, above all, makes the weight gradient g.T @ x a fresh C-contiguous array
# (the transposed view of x.T @ g had to be copied before it could become weight.grad).
# The three ops are partial derivatives of <x w^T, g>, so their rules point at each other.
def _linear_np(x, w):
    return blas_mm(x, w.T)


def _linear_b_np(b, x, w):
    return blas_mm(x, w.T, b)


def _mm(a: Tensor, b: Tensor) -> Tensor:
    return apply(_mm_op, (a, b))


def _linear_nb(x: Tensor, w: Tensor) -> Tensor:
    return apply(_linear_op, (x, w))


def _weight_grad(gy: Tensor, x: Tensor) -> Tensor:
    return apply(_linear_wgrad_op, (gy, x))


_linear_op = primitive("linear", _linear_np, node="MmBackward0",
                       fast={"x": lambda g, w: blas_mm(g, w), "w": lambda g, x: g.T @ x},
                       x=lambda g, w: _mm(g, w),
                       w=lambda g, x: _weight_grad(g, x), batch="linear")
# input order (bias, input, weight) is addmm's, so next_functions line up with PyTorch's
def _sum_rows(g: Tensor) -> Tensor:
    """``g.sum(0)`` for a 2-d gradient (the bias gradient), without parsing ``dim``."""
    return apply(_sum_dim_op, (g,), _ROWS)


_ROWS = {"dims": (0,), "keepdim": False}
_linear_b_op = primitive("linear_bias", _linear_b_np, node="AddmmBackward0",
                         fast={"b": lambda g: _add_reduce(g, axis=(0,)), "x": lambda g, w: blas_mm(g, w),
                                      "w": lambda g, x: g.T @ x},
                         b=lambda g: _sum_rows(g),
                         x=lambda g, w: _mm(g, w),
                         w=lambda g, x: _weight_grad(g, x), batch="linear")
# d<x w^T, g>/dw = g^T x;  d/dgy = x G^T = linear(x, G);  d/dx = gy G
_linear_wgrad_op = primitive("linear_weight_grad", lambda gy, x: gy.T @ x, node="MmBackward0",
                             gy=lambda g, x: _linear_nb(x, g),
                             x=lambda g, gy: _mm(gy, g), batch="linear_weight_grad")


def linear_2d(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` for a 2-d input and weight (checked by the caller): one node."""
    if bias is None:
        return apply(_linear_op, (input, weight))
    return apply(_linear_b_op, (bias, input, weight))
