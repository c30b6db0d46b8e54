"""Max/avg pooling 1d/2d/3d."""
from __future__ import annotations

import functools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..._layout import follows_input_layout as _follow
from ..._tensor import Tensor
from .._keep_graph import keep_graph
from .._registry import apply, primitive
from ..shape import squeeze, unsqueeze
from .conv import _crop_spatial, _pad_spatial, _t, _tuple, _windows

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d"]


# ====================================================================== max pooling
def _pool_out(size, k, s, p, d, ceil_mode):
    num = size + 2 * p - d * (k - 1) - 1
    o = (-(-num // s) if ceil_mode else num // s) + 1
    if ceil_mode and (o - 1) * s >= size + p:
        o -= 1
    return o


def _pool_geometry(spatial, ksize, stride, padding, dilation, ceil_mode):
    """Output sizes and (lo, hi) paddings that make every window lie inside the padded input."""
    outs, pads = [], []
    for s, k, st, p, d in zip(spatial, ksize, stride, padding, dilation):
        o = _pool_out(s, k, st, p, d, ceil_mode)
        hi = max((o - 1) * st + d * (k - 1) + 1 - s - p, 0)
        outs.append(o)
        pads.append((p, hi))
    return tuple(outs), tuple(pads)


def _max_pool_fw(x, *, ksize, stride, padding, dilation, ceil_mode):
    spatial = x.shape[2:]
    nd = len(ksize)
    outs, pads = _pool_geometry(spatial, ksize, stride, padding, dilation, ceil_mode)
    fill = -np.inf if x.dtype.kind == "f" else np.iinfo(x.dtype).min
    xp = _pad_spatial(x, pads, fill)
    # One pass per kernel offset over strided views (no window copies).  PyTorch's rule:
    # take a value when it is greater than the running max or NaN, so ties keep the first
    # and NaN wins.  Without NaN that is a running np.maximum, and the winning offset j is
    # max(arg, j * taken) because offsets only grow: arithmetic on a small integer type,
    # where masked copies (np.copyto(where=)) cost ~5x more.
    windows = [xp[(slice(None), slice(None)) + tuple(slice(k * d, k * d + s * (o - 1) + 1, s)
                                                    for k, d, s, o in zip(kidx, dilation, stride, outs))]
               for kidx in np.ndindex(*ksize)]
    best = windows[0].copy()
    arg_type = np.int8 if len(windows) < 128 else np.int32
    arg = np.zeros(best.shape, dtype=arg_type)
    for j in range(1, len(windows)):
        v = windows[j]
        take = np.greater(v, best).view(np.int8)
        np.maximum(best, v, out=best)  # (NaN propagates, as in PyTorch's rule; ties keep best)
        if arg_type is np.int8:
            np.maximum(arg, take * np.int8(j), out=arg)
        else:
            np.maximum(arg, take * np.int32(j), out=arg)
    if x.dtype.kind == "f" and np.isnan(best).any():
        # a window with NaN: PyTorch's index is its last NaN (each NaN is taken); redo those
        # offsets with the NaN-aware rule
        best = windows[0].copy()
        arg = np.zeros(best.shape, dtype=np.int64)
        for j in range(1, len(windows)):
            v = windows[j]
            take = np.greater(v, best) | np.isnan(v)
            np.copyto(best, v, where=take)
            np.copyto(arg, j, where=take)
    # kernel offset -> flat index into the unpadded input's spatial dims:
    # (window start position) + (offset of kernel element j), both as flat offsets
    plane = [int(np.prod(spatial[i + 1:])) for i in range(nd)]
    offsets = np.array([sum(k * d * pl for k, d, pl in zip(kidx, dilation, plane)) for kidx in np.ndindex(*ksize)],
                       dtype=np.int64)
    # (np.take, not offsets[arg]: 4x faster; the window starts summed over the small
    # output grid first, then added once)
    starts = np.zeros(outs, dtype=np.int64)
    for i in range(nd):
        shape = [1] * nd
        shape[i] = outs[i]
        starts += (np.arange(outs[i], dtype=np.int64) * stride[i] - padding[i]).reshape(shape) * plane[i]
    flat_idx = np.take(offsets, arg)
    flat_idx += starts
    return best, flat_idx


def _scatter_np(g, *, idx, shape, disjoint=False):
    """Add g (N, C, *out) into zeros (N, C, *in) at flat spatial indices idx.

    ``disjoint``: the pooling windows do not overlap, so no index repeats and a plain
    assignment does (several times faster than the accumulating bincount)."""
    n, c = shape[:2]
    inner = math.prod(shape[2:])
    base = (np.arange(n * c, dtype=np.int64) * inner).reshape((n, c) + (1,) * (idx.ndim - 2))
    flat = (idx + base).ravel()
    if disjoint:
        out = np.zeros(n * c * inner, dtype=g.dtype)
        out[flat] = g.ravel()
        return out.reshape(shape)
    out = np.bincount(flat, weights=g.ravel().astype(np.float64, copy=False), minlength=n * c * inner)
    return out.astype(g.dtype, copy=False).reshape(shape)


def _gather_np(g, *, idx):
    n, c = g.shape[:2]
    # (explicit sizes: reshape's -1 fails on empty arrays)
    g3, i3 = g.reshape(n, c, math.prod(g.shape[2:])), idx.reshape(n, c, math.prod(idx.shape[2:]))
    return np.take_along_axis(g3, i3, axis=2).reshape(idx.shape)


_pool_scatter = primitive("max_pool_backward", _scatter_np, node="MaxPool2DWithIndicesBackwardBackward0",
                          g=lambda g, idx: apply(_pool_gather, (g,), {"idx": idx}))
_pool_gather = primitive("max_pool_gather", _gather_np, node="GatherBackward0",
                         g=lambda g, g_shape, idx: apply(_pool_scatter, (g,), {"idx": idx, "shape": g_shape}))


def _scatter_to_input(g, out, x_shape, disjoint: bool):
    # The indices output is a constant; the engine may hand over saved outputs still packed.
    idx = out[1]
    idx = idx._data if isinstance(idx, Tensor) else idx.unpack(None)._data
    return apply(_pool_scatter, (g[0],), {"idx": idx, "shape": x_shape, "disjoint": disjoint})


def _pool_bw_rule(node: str):
    """The input rule of a max pooling op whose PyTorch backward node is ``node``: a scatter
    of g to the argmax positions, kept in x's graph (see _keep_graph.py)."""
    def rule(g, out, x, x_shape):
        return keep_graph(_scatter_to_input(g, out, x_shape, False), x, node=node)
    return rule


def _max_pool_bw_rule(node: str):
    def rule(g, out, x, x_shape, ksize, stride, dilation):
        # windows that cannot overlap (stride >= dilated kernel extent) get each input index once
        disjoint = all(s >= (k - 1) * d + 1 for k, s, d in zip(ksize, stride, dilation))
        return keep_graph(_scatter_to_input(g, out, x_shape, disjoint), x, node=node)
    return rule


_max_pool2d_op = primitive("max_pool2d", _follow(_max_pool_fw), node="MaxPool2DWithIndicesBackward0", n_out=2,
                           x=_max_pool_bw_rule("MaxPool2DWithIndicesBackwardBackward0"))
_max_pool3d_op = primitive("max_pool3d", _follow(_max_pool_fw), node="MaxPool3DWithIndicesBackward0", n_out=2,
                           x=_max_pool_bw_rule("MaxPool3DWithIndicesBackwardBackward0"))


# ---- unbatched (C, *spatial) inputs: PyTorch's pooling kernels take them directly, so the output's
# node is the pooling node itself (not a SqueezeBackward1 above it).  Each pooling op has a twin
# whose NumPy forward batches, runs the batched kernel and unbatches; its rule does the same
# around the batched backward op.
def _unbatched_fw(fw):
    """``fw`` (a kernel over (N, C, *spatial)) run on one unbatched (C, *spatial) array."""
    @functools.wraps(fw)
    def run(x, **static):
        r = fw(x[None], **static)
        return tuple(a[0] for a in r) if isinstance(r, tuple) else r[0]
    return run


def _pool_bw_rule_unbatched(g, out, x_shape):
    idx = out[1]
    idx = idx._data if isinstance(idx, Tensor) else idx.unpack(None)._data
    r = apply(_pool_scatter, (unsqueeze(g[0], 0),), {"idx": idx[None], "shape": (1,) + tuple(x_shape),
                                                     "disjoint": False})
    return squeeze(r, 0)


def _max_index_twin(op, name: str):
    """The unbatched twin ``name`` of a max-pooling op with indices (same node name)."""
    return primitive(name, _unbatched_fw(op.forward), node=op.node_name, n_out=2,
                     x=_pool_bw_rule_unbatched)


def _avg_twin(name: str, fw, node: str, bw_op_of):
    """The unbatched twin ``name`` of an average-pooling op; ``bw_op_of()`` gives its batched backward op."""
    def rule(g, x_shape, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override):
        return squeeze(apply(bw_op_of(), (unsqueeze(g, 0),), dict(
            x_shape=(1,) + tuple(x_shape), ksize=ksize, stride=stride, padding=padding, ceil_mode=ceil_mode,
            count_include_pad=count_include_pad, divisor_override=divisor_override)), 0)
    return primitive(name, _unbatched_fw(fw), node=node, x=rule)


_max_pool2d_ub_op = _max_index_twin(_max_pool2d_op, "max_pool2d_unbatched")
_max_pool3d_ub_op = _max_index_twin(_max_pool3d_op, "max_pool3d_unbatched")


def _indices_out(pair):
    out, idx = pair
    idx._requires_grad = False
    idx._grad_fn = None
    return out, idx


def _check_pool_args(fname: str, nd: int, kernel_size, stride, padding, dilation=None) -> None:
    """torch's argument-length checks (before any tuple conversion), with its per-function wording."""
    count = ("two", "three")[nd - 2]
    avg3 = fname == "avg_pool3d"
    either = "" if avg3 else "either "
    for arg, v, phrase in (("kernel_size", kernel_size, f"must {either}be a single int"),
                           ("stride", stride, f"must {either}be omitted, a single int"),
                           ("padding", padding, f"must {either}be a single int"),
                           ("dilation", dilation, "must be either a single int")):
        if isinstance(v, (list, tuple)) and len(v) not in ((0, 1, nd) if arg == "stride" else (1, nd)):
            raise RuntimeError(f"{fname}: {arg} {phrase}, or a tuple of {count} ints")


def _check_pool(name, x, nd, ksize, stride, padding, dilation, ceil_mode=False):
    """PyTorch's pooling checks, in its order and with its messages (pooling_output_shape, then
    pool2d_shape_check / pool3d_shape_check)."""
    shape = x._data.shape  # the raw tuple: this runs on every pooling call
    ndim = len(shape)
    if name == "max_pool" or nd == 3:
        if ndim not in (nd + 1, nd + 2):
            raise RuntimeError(f"non-empty {nd + 1}D or {nd + 2}D (batch mode) tensor expected for input")
    elif ndim < nd + 1:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, {ndim - 1}], "
                         f"but got {-nd - 1})")
    spatial = shape[-nd:]
    outs = []
    for size, k, s, p, d in zip(spatial, ksize, stride, padding, dilation):
        if s == 0:
            raise RuntimeError("stride should not be zero")
        if p < 0:
            raise RuntimeError(f"pad must be non-negative, but got pad: {p}")
        if p > ((k - 1) * d + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got pad={p}, "
                               f"kernel_size={k} and dilation={d}")
        outs.append(_pool_out(size, k, s, p, d, ceil_mode))
    if min(ksize) > 0 and min(stride) > 0 and min(dilation) > 0 and min(outs) >= 1 \
            and ndim in (nd + 1, nd + 2) and 0 not in shape[-nd - 1:] \
            and all(k // 2 >= p for k, p in zip(ksize, padding)) and not (nd == 3 and name == "avg_pool"):
        return  # the ordinary case: nothing below can fire
    names = ("T", "H", "W")[3 - nd:]
    if any(k <= 0 for k in ksize):
        raise RuntimeError("kernel size should be greater than zero, but got "
                           + " ".join(f"k{n}: {k}" for n, k in zip(names, ksize)))
    if any(s <= 0 for s in stride):
        raise RuntimeError("stride should be greater than zero, but got "
                           + " ".join(f"d{n}: {s}" for n, s in zip(names, stride)))
    if any(d <= 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"dilation{n}: {d}" for n, d in zip(names, dilation)))
    if nd == 2 and (ndim not in (3, 4) or 0 in shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with optional 0 dim batch size for input, "
                           f"but got:{list(shape)}")
    if nd == 3 and 0 in shape[-4:]:
        # (PyTorch's message names dimension 0 whichever one is empty)
        fn = "max_pool3d_with_indices_out_cpu_template" if name == "max_pool" else "avg_pool3d"
        raise RuntimeError(f"{fn}(): Expected input's non-batch dimensions to have positive length, but input has "
                           f"a shape of {list(shape)} and non-batch dimension 0 has length zero!")
    if any(k // 2 < p for k, p in zip(ksize, padding)):
        if nd == 2:
            raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got padW = "
                               f"{padding[1]}, padH = {padding[0]}, kW = {ksize[1]}, kH = {ksize[0]}")
        raise RuntimeError(f"pad should be smaller than or equal to half of kernel size, but got kT: {ksize[0]} "
                           f"kW: {ksize[2]} kH: {ksize[1]} padT: {padding[0]} padW: {padding[2]} padH: {padding[1]}")
    if nd == 3 and name == "avg_pool" and any(i < k for i, k in zip(spatial, ksize)):
        raise RuntimeError(f"input image (T: {spatial[0]} H: {spatial[1]} W: {spatial[2]}) smaller than kernel "
                           f"size (kT: {ksize[0]} kH: {ksize[1]} kW: {ksize[2]})")
    if any(o < 1 for o in outs):
        c = shape[-nd - 1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + tuple(spatial)))}). Calculated output "
                           f"size: ({'x'.join(map(str, (c,) + tuple(outs)))}). Output size is too small")


