"""Adaptive avg/max pooling, fractional max pooling."""
from __future__ import annotations

import math

import numpy as np

from ..._layout import follows_input_layout as _follow
from ..._tensor import Tensor
from .._common import tensor_args
from .._keep_graph import keep_graph
from .._registry import apply, primitive
from ..shape import squeeze, unsqueeze
from .conv import _conv_transposend, _t, _tuple
from .pooling import _indices_out, _max_index_twin, _pool_bw_rule

__all__ = ["adaptive_avg_pool1d", "adaptive_max_pool1d", "conv_transpose3d"]


# ====================================================================== adaptive pooling
def _adaptive_ranges(size: int, out: int):
    return [(i * size // out, -(-(i + 1) * size // out)) for i in range(out)]


def _adaptive_matrix(size: int, out: int) -> np.ndarray:
    m = np.zeros((out, size))
    for i, (a, b) in enumerate(_adaptive_ranges(size, out)):
        m[i, a:b] = 1.0 / (b - a)
    return m


def _adaptive_avg_fw(x, *, out_size):
    y = x
    for i, o in enumerate(out_size):
        ax = x.ndim - len(out_size) + i
        m = _adaptive_matrix(x.shape[ax], o).astype(x.dtype)
        y = np.moveaxis(np.tensordot(y, m, axes=([ax], [1])), -1, ax)
    return np.ascontiguousarray(y)


def _adaptive_avg_bw_fw(g, *, in_size):
    y = g
    for i, s in enumerate(in_size):
        ax = g.ndim - len(in_size) + i
        m = _adaptive_matrix(s, g.shape[ax]).astype(g.dtype)
        y = np.moveaxis(np.tensordot(y, m, axes=([ax], [0])), -1, ax)
    return np.ascontiguousarray(y)


_adaptive_avg2d_op = primitive(
    "adaptive_avg_pool2d", _follow(_adaptive_avg_fw), node="AdaptiveAvgPool2DBackward0",
    x=lambda g, x, x_shape, out_size: keep_graph(apply(_adaptive_avg2d_bw, (g,), {
        "in_size": tuple(x_shape[-len(out_size):])}), x, node="AdaptiveAvgPool2DBackwardBackward0"))
_adaptive_avg2d_bw = primitive(
    "adaptive_avg_pool2d_backward", _adaptive_avg_bw_fw, node="AdaptiveAvgPool2DBackwardBackward0",
    g=lambda g, g_shape, in_size: apply(_adaptive_avg2d_op, (g,), {"out_size": tuple(g_shape[-len(in_size):])}))


def _out_size(output_size, spatial) -> tuple:
    if isinstance(output_size, (list, tuple)):
        return tuple(s if o is None else int(o) for o, s in zip(output_size, spatial))
    return (int(output_size),) * len(spatial)


def _check_adaptive(kind: str, nd: int, input: Tensor, output_size, name: str | None = None) -> tuple:
    """PyTorch's adaptive pooling checks after the rank check; returns the output size."""
    if isinstance(output_size, (list, tuple)) and len(output_size) != nd:
        if kind == "avg":
            raise RuntimeError(f"adaptive_avg_pool{nd}d: output_size must be {nd}")
        raise RuntimeError(f"adaptive_max_pool{nd}d(): internal error: output_size.size() must be {nd}")
    out_size = _out_size(output_size, input.shape[-nd:])
    if any(o < 0 for o in out_size):
        if kind == "avg":
            sep = ", " if nd == 2 else ","
            inner = ", ".join(str(o) for o in out_size[:2]) + "".join(sep + str(o) for o in out_size[2:])
            raise RuntimeError(f"adaptive_avg_pool{nd}d: elements of output_size must be greater than or equal to 0 "
                               f"but received {{{inner}}}")
        bad = next(o for o in out_size if o < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: "
                           f"{list(input.shape[:-nd]) + list(out_size)}")
    shape = name[1] if name else input.shape
    full = list(input.shape[:-nd]) + list(out_size)
    if math.prod(full) > 2 ** 63 - 1:
        # refuse before allocating (NumPy would try, and the process could be killed)
        if kind == "max":
            raise RuntimeError(f"Storage size calculation overflowed with sizes={full}")
        raise RuntimeError("numel: integer multiplication overflow")
    if not input.dtype.is_floating_point:
        from ..._tensor import _scalar_type_name

        # PyTorch's kernel names: the 1-d ops run the 2-d kernel, the 3-d kernels are "..._cpu"
        kernel = f"adaptive_{kind}_pool{max(nd, 2)}d" + ("_cpu" if nd == 3 else "")
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(input.dtype)}\'')
    for i in range(1, len(shape)):
        if shape[i] == 0 and (kind == "max" or nd == 3):
            raise RuntimeError(f"{name[0] if name else f'adaptive_{kind}_pool{nd}d'}(): Expected input to have "
                               f"non-zero size for non-batch dimensions, but input has sizes {list(shape)} with "
                               f"dimension {i} being empty")
    return out_size


