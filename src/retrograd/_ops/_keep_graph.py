"""Keep a gradient in the graph of inputs it does not depend on (PyTorch's backward nodes).

PyTorch computes a first derivative with one backward *op* that takes the forward's inputs
(``max_pool2d_with_indices_backward(grad, self, ...)``, ``leaky_relu_backward(grad, self,
slope)``, ``convolution_backward(grad, input, weight, ...)``), so under ``create_graph=True``
that gradient requires grad and has a node (``MaxPool2DWithIndicesBackwardBackward0``) even
where it is only piecewise constant in those inputs; differentiating it again gives zeros, not
an error.  A retrograd rule that is linear in ``g`` with a constant mask drops that link;
``keep_graph`` puts it back: an identity in the gradient, with a zero derivative for each
input, recorded only while a graph is being built.

>>> import retrograd as torch
>>> x = torch.tensor([1., -2.], requires_grad=True)
>>> gx, = torch.autograd.grad(torch.nn.functional.leaky_relu(x).sum(), x, create_graph=True)
>>> gx.grad_fn.name(), torch.autograd.grad(gx.sum(), x)[0]
('LeakyReluBackwardBackward0', tensor([0., 0.]))
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ..autograd.grad_mode import state as _grad_state
from ._registry import apply, primitive

__all__: list[str] = []

_wrap = Tensor._wrap


def _zeros(shape, dtype) -> Tensor:
    return _wrap(np.zeros(shape, dtype=dtype.np), False, None, 0)


# (a copy, not the gradient's own array: the two tensors have their own version counters)
def _fw1(g, a):
    return g.copy()


def _fw2(g, a, b):
    return g.copy()


def _fw3(g, a, b, c):
    return g.copy()


_OPS: dict = {}


def _op(node: str, n: int):
    op = _OPS.get((node, n))
    if op is None:
        zero = {"a": lambda a_shape, a_dtype: _zeros(a_shape, a_dtype),
                "b": lambda b_shape, b_dtype: _zeros(b_shape, b_dtype),
                "c": lambda c_shape, c_dtype: _zeros(c_shape, c_dtype)}
        rules = {k: zero[k] for k in "abc"[:n]}
        op = _OPS[(node, n)] = primitive(f"keep_graph_{n}_{node}", (_fw1, _fw2, _fw3)[n - 1], node=node, batch="first",
                                         g=lambda g: g, **rules)
    return op


def keep_graph(grad: Tensor | None, *inputs: Tensor | None, node: str) -> Tensor | None:
    """``grad``, recorded (while grad mode is on) as node ``node`` of ``grad`` and of those
    ``inputs`` that require grad, with a zero derivative for each input.

    A no-op in a first-order backward (grad mode off) and when no input requires grad.
    """
    if grad is None or not _grad_state.enabled:
        return grad
    ins = tuple(t for t in inputs if t is not None and t._requires_grad)
    if not ins:
        return grad
    return apply(_op(node, len(ins)), (grad,) + ins)
