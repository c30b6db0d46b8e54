"""Helpers shared by composite ops: ``out=`` writing (``_out``, ``_supports_out``), in-place through
an out-of-place op (``_inplace``), the lazily imported ``retrograd`` namespace."""
from __future__ import annotations

import functools
import sys

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _scalar_type_name
from ..autograd import grad_mode
from ._common import check_out_overlap

__all__ = []


def _out(result: Tensor, out: Tensor | None, name: str | None = None, same: bool = False,
         inputs: tuple = ()) -> Tensor:
    """``out=`` arguments: copy the result into ``out`` (resizing as PyTorch does).

    A result that requires grad means a differentiable op ran on inputs that require grad
    with grad mode on: PyTorch refuses that before writing (out= results have no history).
    PyTorch's rule for ``out``'s dtype: the result's type must cast to it (same kind or higher:
    a float result refuses an int ``out``); ``same`` ops (neg, abs, clamp ...: no type promotion)
    want exactly the result's dtype.
    """
    if out is None:
        return result
    if inputs:
        check_out_overlap(out, *inputs)
    if (result._requires_grad and result._grad_fn is not None) or (out._requires_grad and grad_mode.state.enabled):
        raise RuntimeError(f"{name or _caller_op_name()}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if "_fw_tangent" in result.__dict__ or "_fw_tangent" in out.__dict__:
        from ..autograd import forward_ad

        if forward_ad._get(result) is not None or forward_ad._get(out) is not None:
            raise NotImplementedError(f"Trying to use forward AD with {name or _caller_op_name()}_out that does not "
                                      "support it because it is an out= function")
    rd, od = result._data.dtype, out._data.dtype
    if rd != od:
        from .._tensor import _scalar_type_name as _n

        if same:
            raise RuntimeError(f"Found dtype {_n(out.dtype)} but expected {_n(result.dtype)}")
        if not D.can_cast(result.dtype, out.dtype):
            raise RuntimeError(f"result type {_n(result.dtype)} can't be cast to the desired output type "
                               f"{_n(out.dtype)}")
    if out._data.shape != result._data.shape:
        from .linalg.products import warn_if_resized

        warn_if_resized(out, result._data.shape, stacklevel=4)
        out._data = np.empty(result._data.shape, dtype=out._data.dtype)
    return out.copy_(result)


def _caller_op_name() -> str:
    """For ``_out``'s messages: the op whose code called ``_out`` (``mul``, ``sin`` ...), as PyTorch names it."""
    return sys._getframe(2).f_code.co_name.lstrip("_")


_wrap = Tensor._wrap


class _Namespace:
    """The functions composites call by name (``R.cat``, ``R.zeros``, ``R.result_type``): the op
    package's, creation's and dtype's, each what ``retrograd.<name>`` is (tests/test_import_layers.py
    checks every name the table uses), found without importing ``retrograd`` itself, which sits
    above the table (it holds nn, optim ...)."""

    __slots__ = ()

    def __getattr__(self, name: str):
        from .. import _compat, _creation
        from .. import _ops

        # (the public namespace's order: _compat's names override the ops', the ops' creation's)
        if name in _compat.__all__:
            return getattr(_compat, name)
        for mod in (_ops, _creation, D):
            if name in mod.__dict__:
                return mod.__dict__[name]
        raise AttributeError(f"the op table's namespace has no {name!r}")


_NAMESPACE = _Namespace()


def _R() -> _Namespace:
    return _NAMESPACE


def _tname(t: Tensor) -> str:
    return _scalar_type_name(t.dtype)


def _supports_out(fn):
    """PyTorch's ``out=``: the result is copied into ``out`` (resized as PyTorch does)."""

    @functools.wraps(fn)
    def wrapper(*args, out=None, **kwargs):
        res = fn(*args, **kwargs)
        if out is None:
            return res
        name = fn.__name__.rstrip("_")  # (the op's own name in PyTorch's messages, not "wrapper")
        inputs = tuple(a for a in args if isinstance(a, Tensor))
        if isinstance(res, tuple):
            for o, r in zip(out, res):
                _out(r, o, name, inputs=inputs)
            return type(res)(tuple(out))
        return _out(res, out, name, inputs=inputs)
    return wrapper


def _inplace(self: Tensor, compute, *others) -> Tensor:
    """Write ``compute(self)`` back into self as PyTorch's in-place kernel would (see _inplace.py)."""
    from ._inplace import inplace_via

    return inplace_via(self, compute, others)
