"""In-place forms of ops that have no in-place primitive: ``x.op_(...)`` via the out-of-place op.

PyTorch's in-place ops record the op's own node (``x.clamp_min_(0)`` has grad_fn
``ClampMinBackward0``, not a copy node), check the result's shape against ``x``'s before its
dtype, and see ``x``'s value from before the write.  :func:`inplace_via` gives every such op the
same behaviour: the out-of-place op runs on a snapshot of ``x``, and ``x`` then takes the
result's values and history.
"""
from __future__ import annotations

from typing import Callable

import numpy as np

from .._tensor import Tensor, check_inplace
from ..autograd import grad_mode
from ._registry import _write, check_inplace_cast

__all__: list[str] = []


def _snapshot(self: Tensor) -> Tensor:
    """A tensor with ``self``'s value and history that later writes to ``self`` leave alone
    (the out-of-place op may save it for backward)."""
    old = Tensor._wrap(self._data.copy(), self._requires_grad, self._grad_fn, self._output_nr)
    if "_accum" in self.__dict__:
        old._accum = self._accum
    return old


def check_inplace_shape(self: Tensor, result_shape: tuple) -> None:
    """PyTorch's refusal when the (broadcast) result does not have ``self``'s shape."""
    if tuple(result_shape) != tuple(self._data.shape):
        raise RuntimeError(
            f"output with shape [{', '.join(map(str, self._data.shape))}] doesn't match the broadcast "
            f"shape [{', '.join(map(str, result_shape))}]")


def inplace_via(self: Tensor, compute: Callable[[Tensor], Tensor], others: tuple = ()) -> Tensor:
    """Write ``compute(self)`` into ``self`` in place, as PyTorch's own in-place kernel would.

    ``compute`` gets a snapshot of ``self`` (same value and history) and returns the
    out-of-place result.  The result must have ``self``'s shape and a dtype that casts to
    ``self``'s; ``self`` then holds the values and, when grad is recorded, the result's node.

    >>> import retrograd as torch
    >>> x = torch.tensor([-1., 2.], requires_grad=True).clone()
    >>> _ = x.clamp_min_(0.)
    >>> type(x.grad_fn).__name__
    'ClampMinBackward0'
    """
    check_inplace(self, tuple(t for t in others if isinstance(t, Tensor)))
    recording = grad_mode.state.enabled
    res = compute(_snapshot(self) if recording else self)
    check_inplace_shape(self, res._data.shape)
    if res._data.dtype != self._data.dtype:
        check_inplace_cast(res.dtype, self)
    if recording and res._grad_fn is not None:
        _write(self, np.asarray(res._data))
        self._grad_fn = res._grad_fn
        self._output_nr = res._output_nr
        self._requires_grad = True
        from .._views import after_inplace_on_view

        after_inplace_on_view(self)
        return self
    if recording and self._requires_grad:
        # a result without history (a non-differentiable op) still replaces self's value:
        # the copy node cuts the gradient to the old history, as PyTorch's zero-gradient nodes do
        return self.copy_(res.detach())
    _write(self, np.asarray(res._data))
    return self
