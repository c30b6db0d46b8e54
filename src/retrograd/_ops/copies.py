"""The *_copy variants of view ops (view_copy, expand_copy, ... as_strided_copy, detach_copy,
narrow_copy), detach/detach_."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._common import _contig, _tensor_arg, wrap_dim
from ._composite import _R, _supports_out
from ._registry import apply, primitive

__all__ = ["narrow_copy", "alias_copy", "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "slice_copy",
           "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy",
           "unfold_copy", "unsqueeze_copy", "view_copy", "detach", "detach_", "as_strided_copy", "detach_copy"]


def _narrow_copy_rule(g, a_shape, dim, start, length):
    R = _R()
    return slice_scatter(R.zeros(a_shape, dtype=g.dtype), g, dim, start, start + length)


_narrow_copy = primitive("narrow_copy", lambda a, *, dim, start, length: np.array(
    a[(slice(None),) * dim + (slice(start, start + length),)]), node="NarrowCopyBackward0", a=_narrow_copy_rule)


@_supports_out
def narrow_copy(input: Tensor, dim: int, start: int, length: int, *, out=None) -> Tensor:
    """A copy (not a view) of ``input.narrow(dim, start, length)``.

    >>> import retrograd as torch
    >>> torch.narrow_copy(torch.arange(4), 0, 1, 2)
    tensor([1, 2])
    """
    view = input.detach().narrow(dim, start, length)  # PyTorch's argument checks and errors
    d = wrap_dim(dim, input.dim())
    st = start + input.shape[d] if start < 0 else start
    assert view.shape[d] == length
    return apply(_narrow_copy, (input,), {"dim": d, "start": st, "length": length})


def _fresh(t: Tensor) -> Tensor:
    from .._layout import contiguous_format

    return t.clone(memory_format=contiguous_format)  # (torch's *_copy results are contiguous)


# ------------------------------------------------------------------ view-copy variants
def alias_copy(input: Tensor) -> Tensor:
    """A fresh copy of ``input`` (``torch.alias`` without aliasing).

    >>> import retrograd as torch
    >>> torch.alias_copy(torch.tensor([1., 2.]))
    tensor([1., 2.])
    """
    _tensor_arg("alias_copy", input)
    return _fresh(input)


def diagonal_copy(input: Tensor, offset: int = 0, dim1: int = 0, dim2: int = 1) -> Tensor:
    """``torch.diagonal`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.diagonal_copy(torch.eye(2))
    tensor([1., 1.])
    """
    return _fresh(_R().diagonal(input, offset, dim1, dim2))


def expand_copy(input: Tensor, size, *, implicit: bool = False) -> Tensor:
    """``input.expand(size)`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.expand_copy(torch.tensor([1., 2.]), (2, 2))
    tensor([[1., 2.],
            [1., 2.]])
    """
    return _fresh(input.expand(*size))


def permute_copy(input: Tensor, dims) -> Tensor:
    """``torch.permute`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.permute_copy(torch.zeros(2, 3), (1, 0)).shape
    torch.Size([3, 2])
    """
    return _fresh(_R().permute(input, dims))


def select_copy(input: Tensor, dim: int, index: int) -> Tensor:
    """``torch.select`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.select_copy(torch.tensor([[1., 2.], [3., 4.]]), 0, 1)
    tensor([3., 4.])
    """
    return _fresh(_R().select(input, dim, index))


def slice_copy(input: Tensor, dim: int = 0, start: int | None = None, end: int | None = None,
               step: int = 1) -> Tensor:
    """``input[..., start:end:step, ...]`` along ``dim`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.slice_copy(torch.arange(5.), 0, 1, 4, 2)
    tensor([1., 3.])
    """
    from .shape import slice_dim

    return _fresh(slice_dim(input, dim, start, end, step))


def split_copy(input: Tensor, split_size: int, dim: int = 0) -> tuple:
    """``torch.split`` with fresh tensors.

    >>> import retrograd as torch
    >>> torch.split_copy(torch.arange(3.), 2)
    (tensor([0., 1.]), tensor([2.]))
    """
    return tuple(_fresh(t) for t in _R().split(input, split_size, dim))


def split_with_sizes_copy(input: Tensor, split_sizes, dim: int = 0) -> tuple:
    """``torch.split_with_sizes`` with fresh tensors.

    >>> import retrograd as torch
    >>> torch.split_with_sizes_copy(torch.arange(3.), [1, 2])
    (tensor([0.]), tensor([1., 2.]))
    """
    return tuple(_fresh(t) for t in _R().split_with_sizes(input, split_sizes, dim))


def squeeze_copy(input: Tensor, dim=None) -> Tensor:
    """``torch.squeeze`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.squeeze_copy(torch.zeros(1, 2)).shape
    torch.Size([2])
    """
    return _fresh(_R().squeeze(input) if dim is None else _R().squeeze(input, dim))


def t_copy(input: Tensor) -> Tensor:
    """``torch.t`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.t_copy(torch.zeros(2, 3)).shape
    torch.Size([3, 2])
    """
    return _fresh(_R().t(input))


def transpose_copy(input: Tensor, dim0: int, dim1: int) -> Tensor:
    """``torch.transpose`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.transpose_copy(torch.zeros(2, 3), 0, 1).shape
    torch.Size([3, 2])
    """
    return _fresh(_R().transpose(input, dim0, dim1))


def unbind_copy(input: Tensor, dim: int = 0) -> tuple:
    """``torch.unbind`` with fresh tensors.

    >>> import retrograd as torch
    >>> torch.unbind_copy(torch.tensor([[1., 2.]]), 1)
    (tensor([1.]), tensor([2.]))
    """
    return tuple(_fresh(t) for t in _R().unbind(input, dim))


def unfold_copy(input: Tensor, dimension: int, size: int, step: int) -> Tensor:
    """``input.unfold(dimension, size, step)`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.unfold_copy(torch.arange(4.), 0, 2, 2)
    tensor([[0., 1.],
            [2., 3.]])
    """
    return _fresh(input.unfold(dimension, size, step))


def unsqueeze_copy(input: Tensor, dim: int) -> Tensor:
    """``torch.unsqueeze`` as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.unsqueeze_copy(torch.zeros(2), 0).shape
    torch.Size([1, 2])
    """
    return _fresh(_R().unsqueeze(input, dim))


def view_copy(input: Tensor, size) -> Tensor:
    """``input.view(size)`` (a shape or a dtype) as a fresh tensor.

    >>> import retrograd as torch
    >>> torch.view_copy(torch.zeros(2, 3), (3, 2)).shape
    torch.Size([3, 2])
    """
    if isinstance(size, D.dtype):
        return _fresh(input.view(size))
    return _fresh(input.view(*size) if isinstance(size, (tuple, list)) else input.view(size))


# ------------------------------------------------------------------ function forms
def detach(input: Tensor) -> Tensor:
    """``input.detach()``.

    >>> import retrograd as torch
    >>> torch.detach(torch.ones(2, requires_grad=True)).requires_grad
    False
    """
    _tensor_arg("detach", input)
    return input.detach()


def detach_(input: Tensor) -> Tensor:
    """``input.detach_()``.

    >>> import retrograd as torch
    >>> torch.detach_(torch.ones(2)).requires_grad
    False
    """
    _tensor_arg("detach_", input)
    return input.detach_()


def _give_copies_out() -> None:
    # torch's *_copy functions all take ``out=`` (one tensor, or one per piece for the splitting ones),
    # which must have exactly the result's dtype
    from ._out import with_out

    g = globals()
    for name in ("alias_copy", "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "slice_copy",
                 "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy",
                 "unfold_copy", "unsqueeze_copy", "view_copy"):
        # (exactly the result's dtype; PyTorch allows inputs that require grad here)
        g[name] = with_out(name, "same", tuple_mode="same", grad_check=False)(g[name])


_give_copies_out()


def _const_contiguous(a: np.ndarray) -> Tensor:
    return Tensor._wrap(np.ascontiguousarray(a), False, None, 0)


def as_strided_copy(input: Tensor, size, stride, storage_offset: int | None = None) -> Tensor:
    """``torch.as_strided`` as a fresh contiguous tensor (differentiable).

    >>> import retrograd as torch
    >>> torch.as_strided_copy(torch.arange(6.), (2, 2), (1, 2))
    tensor([[0., 2.],
            [1., 3.]])
    """
    _tensor_arg("as_strided_copy", input)
    return input.as_strided(size, stride, storage_offset).clone(memory_format=_contig())


def detach_copy(input: Tensor) -> Tensor:
    """A copy of ``input`` outside the graph (``torch.detach`` without aliasing).

    >>> import retrograd as torch
    >>> torch.detach_copy(torch.ones(2, requires_grad=True))
    tensor([1., 1.])
    """
    _tensor_arg("detach_copy", input)
    return input.detach().clone()


# Run-time references to modules that import this one (bound last, so either import order works)
from .scatter import slice_scatter  # noqa: E402
