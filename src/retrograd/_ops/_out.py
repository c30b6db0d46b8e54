"""``out=`` for ops whose own code has none: one decorator, PyTorch's rules per op kind.

PyTorch's ``out=`` ops fall into a few families as to which ``out`` dtypes they accept:
``"same"`` (the result's dtype only: tril, diag, take_along_dim ...), ``"cast"`` (any dtype the
result type can be cast to: std, var, outer ...), or an op-specific check (``all`` wants bool,
``nonzero`` int64 ...).  In every case the result is computed as usual, then copied into ``out``
(resized when its shape differs, with PyTorch's warning for a non-empty ``out``), and ``out``
itself is returned.  Inputs that require grad are refused, as PyTorch refuses them.
"""
from __future__ import annotations

import functools
from typing import Callable

from .. import _dtype as D
from .._tensor import Tensor

__all__: list[str] = []


def _type_name(d) -> str:
    from .._tensor import _scalar_type_name

    return _scalar_type_name(d)


def _check_cast(name: str, result: Tensor, out: Tensor) -> None:
    if not D.can_cast(result.dtype, out.dtype):
        raise RuntimeError(f"result type {_type_name(result.dtype)} can't be cast to the desired output type "
                           f"{_type_name(out.dtype)}")


def write_out(name: str, result: Tensor, out, mode: str | Callable = "cast") -> Tensor:
    """Copy ``result`` into ``out`` under ``mode`` (see the module doc) and return ``out``."""
    from .linalg import _write_out

    if callable(mode):
        mode(result, out)
        mode = "cast"
    if mode == "same":
        return _write_out(name, result, out)
    _check_cast(name, result, out)
    if out._data.dtype != result._data.dtype:  # (copy_ below casts; the shape check wants equal dtypes)
        result = Tensor._wrap(result._data.astype(out._data.dtype), False, None, 0)
    return _write_out(name, result, out)


def with_out(name: str, mode: str | Callable = "cast", grad_name: str | None = None, grad_check: bool = True):
    """Give ``fn`` an ``out=`` keyword with PyTorch's rules.

    ``grad_name``: the name PyTorch's autograd error uses (the kernel's, e.g. ``cat`` for vstack).
    """
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            from .linalg import _check_out

            if not isinstance(out, (tuple, list)):
                tensors = [a for a in args if isinstance(a, Tensor)]
                for a in args:  # (a sequence of tensors: vstack, hstack ...)
                    if isinstance(a, (list, tuple)):
                        tensors += [t for t in a if isinstance(t, Tensor)]
                if grad_check:
                    _check_out(grad_name or name, out, *tensors)
                elif not isinstance(out, Tensor):
                    raise TypeError(f"{name}(): argument 'out' must be Tensor, not {type(out).__name__}")
            res = fn(*args, **kwargs)
            if isinstance(res, tuple):  # (values, indices): each into its own out tensor
                for o, r in zip(out, res):
                    write_out(name, r.detach(), o, "cast")
                return type(res)(tuple(out))
            return write_out(name, res.detach(), out, mode)
        return wrapper
    return deco


def need_dtype(message: Callable, *allowed) -> Callable:
    """An op-specific out dtype rule: ``out``'s dtype must be one of ``allowed``."""
    def check(result: Tensor, out: Tensor) -> None:
        if out.dtype not in allowed:
            raise RuntimeError(message(out))
    return check


def same_dtype(message: str) -> Callable:
    """``out`` must have the result's dtype (``message`` is the op's own text)."""
    def check(result: Tensor, out: Tensor) -> None:
        if out._data.dtype != result._data.dtype:
            raise RuntimeError(message)
    return check


def same_dtype_found(result: Tensor, out: Tensor) -> None:
    """``out`` must have the result's dtype (PyTorch's "Found dtype" wording)."""
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"Found dtype {_type_name(out.dtype)} but expected {_type_name(result.dtype)}")


def float_out(name: str) -> Callable:
    """``out`` must be floating point (logsumexp)."""
    def check(result: Tensor, out: Tensor) -> None:
        if not out.dtype.is_floating_point:
            raise RuntimeError(f"{name}(): Expected floating point type for result tensor, but got: "
                               f"{_type_name(out.dtype)}")
    return check


def same_as_input(result: Tensor, out: Tensor) -> None:
    """amax/amin: ``out``'s dtype must be the input's (the result's)."""
    if out._data.dtype != result._data.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got {_type_name(result.dtype)} "
                           f"for input's dtype and {_type_name(out.dtype)} for out's dtype.")

