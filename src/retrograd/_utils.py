"""``torch._utils``: the few private helpers that code outside PyTorch calls.

>>> import retrograd as torch
>>> torch._utils._element_size(torch.float64)
8
"""
from __future__ import annotations

from . import _dtype as D

__all__: list[str] = ["ExceptionWrapper"]


def _element_size(dtype: D.dtype) -> int:
    """Bytes per element of ``dtype`` as PyTorch counts them (bfloat16: 2, complex64: 8)."""
    if not isinstance(dtype, D.dtype):
        raise RuntimeError(f"expected a dtype, but got {type(dtype).__name__}")
    return dtype.itemsize


class ExceptionWrapper:
    """An exception caught in one place (a worker, a thread) kept to be raised again elsewhere.

    Holds the type and the formatted traceback text; :meth:`reraise` raises the same type with a
    message that says where it was caught and includes the original traceback.

    >>> import sys
    >>> from retrograd._utils import ExceptionWrapper
    >>> try:
    ...     raise ValueError("boom")
    ... except ValueError:
    ...     w = ExceptionWrapper(sys.exc_info(), where="in worker 0")
    >>> w.exc_type.__name__, "boom" in w.exc_msg
    ('ValueError', True)
    """

    def __init__(self, exc_info=None, where: str = "in background") -> None:
        import sys
        import traceback

        if exc_info is None:
            exc_info = sys.exc_info()
        self.exc_type = exc_info[0]
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the wrapped exception's type with the original traceback in its message."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            # KeyError's str() shows repr(message); a str subclass with a plain repr keeps it readable
            msg = _KeyErrorMessage(msg)
        try:
            exception = self.exc_type(msg)
        except Exception:
            # the type's constructor wants other arguments: fall back to a RuntimeError with the text
            raise RuntimeError(msg) from None
        raise exception


class _KeyErrorMessage(str):
    def __repr__(self) -> str:
        return self
