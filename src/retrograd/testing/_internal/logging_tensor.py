"""``torch.testing._internal.logging_tensor`` for retrograd.

PyTorch's ``LoggingTensor`` is a ``__torch_dispatch__`` wrapper that records every ATen call.
retrograd has no dispatcher, so here ``LoggingTensor`` is a plain Tensor subclass that shares
memory with the tensor it wraps (kept as ``.elem``) and behaves exactly like it: tests that use it
only as "another kind of tensor" run unchanged.  Operator logging itself (``capture_logs`` and
``LoggingTensorMode``) needs the dispatcher and raises ``NotImplementedError`` when used.

>>> import retrograd as torch
>>> from retrograd.testing._internal.logging_tensor import LoggingTensor
>>> x = LoggingTensor(torch.ones(2), requires_grad=True)
>>> (x * 3).sum().backward()
>>> x.grad
tensor([3., 3.])
"""

from __future__ import annotations

import contextlib

from retrograd._tensor import Tensor

__all__ = ["LoggingTensor", "LoggingTensorMode", "LoggingTensorReentrant", "capture_logs",
           "capture_logs_with_logging_tensor_mode", "log_input"]

_NO_DISPATCH = ("operator logging needs __torch_dispatch__, which retrograd does not have; "
                "LoggingTensor only behaves as the tensor it wraps")


class LoggingTensor(Tensor):
    """A Tensor subclass aliasing ``elem`` (no operator logging in retrograd, see the module doc)."""

    context = contextlib.nullcontext

    def __new__(cls, elem: Tensor, *args, requires_grad: bool = False, **kwargs):
        if not isinstance(elem, Tensor):
            raise TypeError(f"LoggingTensor wraps a Tensor, got {type(elem).__name__}")
        t = object.__new__(cls)
        Tensor._init(t, elem._data, False)
        t._vc = elem._vcounter()  # an alias: in-place changes show through both
        # as in PyTorch, a wrapper that requires grad holds a detached element
        t.elem = elem.detach() if requires_grad else elem
        if requires_grad:
            t.requires_grad_(True)
        return t

    def __init__(self, elem: Tensor, *args, requires_grad: bool = False, **kwargs) -> None:
        pass  # everything happens in __new__


class LoggingTensorReentrant(LoggingTensor):
    """PyTorch's re-entrant variant; the same plain subclass here."""


class LoggingTensorMode:
    """Dispatch mode that logs every operator: not available without a dispatcher."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError(f"LoggingTensorMode: {_NO_DISPATCH}")


def log_input(name: str, var: object) -> None:
    """Record an input in the operator log: not available without a dispatcher."""
    raise NotImplementedError(f"log_input: {_NO_DISPATCH}")


def capture_logs(is_mode: bool = False, python_tb: bool = False, script_tb: bool = False,
                 cpp_tb: bool = False):
    """Collect the operator log of a block: not available without a dispatcher."""
    raise NotImplementedError(f"capture_logs: {_NO_DISPATCH}")


def capture_logs_with_logging_tensor_mode(python_tb: bool = False, script_tb: bool = False,
                                          cpp_tb: bool = False):
    """``capture_logs`` under ``LoggingTensorMode``: not available without a dispatcher."""
    raise NotImplementedError(f"capture_logs_with_logging_tensor_mode: {_NO_DISPATCH}")
