"""Neural-network primitives: linear, convolution, pooling, softmax, embedding, activations, padding.

Each primitive is a NumPy forward plus rules written in retrograd ops, so second
derivatives work.  Linear ops come in dual pairs whose rules point at each other:

* linear (x, w[, b]) -> x w^T (+ b), with ``mm`` and ``linear_weight_grad`` (g^T x): the
  partial derivatives of ``<x w^T, g>``.
* convolution (x, w) -> y, with the input-gradient op ``conv_input`` (a transposed
  convolution, also the forward of ``conv_transpose*d``) and the weight-gradient op
  ``conv_weight``; all three are partial derivatives of one trilinear form
  ``T(x, w, g) = <conv(x, w), g>``, so each one's rules are the other two.
* max pooling returns (values, indices); its backward is a scatter (``pool_scatter``)
  whose rule is a gather (``pool_gather``) and vice versa.
* avg_pool <-> avg_pool_backward, adaptive_avg_pool <-> its transpose,
  im2col (unfold) <-> col2im (fold), constant_pad_nd <-> constant_pad_nd (negated pads),
  embedding <-> embedding_backward.

Convolution uses per-sample im2col (``sliding_window_view``, one copy) and batched GEMMs;
the forward's columns are reused by the weight gradient of a plain backward.  The training
hot path (``bench/bench_mlp.py``, ``bench/bench_cnn.py``) also has single-node backwards
for relu (``threshold_backward``), log_softmax and unweighted nll_loss.
"""
from __future__ import annotations

import functools
import math

import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

from .. import _dtype as D
from .._layout import follows_input_layout as _follow
from .._blas import mm as blas_mm
from .._tensor import Tensor
from ..autograd.grad_mode import state as _grad_state
from ._common import tensor_args, wrap_dim
from ._keep_graph import keep_graph
from ._registry import apply, primitive
from .pointwise import exp, sigmoid, tanh, where
from .reduce import _sum_dim as _sum_dim_op, sum as _sum
from .linalg import _mm as _mm_op
from .shape import squeeze, unsqueeze

# Exported at top level only what torch exports there; nn.functional reaches the rest
# (avg_pool2d, activations, im2col ...) through this module.
__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "max_pool1d", "max_pool2d",
           "max_pool3d", "max_pool1d_with_indices", "avg_pool1d", "adaptive_avg_pool1d", "adaptive_max_pool1d",
           "softmax", "log_softmax", "embedding", "constant_pad_nd"]
METHODS = ["softmax", "log_softmax"]

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


def _conv_w_rule(g, x, w_shape, stride, padding, dilation, groups, cols):
    memo = cols.cols if cols is not None else None
    if memo is not None and not _grad_state.enabled:
        # a plain backward (no graph to build): the weight gradient from the forward's columns
        cols.cols = None
        return apply(_conv_weight_cols_op, (g,), {"cols": memo, "w_shape": tuple(w_shape), "groups": groups})
    return _conv_weight(x, g, w_shape, stride, padding, dilation, groups)


def _conv_weight_cols_np(g, *, cols, w_shape, groups):
    return _weight_from_cols(g, cols, w_shape, groups)


# (no rules: only used while grad mode is off, i.e. when no graph of the backward is built)
_conv_weight_cols_op = primitive("conv_weight_columns", _conv_weight_cols_np, node="ConvolutionBackwardBackward0")
# PyTorch computes all three gradients in one convolution_backward(grad, input, weight) node, so
# under create_graph each of them is linked to the input and the weight: keep_graph does that
_CBB = "ConvolutionBackwardBackward0"
_conv_rules = dict(
    x=lambda g, x, w, x_shape, stride, padding, dilation, groups: keep_graph(
        _conv_input(g, w, x_shape, stride, padding, dilation, groups), x, node=_CBB),
    w=_conv_w_rule)
_convolution = primitive("convolution", _follow(_conv_fw), node="ConvolutionBackward0", **_conv_rules)
_convolution_b = primitive("convolution_bias", _follow(_conv_b_fw), node="ConvolutionBackward0",
                           b=lambda g, x, w: keep_graph(_bias_grad(g), x, w, node=_CBB), **_conv_rules)
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
_conv_input_op = primitive("conv_transpose", _follow(_conv_input_fw2), node="ConvolutionBackward0", **_cin_rules)
_conv_input_b_op = primitive("conv_transpose_bias", _follow(_conv_input_b_fw2), node="ConvolutionBackward0",
                             b=lambda g, gy, w: keep_graph(_bias_grad(g), gy, w, node=_CBB), **_cin_rules)