def max_pool2d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False) -> tuple:
    """2-D max pooling returning (values, flat indices into each H*W plane)."""
    return _max_poolnd(2, input, kernel_size, stride, padding, dilation, ceil_mode)


def _max_poolnd(nd, input, kernel_size, stride, padding, dilation, ceil_mode):
    _check_pool_args(f"max_pool{nd}d", nd, kernel_size, stride, padding, dilation)
    ks = _tuple(kernel_size, nd)
    st = ks if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, nd)
    pd, dl = _tuple(padding, nd), _tuple(dilation, nd)
    _check_pool("max_pool", input, nd, ks, st, pd, dl, ceil_mode)
    if input.ndim == nd + 2:
        op = _max_pool2d_op if nd == 2 else _max_pool3d_op
    else:
        op = _max_pool2d_ub_op if nd == 2 else _max_pool3d_ub_op
    return _indices_out(apply(op, (input,), {"ksize": ks, "stride": st, "padding": pd, "dilation": dl,
                                             "ceil_mode": bool(ceil_mode)}))


def max_pool2d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """2-D max pooling (backward node MaxPool2DWithIndicesBackward0).

    >>> import retrograd as torch
    >>> torch.max_pool2d(torch.arange(16.).reshape(1, 1, 4, 4), 2)
    tensor([[[[ 5.,  7.],
              [13., 15.]]]])
    """
    out, idx = max_pool2d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool1d_with_indices(input: Tensor, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode: bool = False) -> tuple:
    """1-D max pooling via the 2-D op on an unsqueezed input, as PyTorch does."""
    ks = _tuple(kernel_size, 1)
    st = ks if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 1)
    out, idx = max_pool2d_with_indices(unsqueeze(input, -2), (1,) + ks, (1,) + st, (0,) + _tuple(padding, 1),
                                       (1,) + _tuple(dilation, 1), ceil_mode)
    return squeeze(out, -2), _t(idx._data.squeeze(-2))


