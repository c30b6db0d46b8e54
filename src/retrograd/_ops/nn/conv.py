"""Conv1d/2d/3d, conv_transpose*, convolution, im2col/col2im."""
from __future__ import annotations

import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from ..._layout import follows_input_layout as _follow
from ..._tensor import Tensor
from ...autograd.grad_mode import state as _grad_state
from .._common import tensor_args
from .._keep_graph import keep_graph
from .._registry import apply, primitive
from ..reduction import sum as _sum
from ..shape import squeeze, unsqueeze

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d"]


_wrap = Tensor._wrap


def _t(a: np.ndarray) -> Tensor:
    """A constant (no grad) tensor around a NumPy array."""
    return _wrap(a, False, None, 0)


def _tuple(v, n: int, name: str = "") -> tuple:
    """int or sequence -> n-tuple of ints (PyTorch's _pair/_single)."""
    if isinstance(v, (list, tuple)):
        if len(v) == 1 and n > 1:
            return tuple(int(v[0]) for _ in range(n))
        if len(v) != n:
            raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} values to match "
                               f"the convolution dimensions, but got {name}={list(v)}")
        return tuple(int(x) for x in v)
    return (int(v),) * n


# ====================================================================== windows (im2col)
def _pad_spatial(x: np.ndarray, pads, value=0.0) -> np.ndarray:
    """Pad the spatial dims (all but the first two) by (lo, hi) pairs with ``value``; negative pads crop."""
    if all(lo == 0 and hi == 0 for lo, hi in pads):
        return x
    if any(lo < 0 or hi < 0 for lo, hi in pads):
        x = x[(slice(None), slice(None)) + tuple(slice(max(-lo, 0), s - max(-hi, 0))
                                                 for s, (lo, hi) in zip(x.shape[2:], pads))]
        pads = tuple((max(lo, 0), max(hi, 0)) for lo, hi in pads)
    shape = x.shape[:2] + tuple(s + lo + hi for s, (lo, hi) in zip(x.shape[2:], pads))
    out = np.full(shape, value, dtype=x.dtype)
    out[(slice(None), slice(None)) + tuple(slice(lo, lo + s) for s, (lo, _) in zip(x.shape[2:], pads))] = x
    return out


def _crop_spatial(xp: np.ndarray, pads) -> np.ndarray:
    if all(lo == 0 and hi == 0 for lo, hi in pads):
        return xp
    return xp[(slice(None), slice(None)) + tuple(slice(lo, s - hi) for s, (lo, hi) in zip(xp.shape[2:], pads))]


def _windows(xp: np.ndarray, ksize, stride, dilation) -> np.ndarray:
    """A strided view (N, C, *out, *kernel) of every receptive field of padded ``xp``."""
    nd = len(ksize)
    span = tuple(d * (k - 1) + 1 for k, d in zip(ksize, dilation))
    v = sliding_window_view(xp, span, axis=tuple(range(2, 2 + nd)))
    key = (slice(None), slice(None)) + tuple(slice(None, None, s) for s in stride) + \
        tuple(slice(None, None, d) for d in dilation)
    return v[key]


def _im2col(xp: np.ndarray, ksize, stride, dilation) -> tuple[np.ndarray, tuple]:
    """(N, C*prod(k), prod(out)) per-sample matrices of receptive fields (``F.unfold``'s layout),
    and the output spatial shape.

    Per-sample columns keep N first: the convolution is then a batched GEMM whose result is
    already (N, C_out, *out), and the backward reads the (N, C_out, *out) gradient as it is,
    with no transposing copies of activations or gradients.
    """
    nd = len(ksize)
    w = _windows(xp, ksize, stride, dilation)
    out_sp = w.shape[2:2 + nd]
    perm = (0, 1) + tuple(range(2 + nd, 2 + 2 * nd)) + tuple(range(2, 2 + nd))
    cols = w.transpose(perm).reshape(xp.shape[0], xp.shape[1] * math.prod(ksize), math.prod(out_sp))
    return cols, out_sp