# conv_weight(x, gy) = dw.  d/dx = conv_input(gy, G); d/dgy = conv(x, G)
_conv_weight_op = primitive(
    "conv_weight", lambda x, gy, *, w_shape, stride, padding, dilation, groups:
    _conv_weight_np(x, gy, w_shape, stride, padding, dilation, groups),
    node="ConvolutionBackwardBackward0",
    x=lambda g, gy, x_shape, stride, padding, dilation, groups: _conv_input(gy, g, x_shape, stride, padding,
                                                                            dilation, groups),
    gy=lambda g, x, stride, padding, dilation, groups: _conv(x, g, stride, padding, dilation, groups))


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
        from .._tensor import _scalar_type_name

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
    """The unbatched twin of a max-pooling op with indices (same node name)."""
    return primitive(name + "_unbatched", _unbatched_fw(op.forward), node=op.node_name, n_out=2,
                     x=_pool_bw_rule_unbatched)


def _avg_twin(name: str, fw, node: str, bw_op_of):
    """The unbatched twin of an average-pooling op; ``bw_op_of()`` gives its batched backward op."""
    def rule(g, x_shape, ksize, stride, padding, ceil_mode, count_include_pad, divisor_override):
        return squeeze(apply(bw_op_of(), (unsqueeze(g, 0),), dict(
            x_shape=(1,) + tuple(x_shape), ksize=ksize, stride=stride, padding=padding, ceil_mode=ceil_mode,
            count_include_pad=count_include_pad, divisor_override=divisor_override)), 0)
    return primitive(name + "_unbatched", _unbatched_fw(fw), node=node, x=rule)


_max_pool2d_ub_op = _max_index_twin(_max_pool2d_op, "max_pool2d")
_max_pool3d_ub_op = _max_index_twin(_max_pool3d_op, "max_pool3d")


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


_avg_pool2d_ub_op = _avg_twin("avg_pool2d", _avg_pool_fw, "AvgPool2DBackward0", lambda: _avg_pool2d_bw)


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
        from .._tensor import _scalar_type_name

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
        from .reduce import mean

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
_UNBATCHED_TWIN = {_adaptive_max2d_op: _max_index_twin(_adaptive_max2d_op, "adaptive_max_pool2d")}


def _adaptive_max_with_indices(op, nd: int, input: Tensor, output_size, name=None) -> tuple:
    # shared by the 2-D and 3-D ops (nn_ops_more.py): check, batch an unbatched input, run ``op``, unbatch
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


# ====================================================================== linear
# nn.Linear as one node: y = x @ w.T (+ b).  PyTorch records addmm(b, x, w.t()) (or mm), i.e.
# an AddmmBackward0 fed by a TBackward0 on the weight; fusing the transpose into the op saves a
# node per layer and, above all, makes the weight gradient g.T @ x a fresh C-contiguous array
# (the transposed view of x.T @ g had to be copied before it could become weight.grad).
# The three ops are partial derivatives of <x w^T, g>, so their rules point at each other.
def _linear_np(x, w):
    return blas_mm(x, w.T)


def _linear_b_np(b, x, w):
    return blas_mm(x, w.T, b)


def _mm(a: Tensor, b: Tensor) -> Tensor:
    return apply(_mm_op, (a, b))


def _linear_nb(x: Tensor, w: Tensor) -> Tensor:
    return apply(_linear_op, (x, w))


def _weight_grad(gy: Tensor, x: Tensor) -> Tensor:
    return apply(_linear_wgrad_op, (gy, x))


_linear_op = primitive("linear", _linear_np, node="MmBackward0",
                       array_rules={"x": lambda g, w: blas_mm(g, w), "w": lambda g, x: g.T @ x},
                       x=lambda g, w: _mm(g, w),
                       w=lambda g, x: _weight_grad(g, x))
# input order (bias, input, weight) is addmm's, so next_functions line up with PyTorch's
def _sum_rows(g: Tensor) -> Tensor:
    """``g.sum(0)`` for a 2-d gradient (the bias gradient), without parsing ``dim``."""
    return apply(_sum_dim_op, (g,), _ROWS)


_ROWS = {"dims": (0,), "keepdim": False}
_linear_b_op = primitive("linear_bias", _linear_b_np, node="AddmmBackward0",
                         array_rules={"b": lambda g: _add_reduce(g, axis=(0,)), "x": lambda g, w: blas_mm(g, w),
                                      "w": lambda g, x: g.T @ x},
                         b=lambda g: _sum_rows(g),
                         x=lambda g, w: _mm(g, w),
                         w=lambda g, x: _weight_grad(g, x))
# d<x w^T, g>/dw = g^T x;  d/dgy = x G^T = linear(x, G);  d/dx = gy G
_linear_wgrad_op = primitive("linear_weight_grad", lambda gy, x: gy.T @ x, node="MmBackward0",
                             gy=lambda g, x: _linear_nb(x, g),
                             x=lambda g, gy: _mm(gy, g))