def _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode):
    # torch's max_pool1d without indices has its own checks and messages (MaxPooling.cpp)
    if input.ndim not in (2, 3) or any(d == 0 for d in input.shape[-2:]):
        raise RuntimeError("max_pool1d: Expected 2D or 3D (batch mode) tensor with optional 0 dim batch size for "
                           f"input, but got:{list(input.shape)}")
    if isinstance(kernel_size, (list, tuple)) and len(kernel_size) != 1:
        raise RuntimeError("max_pool1d() kernel_size must be an int, list of ints or tuple of ints of size 1 but "
                           f"got size {len(kernel_size)}")
    k = _tuple(kernel_size, 1)[0]
    s = k if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 1)[0]
    p, d = _tuple(padding, 1)[0], _tuple(dilation, 1)[0]
    if k <= 0:
        raise RuntimeError(f"max_pool1d() kernel_size must be greater than zero, but got {k}")
    if s <= 0:
        raise RuntimeError(f"max_pool1d() stride must be greater than zero, but got {s}")
    if p < 0:
        raise RuntimeError(f"max_pool1d() padding must be non-negative, but got {p}")
    if p > k // 2:
        raise RuntimeError(f"max_pool1d() padding should be at most half of kernel size, but got padding={p} and "
                           f"kernel_size={k}")
    if d <= 0:
        raise RuntimeError(f"max_pool1d() dilation must be greater than zero, but got {d}")
    o = _pool_out(input.shape[-1], k, s, p, d, ceil_mode)
    if o < 1:
        raise RuntimeError(f"max_pool1d() Invalid computed output size: {o}")


