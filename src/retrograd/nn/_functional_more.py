"""More of ``nn.functional``: shrinkage, rrelu/prelu, in-place forms, pixel_unshuffle, instance and
local-response norm, alpha dropout, upsample aliases, LP / 3-D pooling, *_with_indices, max_unpool, embedding_bag,
gumbel_softmax, affine_grid and grid_sample.

All composed from public retrograd ops (no gradients defined here).

>>> import retrograd as torch
>>> torch.nn.functional.softshrink(torch.tensor([-1., 0.2, 2.]), 0.5)
tensor([-0.5000,  0.0000,  1.5000])
"""
from __future__ import annotations

import math
import warnings

import numpy as np

from .. import _ops as O
from .. import _rng
from .._creation import _eng
from .._ops.nn import adaptive_pooling as _adaptive_pooling, pooling as _pooling, conv as _conv
from .._ops.nn.adaptive_pooling import (adaptive_avg_pool3d, adaptive_max_pool3d, adaptive_max_pool3d_with_indices,
                                        conv_transpose3d)
from .._ops.nn.pooling import avg_pool3d
from .._tensor import Tensor
from ..autograd import grad_mode
from ._grid_sample import grid_sample  # noqa: F401  (re-exported)
from ._util import const

__all__ = ["selu_", "celu_", "threshold_",
           "pixel_unshuffle", "instance_norm", "local_response_norm", "alpha_dropout", "feature_alpha_dropout",
           "dropout3d", "upsample", "upsample_nearest", "upsample_bilinear", "lp_pool1d", "lp_pool2d",
           "gumbel_softmax", "avg_pool3d", "adaptive_avg_pool3d", "adaptive_max_pool3d", "conv_transpose3d",
           "max_pool1d_with_indices", "max_pool2d_with_indices", "max_pool3d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices",
           "adaptive_max_pool3d_with_indices", "max_unpool1d", "max_unpool2d", "max_unpool3d", "embedding_bag",
           "affine_grid", "grid_sample", "lp_pool3d", "channel_shuffle", "native_channel_shuffle", "pdist",
           "conv_tbc"]


def _F():
    # functional.py imports this module at its end, so reach back lazily
    from . import functional
    return functional


def selu_(input: Tensor) -> Tensor:
    return _F().selu(input, inplace=True)


def celu_(input: Tensor, alpha: float = 1.0) -> Tensor:
    return _F().celu(input, alpha, inplace=True)


def threshold_(input: Tensor, threshold: float, value: float) -> Tensor:
    return _F().threshold(input, threshold, value, inplace=True)