def linear_2d(input: Tensor, weight: Tensor, bias: Tensor | None = None) -> Tensor:
    """``input @ weight.T + bias`` for a 2-d input and weight (checked by the caller): one node."""
    if bias is None:
        return apply(_linear_op, (input, weight))
    return apply(_linear_b_op, (bias, input, weight))


# ====================================================================== softmax
# (the ufuncs' own reduce: np.max's / ndarray.sum's wrappers cost more than a small row)
_max_reduce = np.maximum.reduce
_add_reduce = np.add.reduce


# A row whose max is +inf or NaN comes out all NaN, as in PyTorch (x - max is NaN there);
# a row of -inf gives NaN too (-inf - -inf).  NumPy's invalid-value warnings from this
# module are silenced at import, so these rows need no special path.
def _softmax_np(x, *, dim):
    if not x.size:  # (an empty dim has no max; the result is just as empty)
        return x.copy()
    e = np.exp(x - _max_reduce(x, axis=dim, keepdims=True))
    return e / _add_reduce(e, axis=dim, keepdims=True)




def _log_softmax_np(x, *, dim):
    # (non-finite rows: as _softmax_np; a finite row holds exp(0) = 1, so the sum is >= 1)
    if not x.size:
        return x.copy()
    z = x - _max_reduce(x, axis=dim, keepdims=True)
    z -= np.log(_add_reduce(np.exp(z), axis=dim, keepdims=True))
    return z


def _log_softmax_bw_np(gy, y, *, dim):
    # gy - exp(y) * sum(gy) (y: the log_softmax output): one node instead of four in the backward
    r = np.exp(y)
    if type(r) is not np.ndarray:  # (a 0-d y gives a NumPy scalar: no in-place ops on it)
        r = np.asarray(r)
    r *= gy.sum(axis=dim, keepdims=True)
    np.subtract(gy, r, out=r)
    return r


_softmax_op = primitive("softmax", _softmax_np, node="SoftmaxBackward0",
                        x=lambda g, out, dim: out * (g - _sum(g * out, dim, True)))
_log_softmax_op = primitive("log_softmax", _log_softmax_np, node="LogSoftmaxBackward0",
                            array_rules={"x": lambda g, out, dim: _log_softmax_bw_np(g, out, dim=dim)},
                            x=lambda g, out, dim: apply(_log_softmax_bw_op, (g, out), {"dim": dim}))
# r = gy - e * sum(gy) with e = exp(y):  d/dgy = G - sum(G e);  d/dy = -G e sum(gy)
# (the input is ``y``, not ``out``: in a rule ``out`` names the op's own output)
_log_softmax_bw_op = primitive("log_softmax_backward", _log_softmax_bw_np, node="LogSoftmaxBackwardDataBackward0",
                               gy=lambda g, y, dim: g - _sum(g * exp(y), dim, True),
                               y=lambda g, gy, y, dim: -(g * exp(y)) * _sum(gy, dim, True))


def _softmax_like(op, input: Tensor, dim, dtype):
    if dtype is not None and input.dtype is not dtype:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        from .._tensor import _scalar_type_name

        # (PyTorch's kernel for the last dim, a 0-d tensor included, has its own name)
        last = input.ndim == 0 or (isinstance(dim, (int, np.integer)) and dim in (input.ndim - 1, -1))
        kernel = f"{op.name}_lastdim_kernel_impl" if last else f"{op.name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(input.dtype)}\'')
    d = wrap_dim(dim, input.ndim)  # (a 0-d tensor takes dim 0 / -1: PyTorch's IndexError otherwise)
    if input.ndim == 0:  # reduce over no axis: the kernels then compute exp(x - x) / 1 and its grads
        return apply(op, (input,), {"dim": ()})
    return apply(op, (input,), {"dim": d})


def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``, computed stably (backward node SoftmaxBackward0).

    >>> import retrograd as torch
    >>> torch.softmax(torch.tensor([0., 0.]), 0)
    tensor([0.5000, 0.5000])
    """
    return _softmax_like(_softmax_op, input, dim, dtype)


def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim`` without overflow (backward node LogSoftmaxBackward0)."""
    return _softmax_like(_log_softmax_op, input, dim, dtype)


# ====================================================================== embedding
def _add_rows_at(out: np.ndarray, idx: np.ndarray, rows: np.ndarray) -> None:
    """``np.add.at(out, idx, rows)`` for a zero-filled ``out`` (one row per index, repeats summed).

    np.add.at handles one element at a time.  Rows whose index occurs once are simply
    stored; only the repeated ones go through np.add.at, in their original order, so every
    sum is accumulated exactly as np.add.at (and PyTorch's index_add) would: same bits,
    ~2.5x faster for a typical batch of token ids.
    """
    if idx.size < 64:
        np.add.at(out, idx, rows)
        return
    _, inverse, counts = np.unique(idx, return_inverse=True, return_counts=True)
    once = counts[inverse] == 1
    out[idx[once]] = rows[once]
    if not once.all():
        repeated = ~once
        np.add.at(out, idx[repeated], rows[repeated])


