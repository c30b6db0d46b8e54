"""Pooling functions of ``nn.functional`` beyond the op-table primitives: LP (power-average) pooling,
the ``*_with_indices`` forms, ``max_unpool`` and the fractional ``*_with_indices``.

>>> import retrograd as torch
>>> torch.nn.functional.lp_pool1d(torch.tensor([[[3., 4.]]]), 2, 2)
tensor([[[5.]]])
"""
from __future__ import annotations

import math

import numpy as np

from .. import _ops as O
from .._ops.nn.pooling import avg_pool3d
from .._ops.nn.adaptive_pooling import fractional_max_pool2d, fractional_max_pool3d
from .._tensor import Tensor
from ._util import const
from .._ops.nn import adaptive_pooling as _ops_nn_adaptive_pooling
from .._ops.nn import conv as _ops_nn_conv
from .._ops.nn import pooling as _ops_nn_pooling

__all__ = ["lp_pool1d", "lp_pool2d", "lp_pool3d", "max_pool1d_with_indices", "max_pool2d_with_indices",
           "max_pool3d_with_indices", "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "max_unpool1d", "max_unpool2d", "max_unpool3d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d_with_indices"]


def _F():
    # nn.functional imports this module (for its public names), so it is reached lazily
    from . import functional

    return functional


def _lp_pool(nd: int, input: Tensor, norm_type: float, kernel_size, stride, ceil_mode: bool) -> Tensor:
    ks = _ops_nn_conv._tuple(kernel_size, nd)
    st = stride if stride is not None else ks
    if norm_type == math.inf:
        return getattr(_F(), f"max_pool{nd}d")(O.abs(input), ks, st, 0, 1, ceil_mode)
    if norm_type == -math.inf:
        return -getattr(_F(), f"max_pool{nd}d")(-O.abs(input), ks, st, 0, 1, ceil_mode)
    avg = {1: _F().avg_pool1d, 2: _F().avg_pool2d, 3: avg_pool3d}[nd]
    out = avg(O.pow(input, norm_type), ks if nd > 1 else ks[0], st, 0, ceil_mode)
    return O.pow(O.sign(out) * _F().relu(O.abs(out)) * int(np.prod(ks)), 1.0 / norm_type)


def lp_pool1d(input: Tensor, norm_type: float, kernel_size: int, stride=None, ceil_mode: bool = False) -> Tensor:
    """(sum over each window of x^p) ^ (1/p).

    >>> import retrograd as torch
    >>> torch.nn.functional.lp_pool1d(torch.tensor([[[3., 4.]]]), 2, 2)
    tensor([[[5.]]])
    """
    return _lp_pool(1, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool2d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """2-D power-average pooling."""
    return _lp_pool(2, input, norm_type, kernel_size, stride, ceil_mode)


def lp_pool3d(input: Tensor, norm_type: float, kernel_size, stride=None, ceil_mode: bool = False) -> Tensor:
    """3-D power-average pooling."""
    return _lp_pool(3, input, norm_type, kernel_size, stride, ceil_mode)


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """(values, indices) of 1-D max pooling."""
    return _ops_nn_pooling.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """(values, flat H*W indices) of 2-D max pooling."""
    return _ops_nn_pooling.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """(values, flat D*H*W indices) of 3-D max pooling."""
    return _ops_nn_pooling.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    return _ops_nn_adaptive_pooling.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    return _ops_nn_adaptive_pooling.adaptive_max_pool2d_with_indices(input, output_size)


def _max_unpool(nd: int, input: Tensor, indices: Tensor, kernel_size, stride, padding, output_size) -> Tensor:
    ks = _ops_nn_conv._tuple(kernel_size, nd)
    st = ks if stride is None else _ops_nn_conv._tuple(stride, nd)
    pd = _ops_nn_conv._tuple(padding, nd)
    batched = input.ndim == nd + 2
    x, idx = (input, indices) if batched else (input.unsqueeze(0), indices.unsqueeze(0))
    spatial = tuple(x.shape[2:])
    default = tuple((i - 1) * s - 2 * p + k for i, s, p, k in zip(spatial, st, pd, ks))
    if output_size is None:
        out_sp = default
    else:
        # torch accepts the spatial sizes alone or with (N, C) in front, and only sizes that the
        # pooling could have come from: strictly within one stride of the default size.
        if len(output_size) == nd + 2:
            output_size = output_size[2:]
        if len(output_size) != nd:
            raise ValueError(f"output_size should be a sequence containing {nd} or {nd + 2} elements, but it has a "
                             f"length of '{len(output_size)}'")
        out_sp = tuple(int(v) for v in output_size)
        for d in range(nd):
            lo, hi = default[d] - st[d], default[d] + st[d]
            if not lo < out_sp[d] < hi:
                raise ValueError(f'invalid output_size "{output_size}" (dim {d} must be between {lo} and {hi})')
    if indices._data.dtype != np.int64:
        from .._tensor import _scalar_type_name

        raise RuntimeError(f"elements in indices should be type int64 but got: {_scalar_type_name(indices.dtype)}")
    if tuple(indices.shape) != tuple(input.shape):
        # (PyTorch runs the 1-d op as a 2-d one: a trailing 1 in the shapes it prints)
        extra = [1] if nd == 1 else []
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape) + extra}) but got indices tensor with shape: "
                           f"{list(indices.shape) + extra}")
    n, c = x.shape[0], x.shape[1]
    total = int(np.prod(out_sp))
    ii = idx._data.reshape(n, c, -1)
    if ii.size and (ii.min() < 0 or ii.max() >= total):
        raise RuntimeError(f"Found an invalid max index: {int(ii.max() if ii.max() >= total else ii.min())} "
                           f"(output volumes are of size {'x'.join(str(o) for o in out_sp + ((1,) if nd == 1 else ()))})")
    zeros = const(np.zeros((n, c, total), dtype=x._data.dtype))
    out = O.scatter(zeros, 2, const(ii.astype(np.int64)), x.reshape(n, c, -1)).reshape(n, c, *out_sp)
    return out if batched else out.squeeze(0)


def max_unpool1d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Place each value at its max-pool index in a zero (N, C, L_out) tensor (partial inverse of max_pool1d)."""
    return _max_unpool(1, input, indices, kernel_size, stride, padding, output_size)


def max_unpool2d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Partial inverse of max_pool2d: values scattered to their indices, zeros elsewhere.

    >>> import retrograd as torch
    >>> F = torch.nn.functional
    >>> y, i = F.max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2, return_indices=True)
    >>> F.max_unpool2d(y, i, 2).sum()
    tensor(40.)
    """
    return _max_unpool(2, input, indices, kernel_size, stride, padding, output_size)


def max_unpool3d(input: Tensor, indices: Tensor, kernel_size, stride=None, padding=0, output_size=None) -> Tensor:
    """Partial inverse of max_pool3d."""
    return _max_unpool(3, input, indices, kernel_size, stride, padding, output_size)


def fractional_max_pool2d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None) -> tuple:
    """(values, indices) of :func:`fractional_max_pool2d`."""
    return fractional_max_pool2d(input, kernel_size, output_size, output_ratio, True, _random_samples)


def fractional_max_pool3d_with_indices(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                                       return_indices: bool = False, _random_samples=None) -> tuple:
    """(values, indices) of :func:`fractional_max_pool3d`."""
    return fractional_max_pool3d(input, kernel_size, output_size, output_ratio, True, _random_samples)
