"""``torch._check`` and friends: assertions that raise a chosen exception type with a lazy message.

Library and user code (and PyTorch's own decompositions) call them to validate arguments; the
message is a callable so that building it costs nothing when the check passes.

>>> import retrograd as torch
>>> torch._check(True, lambda: "never built")
>>> try:
...     torch._check_value(False, lambda: "bad value")
... except ValueError as e:
...     print(e)
bad value
"""
from __future__ import annotations

from typing import Callable

__all__ = ["_check", "_check_index", "_check_value", "_check_type", "_check_not_implemented", "_assert_async",
           "_debug_has_internal_overlap"]

_DEFAULT = ("Expected cond to be True, but got False. (Could this error message be improved? If so, please "
            "report an enhancement request to PyTorch.)")


def _raise_unless(cond, message: Callable | None, error: type) -> None:
    if not isinstance(cond, bool):
        raise TypeError(f"cond must be a bool, but got {type(cond)}")
    if cond:
        return
    if message is None:
        raise error(_DEFAULT)
    if not callable(message):
        raise TypeError("message must be a callable")
    raise error(str(message()))


def _check(cond: bool, message: Callable | None = None) -> None:
    """Raise RuntimeError(message()) unless ``cond`` is True."""
    _raise_unless(cond, message, RuntimeError)


def _check_index(cond: bool, message: Callable | None = None) -> None:
    """Raise IndexError(message()) unless ``cond`` is True."""
    _raise_unless(cond, message, IndexError)


def _check_value(cond: bool, message: Callable | None = None) -> None:
    """Raise ValueError(message()) unless ``cond`` is True."""
    _raise_unless(cond, message, ValueError)


def _check_type(cond: bool, message: Callable | None = None) -> None:
    """Raise TypeError(message()) unless ``cond`` is True."""
    _raise_unless(cond, message, TypeError)


def _check_not_implemented(cond: bool, message: Callable | None = None) -> None:
    """Raise NotImplementedError(message()) unless ``cond`` is True."""
    _raise_unless(cond, message, NotImplementedError)


def _assert_async(tensor) -> None:
    """Raise unless the one-element ``tensor`` is nonzero (synchronous here: there is no device queue)."""
    n = tensor.numel()
    if n == 0:
        raise RuntimeError("Boolean value of Tensor with no values is ambiguous")
    if n > 1:
        raise RuntimeError("Boolean value of Tensor with more than one value is ambiguous")
    if not bool(tensor.item()):
        raise RuntimeError("Expected Tensor with single nonzero value, but got zero")


def _debug_has_internal_overlap(tensor) -> int:
    """PyTorch's overlap verdict for in-place writes: 0 no overlap (the elements tile their memory
    densely), 1 overlap (a dimension of size > 1 with stride 0), 2 too hard to tell.

    >>> import retrograd as torch
    >>> torch._debug_has_internal_overlap(torch.randn(1, 3).expand(4, 3))
    1
    """
    sizes, strides = tensor.shape, tensor.stride()
    if tensor.numel() == 0:
        return 0  # nothing to overlap
    dims = sorted((st, n) for n, st in zip(sizes, strides) if n != 1)
    expected = 1
    for st, n in dims:  # dense and non-overlapping: innermost stride 1, each next = previous extent
        if st != expected:
            break
        expected *= n
    else:
        return 0
    if any(n > 1 and st == 0 for n, st in zip(sizes, strides)):
        return 1
    return 2