def _embedding_bw_np(g, idx, *, num_weights, padding_idx, scale_grad_by_freq):
    d = g.shape[-1]
    flat = idx.reshape(-1)
    gw = g.reshape(-1, d)
    if scale_grad_by_freq:
        counts = np.bincount(flat, minlength=num_weights)
        gw = gw / counts[flat][:, None]
    out = np.zeros((num_weights, d), dtype=g.dtype)
    _add_rows_at(out, flat, gw)
    if padding_idx is not None:
        out[padding_idx] = 0
    return out


def _embedding_gather_rule(g, idx, padding_idx, scale_grad_by_freq):
    out = apply(_embedding_op, (g, idx))
    d = idx._data
    scale = np.ones(d.shape, dtype=g._data.dtype)
    if scale_grad_by_freq:
        counts = np.bincount(d.reshape(-1))
        scale = scale / counts[d]
    if padding_idx is not None:
        scale = scale * (d != padding_idx)
    return out * _t(scale[..., None].astype(g._data.dtype))


_embedding_bw_op = primitive("embedding_backward", _embedding_bw_np, node="EmbeddingBackwardBackward0",
                             g=lambda g, idx, padding_idx, scale_grad_by_freq: _embedding_gather_rule(
                                 g, idx, padding_idx, scale_grad_by_freq))
_embedding_op = primitive(
    "embedding", lambda weight, idx: weight[idx], node="EmbeddingBackward0",
    weight=lambda g, idx, weight_shape: apply(_embedding_bw_op, (g, idx), {
        "num_weights": weight_shape[0], "padding_idx": None, "scale_grad_by_freq": False}))
_embedding_pad_op = primitive(
    "embedding_padding", lambda weight, idx, *, padding_idx, scale_grad_by_freq: weight[idx],
    node="EmbeddingBackward0",
    weight=lambda g, idx, weight_shape, padding_idx, scale_grad_by_freq: apply(_embedding_bw_op, (g, idx), {
        "num_weights": weight_shape[0], "padding_idx": padding_idx, "scale_grad_by_freq": scale_grad_by_freq}))


def embedding(weight: Tensor, indices: Tensor, padding_idx: int = -1, scale_grad_by_freq: bool = False,
              sparse: bool = False) -> Tensor:
    """Rows of ``weight`` picked by integer ``indices`` (``torch.embedding``: weight first; padding_idx=-1 is none).

    Backward node EmbeddingBackward0; the padding row gets no gradient.

    >>> import retrograd as torch
    >>> torch.embedding(torch.eye(3), torch.tensor([2, 0]))
    tensor([[0., 0., 1.],
            [1., 0., 0.]])
    """
    if not isinstance(indices, Tensor) or indices._data.dtype.kind not in "iu":
        from .._tensor import _legacy_type_name

        raise RuntimeError("Expected tensor for argument #1 'indices' to have one of the following scalar types: "
                           f"Long, Int; but got {_legacy_type_name(indices._data.dtype)} instead (while checking "
                           "arguments for embedding)")
    n = weight.shape[0]
    d = indices._data
    if d.size and (d.max() >= n or d.min() < 0):
        raise IndexError("index out of range in self")
    pad = None if padding_idx is None or padding_idx == -1 else (padding_idx + n if padding_idx < 0 else padding_idx)
    if pad is None and not scale_grad_by_freq:
        return apply(_embedding_op, (weight, indices))
    return apply(_embedding_pad_op, (weight, indices), {"padding_idx": pad,
                                                       "scale_grad_by_freq": bool(scale_grad_by_freq)})


# ====================================================================== padding
def _const_pad_fw(x, *, pad, value):
    # pad = (last_lo, last_hi, prev_lo, prev_hi, ...) as in PyTorch; negative values crop.
    nd = len(pad) // 2
    crop = [slice(None)] * x.ndim
    widths = [(0, 0)] * x.ndim
    for i in range(nd):
        ax = x.ndim - 1 - i
        lo, hi = pad[2 * i], pad[2 * i + 1]
        crop[ax] = slice(max(-lo, 0), x.shape[ax] - max(-hi, 0))
        widths[ax] = (max(lo, 0), max(hi, 0))
    y = x[tuple(crop)]
    if any(w != (0, 0) for w in widths):
        out = np.full(tuple(s + a + b for s, (a, b) in zip(y.shape, widths)), value, dtype=x.dtype)
        out[tuple(slice(a, a + s) for s, (a, _) in zip(y.shape, widths))] = y
        return out
    return y.copy()


