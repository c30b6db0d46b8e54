"""Test helpers for C++ extensions, which retrograd does not support (pure NumPy, no compiler step)."""
from __future__ import annotations

import functools
from typing import Callable

__all__ = ["scoped_load_inline"]

_MSG = "retrograd has no C++ extensions: torch.utils.cpp_extension.load_inline is not supported"


def scoped_load_inline(func: Callable) -> Callable:
    """PyTorch's decorator that hands a test a ``load_inline`` compiler; here the test raises when run.

    >>> @scoped_load_inline
    ... def test_ext(self, load_inline):
    ...     pass
    >>> try:
    ...     test_ext(None)
    ... except NotImplementedError as e:
    ...     print("C++ extensions" in str(e))
    True
    """

    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        raise NotImplementedError(_MSG)

    return wrapper