def max_pool1d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    """1-D max pooling over (N, C, L)."""
    if not return_indices:
        _check_max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode)
    out, idx = max_pool1d_with_indices(input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


def max_pool3d(input: Tensor, kernel_size, stride=None, padding=0, dilation=1, ceil_mode: bool = False,
               return_indices: bool = False):
    out, idx = _max_poolnd(3, input, kernel_size, stride, padding, dilation, ceil_mode)
    return (out, idx) if return_indices else out


# ====================================================================== average pooling
def _avg_divisor(spatial, ksize, stride, padding, ceil_mode, count_include_pad, outs, pads):
    """Per-output-position divisors (PyTorch's rule: explicit padding counts, ceil overhang doesn't)."""
    mask = np.zeros(tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads)), dtype=np.float64)
    if count_include_pad:
        mask[tuple(slice(0, s + 2 * p) for s, p in zip(spatial, padding))] = 1
    else:
        mask[tuple(slice(p, p + s) for s, p in zip(spatial, padding))] = 1
    v = sliding_window_view(mask, ksize)[tuple(slice(None, None, s) for s in stride)]
    v = v[tuple(slice(0, o) for o in outs)]
    return v.sum(axis=tuple(range(len(ksize), 2 * len(ksize))))


def _avg_pool_fw(x, *, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override):
    spatial = x.shape[2:]
    ones = (1,) * len(ksize)
    outs, pads = _pool_geometry(spatial, ksize, stride, padding, ones, ceil_mode)
    xp = _pad_spatial(x, pads)
    w = _windows(xp, ksize, stride, ones)[(slice(None), slice(None)) + tuple(slice(0, o) for o in outs)]
    nd = len(ksize)
    s = w.sum(axis=tuple(range(2 + nd, 2 + 2 * nd)))
    if divisor_override:
        return (s / divisor_override).astype(x.dtype, copy=False)
    div = _avg_divisor(spatial, ksize, stride, padding, ceil_mode, count_include_pad, outs, pads)
    return (s / div).astype(x.dtype, copy=False)