_const_pad_op = primitive("constant_pad_nd", _const_pad_fw, node="ConstantPadNdBackward0",
                          x=lambda g, pad: apply(_const_pad_op, (g,), {"pad": tuple(-p for p in pad), "value": 0}))


def constant_pad_nd(input: Tensor, pad, value=0) -> Tensor:
    """Pad the last len(pad)//2 dims with ``value`` (negative pads crop)."""
    pad = tuple(int(p) for p in pad)
    if len(pad) % 2:
        raise RuntimeError("Length of pad must be even but instead it equals " + str(len(pad)))
    if len(pad) // 2 > input.ndim:
        raise RuntimeError(f"Length of pad should be no more than twice the number of dimensions of the input. "
                           f"Pad length is {len(pad)} while the input has {input.ndim} dimensions.")
    for i in range(len(pad) // 2):
        s = input.shape[input.ndim - 1 - i] + pad[2 * i] + pad[2 * i + 1]
        if s < 0:
            raise RuntimeError(f"The input size {input.shape[input.ndim - 1 - i]}, plus negative padding "
                               f"{pad[2 * i]} and {pad[2 * i + 1]} resulted in a negative output size, which is "
                               f"invalid. Check dimension {input.ndim - 1 - i} of your input.")
    return apply(_const_pad_op, (input,), {"pad": pad, "value": value})


# ====================================================================== activations
def _np_err():
    return np.errstate(over="ignore", invalid="ignore", divide="ignore")
_erf_ufunc = np.frompyfunc(math.erf, 1, 1)


def _erf_np(x):
    # np.asarray: on a 0-d input the object ufunc returns a bare Python float
    return np.asarray(_erf_ufunc(x)).astype(x.dtype if x.dtype.kind == "f" else np.float32)


_SQRT_2_OVER_PI = math.sqrt(2.0 / math.pi)
_INV_SQRT_2PI = 1.0 / math.sqrt(2.0 * math.pi)
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)

_erf_op = primitive("nn_erf", _erf_np, node="ErfBackward0",
                    x=lambda g, x: g * (exp(-(x * x)) * _TWO_OVER_SQRT_PI))


def _erf(input: Tensor) -> Tensor:
    """The error function (private: GELU's rule needs it; torch.erf lives with the pointwise ops)."""
    cast = D.get_default_dtype() if input._data.dtype.kind != "f" else None
    return apply(_erf_op, (input,), None, cast)


# relu for nn.ReLU / F.relu with PyTorch's backward: threshold_backward(g, out, 0), i.e. g where
# out > 0 else 0 (the table's torch.relu computes g * sign(out): several passes, NaN*0 and -0).
_SAME_SIZE_INT = {n: np.dtype(f"i{n}") for n in (2, 4, 8)}


def _threshold_bw_np(gy, y, *, threshold):
    # PyTorch's select (y <= threshold ? 0 : gy), so a NaN in y passes its gradient on, as a
    # bitwise AND with an all-ones / all-zeros mask: branch-free (np.where on a random mask
    # is ~10x slower) and still exact where a product with a 0/1 mask is not (inf/NaN in gy
    # are masked, and zeros come out +0, not -0).  The mask is made as int8 and widened:
    # casting the comparison's bools straight to a wide int is the slowest step otherwise.
    if gy.dtype.kind == "f":
        it = _SAME_SIZE_INT[gy.dtype.itemsize]
        m = np.less_equal(y, threshold)
        if not m.ndim:  # a 0-d comparison gives a NumPy scalar, which ``out=`` below cannot take
            m = np.asarray(m)
        m = m.view(np.int8)
        m -= 1  # 0 where zeroed, -1 (all bits set) where the gradient passes
        m = m.astype(it)
        np.bitwise_and(gy.view(it), m, out=m)
        return m.view(gy.dtype)
    return np.where(y <= threshold, 0, gy).astype(gy.dtype, copy=False)


def _threshold_backward(gy: Tensor, y: Tensor, threshold) -> Tensor:
    return apply(_threshold_bw_op, (gy, y), {"threshold": threshold})


# linear in gy; w.r.t. y the derivative is zero (PyTorch: zeros_like(grad)), kept in the graph
_threshold_bw_op = primitive("threshold_backward", _threshold_bw_np, node="ThresholdBackwardBackward0",
                             gy=lambda g, y, threshold: _threshold_backward(g, y, threshold),
                             y=lambda g: g * 0)
# (floating-point input only, so max(0, x) keeps x's dtype; zero first: where x is -0 the two
# compare equal and NumPy returns the second operand, so relu(-0.) is -0. as in PyTorch)
_relu_op = primitive("nn_relu", lambda x: np.maximum(0, x), node="ReluBackward0",
                     array_rules={"x": lambda g, out: _threshold_bw_np(g, out, threshold=0)},
                     x=lambda g, out: _threshold_backward(g, out, 0))