def _col2im(cols: np.ndarray, xp_shape, ksize, stride, dilation, out_sp) -> np.ndarray:
    """The adjoint of _im2col: add every column back into its receptive field -> (N, C, *xp spatial)."""
    n, c = xp_shape[:2]
    d = cols.reshape((n, c) + tuple(ksize) + tuple(out_sp))
    out = np.zeros(xp_shape, dtype=cols.dtype)
    for kidx in np.ndindex(*ksize):
        sl = tuple(slice(k * dl, k * dl + s * (o - 1) + 1, s)
                   for k, dl, s, o in zip(kidx, dilation, stride, out_sp))
        out[(slice(None), slice(None)) + sl] += d[(slice(None), slice(None)) + kidx]
    return out


def _sum_of_products(a: np.ndarray, b: np.ndarray, out: np.ndarray) -> np.ndarray:
    """out[...] = sum_n a[n] @ b[n].T for (N, P, L), (N, Q, L): batched GEMMs, the (n, P, Q) partials bounded."""
    n, p, q = a.shape[0], a.shape[1], b.shape[1]
    step = max(1, (1 << 22) // max(p * q, 1))
    if step >= n:
        return np.sum(np.matmul(a, b.transpose(0, 2, 1)), axis=0, out=out)
    out[...] = 0
    for s in range(0, n, step):
        out += np.matmul(a[s:s + step], b[s:s + step].transpose(0, 2, 1)).sum(axis=0)
    return out


# ====================================================================== convolution
def _conv_np(x, w, stride, padding, dilation, groups, memo=None, bias=None):
    xp = _pad_spatial(x, padding)
    n, oc = x.shape[0], w.shape[0]
    cols, out_sp = _im2col(xp, w.shape[2:], stride, dilation)
    if memo is not None:
        memo.cols = cols
    if groups == 1:
        y = np.matmul(w.reshape(oc, math.prod(w.shape[1:])), cols)
    else:
        ck, og = cols.shape[1] // groups, oc // groups
        y = np.empty((n, oc, cols.shape[2]), dtype=np.result_type(w, cols))
        for gi in range(groups):
            wg = w[gi * og:(gi + 1) * og]
            y[:, gi * og:(gi + 1) * og] = np.matmul(wg.reshape(og, math.prod(w.shape[1:])),
                                                    cols[:, gi * ck:(gi + 1) * ck])
    if bias is not None:
        y += bias[:, None]  # on (N, C_out, L): one long contiguous run per channel
    return y.reshape((n, oc) + tuple(out_sp))  # contiguous (N, C_out, *out), like PyTorch's output


def _conv_input_np(g, w, x_shape, stride, padding, dilation, groups):
    """d<conv(x, w), g>/dx: a transposed convolution of g with w."""
    ksize = w.shape[2:]
    n, oc = g.shape[:2]
    out_sp = g.shape[2:]
    # the region the windows cover (smaller than the padded input when a high pad is negative)
    xp_shape = tuple(x_shape[:2]) + tuple(min(s + lo + hi, (o - 1) * st + d * (k - 1) + 1) if hi < 0 else s + lo + hi
                                          for s, (lo, hi), o, st, d, k in zip(x_shape[2:], padding, out_sp, stride,
                                                                              dilation, ksize))
    g3 = g.reshape(n, oc, math.prod(g.shape[2:]))  # (explicit sizes: -1 fails on empty arrays)
    if groups == 1:
        cols = np.matmul(w.reshape(oc, math.prod(w.shape[1:])).T, g3)
    else:
        cg, og = x_shape[1] // groups, oc // groups
        ck = cg * math.prod(ksize)
        cols = np.empty((n, ck * groups, g3.shape[2]), dtype=np.result_type(g, w))
        for gi in range(groups):
            wg = w[gi * og:(gi + 1) * og]
            cols[:, gi * ck:(gi + 1) * ck] = np.matmul(wg.reshape(og, math.prod(w.shape[1:])).T,
                                                       g3[:, gi * og:(gi + 1) * og])
    xp = _col2im(cols, xp_shape, ksize, stride, dilation, out_sp)
    if any(hi < 0 for _, hi in padding):
        out = np.zeros(tuple(x_shape), dtype=xp.dtype)
        region = tuple(slice(0, min(s, ps - lo)) for s, ps, (lo, _) in zip(x_shape[2:], xp.shape[2:], padding))
        src = tuple(slice(lo, lo + r.stop) for r, (lo, _) in zip(region, padding))
        out[(slice(None), slice(None)) + region] = xp[(slice(None), slice(None)) + src]
        return out
    return np.ascontiguousarray(_crop_spatial(xp, padding))


def _weight_from_cols(g, cols, w_shape, groups):
    """d<conv, g>/dw from the input's columns: sum over samples of g[n] @ cols[n].T.

    Written into a fresh array of the weight's shape (not a reshaped view), so that it can
    become ``weight.grad`` without a copy.
    """
    n, oc = g.shape[:2]
    g3 = g.reshape(n, oc, math.prod(g.shape[2:]))  # (explicit sizes: -1 fails on empty arrays)
    dw = np.empty(tuple(w_shape), dtype=np.result_type(g, cols))
    d2 = dw.reshape(oc, math.prod(dw.shape[1:]))
    ck, og = cols.shape[1] // groups, oc // groups
    for gi in range(groups):
        _sum_of_products(g3[:, gi * og:(gi + 1) * og], cols[:, gi * ck:(gi + 1) * ck], d2[gi * og:(gi + 1) * og])
    return dw


def _conv_weight_np(x, g, w_shape, stride, padding, dilation, groups):
    """d<conv(x, w), g>/dw."""
    cols, _ = _im2col(_pad_spatial(x, padding), tuple(w_shape[2:]), stride, dilation)
    return _weight_from_cols(g, cols, w_shape, groups)


class _Columns:
    """The forward's im2col matrix, handed to the weight gradient of the same node.

    A memo of im2col(x): the rule still takes x as its saved input (version-checked, and
    differentiated through when a graph is built); it only skips recomputing the columns on
    a plain backward, and drops them once used.
    """

    __slots__ = ("cols",)

    def __init__(self) -> None:
        self.cols = None

    def __repr__(self) -> str:
        return "<im2col columns>" if self.cols is not None else "<im2col columns (released)>"


def _conv_fw(x, w, *, stride, padding, dilation, groups, cols):
    return _conv_np(x, w, stride, padding, dilation, groups, cols)


def _conv_b_fw(x, w, b, *, stride, padding, dilation, groups, cols):
    return _conv_np(x, w, stride, padding, dilation, groups, cols, b)


def _conv_weight_fw(x, g, *, w_shape, stride, padding, dilation, groups):
    return _conv_weight_np(x, g, w_shape, stride, padding, dilation, groups)


def _p(stride, padding, dilation, groups) -> dict:
    return {"stride": stride, "padding": padding, "dilation": dilation, "groups": groups}


def _conv(x, w, stride, padding, dilation, groups):
    return apply(_convolution, (x, w), dict(_p(stride, padding, dilation, groups), cols=None))


def _conv_input(g, w, x_shape, stride, padding, dilation, groups):
    return apply(_conv_input_op, (g, w), dict(_p(stride, padding, dilation, groups), x_shape=tuple(x_shape)))


def _conv_weight(x, g, w_shape, stride, padding, dilation, groups):
    return apply(_conv_weight_op, (x, g), dict(_p(stride, padding, dilation, groups), w_shape=tuple(w_shape)))


def _bias_grad(g: Tensor) -> Tensor:
    return _sum(g, (0,) + tuple(range(2, g.ndim)))


def _conv_w_fast(g, x, w_shape, stride, padding, dilation, groups, cols):
    memo = cols.cols if cols is not None else None
    if memo is not None:  # the weight gradient from the forward's columns (used once)
        cols.cols = None
        return _weight_from_cols(g, memo, w_shape, groups)
    return _conv_weight_np(x, g, w_shape, stride, padding, dilation, groups)


def _bias_grad_np(g):
    return _bias_grad(_wrap(g, False, None, 0))._data  # (the rule's own sum, on a constant: no graph)


# PyTorch computes all three gradients in one convolution_backward(grad, input, weight) node, so
# under create_graph each of them is linked to the input and the weight: keep_graph does that
_CBB = "ConvolutionBackwardBackward0"
_conv_rules = dict(
    x=lambda g, x, w, x_shape, stride, padding, dilation, groups: keep_graph(
        _conv_input(g, w, x_shape, stride, padding, dilation, groups), x, node=_CBB),
    w=lambda g, x, w_shape, stride, padding, dilation, groups, cols: _conv_weight(
        x, g, w_shape, stride, padding, dilation, groups))
# The fast path: the same kernels on arrays; the weight gradient from the forward's columns
_conv_fast = dict(
    x=lambda g, w, x_shape, stride, padding, dilation, groups: _conv_input_op.forward(
        g, w, x_shape=tuple(x_shape), stride=stride, padding=padding, dilation=dilation, groups=groups),
    w=_conv_w_fast)
_convolution = primitive("convolution", _follow(_conv_fw), node="ConvolutionBackward0", fast=_conv_fast,
                         **_conv_rules, batch="conv")
_convolution_b = primitive("convolution_bias", _follow(_conv_b_fw), node="ConvolutionBackward0",
                           fast=dict(_conv_fast, b=lambda g: _bias_grad_np(g)),
                           b=lambda g, x, w: keep_graph(_bias_grad(g), x, w, node=_CBB), **_conv_rules, batch="conv")
# In these rules ``g`` is the incoming gradient (shape of x) and the input named ``g`` in
# the forward is called ``gy`` to keep the two apart.
def _conv_input_fw2(gy, w, *, x_shape, stride, padding, dilation, groups):
    return _conv_input_np(gy, w, x_shape, stride, padding, dilation, groups)


def _conv_input_b_fw2(gy, w, b, *, x_shape, stride, padding, dilation, groups):
    y = _conv_input_np(gy, w, x_shape, stride, padding, dilation, groups)
    y += b.reshape((1, -1) + (1,) * (y.ndim - 2))
    return y


_cin_rules = dict(
    gy=lambda g, gy, w, stride, padding, dilation, groups: keep_graph(
        _conv(g, w, stride, padding, dilation, groups), gy, node=_CBB),
    w=lambda g, gy, w_shape, stride, padding, dilation, groups: _conv_weight(g, gy, w_shape, stride, padding,
                                                                             dilation, groups))
_conv_input_op = primitive("conv_transpose", _follow(_conv_input_fw2), node="ConvolutionBackward0", **_cin_rules, batch="fold:x_shape")
_conv_input_b_op = primitive("conv_transpose_bias", _follow(_conv_input_b_fw2), node="ConvolutionBackward0",
                             b=lambda g, gy, w: keep_graph(_bias_grad(g), gy, w, node=_CBB), **_cin_rules, batch="fold:x_shape")
# conv_weight(x, gy) = dw.  d/dx = conv_input(gy, G); d/dgy = conv(x, G)
_conv_weight_op = primitive(
    "conv_weight", lambda x, gy, *, w_shape, stride, padding, dilation, groups:
    _conv_weight_np(x, gy, w_shape, stride, padding, dilation, groups),
    node="ConvolutionBackwardBackward0",
    x=lambda g, gy, x_shape, stride, padding, dilation, groups: _conv_input(gy, g, x_shape, stride, padding,
                                                                            dilation, groups),
    gy=lambda g, x, stride, padding, dilation, groups: _conv(x, g, stride, padding, dilation, groups), batch="conv_weight")


def _conv_weight_rank_check(x: Tensor, w: Tensor, nd: int, stride, padding) -> None:
    """PyTorch's convolution takes its dimensionality from the weight: a weight of another rank fails
    on the stride's length (or, with padding='same', on the input's rank).  ``x``: batched."""
    if w.ndim < 3:
        raise RuntimeError("weight should have at least three dimensions")
    if w.ndim != nd + 2:
        if isinstance(padding, str) and padding == "same":
            raise RuntimeError(f"Expected {w.ndim}-dimensional input for {w.ndim}-dimensional weight"
                               f"{list(w.shape)}, but got {x.ndim}-dimensional input of size {list(x.shape)} instead")
        raise RuntimeError(f"expected stride to be a single integer value or a list of {w.ndim - 2} values to match "
                           f"the convolution dimensions, but got stride={list(_tuple(stride, nd, 'stride'))}")


def _conv_shape_checks(name, x: Tensor, w: Tensor, groups: int, nd: int, transposed: bool = False) -> None:
    if w.ndim != nd + 2:
        raise RuntimeError("weight should have at least three dimensions" if nd == 1 and w.ndim < 3 else
                           f"Expected {nd + 2}-dimensional weight for {nd + 2}-dimensional input, but got "
                           f"{w.ndim}-dimensional weight")
    if x.ndim != nd + 2:
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
                           f"input of size: [{', '.join(map(str, x.shape))}]")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if w.shape[0] < groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least {groups} at dimension 0, but got "
                           f"weight of size [{', '.join(map(str, w.shape))}] instead")
    cin = x.shape[1]
    if not transposed:
        if cin != w.shape[1] * groups:
            raise RuntimeError(
                f"Given groups={groups}, weight of size [{', '.join(map(str, w.shape))}], expected input"
                f"[{', '.join(map(str, x.shape))}] to have {w.shape[1] * groups} channels, but got {cin} "
                "channels instead")
        if w.shape[0] % groups:
            raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at dimension 0, "
                               f"but got weight of size [{', '.join(map(str, w.shape))}] instead")
    else:
        if cin != w.shape[0]:
            raise RuntimeError(
                f"Given transposed=1, weight of size [{', '.join(map(str, w.shape))}], expected input"
                f"[{', '.join(map(str, x.shape))}] to have {w.shape[0]} channels, but got {cin} channels instead")
    if x.dtype is not w.dtype and transposed:
        raise RuntimeError(f"Input type ({_tn(x)}) and weight type ({_tn(w)}) should be the same")


