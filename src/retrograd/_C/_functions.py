"""``torch._C._functions``: built-in helper nodes (``AccumulateGrad``, ``DelayedError``, ``UndefinedGrad``).

``DelayedError(msg, n)(*tensors)`` and ``UndefinedGrad()(*tensors)`` return copies of the
tensors whose ``grad_fn`` either raises ``msg`` when backward reaches it (``Error``) or passes
on no gradient at all (``UndefinedGradBackward``).

>>> import retrograd as torch
>>> x = torch.ones(2, requires_grad=True)
>>> y = torch._C._functions.DelayedError("no backward here", 1)(x)
>>> try:
...     y.sum().backward()
... except RuntimeError as e:
...     print(e)
no backward here
"""
from __future__ import annotations

from ..autograd.function import _delayed_error
from ..autograd.graph import AccumulateGrad, Node

__all__ = ["AccumulateGrad", "DelayedError", "UndefinedGrad", "UndefinedGradBackward"]


class UndefinedGradBackward(Node):
    """Passes an undefined (None) gradient to each of its inputs."""

    _name = "torch::autograd::UndefinedGradBackward"

    def __init__(self, n: int) -> None:
        super().__init__()
        self._n = n

    def _num_outputs(self) -> int:
        return self._n

    def apply(self, grads: list, needed=None) -> list:
        return [None] * len(self._next)


class DelayedError:
    """``DelayedError(msg, num_inputs)(*tensors)``: copies whose backward raises ``RuntimeError(msg)``."""

    def __init__(self, msg, num_inputs: int) -> None:
        self.msg = msg.decode() if isinstance(msg, bytes) else msg
        self.num_inputs = num_inputs

    def __call__(self, *tensors):
        out = _delayed_error(self.msg, _checked(tensors))
        return out[0] if len(out) == 1 else out


class UndefinedGrad:
    """``UndefinedGrad()(*tensors)``: copies whose backward sends no gradient to the inputs."""

    def __call__(self, *tensors):
        from .._tensor import Tensor
        from ..autograd import grad_mode
        from ..autograd.engine import edge_of

        tensors = _checked(tensors)
        node = UndefinedGradBackward(len(tensors))
        record = grad_mode.state.enabled and any(t is not None and t.requires_grad for t in tensors)
        if record:
            node.next_functions = tuple((None, 0) if t is None else edge_of(t) for t in tensors)
        out = []
        for i, t in enumerate(tensors):
            if t is None:
                out.append(None)
                continue
            need = record and t.requires_grad
            out.append(Tensor._wrap(t._data.copy(), need, node if need else None, i if need else 0))
        return out[0] if len(out) == 1 else tuple(out)


def _checked(tensors: tuple) -> tuple:
    from .._tensor import Tensor

    for t in tensors:
        if t is not None and not isinstance(t, Tensor):
            raise TypeError(f"expected a Tensor argument, but got {type(t).__name__}")
    return tensors