def _check_adaptive1d(kind: str, input: Tensor, output_size) -> None:
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           f"'self' (while checking arguments for adaptive_{kind}_pool1d)")
    if isinstance(output_size, (list, tuple)) and len(output_size) != 1:
        raise RuntimeError(f"adaptive_{kind}_pool1d() argument 'output_size' should contain one int "
                           f"(got {len(output_size)})")


def _check_size_list(input: Tensor, output_size) -> None:
    # nn.functional's wrapper fills None entries from the input's trailing sizes first: an input
    # with no more dims than a list output_size is its ValueError
    if isinstance(output_size, (list, tuple)) and input.ndim <= len(output_size):
        raise ValueError(f"Input dimension should be at least {len(output_size) + 1}")


def adaptive_avg_pool2d(input: Tensor, output_size) -> Tensor:
    """Average pooling to a fixed output size (PyTorch's start/end index rule)."""
    _check_size_list(input, output_size)
    if input.ndim not in (3, 4):
        raise RuntimeError(f"adaptive_avg_pool2d(): Expected 3D or 4D tensor, but got {list(input.shape)}")
    out_size = _check_adaptive("avg", 2, input, output_size)
    if out_size == (1, 1):
        from ..reduction import mean

        return mean(input, (-2, -1), keepdim=True)
    return apply(_adaptive_avg2d_op, (input,), {"out_size": out_size})


def adaptive_avg_pool1d(input: Tensor, output_size) -> Tensor:
    _check_adaptive1d("avg", input, output_size)
    o = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    return squeeze(adaptive_avg_pool2d(unsqueeze(input, -2), (1, o)), -2)


def _adaptive_max_fw(x, *, out_size):
    spatial = x.shape[2:]
    nd = len(out_size)
    ranges = [_adaptive_ranges(s, o) for s, o in zip(spatial, out_size)]
    vals = np.empty(x.shape[:2] + tuple(out_size), dtype=x.dtype)
    idx = np.empty(x.shape[:2] + tuple(out_size), dtype=np.int64)
    for pos in np.ndindex(*out_size):
        bounds = [ranges[i][p] for i, p in enumerate(pos)]
        win = x[(slice(None), slice(None)) + tuple(slice(a, b) for a, b in bounds)]
        flat = win.reshape(win.shape[:2] + (math.prod(win.shape[2:]),))
        arg = np.argmax(flat, axis=-1)
        if x.dtype.kind == "f":
            isn = np.isnan(flat)
            if isn.any():
                arg = np.where(isn.any(-1), np.argmax(isn, -1), arg)
        key = (slice(None), slice(None)) + pos
        vals[key] = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
        local = np.unravel_index(arg, tuple(b - a for a, b in bounds))
        f = np.zeros(arg.shape, dtype=np.int64)
        for i in range(nd):
            f = f * spatial[i] + local[i] + bounds[i][0]
        idx[key] = f
    return vals, idx


_adaptive_max2d_op = primitive("adaptive_max_pool2d", _follow(_adaptive_max_fw), node="AdaptiveMaxPool2DBackward0",
                               n_out=2, x=_pool_bw_rule("AdaptiveMaxPool2DBackwardBackward0"))
