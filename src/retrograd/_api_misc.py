"""Top-level names and Tensor methods of torch 2.13 that need no op of their own: the DLPack
functions, ``set_flush_denormal``, the deprecated non-in-place ``Tensor.resize``/``resize_as``,
``igamma_``/``igammac_``/``conj_physical_``, ``Tensor.storage_type`` and the removed linear-algebra
functions (``lstsq``, ``solve``, ``symeig``, ``eig``), which raise torch's removal error.

>>> import retrograd as torch
>>> torch.ones(6).resize_as(torch.zeros(2, 3)).shape
torch.Size([2, 3])
"""
from __future__ import annotations

import functools
import operator
import warnings

from ._tensor import Tensor
from .autograd.function import Function
from .utils.dlpack import from_dlpack, to_dlpack

__all__ = ["from_dlpack", "to_dlpack", "set_flush_denormal", "lstsq", "solve", "symeig", "eig", "conj_physical_"]


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal floats to zero could be switched: False, since NumPy offers no
    control of the CPU's flush-to-zero mode (torch returns True on x86 CPUs).

    >>> import retrograd as torch
    >>> torch.set_flush_denormal(True)
    False
    """
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False


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


def _igamma_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`retrograd.igamma`."""
    from ._ops._inplace import inplace_via
    from ._ops.special import igamma

    return inplace_via(self, lambda x: igamma(x, other), (other,))


def _igammac_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`retrograd.igammac`."""
    from ._ops._inplace import inplace_via
    from ._ops.special import igammac

    return inplace_via(self, lambda x: igammac(x, other), (other,))


def _conj_physical_(self: Tensor) -> Tensor:
    """In-place conjugation: nothing to do on real tensors (returns ``self``)."""
    return self


def conj_physical_(input: Tensor) -> Tensor:
    """In-place conjugation: nothing to do on real tensors (returns ``input``).

    >>> import retrograd as torch
    >>> torch.conj_physical_(torch.tensor([1.]))
    tensor([1.])
    """
    return input


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


for _name, _fn in (("resize", _resize), ("resize_as", _resize_as), ("igamma_", _igamma_), ("igammac_", _igammac_),
                   ("conj_physical_", _conj_physical_), ("storage_type", _storage_type)):
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(Tensor, _name, _fn)
for _name in ("lstsq", "solve", "symeig", "eig"):
    setattr(Tensor, _name, _removed_method(_name))
del _name, _fn