def pixel_unshuffle(input: Tensor, downscale_factor: int) -> Tensor:
    """(*, C, H*r, W*r) -> (*, C*r*r, H, W), the inverse of pixel_shuffle.

    >>> import retrograd as torch
    >>> torch.nn.functional.pixel_unshuffle(torch.ones(1, 1, 4, 4), 2).shape
    torch.Size([1, 4, 2, 2])
    """
    r = downscale_factor
    if input.ndim < 3:
        raise RuntimeError(f"pixel_unshuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    c, h, w = input.shape[-3:]
    if h % r or w % r:
        raise RuntimeError(f"pixel_unshuffle expects height to be divisible by downscale_factor, but input.size(-2)"
                           f"={h} is not divisible by {r}" if h % r else
                           f"pixel_unshuffle expects width to be divisible by downscale_factor, but input.size(-1)"
                           f"={w} is not divisible by {r}")
    lead = tuple(input.shape[:-3])
    k = len(lead)
    x = input.reshape(*lead, c, h // r, r, w // r, r)
    x = x.permute(*range(k), k, k + 2, k + 4, k + 1, k + 3)
    return x.reshape(*lead, c * r * r, h // r, w // r)


def instance_norm(input: Tensor, running_mean: Tensor | None = None, running_var: Tensor | None = None,
                  weight: Tensor | None = None, bias: Tensor | None = None, use_input_stats: bool = True,
                  momentum: float = 0.1, eps: float = 1e-5) -> Tensor:
    """Normalise each (sample, channel) over its spatial dims; optionally track running stats.

    >>> import retrograd as torch
    >>> torch.nn.functional.instance_norm(torch.tensor([[[1., 3.]]]))
    tensor([[[-1.0000,  1.0000]]])
    """
    if use_input_stats:
        if int(np.prod(input.shape[2:])) <= 1:
            raise ValueError(f"Expected more than 1 spatial element when training, got input size "
                             f"{list(input.shape)}")
    elif running_mean is None or running_var is None:
        raise RuntimeError("Expected running_mean and running_var to be defined when use_input_stats is false")
    # As PyTorch: a batch norm of one sample whose channels are the N * C (sample, channel) pairs,
    # with the per-channel tensors repeated N times (nodes ViewBackward0 <- NativeBatchNormBackward0);
    # the running statistics then take the mean of the N updated copies.
    n, c = input.shape[0], input.shape[1]
    x = input.reshape(1, n * c, *input.shape[2:])
    w, b, rm, rv = (t.repeat(n) if t is not None else None for t in (weight, bias, running_mean, running_var))
    out = _F()._batch_norm_impl(x, rm, rv, w, b, use_input_stats, momentum, eps)
    if use_input_stats and running_mean is not None and running_var is not None:
        with grad_mode.no_grad():
            running_mean.copy_(rm.view(n, c).mean(0))
            running_var.copy_(rv.view(n, c).mean(0))
    return out.view(input.shape)


def local_response_norm(input: Tensor, size: int, alpha: float = 1e-4, beta: float = 0.75,
                        k: float = 1.0) -> Tensor:
    """x / (k + alpha * mean of x^2 over ``size`` neighbouring channels) ** beta.

    >>> import retrograd as torch
    >>> torch.nn.functional.local_response_norm(torch.ones(1, 2, 1), 2).shape
    torch.Size([1, 2, 1])
    """
    if input.ndim < 3:
        raise ValueError(f"Expected 3D or higher dimensionality input (got {input.ndim} dimensions)")
    if input.numel() == 0:
        return input
    c = input.shape[1]
    sq = input * input
    pad = [0, 0] * (input.ndim - 2) + [size // 2, (size - 1) // 2]
    sq = _F().pad(sq, pad)
    acc = sq.narrow(1, 0, c)
    for j in range(1, size):
        acc = acc + sq.narrow(1, j, c)
    div = O.pow(acc * (alpha / size) + k, beta)
    return input / div


def _alpha_dropout(input: Tensor, p: float, training: bool, inplace: bool, feature: bool) -> Tensor:
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")
    if not training or p == 0.0:
        return input
    if p == 1.0:
        out = input * 0
        return input.copy_(out) if inplace else out
    shape = tuple(input.shape)
    if feature:
        shape = shape[:2] + (1,) * (input.ndim - 2)
    n = int(np.prod(shape))
    keep = _rng.bernoulli_scalar(_eng(None), n, 1.0 - p).reshape(shape).astype(input._data.dtype)
    alpha = 1.7580993408473766
    a = 1.0 / math.sqrt((alpha * alpha * p + 1) * (1 - p))
    b = (keep - 1) * (alpha * a) + alpha * a * p
    out = input * const(keep * a) + const(b)
    return input.copy_(out) if inplace else out


def alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Dropout that keeps SELU's zero mean and unit variance (dropped values go to -alpha' then rescale).

    >>> import retrograd as torch
    >>> torch.nn.functional.alpha_dropout(torch.ones(2), 0.5)
    tensor([1., 1.])
    """
    return _alpha_dropout(input, p, training, inplace, False)


def feature_alpha_dropout(input: Tensor, p: float = 0.5, training: bool = False, inplace: bool = False) -> Tensor:
    """Alpha dropout of whole channels."""
    return _alpha_dropout(input, p, training, inplace, True)


def dropout3d(input: Tensor, p: float = 0.5, training: bool = True, inplace: bool = False) -> Tensor:
    """Zero whole channels of (N, C, D, H, W) input.

    >>> import retrograd as torch
    >>> torch.nn.functional.dropout3d(torch.ones(1, 1, 1, 1, 1), training=False).shape
    torch.Size([1, 1, 1, 1, 1])
    """
    return _F()._feature_dropout(input, p, training, inplace, 5)


def upsample(input: Tensor, size=None, scale_factor=None, mode: str = "nearest", align_corners=None) -> Tensor:
    """Deprecated alias of interpolate."""
    warnings.warn("`nn.functional.upsample` is deprecated. Use `nn.functional.interpolate` instead.", stacklevel=2)
    return _F().interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: interpolate(mode='nearest')."""
    warnings.warn("`nn.functional.upsample_nearest` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return _F().interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input: Tensor, size=None, scale_factor=None) -> Tensor:
    """Deprecated: interpolate(mode='bilinear', align_corners=True)."""
    warnings.warn("`nn.functional.upsample_bilinear` is deprecated. Use `nn.functional.interpolate` instead.",
                  stacklevel=2)
    return _F().interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)


def _lp_pool(nd: int, input: Tensor, norm_type: float, kernel_size, stride, ceil_mode: bool) -> Tensor:
    ks = _conv._tuple(kernel_size, nd)
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


def channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """Interleave the channels of (N, C, *) from ``groups`` groups: (N, g, C/g, *) -> (N, C/g, g, *).

    >>> import retrograd as torch
    >>> torch.nn.functional.channel_shuffle(torch.arange(4.).reshape(1, 4, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    if input.ndim <= 2:
        raise RuntimeError(f"channel_shuffle expects input to have at least 3 dimensions, but got input with "
                           f"{input.ndim} dimension(s)")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of groups:{groups}")
    c = input.shape[1]
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels and {groups} groups.")
    n, rest = input.shape[0], tuple(input.shape[2:])
    return input.reshape(n, groups, c // groups, *rest).transpose(1, 2).reshape(n, c, *rest)


native_channel_shuffle = channel_shuffle


def pdist(input: Tensor, p: float = 2) -> Tensor:
    """p-norm distances between all pairs of rows of (N, M) input, upper triangle in row order.

    >>> import retrograd as torch
    >>> torch.nn.functional.pdist(torch.tensor([[0., 0.], [3., 4.], [0., 4.]]))
    tensor([5., 4., 3.])
    """
    if input.ndim != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.ndim}D")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    i, j = np.triu_indices(input.shape[0], 1)
    d = input[const(i.astype(np.int64))] - input[const(j.astype(np.int64))]
    return O.norm(d, p, -1)


def gumbel_softmax(logits: Tensor, tau: float = 1, hard: bool = False, eps: float = 1e-10, dim: int = -1) -> Tensor:
    """Sample from the Gumbel-softmax distribution; ``hard`` gives one-hot values with soft gradients.

    >>> import retrograd as torch
    >>> torch.nn.functional.gumbel_softmax(torch.zeros(3), hard=True).sum()
    tensor(1.)
    """
    # PyTorch's draw: -log(exponential_()) in the logits' dtype
    e = _rng.exponential(_eng(None), logits._data.size, 1.0).astype(logits._data.dtype)
    g = -np.log(e.reshape(logits._data.shape))
    gumbels = (logits + const(g)) / tau
    y_soft = _F().softmax(gumbels, dim)
    if not hard:
        return y_soft
    idx = np.argmax(y_soft._data, axis=dim)
    hard_np = np.zeros_like(y_soft._data)
    np.put_along_axis(hard_np, np.expand_dims(idx, dim), 1.0, axis=dim)
    return const(hard_np) - y_soft.detach() + y_soft


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """(values, indices) of 1-D max pooling."""
    return _pooling.max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """(values, flat H*W indices) of 2-D max pooling."""
    return _pooling.max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)


def max_pool3d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
                            return_indices: bool = False) -> tuple:
    """(values, flat D*H*W indices) of 3-D max pooling."""
    return _pooling.max_pool3d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


def adaptive_max_pool1d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    return _adaptive_pooling.adaptive_max_pool1d(input, output_size)


def adaptive_max_pool2d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    return _adaptive_pooling.adaptive_max_pool2d_with_indices(input, output_size)


def _max_unpool(nd: int, input: Tensor, indices: Tensor, kernel_size, stride, padding, output_size) -> Tensor:
    ks = _conv._tuple(kernel_size, nd)
    st = ks if stride is None else _conv._tuple(stride, nd)
    pd = _conv._tuple(padding, nd)
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


def embedding_bag(input: Tensor, weight: Tensor, offsets: Tensor | None = None, max_norm: float | None = None,
                  norm_type: float = 2, scale_grad_by_freq: bool = False, mode: str = "mean", sparse: bool = False,
                  per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> Tensor:
    """Sum, mean or max of the embeddings of each bag (rows of a 2-D input, or 1-D input cut at ``offsets``).

    >>> import retrograd as torch
    >>> w = torch.arange(6.).reshape(3, 2)
    >>> torch.nn.functional.embedding_bag(torch.tensor([0, 2, 1]), w, torch.tensor([0, 2]), mode="sum")
    tensor([[4., 6.],
            [2., 3.]])
    """
    if weight.ndim != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension {weight.ndim}")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({tuple(per_sample_weights.shape)}) is not None, "
                         f"then it must have the same shape as the input ({tuple(input.shape)})")
    if mode not in ("sum", "mean", "max"):
        raise ValueError("mode has to be one of sum, mean or max")
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(f"embedding_bag: per_sample_weights was not None. per_sample_weights is only "
                                  f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
                                  "on the Pytorch GitHub.")
    if scale_grad_by_freq and mode == "max":
        raise ValueError("max mode does not support scaling the gradient by the frequency")
    if padding_idx is not None:
        n_emb = weight.shape[0]
        if not -n_emb <= padding_idx < n_emb:
            raise RuntimeError(f"padding_idx must be within the number of embeddings, -{n_emb} through "
                               f"{n_emb - 1}, but got {padding_idx}")
        if padding_idx < 0:
            padding_idx = n_emb + padding_idx
    idx = input._data
    if input.ndim == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated is a mini-batch of "
                             "fixed length sequences. However, found offsets of type Tensor")
        b, length = idx.shape
        starts = np.arange(b) * length
        flat = idx.reshape(-1)
        psw = per_sample_weights.reshape(-1) if per_sample_weights is not None else None
        ends = starts + length
    elif input.ndim == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.ndim != 1:
            raise ValueError("offsets has to be a 1D Tensor")
        off = offsets._data.astype(np.int64)
        flat = idx
        psw = per_sample_weights
        if off.size and off[0] != 0:
            raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch has to start "
                               f"from position 0. However, got {int(off[0])}\n[ torch.LongTensor{{}} ]")
        if off.size and off[-1] > len(idx):
            raise RuntimeError(f"offsets[-1] can not be greater than input's length {len(idx)} but got "
                               f"offsets[-1] of {int(off[-1])}")
        if include_last_offset:
            # as torch: the last bag runs to the end of the input whatever offsets[-1] says
            starts, ends = off[:-1], np.append(off[1:-1], len(idx))
        else:
            starts, ends = off, np.append(off[1:], len(idx))
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension {input.ndim}")
    if max_norm is not None:
        _F()._embedding_renorm_(weight, input, max_norm, norm_type)
    flat = flat.astype(np.int64)
    n = weight.shape[0]
    bad = (flat < 0) | (flat >= n)
    if bad.any():
        k = int(np.argmax(bad))
        if mode != "max" and padding_idx is None and weight._data.dtype != np.float64:
            # (torch's fast sum/mean kernel, used for float32/16 weights without padding_idx, reports
            # the index_select message; its other kernels report the embedding_bag one)
            raise RuntimeError(f"Index {k} of input takes value {int(flat[k])} which is not in the valid range "
                               f"[0, {n})")
        raise RuntimeError(f"embedding_bag: Expected idx >= 0 && idx < num_embeddings but found idx to be "
                           f"{int(flat[k])}")
    keep = np.ones(len(flat), dtype=bool) if padding_idx is None else flat != padding_idx
    # each entry's bag (-1: in none, or padding) and constant factor (mean: 1 / the bag's size)
    bag = np.full(len(flat), -1, dtype=np.int64)
    coef = np.ones(len(flat), dtype=np.float64)
    for b_, (s, e) in enumerate(zip(starts, ends)):
        bag[s:e] = b_
        if mode == "mean":
            cnt = keep[s:e].sum()
            if cnt:
                coef[s:e] = 1.0 / cnt
    bag[~keep] = -1
    if psw is not None and psw.dtype != weight.dtype:
        raise RuntimeError(f"Expected tensor for argument #1 'weight' to have the same type as tensor for argument "
                           f"#1 'per_sample_weights'; but type {weight.type()} does not equal {psw.type()} (while "
                           "checking arguments for embedding_bag)")
    # one node, EmbeddingBagBackward0, with edges to weight and per_sample_weights as in PyTorch
    return O.nn.embedding.embedding_bag(weight, psw, flat, bag, coef,
                                    len(starts), mode, scale_grad_by_freq)


_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to align_corners=False since 1.3.0. "
                  "Please specify align_corners=True if the old behavior is desired. See the documentation of "
                  "grid_sample for details.")


def _base_coords(n: int, align_corners: bool) -> np.ndarray:
    if n <= 1:
        return np.zeros(max(n, 0))
    v = np.linspace(-1.0, 1.0, n)
    return v if align_corners else v * (n - 1) / n


def affine_grid(theta: Tensor, size, align_corners: bool | None = None) -> Tensor:
    """Sampling grid (N, H, W, 2) or (N, D, H, W, 3) of the affine maps ``theta`` (N, 2, 3) / (N, 3, 4).

    >>> import retrograd as torch
    >>> theta = torch.tensor([[[1., 0., 0.], [0., 1., 0.]]])
    >>> torch.nn.functional.affine_grid(theta, (1, 1, 2, 2), align_corners=True)[0, :, :, 0]
    tensor([[-1.,  1.],
            [-1.,  1.]])
    """
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, stacklevel=2)
        align_corners = False
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = tuple(int(v) for v in size)
    if len(size) == 4:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (2, 3):
            raise ValueError(f"Expected a batch of 2D affine matrices of shape Nx2x3 for size {list(size)}. "
                             f"Got {list(theta.shape)}.")
        n, _, h, w = size
        xs, ys = _base_coords(w, align_corners), _base_coords(h, align_corners)
        base = np.stack(np.broadcast_arrays(xs[None, :], ys[:, None], np.ones((h, w))), -1)  # (H, W, 3)
        spatial = (h, w)
    elif len(size) == 5:
        if theta.ndim != 3 or tuple(theta.shape[-2:]) != (3, 4):
            raise ValueError(f"Expected a batch of 3D affine matrices of shape Nx3x4 for size {list(size)}. "
                             f"Got {list(theta.shape)}.")
        n, _, d, h, w = size
        xs, ys, zs = (_base_coords(w, align_corners), _base_coords(h, align_corners),
                      _base_coords(d, align_corners))
        base = np.stack(np.broadcast_arrays(xs[None, None, :], ys[None, :, None], zs[:, None, None],
                                            np.ones((d, h, w))), -1)
        spatial = (d, h, w)
    else:
        raise NotImplementedError(f"affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
                                  f"respectively. Got size {list(size)}.")
    if min(size) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {list(size)}")
    k = base.shape[-1]
    b = const(base.reshape(1, -1, k).astype(theta._data.dtype))
    grid = O.matmul(b, theta.transpose(1, 2))
    return grid.reshape(n, *spatial, k - 1)


def conv_tbc(input: Tensor, weight: Tensor, bias: Tensor, pad: int = 0) -> Tensor:
    """1-D convolution over a (time, batch, channels) input; weight is (kernel, C_in, C_out).

    >>> import retrograd as torch
    >>> torch.nn.functional.conv_tbc(torch.ones(5, 2, 3), torch.ones(2, 3, 4), torch.zeros(4), 1).shape
    torch.Size([6, 2, 4])
    """
    if input.ndim != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.ndim != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, out_channels.")
    if bias.ndim != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.shape[2] != weight.shape[1]:
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.shape[2] != bias.shape[0]:
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    # (T, B, C) -> (B, C, T) for conv1d, and the (K, C_in, C_out) weight -> (C_out, C_in, K)
    out = _F().conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=int(pad))
    return out.permute(2, 0, 1)
