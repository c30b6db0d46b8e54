"""torch's top-level ``native_*`` and ATen-level nn functions (``convolution``, ``embedding_bag``,
``ctc_loss``, ``grid_sampler*``, ``affine_grid_generator``), composed from ``nn.functional``.

They take ATen's arguments (modes and reductions as ints, every flag positional) and return
ATen's extra outputs (saved statistics, dropout masks, embedding-bag bookkeeping).  Gradients
flow through the ``nn.functional`` ops they call; grad_fn names are those ops', not torch's
``Native...Backward0``.  No gradients are defined here.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor

__all__ = ["native_layer_norm", "native_batch_norm", "native_group_norm", "native_dropout", "native_channel_shuffle",
           "convolution", "embedding_bag", "ctc_loss", "grid_sampler", "grid_sampler_2d", "grid_sampler_3d",
           "affine_grid_generator"]


def _F():
    from . import functional  # (nn.functional imports the table; this module sits above both)

    return functional


def _R():
    import retrograd

    return retrograd


def _stats(x: Tensor, dims: tuple, eps: float, differentiable: bool = False) -> tuple[Tensor, Tensor]:
    # mean and 1/sqrt(biased var + eps) over ``dims`` (kept); torch differentiates them for
    # group norm only (layer and batch norm return them outside the graph)
    from ..autograd import grad_mode

    with grad_mode.set_grad_enabled(differentiable and grad_mode.is_grad_enabled()):
        xd = x if differentiable else x.detach()
        mean = xd.mean(dims, keepdim=True)
        var = xd.var(dims, unbiased=False, keepdim=True)
        return mean, (var + eps).rsqrt()


def native_layer_norm(input: Tensor, normalized_shape, weight: Tensor | None, bias: Tensor | None,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """Layer norm plus the saved mean and reciprocal std (shape ``input.shape[:-k] + (1,) * k``).

    >>> import retrograd as torch
    >>> out, mean, rstd = torch.native_layer_norm(torch.tensor([[1., 3.]]), [2], None, None, 0.)
    >>> out, mean
    (tensor([[-1.,  1.]]), tensor([[2.]]))
    """
    k = len(tuple(normalized_shape))
    out = _F().layer_norm(input, normalized_shape, weight, bias, eps)
    mean, rstd = _stats(input, tuple(range(input.dim() - k, input.dim())), eps)
    return out, mean, rstd


def native_batch_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, running_mean: Tensor | None,
                      running_var: Tensor | None, training: bool, momentum: float,
                      eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """Batch norm plus the batch mean and inverse std per channel (empty tensors in eval mode);
    in training the running statistics are updated in place.

    >>> import retrograd as torch
    >>> out, mean, invstd = torch.native_batch_norm(torch.tensor([[1.], [3.]]), None, None, None, None,
    ...                                             True, 0.1, 1e-5)
    >>> mean
    tensor([2.])
    """
    out = _F().batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not training:
        e = _R().empty(0, dtype=input.dtype)
        return out, e, e.clone()
    dims = (0,) + tuple(range(2, input.dim()))
    mean, rstd = _stats(input, dims, eps)
    return out, mean.reshape(-1), rstd.reshape(-1)


def native_group_norm(input: Tensor, weight: Tensor | None, bias: Tensor | None, N: int, C: int, HxW: int,
                      group: int, eps: float) -> tuple[Tensor, Tensor, Tensor]:
    """Group norm plus the saved mean and reciprocal std, each of shape (N, group).

    >>> import retrograd as torch
    >>> out, mean, rstd = torch.native_group_norm(torch.tensor([[1., 3.]]), None, None, 1, 2, 1, 1, 0.)
    >>> mean
    tensor([[2.]])
    """
    out = _F().group_norm(input, group, weight, bias, eps)
    mean, rstd = _stats(input.reshape(N, group, -1), (2,), eps, True)
    return out, mean.reshape(N, group), rstd.reshape(N, group)


def native_dropout(input: Tensor, p: float, train: bool | None) -> tuple[Tensor, Tensor]:
    """Dropout that also returns its keep-mask (bool); ``train=False`` keeps everything.

    >>> import retrograd as torch
    >>> torch.native_dropout(torch.ones(2), 0.5, False)
    (tensor([1., 1.]), tensor([True, True]))
    """
    R = _R()
    if train is False or p == 0:
        return input.clone(), R.ones(input.shape, dtype=R.bool)
    if p == 1:
        return input * 0, R.zeros(input.shape, dtype=R.bool)
    keep = R.empty_like(input.detach()).bernoulli_(1 - p)  # (the draws torch's CPU dropout makes)
    return input * keep * (1.0 / (1 - p)), keep.to(R.bool)


def native_channel_shuffle(input: Tensor, groups: int) -> Tensor:
    """``torch.channel_shuffle`` (the ATen kernel's name).

    >>> import retrograd as torch
    >>> torch.native_channel_shuffle(torch.arange(4.).reshape(1, 4, 1, 1), 2).flatten()
    tensor([0., 2., 1., 3.])
    """
    return _F().channel_shuffle(input, groups)


def convolution(input: Tensor, weight: Tensor, bias: Tensor | None, stride, padding, dilation, transposed: bool,
                output_padding, groups: int) -> Tensor:
    """N-d convolution (or its transpose) with every option explicit (ATen's ``convolution``).

    >>> import retrograd as torch
    >>> torch.convolution(torch.ones(1, 1, 3), torch.ones(1, 1, 2), None, [1], [0], [1], False, [0], 1)
    tensor([[[2., 2.]]])
    """
    F = _F()
    nd = weight.dim() - 2
    if input.dim() != weight.dim():
        raise RuntimeError(f"Expected {weight.dim()}-dimensional input for {weight.dim()}-dimensional weight "
                           f"{list(weight.shape)}, but got {input.dim()}-dimensional input of size "
                           f"{list(input.shape)} instead")
    if nd not in (1, 2, 3):
        raise RuntimeError(f"convolution: expected a 3-D, 4-D or 5-D weight, got {weight.dim()}-D")

    def per_dim(v):
        v = list(v) if isinstance(v, (list, tuple)) else [v]
        return tuple(v * nd) if len(v) == 1 else tuple(v)

    stride, padding, dilation = per_dim(stride), per_dim(padding), per_dim(dilation)
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[nd - 1]
        return fn(input, weight, bias, stride, padding, per_dim(output_padding), groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[nd - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


_BAG_MODES = ("sum", "mean", "max")


def embedding_bag(weight: Tensor, indices: Tensor, offsets: Tensor, scale_grad_by_freq: bool = False, mode: int = 0,
                  sparse: bool = False, per_sample_weights: Tensor | None = None, include_last_offset: bool = False,
                  padding_idx: int | None = None) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """ATen's ``embedding_bag``: (bag results, offset2bag, bag_size, max_indices); ``mode`` is
    0 sum, 1 mean, 2 max.  For sum the bookkeeping outputs are zeros (offset2bag also empty
    for float32), as torch's CPU kernel returns them.

    >>> import retrograd as torch
    >>> w = torch.arange(6.).reshape(3, 2)
    >>> torch.embedding_bag(w, torch.tensor([0, 2, 1]), torch.tensor([0, 2]), False, 0)[0]
    tensor([[4., 6.],
            [2., 3.]])
    """
    R = _R()
    if mode not in (0, 1, 2):
        raise RuntimeError(f"mode has to be one of sum, mean or max, got {mode}")
    out = _F().embedding_bag(indices, weight, offsets, None, 2, scale_grad_by_freq, _BAG_MODES[mode], sparse,
                             per_sample_weights, include_last_offset, padding_idx)
    nbags = out.shape[0]
    idx = indices._data.reshape(-1)
    starts = [int(o) for o in offsets._data.reshape(-1)][:nbags]
    bounds = starts + [idx.size]
    pad = None if padding_idx is None else padding_idx % weight.shape[0]
    o2b = np.zeros(idx.size, np.int64)
    size = np.zeros(nbags, np.int64)
    for b in range(nbags):
        seg = idx[bounds[b]:bounds[b + 1]]
        o2b[bounds[b]:bounds[b + 1]] = b
        size[b] = int(np.sum(seg != pad)) if pad is not None else seg.size
    if mode == 0:
        # torch's CPU sum kernel leaves bag sizes at zero, and its float32 fast path leaves
        # offset2bag empty too
        z = np.zeros(nbags, np.int64)
        o2b = o2b[:0] if weight.dtype == R.float32 else o2b
        return out, R.tensor(o2b), R.tensor(z), R.tensor(z.copy())
    if mode == 1:
        return out, R.tensor(o2b), R.tensor(size), R.tensor(size.copy())
    w = weight._data
    maxi = np.full((nbags, weight.shape[1]), -1, np.int64)
    for b in range(nbags):
        seg = [int(i) for i in idx[bounds[b]:bounds[b + 1]] if pad is None or int(i) != pad]
        if seg:
            rows = w[seg]
            maxi[b] = np.asarray(seg)[np.argmax(rows, axis=0)]
    return out, R.tensor(o2b), R.tensor(size), R.tensor(maxi)


def ctc_loss(log_probs: Tensor, targets: Tensor, input_lengths, target_lengths, blank: int = 0,
             reduction: int = 0, zero_infinity: bool = False) -> Tensor:
    """``torch.ctc_loss`` with an int ``reduction`` (0 none, 1 mean, 2 sum; torch's top-level
    function defaults to 0).

    >>> import retrograd as torch
    >>> lp = torch.zeros(2, 1, 2).log_softmax(2)
    >>> torch.ctc_loss(lp, torch.tensor([[1]]), [2], [1])
    tensor([0.2877])
    """
    red = {0: "none", 1: "mean", 2: "sum"}.get(reduction)
    if red is None:
        raise ValueError(f"{reduction} is not a valid value for reduction")
    return _F().ctc_loss(log_probs, targets, input_lengths, target_lengths, blank, red, zero_infinity)


_INTERP = {0: "bilinear", 1: "nearest", 2: "bicubic"}
_PADDING = {0: "zeros", 1: "border", 2: "reflection"}


def _grid_sampler(nd: int | None, input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                  align_corners: bool) -> Tensor:
    want = nd or (input.dim() if input.dim() in (4, 5) else 4)
    if input.dim() != want or grid.dim() != want:
        raise RuntimeError(f"grid_sampler(): expected {want}D input and grid with same number of dimensions, but got "
                           f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
    if interpolation_mode not in _INTERP or padding_mode not in _PADDING:
        raise RuntimeError(f"grid_sampler(): unknown interpolation_mode {interpolation_mode} or padding_mode "
                           f"{padding_mode}")
    return _F().grid_sample(input, grid, _INTERP[interpolation_mode], _PADDING[padding_mode], align_corners)


def grid_sampler(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                 align_corners: bool) -> Tensor:
    """``F.grid_sample`` with ATen's int modes (interpolation 0 bilinear, 1 nearest, 2 bicubic;
    padding 0 zeros, 1 border, 2 reflection), 4-D or 5-D.

    >>> import retrograd as torch
    >>> torch.grid_sampler(torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 1, 2), 0, 0, False)
    tensor([[[[1.]]]])
    """
    return _grid_sampler(None, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_2d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """``grid_sampler`` for 4-D input only.

    >>> import retrograd as torch
    >>> torch.grid_sampler_2d(torch.ones(1, 1, 2, 2), torch.zeros(1, 1, 1, 2), 1, 0, False)
    tensor([[[[1.]]]])
    """
    return _grid_sampler(4, input, grid, interpolation_mode, padding_mode, align_corners)


def grid_sampler_3d(input: Tensor, grid: Tensor, interpolation_mode: int, padding_mode: int,
                    align_corners: bool) -> Tensor:
    """``grid_sampler`` for 5-D input only.

    >>> import retrograd as torch
    >>> torch.grid_sampler_3d(torch.ones(1, 1, 2, 2, 2), torch.zeros(1, 1, 1, 1, 3), 0, 0, False)
    tensor([[[[[1.]]]]])
    """
    return _grid_sampler(5, input, grid, interpolation_mode, padding_mode, align_corners)


def affine_grid_generator(theta: Tensor, size, align_corners: bool) -> Tensor:
    """``F.affine_grid`` with ``align_corners`` required (ATen's form).

    >>> import retrograd as torch
    >>> torch.affine_grid_generator(torch.eye(2, 3).unsqueeze(0), [1, 1, 1, 2], False)
    tensor([[[[-0.5000,  0.0000],
              [ 0.5000,  0.0000]]]])
    """
    return _F().affine_grid(theta, list(size), align_corners)