def _conv_bias_dtype_check(x: Tensor, bias) -> None:
    # (PyTorch checks the bias's dtype before the geometry; the weight's only in the kernel)
    if bias is not None and bias.dtype is not x.dtype:
        raise RuntimeError(f"Input type ({_tn(x)}) and bias type ({_tn(bias)}) should be the same")


def _conv_weight_dtype_check(x: Tensor, w: Tensor) -> None:
    if w.dtype is not x.dtype:
        from ..._tensor import _scalar_type_name

        raise RuntimeError(f"expected scalar type {_scalar_type_name(x.dtype)} but found {_scalar_type_name(w.dtype)}")


def _conv_param_checks(stride, padding, dilation, transposed: bool = False) -> None:
    """PyTorch's checks on the geometry arguments, in its order (padding, stride, dilation)."""
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(s <= 0 for s in stride):
        raise RuntimeError("non-positive stride is not supported")
    if any(d < 0 for d in dilation):
        raise RuntimeError("dilation should be greater than zero")
    if any(d == 0 for d in dilation):
        # PyTorch runs 1-d convolutions as 2-d ones (height 1), which shows in these messages
        dil = (1,) + tuple(dilation) if len(dilation) == 1 else tuple(dilation)
        if transposed:
            names = ("depth", "height", "width")[-len(dil):]
            raise RuntimeError("dilation should be greater than zero, but got "
                               + ", ".join(f"dilation_{n}: {d}" for n, d in zip(names, dil)))
        raise RuntimeError(f"dilation should be greater than zero, but got {list(dil)}")