def _avg_pool_bw_fw(g, *, x_shape, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override):
    spatial = tuple(x_shape[2:])
    nd = len(ksize)
    ones = (1,) * nd
    outs, pads = _pool_geometry(spatial, ksize, stride, padding, ones, ceil_mode)
    if divisor_override:
        gd = g / divisor_override
    else:
        gd = g / _avg_divisor(spatial, ksize, stride, padding, ceil_mode, count_include_pad, outs, pads)
    xp_shape = tuple(x_shape[:2]) + tuple(s + lo + hi for s, (lo, hi) in zip(spatial, pads))
    out = np.zeros(xp_shape, dtype=g.dtype)
    for kidx in np.ndindex(*ksize):
        sl = tuple(slice(k, k + s * (o - 1) + 1, s) for k, s, o in zip(kidx, stride, outs))
        out[(slice(None), slice(None)) + sl] += gd
    return np.ascontiguousarray(_crop_spatial(out, pads))


_avg_pool2d_op = primitive(
    "avg_pool2d", _follow(_avg_pool_fw), node="AvgPool2DBackward0",
    x=lambda g, x, x_shape, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override: keep_graph(
        apply(_avg_pool2d_bw, (g,), dict(x_shape=x_shape, ksize=ksize, stride=stride, padding=padding,
                                         ceil_mode=ceil_mode, count_include_pad=count_include_pad,
                                         divisor_override=divisor_override)), x, node="AvgPool2DBackwardBackward0"))