_threshold_op = primitive("threshold", lambda x, *, threshold, value: np.where(
                              x <= threshold, value, x).astype(x.dtype, copy=False), node="ThresholdBackward0",
                          array_rules={"x": lambda g, x, threshold: _threshold_bw_np(g, x, threshold=threshold)},
                          x=lambda g, x, threshold: _threshold_backward(g, x, threshold))
# threshold_ (in place): the same kernel and rule under PyTorch's in-place node name
_threshold_inplace_op = primitive("threshold_inplace", _threshold_op.forward, node="ThresholdBackward1",
                                  x=lambda g, x, threshold: _threshold_backward(g, x, threshold))


def threshold(input: Tensor, threshold, value) -> Tensor:
    """``value`` where ``x <= threshold``, else x (a NaN stays NaN; backward node ThresholdBackward0)."""
    if input._data.dtype.kind == "b":
        raise NotImplementedError("\"threshold_cpu\" not implemented for 'Bool'")
    return apply(_threshold_op, (input,), {"threshold": threshold, "value": value})


def relu(input: Tensor) -> Tensor:
    """max(x, 0) for floating-point input (backward node ReluBackward0)."""
    return apply(_relu_op, (input,))


def _mask(cond: Tensor, like: Tensor) -> Tensor:
    return _t(cond._data.astype(like._data.dtype))


def masked_grad_op(name: str, node: str, fw, nie: str | None = None):
    """The backward of a piecewise-linear activation as an op of its own (PyTorch's
    ``hardtanh_backward``, ``leaky_relu_backward`` ...): ``fw(gy, x, *, a, b)`` on arrays is linear
    in ``gy`` and piecewise constant in ``x``.  Its derivative w.r.t. ``gy`` is the op itself and
    w.r.t. ``x`` is zero, but ``x`` stays an input: as in PyTorch, the first gradient requires
    grad whenever ``x`` does (``create_graph=True``), and differentiating it again gives zeros.
    ``nie``: PyTorch has no derivative for this backward (node ``NotImplemented``); its rules raise
    RuntimeError naming ``aten::<nie>``.
    """
    def call(gy: Tensor, x: Tensor, a=None, b=None) -> Tensor:
        return apply(op, (gy, x), {"a": a, "b": b})

    if nie is not None:
        def refuse(g):
            raise RuntimeError(f"derivative for aten::{nie} is not implemented")
        op = primitive(name, fw, node="NotImplemented", gy=refuse, x=refuse)
    else:
        op = primitive(name, fw, node=node, gy=lambda g, x, a, b: call(g, x, a, b),
                       x=lambda g: _t(np.zeros_like(g._data)))
    return call


def _leaky_fw(x, *, slope):
    return np.where(x > 0, x, x * slope).astype(x.dtype, copy=False)


# ATen: x > 0 ? g : g * slope
leaky_relu_backward = masked_grad_op(
    "leaky_relu_backward", "LeakyReluBackwardBackward0",
    lambda gy, x, *, a, b: np.where(x > 0, gy, gy * gy.dtype.type(a)).astype(gy.dtype, copy=False))