_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
                 "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def _tn(t: Tensor) -> str:
    # (PyTorch's messages name the C++ types)
    name = str(t.dtype).rpartition(".")[2]
    return _C_TYPE_NAMES.get(name, name)


def _convnd(nd, name, input, weight, bias, stride, padding, dilation, groups):
    if not isinstance(weight, Tensor) or not isinstance(input, Tensor):
        raise TypeError(
            f"{name}() received an invalid combination of arguments - got ({type(input).__name__}, "
            f"{type(weight).__name__}), but expected one of:\n"
            " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, tuple of ints padding = 0, "
            "tuple of ints dilation = 1, int groups = 1)\n"
            " * (Tensor input, Tensor weight, Tensor bias = None, tuple of ints stride = 1, str padding = \"valid\", "
            "tuple of ints dilation = 1, int groups = 1)\n")
    if input.ndim not in (nd + 1, nd + 2):
        raise RuntimeError(f"Expected {nd + 1}D (unbatched) or {nd + 2}D (batched) input to {name}, but got "
                           f"input of size: [{', '.join(map(str, input.shape))}]")
    batched = input.ndim == nd + 2
    if input.ndim == nd + 1:
        input = unsqueeze(input, 0)
    _conv_weight_rank_check(input, weight, nd, stride, padding)
    _conv_bias_dtype_check(input, bias)
    stride = _tuple(stride, nd, "stride")
    dilation = _tuple(dilation, nd, "dilation")
    ksize = weight.shape[2:]
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * nd
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = []
            for k, d in zip(ksize, dilation):
                total = d * (k - 1)
                pads.append((total // 2, total - total // 2))
            pads = tuple(pads)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        pads = tuple((p, p) for p in _tuple(padding, nd, "padding"))
    _conv_param_checks(stride, [lo for lo, _ in pads], dilation)
    _conv_shape_checks(name, input, weight, groups, nd)
    _conv_weight_dtype_check(input, weight)
    padded = [s + lo + hi for s, (lo, hi) in zip(input.shape[2:], pads)]
    spans = [d * (k - 1) + 1 for k, d in zip(ksize, dilation)]
    if any(p < sp for p, sp in zip(padded, spans)):
        raise RuntimeError(f"Calculated padded input size per channel: ({' x '.join(map(str, padded))}). "
                           f"Kernel size: ({' x '.join(map(str, spans))}). "
                           "Kernel size can't be greater than actual input size")
    # keep the forward's columns for the weight gradient when one will be computed
    if input.shape[1] == 0:
        # PyTorch's convolution of a zero-channel input gives a zero-channel output (N, 0, *out), whatever
        # the weight's size(0); the parameters still get (zero) gradients through the empty slices.
        weight = weight[:0]
        bias = bias[:0] if bias is not None else None
    memo = _Columns() if weight._requires_grad and _grad_state.enabled else None
    static = dict(_p(stride, pads, dilation, int(groups)), cols=memo)
    if bias is not None:
        out = apply(_convolution_b, (input, weight, bias), static)
    else:
        out = apply(_convolution, (input, weight), static)
    return out if batched else squeeze(out, 0)


def conv1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """1-D convolution over (N, C, L) input (backward node ConvolutionBackward0).

    >>> import retrograd as torch
    >>> torch.conv1d(torch.ones(1, 1, 4), torch.ones(1, 1, 2)).shape
    torch.Size([1, 1, 3])
    """
    return _convnd(1, "conv1d", input, weight, bias, stride, padding, dilation, groups)


def conv2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """2-D convolution over (N, C, H, W) input, via im2col and one matrix product.

    >>> import retrograd as torch
    >>> torch.conv2d(torch.ones(1, 1, 4, 4), torch.ones(2, 1, 3, 3), padding=1).shape
    torch.Size([1, 2, 4, 4])
    """
    return _convnd(2, "conv2d", input, weight, bias, stride, padding, dilation, groups)


def conv3d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0, dilation=1,
           groups: int = 1) -> Tensor:
    """3-D convolution over (N, C, D, H, W) input."""
    return _convnd(3, "conv3d", input, weight, bias, stride, padding, dilation, groups)


def _conv_transposend(nd, name, input, weight, bias, stride, padding, output_padding, groups, dilation):
    batched = input.ndim == nd + 2
    if input.ndim == nd + 1:
        input = unsqueeze(input, 0)
    _conv_shape_checks(name, input, weight, groups, nd, transposed=True)
    stride = _tuple(stride, nd, "stride")
    padding = _tuple(padding, nd, "padding")
    output_padding = _tuple(output_padding, nd, "output_padding")
    dilation = _tuple(dilation, nd, "dilation")
    _conv_param_checks(stride, padding, dilation, transposed=True)
    for op, s, d in zip(output_padding, stride, dilation):
        if op >= s and op >= d:
            raise RuntimeError("output padding must be smaller than either stride or dilation, but got "
                               f"output_padding_height: {output_padding[0]} output_padding_width: "
                               f"{output_padding[-1]} stride_height: {stride[0]} stride_width: {stride[-1]} "
                               f"dilation_height: {dilation[0]} dilation_width: {dilation[-1]}")
    ksize = weight.shape[2:]
    out_sp = tuple((i - 1) * s - 2 * p + d * (k - 1) + op + 1
                   for i, s, p, d, k, op in zip(input.shape[2:], stride, padding, dilation, ksize, output_padding))
    # output_padding adds rows at the high end: pad the (virtual) input there.
    pads = tuple((p, p - op) for p, op in zip(padding, output_padding))
    x_shape = (input.shape[0], weight.shape[1] * groups) + out_sp
    static = dict(_p(stride, pads, dilation, int(groups)), x_shape=x_shape)
    if bias is not None:
        out = apply(_conv_input_b_op, (input, weight, bias), static)
    else:
        out = apply(_conv_input_op, (input, weight), static)
    return out if batched else squeeze(out, 0)


@tensor_args("conv_transpose1d", weight=2)
def conv_transpose1d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """Transposed 1-D convolution (the gradient of conv1d w.r.t. its input)."""
    return _conv_transposend(1, "conv_transpose1d", input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


@tensor_args("conv_transpose2d", weight=2)
def conv_transpose2d(input: Tensor, weight: Tensor, bias: Tensor | None = None, stride=1, padding=0,
                     output_padding=0, groups: int = 1, dilation=1) -> Tensor:
    """Transposed 2-D convolution; weight is (C_in, C_out / groups, kH, kW).

    >>> import retrograd as torch
    >>> torch.conv_transpose2d(torch.ones(1, 2, 3, 3), torch.ones(2, 1, 2, 2), stride=2).shape
    torch.Size([1, 1, 6, 6])
    """
    return _conv_transposend(2, "conv_transpose2d", input, weight, bias, stride, padding, output_padding, groups,
                             dilation)


# ====================================================================== unfold / fold
def _im2col_fw(x, *, ksize, dilation, padding, stride):
    cols, _ = _im2col(_pad_spatial(x, padding), ksize, stride, dilation)
    # (the reshape copies except in degenerate cases, where it is a view of x: never alias the input)
    return cols.copy() if np.may_share_memory(cols, x) else cols


def _col2im_fw(c, *, out_shape, ksize, dilation, padding, stride):
    n = c.shape[0]
    ch = c.shape[1] // math.prod(ksize)
    xp_shape = (n, ch) + tuple(s + lo + hi for s, (lo, hi) in zip(out_shape, padding))
    out_sp = tuple((s - d * (k - 1) - 1) // st + 1 for s, d, k, st in zip(xp_shape[2:], dilation, ksize, stride))
    return np.ascontiguousarray(_crop_spatial(_col2im(c, xp_shape, ksize, stride, dilation, out_sp), padding))


_im2col_op = primitive("im2col", _im2col_fw, node="Im2ColBackward0",
                       x=lambda g, x_shape, ksize, dilation, padding, stride: apply(
                           _col2im_op, (g,), {"out_shape": tuple(x_shape[2:]), "ksize": ksize, "dilation": dilation,
                                              "padding": padding, "stride": stride}))
_col2im_op = primitive("col2im", _col2im_fw, node="Col2ImBackward0",
                       c=lambda g, ksize, dilation, padding, stride: apply(
                           _im2col_op, (g,), {"ksize": ksize, "dilation": dilation, "padding": padding,
                                              "stride": stride}))


def im2col(input: Tensor, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sliding blocks of a (N, C, H, W) tensor as columns: (N, C*kH*kW, L) (``F.unfold``)."""
    batched = input.ndim == 4
    if input.ndim not in (3, 4) or any(d == 0 for d in input.shape[-3:]):
        raise RuntimeError("Expected 3D or 4D (batch mode) tensor with possibly 0 batch size and other non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    if input.ndim == 3:
        input = unsqueeze(input, 0)
    static = {"ksize": _tuple(kernel_size, 2), "dilation": _tuple(dilation, 2),
              "padding": tuple((p, p) for p in _tuple(padding, 2)), "stride": _tuple(stride, 2)}
    blocks = [(i + 2 * p - d * (k - 1) - 1) // st + 1 for i, k, d, (p, _), st in
              zip(input.shape[2:], static["ksize"], static["dilation"], static["padding"], static["stride"])]
    if any(b < 1 for b in blocks):
        ks, dl = static["ksize"], static["dilation"]
        pd = _tuple(padding, 2)
        raise RuntimeError(f"Given input with spatial size ({input.shape[2]}, {input.shape[3]}), kernel_size=({ks[0]}, "
                           f"{ks[1]}), dilation=({dl[0]}, {dl[1]}), padding=({pd[0]}, {pd[1]}), calculated shape of "
                           f"the array of sliding blocks as ({blocks[0]}, {blocks[1]}), but its components must be at "
                           "least one.")
    out = apply(_im2col_op, (input,), static)
    return out if batched else squeeze(out, 0)


def col2im(input: Tensor, output_size, kernel_size, dilation=1, padding=0, stride=1) -> Tensor:
    """Sum columns (N, C*kH*kW, L) back into a (N, C, H, W) tensor (``F.fold``)."""
    batched = input.ndim == 3
    if input.ndim not in (2, 3) or any(d == 0 for d in input.shape[-2:]):
        raise RuntimeError("Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch size and non-zero "
                           f"dimensions for input, but got: {list(input.shape)}")
    if input.ndim == 2:
        input = unsqueeze(input, 0)
    ks = _tuple(kernel_size, 2)
    if input.shape[1] % math.prod(ks):
        raise RuntimeError(
            "Expected size of input's dimension 1 to be divisible by the product of kernel_size, "
            f"but got input.size(1)={input.shape[1]} and kernel_size=({ks[0]}, {ks[1]}).")
    os_, dl, pd, st = _tuple(output_size, 2), _tuple(dilation, 2), _tuple(padding, 2), _tuple(stride, 2)
    blocks = [(o + 2 * p - d * (k - 1) - 1) // s + 1 for o, p, d, k, s in zip(os_, pd, dl, ks, st)]
    if input.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(
            f"Given output_size=({os_[0]}, {os_[1]}), kernel_size=({ks[0]}, {ks[1]}), dilation=({dl[0]}, {dl[1]}), "
            f"padding=({pd[0]}, {pd[1]}), stride=({st[0]}, {st[1]}), expected size of input's dimension 2 to match "
            f"the calculated number of sliding blocks {blocks[0]} * {blocks[1]} = {blocks[0] * blocks[1]}, but got "
            f"input.size(2)={input.shape[2]}.")
    static = {"out_shape": os_, "ksize": ks, "dilation": dl, "padding": tuple((p, p) for p in pd), "stride": st}
    out = apply(_col2im_op, (input,), static)
    return out if batched else squeeze(out, 0)
