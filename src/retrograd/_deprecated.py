"""torch 2.13's deprecated and removed API: the removed linear-algebra functions (``lstsq``, ``solve``,
``symeig``, ``eig``, also as Tensor methods), which raise torch's removal error; the deprecated
non-in-place ``Tensor.resize``/``resize_as``; and ``Tensor.storage_type`` (of the legacy typed storages).

>>> import warnings
>>> import retrograd as torch
>>> with warnings.catch_warnings(record=True) as caught:
...     warnings.simplefilter("always")
...     torch.ones(6).resize_as(torch.zeros(2, 3)).shape
torch.Size([2, 3])
>>> [str(w.message) for w in caught]
['non-inplace resize_as is deprecated']
"""
from __future__ import annotations

import functools
import operator
import warnings

from ._tensor import Tensor
from .autograd.function import Function

__all__ = ["lstsq", "solve", "symeig", "eig"]


# ---------------------------------------------------------------- removed linear algebra
_REPLACEMENT = {"lstsq": "`torch.lstsq` is deprecated in favor of `torch.linalg.lstsq` (arguments reversed).",
                "solve": "`torch.solve` is deprecated in favor of `torch.linalg.solve` (arguments reversed).",
                "symeig": "Use `torch.linalg.eigvalsh` (eigenvalues only) or `torch.linalg.eigh`.",
                "eig": "Use `torch.linalg.eigvals` (eigenvalues only) or `torch.linalg.eig`."}


def _removed(name: str):
    def fn(*args, **kwargs):
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. {_REPLACEMENT[name]}")

    fn.__name__ = fn.__qualname__ = name
    fn.__doc__ = "Removed in torch 1.9: raises torch's RuntimeError (see torch.linalg)."
    return fn


lstsq, solve, symeig, eig = (_removed(n) for n in ("lstsq", "solve", "symeig", "eig"))


# ---------------------------------------------------------------- Tensor methods
class Resize(Function):
    """``Tensor.resize``'s autograd function (node ``ResizeBackward``): a reshape that keeps the
    number of elements."""

    @staticmethod
    def forward(ctx, tensor: Tensor, sizes) -> Tensor:
        ctx.sizes = tensor.shape
        numel = functools.reduce(operator.mul, sizes, 1) if len(sizes) != 1 else sizes[0]
        if numel != tensor.numel():
            want = "x".join(map(str, sizes))
            have = "x".join(map(str, tensor.shape))
            raise RuntimeError(f"requested resize to {want} ({numel} elements in total), but the given tensor has "
                               f"a size of {have} ({tensor.numel()} elements). autograd's resize can only change "
                               f"the shape of a given tensor, while preserving the number of elements. ")
        return tensor.contiguous().view(sizes).clone()

    @staticmethod
    def backward(ctx, grad_output: Tensor):
        return grad_output.contiguous().view(ctx.sizes), None


def _resize(self: Tensor, *sizes) -> Tensor:
    """Deprecated non-in-place resize: a same-size reshape with a warning (``Tensor.resize``)."""
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, sizes)


def _resize_as(self: Tensor, tensor: Tensor) -> Tensor:
    """Deprecated non-in-place resize_as: ``self`` reshaped to ``tensor``'s (same-size) shape."""
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return Resize.apply(self, tuple(tensor.shape))


def _storage_type(self: Tensor) -> type:
    """The legacy typed-storage class of this tensor's dtype (``torch.FloatStorage`` ...)."""
    from . import _storage

    name = self.type().split(".")[-1].replace("Tensor", "Storage")
    return getattr(_storage, name)


def _removed_method(name: str):
    fn = _removed(name)

    def method(self, *args, **kwargs):
        return fn()

    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    return method


for _name, _fn in (("resize", _resize), ("resize_as", _resize_as), ("storage_type", _storage_type)):
    _fn.__name__ = _fn.__qualname__ = _name
del _name, _fn
# the removed methods (bound to Tensor in _tensor_methods.py)
REMOVED_METHODS = {_name: _removed_method(_name) for _name in ("lstsq", "solve", "symeig", "eig")}