_leaky_relu_op = primitive("leaky_relu", _leaky_fw, node="LeakyReluBackward0",
                           x=lambda g, x, slope: leaky_relu_backward(g, x, slope))


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x if x > 0 else negative_slope * x."""
    return apply(_leaky_relu_op, (input,), {"slope": negative_slope})


def _elu_fw(x, *, alpha, scale, input_scale):
    with _np_err():
        return np.where(x > 0, x * scale, alpha * scale * np.expm1(np.minimum(x, 0) * input_scale)).astype(
            x.dtype, copy=False)


_elu_op = primitive("elu", _elu_fw, node="EluBackward0",
                    x=lambda g, x, alpha, scale, input_scale: g * where(
                        x > 0, scale, exp(x * input_scale) * (alpha * scale * input_scale)))


def elu(input: Tensor, alpha: float = 1.0, scale: float = 1.0, input_scale: float = 1.0) -> Tensor:
    """scale * (x if x > 0 else alpha * (exp(x * input_scale) - 1))."""
    return apply(_elu_op, (input,), {"alpha": alpha, "scale": scale, "input_scale": input_scale})


def _gelu_fw(x, *, approximate):
    with _np_err():
        if approximate == "tanh":
            return (0.5 * x * (1 + np.tanh(_SQRT_2_OVER_PI * (x + 0.044715 * x ** 3)))).astype(x.dtype, copy=False)
        return (0.5 * x * (1 + _erf_np(x / math.sqrt(2.0)))).astype(x.dtype, copy=False)


def _gelu_rule(g, x, approximate):
    if approximate == "tanh":
        inner = (x + x * x * x * 0.044715) * _SQRT_2_OVER_PI
        t = tanh(inner)
        return g * ((1 + t) * 0.5 + x * 0.5 * (1 - t * t) * ((1 + x * x * (3 * 0.044715)) * _SQRT_2_OVER_PI))
    cdf = (1 + _erf(x * (1 / math.sqrt(2.0)))) * 0.5
    return g * (cdf + x * exp(x * x * -0.5) * _INV_SQRT_2PI)


_gelu_op = primitive("gelu", _gelu_fw, node="GeluBackward0", x=_gelu_rule)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (or its tanh approximation)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(_gelu_op, (input,), {"approximate": approximate})


def _sig(x):
    with _np_err():
        return 1 / (1 + np.exp(-x))


_silu_op = primitive("silu", lambda x: (x * _sig(x)).astype(x.dtype, copy=False), node="SiluBackward0",
                     x=lambda g, x: _silu_rule(g, x))


def _silu_rule(g, x):
    s = sigmoid(x)
    return g * s * (1 + x * (1 - s))


def silu(input: Tensor) -> Tensor:
    """x * sigmoid(x)."""
    return apply(_silu_op, (input,))


def _softplus_np(x, beta, threshold):
    with _np_err():
        z = x * beta
        return np.where(z > threshold, x, np.logaddexp(0, z) / beta).astype(x.dtype, copy=False)


_softplus_op = primitive("softplus", lambda x, *, beta, threshold: _softplus_np(x, beta, threshold),
                         node="SoftplusBackward0",
                         x=lambda g, x, beta, threshold: g * where(x * beta > threshold, 1.0, sigmoid(x * beta)))


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""
    return apply(_softplus_op, (input,), {"beta": beta, "threshold": threshold})


def _mish_rule(g, x):
    t = tanh(softplus(x))
    return g * (t + x * sigmoid(x) * (1 - t * t))


_mish_op = primitive("mish", lambda x: (x * np.tanh(_softplus_np(x, 1.0, 20.0))).astype(x.dtype, copy=False),
                     node="MishBackward0", x=_mish_rule)


def mish(input: Tensor) -> Tensor:
    """x * tanh(softplus(x))."""
    return apply(_mish_op, (input,))


_hardtanh_op = primitive("hardtanh", lambda x, *, lo, hi: np.clip(x, lo, hi).astype(x.dtype, copy=False),
                         node="HardtanhBackward0",
                         x=lambda g, x, lo, hi: g * _t(((x._data > lo) & (x._data < hi)).astype(g._data.dtype)))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0) -> Tensor:
    """Clamp to [min_val, max_val] (gradient zero at and beyond the bounds)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    return apply(_hardtanh_op, (input,), {"lo": min_val, "hi": max_val})


# ====================================================================== losses with their own nodes
def _reduce_np(loss, reduction):
    if reduction == "mean":
        return np.asarray(loss.mean(), dtype=loss.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=loss.dtype)
    return loss


def _mse_fw(a, b, *, reduction):
    d = a - b
    return _reduce_np(d * d, reduction)


def _mse_rule(g, a, b, reduction, sign):
    d = a - b
    scale = 2.0 * sign
    if reduction == "mean":
        scale /= max(int(np.prod(np.broadcast_shapes(a.shape, b.shape))), 1)
    return g * d * scale


_mse_op = primitive("mse_loss", _mse_fw, node="MseLossBackward0",
                    a=lambda g, a, b, reduction: _mse_rule(g, a, b, reduction, 1.0),
                    b=lambda g, a, b, reduction: _mse_rule(g, a, b, reduction, -1.0))


def _nll_parts(target, weight, c, ignore_index, ndim):
    """The constant (N, C, ...) matrix of per-element weights w[t] at the target class, and its total."""
    valid = target != ignore_index
    tc = np.where(valid, target, 0)
    shape = (1, c) + (1,) * (ndim - 2)
    sel = (np.expand_dims(tc, 1) == np.arange(c).reshape(shape)) & np.expand_dims(valid, 1)
    w = sel.astype(weight.dtype) * weight.reshape(shape)
    return w, w.sum()


def _nll_fw(x, target, weight, *, ignore_index, reduction):
    if x.ndim == 1:  # unbatched: (C,) and a 0-d target
        out = _nll_fw(x[None], target.reshape(1), weight, ignore_index=ignore_index, reduction=reduction)
        return out.reshape(()) if reduction == "none" else out
    # the target class's entry, gathered (a product with a one-hot weight matrix would turn
    # a -inf in any other class, or in an ignored row, into NaN)
    valid = target != ignore_index
    tc = np.where(valid, target, 0)
    picked = np.take_along_axis(x, np.expand_dims(tc, 1), axis=1).squeeze(1)
    wt = weight[tc]
    loss = np.where(valid, -(picked * wt), x.dtype.type(0))
    total = np.where(valid, wt, 0).sum(dtype=x.dtype)
    if reduction == "mean":
        with np.errstate(invalid="ignore", divide="ignore"):
            return np.asarray(loss.sum() / total, dtype=x.dtype)
    return _reduce_np(loss, reduction)


