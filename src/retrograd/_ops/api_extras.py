"""Top-level torch functions that are plain compositions of other retrograd ops: the ``*_copy``
view-copy variants, function forms of ``detach``/``fill``, window functions, ``torch.gradient``
and the top-level aliases of ``nn.functional`` losses/ops with torch's top-level signatures
(reductions as ints: 0 none, 1 mean, 2 sum).  No gradients are defined here.

The ``*_copy`` ops return a fresh contiguous tensor; their grad_fn is ``CloneBackward0``
(torch names its nodes ``<View>Backward0_copy``, which retrograd does not reproduce).
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor
from ._common import tensor_args

__all__ = ["alias_copy", "diagonal_copy", "expand_copy", "permute_copy", "select_copy", "slice_copy",
           "split_copy", "split_with_sizes_copy", "squeeze_copy", "t_copy", "transpose_copy", "unbind_copy",
           "unfold_copy", "unsqueeze_copy", "view_copy", "detach", "detach_", "fill",
           "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window", "gradient",
           "binary_cross_entropy_with_logits", "kl_div", "hinge_embedding_loss", "margin_ranking_loss",
           "poisson_nll_loss", "triplet_margin_loss", "cosine_embedding_loss", "prelu", "rms_norm",
           "pixel_unshuffle", "channel_shuffle", "alpha_dropout", "feature_alpha_dropout", "feature_dropout"]


def _R():
    import retrograd

    return retrograd


def _F():
    from ..nn import functional

    return functional


def _fresh(t: Tensor) -> Tensor:
    from .._layout import contiguous_format

    return t.clone(memory_format=contiguous_format)  # (torch's *_copy results are contiguous)


def _tensor_arg(fn: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


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


def fill(input: Tensor, value) -> Tensor:
    """Out-of-place ``fill_``: a tensor like ``input`` filled with ``value``.

    >>> import retrograd as torch
    >>> torch.fill(torch.zeros(2), 3.)
    tensor([3., 3.])
    """
    _tensor_arg("fill", input)
    return input.clone().fill_(value)


# ------------------------------------------------------------------ window functions
def _window(name: str, window_length: int, periodic: bool, dtype, requires_grad: bool, fn) -> Tensor:
    if window_length < 0:
        raise RuntimeError(f"{name} requires non-negative window_length, got window_length={window_length}")
    dt = D.get_default_dtype() if dtype is None else dtype
    if not dt.is_floating_point:
        cname = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}.get(dt.name, dt.name)
        raise RuntimeError(f"{name} expects floating point dtypes, got: TensorOptions(dtype={cname}, device=cpu, "
                           "layout=Strided (default), requires_grad=false (default), pinned_memory=false, "
                           "memory_format=(nullopt))")
    if window_length == 0:
        arr = np.zeros(0)
    elif window_length == 1:
        arr = np.ones(1)
    else:
        n = window_length + 1 if periodic else window_length
        # computed in the target dtype, step by step as torch does, so float32 rounding matches
        arr = fn(np.arange(n, dtype=dt.np), n)[:window_length]
    t = _R().tensor(arr.astype(dt.np), dtype=dt)
    return t.requires_grad_(True) if requires_grad else t


def _cos_window(alpha: float, beta: float):
    def fn(k, n):
        t = k.dtype.type
        return np.cos(k * t(2 * math.pi / (n - 1))) * t(-beta) + t(alpha)

    return fn


def _blackman(k, n):
    t = k.dtype.type
    w = k * t(math.pi / (n - 1))
    return np.cos(w * t(4)) * t(0.08) - np.cos(w * t(2)) * t(0.5) + t(0.42)


def _bartlett(k, n):
    t = k.dtype.type
    w = k * t(2.0 / (n - 1))
    half = ((n - 1) >> 1) + 1
    w[half:] = w[half:] * t(-1) + t(2)
    return w


def hann_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                requires_grad: bool = False) -> Tensor:
    """Hann window.

    >>> import retrograd as torch
    >>> torch.hann_window(4)
    tensor([0.0000, 0.5000, 1.0000, 0.5000])
    """
    return _window("hann_window", window_length, periodic, dtype, requires_grad, _cos_window(0.5, 0.5))


def hamming_window(window_length: int, periodic: bool = True, alpha: float = 0.54, beta: float = 0.46, *,
                   dtype=None, layout=None, device=None, requires_grad: bool = False) -> Tensor:
    """Hamming window (``alpha - beta cos(2 pi n / (N - 1))``).

    >>> import retrograd as torch
    >>> torch.hamming_window(3, False, dtype=torch.float64)
    tensor([0.0800, 1.0000, 0.0800], dtype=torch.float64)
    """
    return _window("hamming_window", window_length, periodic, dtype, requires_grad, _cos_window(alpha, beta))


def blackman_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """Blackman window.

    >>> import retrograd as torch
    >>> torch.blackman_window(3, False, dtype=torch.float64).round(decimals=4).abs()
    tensor([0., 1., 0.], dtype=torch.float64)
    """
    return _window("blackman_window", window_length, periodic, dtype, requires_grad, _blackman)


def bartlett_window(window_length: int, periodic: bool = True, *, dtype=None, layout=None, device=None,
                    requires_grad: bool = False) -> Tensor:
    """Bartlett (triangular) window.

    >>> import retrograd as torch
    >>> torch.bartlett_window(5, False)
    tensor([0.0000, 0.5000, 1.0000, 0.5000, 0.0000])
    """
    return _window("bartlett_window", window_length, periodic, dtype, requires_grad,
                   _bartlett)


def kaiser_window(window_length: int, periodic: bool = True, beta: float = 12.0, *, dtype=None, layout=None,
                  device=None, requires_grad: bool = False) -> Tensor:
    """Kaiser window with shape parameter ``beta``.

    >>> import retrograd as torch
    >>> torch.kaiser_window(3, False, 0.0)
    tensor([1., 1., 1.])
    """
    def fn(k, n):
        alpha = (n - 1) / 2.0
        k = k.astype(np.float64)
        return np.i0(beta * np.sqrt(np.clip(1 - ((k - alpha) / alpha) ** 2, 0, None))) / np.i0(beta)

    return _window("kaiser_window", window_length, periodic, dtype, requires_grad, fn)


# ------------------------------------------------------------------ torch.gradient
def _sl(f: Tensor, dim: int, start, stop) -> Tensor:
    from .shape import slice_dim

    return slice_dim(f, dim, start, stop, 1)


def _coord_view(c: Tensor, dim: int, ndim: int) -> Tensor:
    shape = [1] * ndim
    shape[dim] = -1
    return c.reshape(shape)


def _grad_one(f: Tensor, dim: int, h, edge_order: int) -> Tensor:
    R = _R()
    if not isinstance(h, Tensor):  # uniform spacing
        interior = (_sl(f, dim, 2, None) - _sl(f, dim, None, -2)) / (2 * h)
        if edge_order == 1:
            first = (_sl(f, dim, 1, 2) - _sl(f, dim, 0, 1)) / h
            last = (_sl(f, dim, -1, None) - _sl(f, dim, -2, -1)) / h
        else:
            first = (-1.5 * _sl(f, dim, 0, 1) + 2 * _sl(f, dim, 1, 2) - 0.5 * _sl(f, dim, 2, 3)) / h
            last = (0.5 * _sl(f, dim, -3, -2) - 2 * _sl(f, dim, -2, -1) + 1.5 * _sl(f, dim, -1, None)) / h
        return R.cat([first, interior, last], dim)
    nd = f.ndim
    dx = h[1:] - h[:-1]
    dx1, dx2 = _coord_view(dx[:-1], dim, nd), _coord_view(dx[1:], dim, nd)
    a = -dx2 / (dx1 * (dx1 + dx2))
    b = (dx2 - dx1) / (dx1 * dx2)
    c = dx1 / (dx2 * (dx1 + dx2))
    interior = a * _sl(f, dim, None, -2) + b * _sl(f, dim, 1, -1) + c * _sl(f, dim, 2, None)
    if edge_order == 1:
        first = (_sl(f, dim, 1, 2) - _sl(f, dim, 0, 1)) / dx[0]
        last = (_sl(f, dim, -1, None) - _sl(f, dim, -2, -1)) / dx[-1]
    else:
        d1, d2 = dx[0], dx[1]
        first = (-(2 * d1 + d2) / (d1 * (d1 + d2)) * _sl(f, dim, 0, 1) + (d1 + d2) / (d1 * d2) * _sl(f, dim, 1, 2)
                 - d1 / (d2 * (d1 + d2)) * _sl(f, dim, 2, 3))
        d1, d2 = dx[-2], dx[-1]
        last = (d2 / (d1 * (d1 + d2)) * _sl(f, dim, -3, -2) - (d2 + d1) / (d1 * d2) * _sl(f, dim, -2, -1)
                + (2 * d2 + d1) / (d2 * (d1 + d2)) * _sl(f, dim, -1, None))
    return R.cat([first, interior, last], dim)


def gradient(input: Tensor, *, spacing=1, dim=None, edge_order: int = 1) -> tuple:
    """Central-difference estimate of the gradient of ``input`` along each of ``dim``
    (all dims by default); one tensor per dim.

    >>> import retrograd as torch
    >>> torch.gradient(torch.tensor([1., 2., 4., 8.]))
    (tensor([1.0000, 1.5000, 3.0000, 4.0000]),)
    """
    from ._common import wrap_dim

    _tensor_arg("gradient", input)
    if input._data.dtype.kind == "b":  # (PyTorch's differences are subtractions: refused for bool)
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    nd = input.ndim
    dims = list(range(nd)) if dim is None else ([dim] if isinstance(dim, int) else list(dim))
    dims = [wrap_dim(d, nd) for d in dims]
    if spacing is None:  # (PyTorch's default, spelled out)
        spacing = 1
    if isinstance(spacing, (list, tuple)):
        if len(spacing) != len(dims):
            if dim is None:
                raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar, or a list of "
                                   f"length equal to 'self.dim() = {nd}', since dim argument was not given, but "
                                   f"got a list of length {len(spacing)}")
            raise RuntimeError("torch.gradient expected spacing to be unspecified, a scalar or it's spacing and "
                               "dim arguments to have the same length, but got a spacing argument of length "
                               f"{len(spacing)} and a dim argument of length {len(dims)}.")
        hs = list(spacing)
    else:
        hs = [spacing] * len(dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least edge_order+1")
    f = input if input.is_floating_point() else input.to(D.get_default_dtype())
    return tuple(_grad_one(f, d, h, edge_order) for d, h in zip(dims, hs))


# ------------------------------------------------------------------ top-level nn.functional aliases
# torch's top-level functions behave as if their default reduction were 0 ('none'), though its
# stubs print ``reduction=1``; retrograd follows the behaviour.
_REDUCTIONS = {0: "none", 1: "mean", 2: "sum"}


def _red(reduction) -> str:
    if isinstance(reduction, str):
        return reduction
    return _REDUCTIONS[int(reduction)]


def binary_cross_entropy_with_logits(input: Tensor, target: Tensor, weight: Tensor | None = None,
                                     pos_weight: Tensor | None = None, reduction: int = 0) -> Tensor:
    """``torch.binary_cross_entropy_with_logits`` (reduction: 0 none, 1 mean, 2 sum).

    >>> import retrograd as torch
    >>> torch.binary_cross_entropy_with_logits(torch.zeros(2), torch.ones(2), None, None, 1)
    tensor(0.6931)
    """
    return _F().binary_cross_entropy_with_logits(input, target, weight, reduction=_red(reduction),
                                                 pos_weight=pos_weight)


def kl_div(input: Tensor, target: Tensor, reduction: int = 0, *, log_target: bool = False) -> Tensor:
    """``torch.kl_div`` (reduction: 0 none, 1 mean over all elements, 2 sum).

    >>> import retrograd as torch
    >>> torch.kl_div(torch.zeros(2), torch.ones(2))
    tensor([0., 0.])
    """
    return _F().kl_div(input, target, reduction=_red(reduction), log_target=log_target)


def hinge_embedding_loss(input: Tensor, target: Tensor, margin: float = 1.0, reduction: int = 0) -> Tensor:
    """``torch.hinge_embedding_loss``.

    >>> import retrograd as torch
    >>> torch.hinge_embedding_loss(torch.tensor([0.5]), torch.tensor([-1.]))
    tensor([0.5000])
    """
    return _F().hinge_embedding_loss(input, target, margin, reduction=_red(reduction))


def margin_ranking_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                        reduction: int = 0) -> Tensor:
    """``torch.margin_ranking_loss``.

    >>> import retrograd as torch
    >>> torch.margin_ranking_loss(torch.tensor([1.]), torch.tensor([2.]), torch.tensor([1.]))
    tensor([1.])
    """
    return _F().margin_ranking_loss(input1, input2, target, margin, reduction=_red(reduction))


def poisson_nll_loss(input: Tensor, target: Tensor, log_input: bool, full: bool, eps: float,
                     reduction: int) -> Tensor:
    """``torch.poisson_nll_loss`` (every argument required, as in torch).

    >>> import retrograd as torch
    >>> torch.poisson_nll_loss(torch.zeros(2), torch.zeros(2), True, False, 1e-8, 1)
    tensor(1.)
    """
    return _F().poisson_nll_loss(input, target, log_input, full, eps=eps, reduction=_red(reduction))


def triplet_margin_loss(anchor: Tensor, positive: Tensor, negative: Tensor, margin: float = 1.0, p: float = 2,
                        eps: float = 1e-06, swap: bool = False, reduction: int = 0) -> Tensor:
    """``torch.triplet_margin_loss``.

    >>> import retrograd as torch
    >>> torch.triplet_margin_loss(torch.zeros(1, 2), torch.zeros(1, 2), torch.zeros(1, 2))
    tensor([1.])
    """
    return _F().triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap, reduction=_red(reduction))


def cosine_embedding_loss(input1: Tensor, input2: Tensor, target: Tensor, margin: float = 0.0,
                          reduction: int = 0) -> Tensor:
    """``torch.cosine_embedding_loss``.

    >>> import retrograd as torch
    >>> torch.cosine_embedding_loss(torch.ones(1, 2), torch.ones(1, 2), torch.tensor([1.]))
    tensor([0.])
    """
    return _F().cosine_embedding_loss(input1, input2, target, margin, reduction=_red(reduction))


@tensor_args("prelu", weight=2)
def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """``torch.prelu``: max(0, x) + weight * min(0, x).

    >>> import retrograd as torch
    >>> torch.prelu(torch.tensor([-2., 2.]), torch.tensor([0.5]))
    tensor([-1.,  2.])
    """
    return _F().prelu(input, weight)


def rms_norm(input: Tensor, normalized_shape, weight: Tensor | None = None, eps: float | None = None) -> Tensor:
    """``torch.rms_norm``.

    >>> import retrograd as torch
    >>> torch.rms_norm(torch.tensor([3., 4.]), [2])
    tensor([0.8485, 1.1314])
    """
    return _F().rms_norm(input, normalized_shape, weight, eps)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """``torch.pixel_unshuffle``.

    >>> import retrograd as torch
    >>> torch.pixel_unshuffle(torch.zeros(1, 1, 4, 4), 2).shape
    torch.Size([1, 4, 2, 2])
    """
    return _F().pixel_unshuffle(input, downscale_factor)


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.channel_shuffle``.

    >>> import retrograd as torch
    >>> torch.channel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return _F().channel_shuffle(input, groups)


def alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.alpha_dropout(input, p, train)``.

    >>> import retrograd as torch
    >>> torch.alpha_dropout(torch.ones(2), 0.5, False)
    tensor([1., 1.])
    """
    return _F().alpha_dropout(input, p, train)


def feature_alpha_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_alpha_dropout(input, p, train)``.

    >>> import retrograd as torch
    >>> torch.feature_alpha_dropout(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    return _F().feature_alpha_dropout(input, p, train)


def feature_dropout(input: Tensor, p: float, train: bool) -> Tensor:
    """``torch.feature_dropout(input, p, train)``: zero whole channels (dim 1) with probability p.

    >>> import retrograd as torch
    >>> torch.feature_dropout(torch.ones(1, 2), 0.5, False)
    tensor([[1., 1.]])
    """
    F = _F()
    F._check_p(p)
    if not train or p == 0.0:
        return input
    shape = tuple(input.shape[:2]) + (1,) * (input.ndim - 2)
    return input * F._keep_mask(shape, p, input.dtype)


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