_avg_pool2d_bw = primitive(
    "avg_pool2d_backward", _avg_pool_bw_fw, node="AvgPool2DBackwardBackward0",
    g=lambda g, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override: apply(
        _avg_pool2d_op, (g,), dict(ksize=ksize, stride=stride, padding=padding, ceil_mode=ceil_mode,
                                   count_include_pad=count_include_pad, divisor_override=divisor_override)))


_avg_pool2d_ub_op = _avg_twin("avg_pool2d_unbatched", _avg_pool_fw, "AvgPool2DBackward0", lambda: _avg_pool2d_bw)


def avg_pool2d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    """2-D average pooling (backward node AvgPool2DBackward0)."""
    _check_pool_args("avg_pool2d", 2, kernel_size, stride, padding)
    ks = _tuple(kernel_size, 2)
    st = ks if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 2)
    pd = _tuple(padding, 2)
    _check_pool("avg_pool", input, 2, ks, st, pd, (1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    return apply(_avg_pool2d_op if input.ndim == 4 else _avg_pool2d_ub_op, (input,),
                 dict(ksize=ks, stride=st, padding=pd, ceil_mode=bool(ceil_mode),
                      count_include_pad=bool(count_include_pad), divisor_override=divisor_override))


def avg_pool1d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True) -> Tensor:
    """1-D average pooling via the 2-D op, as PyTorch does (grad_fn SqueezeBackward1)."""
    if input.ndim not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.ndim}-dimensional tensor for argument #1 "
                           "'self' (while checking arguments for avg_pool1d)")
    if isinstance(kernel_size, (list, tuple)) and len(kernel_size) != 1:
        raise RuntimeError(f"avg_pool1d() argument 'kernel_size' should contain one int (got {len(kernel_size)})")
    ks = _tuple(kernel_size, 1)
    st = ks if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 1)
    out = avg_pool2d(unsqueeze(input, -2), (1,) + ks, (1,) + st, (0,) + _tuple(padding, 1), ceil_mode,
                     count_include_pad)
    return squeeze(out, -2)


def _avg_static(ksize, stride, padding, ceil_mode, count_include_pad, divisor_override) -> dict:
    return dict(ksize=ksize, stride=stride, padding=padding, ceil_mode=ceil_mode,
                count_include_pad=count_include_pad, divisor_override=divisor_override)


_avg_pool3d_op = primitive(
    "avg_pool3d", _avg_pool_fw, node="AvgPool3DBackward0",
    x=lambda g, x, x_shape, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override: keep_graph(
        apply(_avg_pool3d_bw, (g,), dict(x_shape=x_shape, **_avg_static(ksize, stride, padding, ceil_mode,
                                                                       count_include_pad, divisor_override))),
        x, node="AvgPool3DBackwardBackward0"))
_avg_pool3d_bw = primitive(
    "avg_pool3d_backward", _avg_pool_bw_fw, node="AvgPool3DBackwardBackward0",
    g=lambda g, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override: apply(
        _avg_pool3d_op, (g,), _avg_static(ksize, stride, padding, ceil_mode, count_include_pad, divisor_override)))


_avg_pool3d_ub_op = _avg_twin("avg_pool3d_unbatched", _avg_pool_fw, "AvgPool3DBackward0", lambda: _avg_pool3d_bw)


def avg_pool3d(input: Tensor, kernel_size, stride=None, padding=0, ceil_mode: bool = False,
               count_include_pad: bool = True, divisor_override=None) -> Tensor:
    """3-D average pooling over (N, C, D, H, W) (backward node AvgPool3DBackward0).

    >>> import retrograd as torch
    >>> torch.nn.functional.avg_pool3d(torch.ones(1, 1, 2, 2, 2), 2)
    tensor([[[[[1.]]]]])
    """
    _check_pool_args("avg_pool3d", 3, kernel_size, stride, padding)
    ks = _tuple(kernel_size, 3)
    st = ks if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) else _tuple(stride, 3)
    pd = _tuple(padding, 3)
    _check_pool("avg_pool", input, 3, ks, st, pd, (1, 1, 1), ceil_mode)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    op = _avg_pool3d_op if input.ndim == 5 else _avg_pool3d_ub_op
    return apply(op, (input,), _avg_static(ks, st, pd, bool(ceil_mode), bool(count_include_pad), divisor_override))