def _nll_rule(g, x_shape, target, weight, ignore_index, reduction):
    unbatched = len(x_shape) == 1
    t = target._data.reshape(1) if unbatched else target._data
    w, total = _nll_parts(t, weight._data, x_shape[-1] if unbatched else x_shape[1], ignore_index,
                          2 if unbatched else len(x_shape))
    if reduction == "mean" and (total != 0 or w.any()):
        # (every target ignored: torch's kernel writes no gradient, so zeros, not 0/0 = NaN)
        with np.errstate(invalid="ignore", divide="ignore"):
            w = w / total
    if unbatched:
        w = w[0]
    elif reduction == "none":
        g = unsqueeze(g, 1)
    return g * _t(0 - w)  # (0 - w, not -w: no -0. where a target is ignored, as in torch)


def _nll_plain_fw(x, target, *, reduction):
    """nll_loss of (N, C) ``x`` without class weights, every target valid (checked by the caller)."""
    picked = x[np.arange(x.shape[0]), target]
    if reduction == "none":
        return -picked
    total = -picked.sum()
    if reduction == "mean":
        total = total / x.dtype.type(x.shape[0])
    return np.asarray(total, dtype=x.dtype)


def _nll_plain_weights(dt, x_shape, target: np.ndarray, reduction: str) -> np.ndarray:
    n = x_shape[0]
    w = np.zeros(x_shape, dtype=dt)
    w[np.arange(n), target] = -(dt.type(1) / dt.type(n)) if reduction == "mean" else -1
    return w


def _nll_plain_rule(g, x_shape, target, reduction):
    w = _nll_plain_weights(g._data.dtype, x_shape, target._data, reduction)
    if reduction == "none":
        g = unsqueeze(g, 1)
    return g * _t(w)


def _nll_plain_twin(g, x, x_shape, target, reduction):
    """_nll_plain_rule on arrays (the first-order backward's NumPy twin)."""
    w = _nll_plain_weights(g.dtype, x_shape, target, reduction)
    if reduction == "none":
        g = g[:, None]
    return g * w


# (the gradient is constant in x; under create_graph it stays linked to x as PyTorch's
# nll_loss_backward(grad, self, ...) node is, see _keep_graph.py)
_nll_plain_op = primitive("nll_loss_plain", _nll_plain_fw, node="NllLossBackward0",
                          array_rules={"x": _nll_plain_twin},
                          x=lambda g, x, x_shape, target, reduction: keep_graph(
                              _nll_plain_rule(g, x_shape, target, reduction), x, node="NllLossBackwardBackward0"))


def _nll_rules(node: str) -> dict:
    return dict(x=lambda g, x, x_shape, target, weight, ignore_index, reduction: keep_graph(_nll_rule(
        g, x_shape, target, weight, ignore_index, reduction), x, node=node))


_nll_op = primitive("nll_loss", _nll_fw, node="NllLossBackward0", **_nll_rules("NllLossBackwardBackward0"))
_nll2d_op = primitive("nll_loss2d", _nll_fw, node="NllLoss2DBackward0", **_nll_rules("NllLoss2DBackwardBackward0"))


# ====================================================================== helpers for nn
_identity_ops: dict = {}


def _identity_n(n: int):
    """A multi-output identity primitive for ``n`` tensors (node BackwardHookFunctionBackward).

    Module backward hooks attach to this node: it sees the gradients of all module inputs
    (or outputs) at once, as PyTorch's BackwardHookFunction does.
    """
    op = _identity_ops.get(n)
    if op is not None:
        return op
    import inspect

    names = [f"t{i}" for i in range(n)]

    def fw(*arrays):
        return arrays[0].view() if n == 1 else tuple(a.view() for a in arrays)

    fw.__signature__ = inspect.Signature(
        [inspect.Parameter(nm, inspect.Parameter.POSITIONAL_OR_KEYWORD) for nm in names])
    if n == 1:
        rules = {"t0": lambda g: g}
    else:
        rules = {nm: (lambda i: (lambda g: g[i]))(i) for i, nm in enumerate(names)}
    op = primitive(f"backward_hook_function_{n}", fw, node="BackwardHookFunctionBackward", n_out=n, **rules)
    _identity_ops[n] = op
    return op


def _identity_apply(tensors: tuple) -> tuple:
    out = apply(_identity_n(len(tensors)), tuple(tensors))
    return (out,) if len(tensors) == 1 else out