_UNBATCHED_TWIN = {_adaptive_max2d_op: _max_index_twin(_adaptive_max2d_op, "adaptive_max_pool2d_unbatched")}


def _adaptive_max_with_indices(op, nd: int, input: Tensor, output_size, name=None) -> tuple:
    # shared by the 2-D and 3-D ops: check, batch an unbatched input, run ``op``, unbatch
    _check_size_list(input, output_size)
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"adaptive_max_pool{nd}d(): Expected {nd + 1}D or {nd + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    out_size = _check_adaptive("max", nd, input, output_size, name)
    if input.ndim == nd + 1:
        op = _UNBATCHED_TWIN[op]
    return _indices_out(apply(op, (input,), {"out_size": out_size}))


def adaptive_max_pool2d_with_indices(input: Tensor, output_size) -> tuple:
    return _adaptive_max_with_indices(_adaptive_max2d_op, 2, input, output_size)


def adaptive_max_pool2d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling to a fixed output size (backward node AdaptiveMaxPool2DBackward0)."""
    out, idx = adaptive_max_pool2d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


def adaptive_max_pool1d(input: Tensor, output_size) -> tuple:
    """(values, indices) of 1-D adaptive max pooling (``torch.adaptive_max_pool1d``)."""
    _check_adaptive1d("max", input, output_size)
    o = output_size[0] if isinstance(output_size, (list, tuple)) else output_size
    out, idx = _adaptive_max_with_indices(_adaptive_max2d_op, 2, unsqueeze(input, -2), (1, o),
                                          ("adaptive_max_pool1d", input.shape))
    return squeeze(out, -2), _t(idx._data.squeeze(-2))


_adaptive_avg3d_op = primitive(
    "adaptive_avg_pool3d", _adaptive_avg_fw, node="AdaptiveAvgPool3DBackward0",
    x=lambda g, x, x_shape, out_size: keep_graph(apply(_adaptive_avg3d_bw, (g,), {
        "in_size": tuple(x_shape[-len(out_size):])}), x, node="AdaptiveAvgPool3DBackwardBackward0"))
_adaptive_avg3d_bw = primitive(
    "adaptive_avg_pool3d_backward", _adaptive_avg_bw_fw, node="AdaptiveAvgPool3DBackwardBackward0",
    g=lambda g, g_shape, in_size: apply(_adaptive_avg3d_op, (g,), {"out_size": tuple(g_shape[-len(in_size):])}))


def adaptive_avg_pool3d(input: Tensor, output_size) -> Tensor:
    """Average pooling of (N, C, D, H, W) to a fixed output size.

    >>> import retrograd as torch
    >>> torch.nn.functional.adaptive_avg_pool3d(torch.ones(1, 1, 3, 3, 3), 2).shape
    torch.Size([1, 1, 2, 2, 2])
    """
    _check_size_list(input, output_size)
    if input.ndim not in (4, 5):
        raise RuntimeError(f"adaptive_avg_pool3d(): Expected 4D or 5D tensor, but got {list(input.shape)}")
    out_size = _check_adaptive("avg", 3, input, output_size)
    if out_size == (1, 1, 1):
        from ..reduction import mean

        return mean(input, (-3, -2, -1), keepdim=True)
    return apply(_adaptive_avg3d_op, (input,), {"out_size": out_size})


_adaptive_max3d_op = primitive("adaptive_max_pool3d", _adaptive_max_fw, node="AdaptiveMaxPool3DBackward0",
                               n_out=2, x=_pool_bw_rule("AdaptiveMaxPool3DBackwardBackward0"))
_UNBATCHED_TWIN[_adaptive_max3d_op] = _max_index_twin(_adaptive_max3d_op, "adaptive_max_pool3d_unbatched")


def adaptive_max_pool3d_with_indices(input: Tensor, output_size, return_indices: bool = False) -> tuple:
    """(values, flat D*H*W indices) of 3-D adaptive max pooling."""
    return _adaptive_max_with_indices(_adaptive_max3d_op, 3, input, output_size)


def adaptive_max_pool3d(input: Tensor, output_size, return_indices: bool = False):
    """Max pooling of (N, C, D, H, W) to a fixed output size (backward node AdaptiveMaxPool3DBackward0)."""
    out, idx = adaptive_max_pool3d_with_indices(input, output_size)
    return (out, idx) if return_indices else out


@tensor_args("conv_transpose3d", weight=2)
def conv_transpose3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """Transposed 3-D convolution; weight is (C_in, C_out / groups, kD, kH, kW).

    >>> import retrograd as torch
    >>> torch.conv_transpose3d(torch.ones(1, 2, 2, 2, 2), torch.ones(2, 1, 2, 2, 2), stride=2).shape
    torch.Size([1, 1, 4, 4, 4])
    """
    return _conv_transposend(3, "conv_transpose3d", input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


# ====================================================================== fractional max pooling
def _fractional_intervals(sample: float, in_size: int, out_size: int, pool: int, dtype) -> np.ndarray:
    # ATen's generate_intervals, computed in the input's dtype like the kernel does
    seq = np.zeros(out_size, dtype=np.int64)
    if out_size > 1:
        t = dtype.type
        alpha = t(in_size - pool) / t(out_size - 1)
        i = np.arange(out_size, dtype=dtype)
        seq = (((i + t(sample)) * alpha).astype(np.int64) - int(t(sample) * alpha))
    if out_size > 0:
        seq[out_size - 1] = in_size - pool
    return seq


def _fractional_max_fw(x, *, ksize, out_size, samples):
    # x: (N, C, *spatial); samples: (N, C, nd) with torch's order (2-D: W then H; 3-D: T, H, W)
    n, c = x.shape[:2]
    spatial = x.shape[2:]
    nd = len(ksize)
    order = (1, 0) if nd == 2 else (0, 1, 2)
    vals = np.empty((n, c) + tuple(out_size), dtype=x.dtype)
    idx = np.empty((n, c) + tuple(out_size), dtype=np.int64)
    plane = [int(np.prod(spatial[i + 1:])) for i in range(nd)]
    offs = [np.arange(k) for k in ksize]
    for b in range(n):
        for ch in range(c):
            starts = [_fractional_intervals(samples[b, ch, order[d]], spatial[d], out_size[d], ksize[d], x.dtype)
                      for d in range(nd)]
            # (out_d, k_d) absolute positions per dim, combined into flat window indices
            flat = np.zeros(tuple(out_size) + tuple(ksize), dtype=np.int64)
            for d in range(nd):
                pos = starts[d][:, None] + offs[d][None, :]
                shape = [1] * (2 * nd)
                shape[d], shape[nd + d] = out_size[d], ksize[d]
                # move the k axis next to the out axes: build with out axes first, then k axes
                flat = flat + (pos * plane[d]).reshape(shape)
            flat = flat.reshape(tuple(out_size) + (-1,))
            win = x[b, ch].reshape(-1)[flat]
            # first maximum wins; NaN wins (ATen: val > max || isnan(val))
            arg = np.argmax(win, axis=-1)
            if x.dtype.kind == "f":
                isn = np.isnan(win)
                if isn.any():
                    arg = np.where(isn.any(-1), np.argmax(isn, -1), arg)
            sel = np.take_along_axis(flat, arg[..., None], -1)[..., 0]
            idx[b, ch] = sel
            vals[b, ch] = x[b, ch].reshape(-1)[sel]
    return vals, idx


_fractional_max2d_op = primitive("fractional_max_pool2d", _fractional_max_fw, node="FractionalMaxPool2DBackward0",
                                 n_out=2, x=_pool_bw_rule("FractionalMaxPool2DBackwardBackward0"))
_fractional_max3d_op = primitive("fractional_max_pool3d", _fractional_max_fw, node="FractionalMaxPool3DBackward0",
                                 n_out=2, x=_pool_bw_rule("FractionalMaxPool3DBackwardBackward0"))
_UNBATCHED_TWIN[_fractional_max2d_op] = _max_index_twin(_fractional_max2d_op, "fractional_max_pool2d_unbatched")
_UNBATCHED_TWIN[_fractional_max3d_op] = _max_index_twin(_fractional_max3d_op, "fractional_max_pool3d_unbatched")


def _fractional_max_pool(nd: int, input: Tensor, kernel_size, output_size, output_ratio, _random_samples) -> tuple:
    name = f"fractional_max_pool{nd}d"
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    if nd == 2 and isinstance(kernel_size, (list, tuple)) and len(kernel_size) not in (1, 2):
        raise RuntimeError("fractional_max_pool2d: kernel_size must either be a single Int or tuple of Ints")
    if output_size is None:
        if nd == 2 and isinstance(output_ratio, (list, tuple)) and len(output_ratio) > 2:
            raise ValueError("fractional_max_pool2d requires output_ratio to either be a single Int or tuple of "
                             "Ints.")
        ratio = tuple(output_ratio) if isinstance(output_ratio, (list, tuple)) else (output_ratio,) * nd
        output_size = [int(input.size(d - nd) * r) for d, r in enumerate(ratio)]
    where = name if nd == 2 else f"{name}_out"
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"{where}(): Expected {nd + 1}D or {nd + 2}D tensor, but got: {list(input.shape)}")
    for i in range(1, input.ndim):
        if input.shape[i] == 0:
            raise RuntimeError(f"{where}(): Expected input to have non-zero size for non-batch dimensions, but got"
                               f"{list(input.shape)} with dimension {i} being empty.")
    ks, os_ = _tuple(kernel_size, nd), _tuple(output_size, nd)
    batched = input.ndim == nd + 2
    x = input if batched else unsqueeze(input, 0)
    spatial = x.shape[2:]
    words = (("time", "time"), ("height", "height"), ("width", "width"))[3 - nd:]
    for d in range(nd):
        bad = os_[d] + ks[d] - 1 >= spatial[d] if nd == 3 else os_[d] + ks[d] - 1 > spatial[d]
        if bad:
            raise RuntimeError(f"{where}(): pool {words[d][0]} {ks[d]} too large relative to input "
                               f"{words[d][1]} {spatial[d]}")
    if _random_samples is None:
        from ..._creation import rand

        _random_samples = rand(x.shape[0], x.shape[1], nd, dtype=input.dtype)
    rs = _random_samples
    if rs._data.dtype != input._data.dtype:
        raise RuntimeError("Expect _random_samples to have the same dtype as input")
    if rs.shape[0] < x.shape[0]:
        raise RuntimeError("Expect _random_samples.size(0) no less then input batch size.")
    if rs.shape[1] != x.shape[1]:
        raise RuntimeError("Expect _random_samples.size(1) equals to input channel size.")
    if rs.shape[2] != nd:
        raise RuntimeError(f"Expect _random_samples.size(2) equals to {nd}; got {rs.shape[2]}.")
    op = _fractional_max2d_op if nd == 2 else _fractional_max3d_op
    samples = np.asarray(rs._data, dtype=np.float64)
    if not batched:  # the unbatched twin (node name as PyTorch's) on the input itself
        op, x, samples = _UNBATCHED_TWIN[op], input, samples[:1]
    return _indices_out(apply(op, (x,), {"ksize": ks, "out_size": os_, "samples": samples}))


def fractional_max_pool2d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Fractional max pooling over (N, C, H, W) (Graham, 2014); windows start at pseudo-random offsets.

    >>> import retrograd as torch
    >>> from retrograd._ops.nn.adaptive_pooling import fractional_max_pool2d
    >>> fractional_max_pool2d(torch.ones(1, 1, 5, 5), 2, output_size=3).shape
    torch.Size([1, 1, 3, 3])
    """
    out, idx = _fractional_max_pool(2, input, kernel_size, output_size, output_ratio, _random_samples)
    return (out, idx) if return_indices else out


def fractional_max_pool3d(input: Tensor, kernel_size, output_size=None, output_ratio=None,
                          return_indices: bool = False, _random_samples: Tensor | None = None):
    """Fractional max pooling over (N, C, T, H, W)."""
    out, idx = _fractional_max_pool(3, input, kernel_size, output_size, output_ratio, _random_samples)
    return (out, idx) if return_indices else out
