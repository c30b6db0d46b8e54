"""3-D pooling primitives (average, adaptive average, adaptive max) and conv_transpose3d.

They reuse the N-d NumPy kernels of ``nn_ops.py``; they are separate primitives only so that the
backward nodes carry PyTorch's 3-D names (AvgPool3DBackward0 ...). Rules mirror the 2-D ones:
avg_pool3d <-> avg_pool3d_backward, adaptive_avg_pool3d <-> its transpose, adaptive max -> scatter.

Also the nn.functional activations and losses whose PyTorch kernels treat special values (NaN, +-inf,
-0, the boundary points of piecewise functions) in ways a composition of public ops cannot reproduce:
elu/selu/celu (and in-place forms), hardtanh, hardsigmoid, hardswish, logsigmoid, glu, soft/hardshrink,
prelu, rrelu (eval), gelu, smooth_l1/huber and binary_cross_entropy, each with PyTorch's node name.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from ._common import tensor_args
from ._keep_graph import keep_graph
from ._registry import apply, primitive
from .nn_ops import (
    _adaptive_avg_bw_fw,
    _adaptive_avg_fw,
    _adaptive_max_fw,
    _adaptive_max_with_indices,
    _avg_twin,
    _max_index_twin,
    _UNBATCHED_TWIN,
    _check_adaptive,
    _check_size_list,
    _avg_pool_bw_fw,
    _avg_pool_fw,
    _check_pool,
    _check_pool_args,
    _conv_transposend,
    _indices_out,
    _pool_bw_rule,
    _tuple,
)
from .shape import unsqueeze

# only conv_transpose3d is a torch.* export; nn.functional imports the rest from here
__all__ = ["conv_transpose3d"]


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


_avg_pool3d_ub_op = _avg_twin("avg_pool3d", _avg_pool_fw, "AvgPool3DBackward0", lambda: _avg_pool3d_bw)


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
        from .reduce import mean

        return mean(input, (-3, -2, -1), keepdim=True)
    return apply(_adaptive_avg3d_op, (input,), {"out_size": out_size})


_adaptive_max3d_op = primitive("adaptive_max_pool3d", _adaptive_max_fw, node="AdaptiveMaxPool3DBackward0",
                               n_out=2, x=_pool_bw_rule("AdaptiveMaxPool3DBackwardBackward0"))
_UNBATCHED_TWIN[_adaptive_max3d_op] = _max_index_twin(_adaptive_max3d_op, "adaptive_max_pool3d")


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


# ====================================================================== activations with PyTorch's kernels
# Each forward / rule below follows ATen's scalar kernel branch by branch (which side of a comparison a NaN
# falls on, where a zero keeps its sign), so special values (+-inf, -0, boundary points) match PyTorch.
from ._registry import apply_inplace  # noqa: E402
from .nn_ops import _gelu_fw, _gelu_rule, _t, leaky_relu_backward, masked_grad_op  # noqa: E402
from .pointwise import abs as _abs, exp as _exp, sigmoid as _sigmoid, where as _where  # noqa: E402


def _err():
    return np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore")


def _sel(cond, a, b) -> Tensor:
    """where(cond, a, b) with a constant (no-grad) condition."""
    return _where(cond if isinstance(cond, Tensor) else _t(cond), a, b)


def _float_check(name: str, input: Tensor) -> None:
    if input._data.dtype.kind != "f":
        from .._tensor import _scalar_type_name

        raise NotImplementedError(f'"{name}" not implemented for \'{_scalar_type_name(input.dtype)}\'')


def _elu_np(x, *, alpha, scale, input_scale):
    # ATen: x <= 0 ? alpha * scale * expm1(x * input_scale) : x * scale  (-0 stays -0)
    with _err():
        neg = np.expm1(x * x.dtype.type(input_scale)) * x.dtype.type(alpha * scale)
        return np.where(x <= 0, neg, x * x.dtype.type(scale)).astype(x.dtype, copy=False)


def _elu_rule(g, x, alpha, scale, input_scale):
    return g * _sel(x._data <= 0, _exp(x * input_scale) * (alpha * scale * input_scale), scale)


def _elu_result_rule(g, out, alpha, scale, input_scale):
    # the in-place forms (EluBackward1 / CeluBackward1) differentiate through the result, which
    # a negative alpha makes ambiguous: PyTorch refuses in the backward
    if alpha < 0:
        raise RuntimeError("In-place elu backward calculation is triggered with a negative slope which is not "
                           "supported. This is caused by calling in-place forward function with a negative slope, "
                           "please call out-of-place version instead.")
    return g * _sel(out._data <= 0, (out + alpha * scale) * input_scale, scale)


def _celu_bw_scale(alpha: float) -> float:
    # torch's derivatives.yaml uses input_scale = 1.0 / alpha.toFloat() for celu's backward (the forward
    # uses the exact double 1 / alpha), so the gradient differs from elu's in the 8th digit
    return 1.0 / float(np.float32(alpha))


def _celu_rule(g, x, alpha, scale):
    return _elu_rule(g, x, alpha, scale, _celu_bw_scale(alpha))


def _celu_result_rule(g, out, alpha, scale):
    return _elu_result_rule(g, out, alpha, scale, _celu_bw_scale(alpha))


_elu_op2 = primitive("elu2", _elu_np, node="EluBackward0", x=_elu_rule)
_celu_op = primitive("celu", _elu_np, node="CeluBackward0", x=_celu_rule)
_elu_inplace_op = primitive("elu_inplace", _elu_np, node="EluBackward1", x=_elu_result_rule)
_celu_inplace_op = primitive("celu_inplace", _elu_np, node="CeluBackward1", x=_celu_result_rule)


def elu_like(input: Tensor, alpha: float, scale: float, input_scale: float, inplace: bool, celu: bool) -> Tensor:
    """elu / selu / celu (and their in-place forms) with PyTorch's nodes and special-value behaviour."""
    _float_check("elu", input)
    static = {"alpha": float(alpha), "scale": float(scale), "input_scale": float(input_scale)}
    if inplace:
        return apply_inplace(_celu_inplace_op if celu else _elu_inplace_op, input, (), static)
    return apply(_celu_op if celu else _elu_op2, (input,), static)


def _hardtanh_np(x, *, lo, hi):
    # ATen: x < lo ? lo : (x > hi ? hi : x): NaN stays NaN, -0 stays -0
    return np.where(x < lo, x.dtype.type(lo), np.where(x > hi, x.dtype.type(hi), x)).astype(x.dtype, copy=False)


# gradient g strictly inside, a +0 (not g * 0 = -0 for negative g) at and beyond the bounds
_hardtanh_backward = masked_grad_op(
    "hardtanh_backward", "HardtanhBackwardBackward0",
    lambda gy, x, *, a, b: np.where((x <= a) | (x >= b), gy.dtype.type(0), gy))
_hardtanh_op2 = primitive("hardtanh2", _hardtanh_np, node="HardtanhBackward0",
                          x=lambda g, x, lo, hi: _hardtanh_backward(g, x, lo, hi))


def hardtanh(input: Tensor, min_val: float = -1.0, max_val: float = 1.0, inplace: bool = False) -> Tensor:
    """Clamp to [min_val, max_val] (backward node HardtanhBackward0)."""
    if min_val > max_val:
        raise ValueError("min_val cannot be greater than max_val")
    static = {"lo": min_val, "hi": max_val}
    if inplace:
        return apply_inplace(_hardtanh_op2, input, (), static)
    return apply(_hardtanh_op2, (input,), static)


def _hardsigmoid_np(x):
    t = x.dtype.type
    return (np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)).astype(x.dtype, copy=False)


# ATen multiplies by the float constant 1.0f / 6.0f, in double too; PyTorch has no derivative of
# hardsigmoid_backward (the first gradient requires grad, differentiating it raises)
_SIXTH_F32 = float(np.float32(1.0) / np.float32(6.0))
_hardsigmoid_backward = masked_grad_op(
    "hardsigmoid_backward", "", nie="hardsigmoid_backward",
    fw=lambda gy, x, *, a, b: np.where((x > -3) & (x < 3), gy * gy.dtype.type(_SIXTH_F32),
                                       gy.dtype.type(0)).astype(gy.dtype, copy=False))


def _hardsigmoid_rule(g, x):
    return _hardsigmoid_backward(g, x)


_hardsigmoid_op = primitive("hardsigmoid", _hardsigmoid_np, node="HardsigmoidBackward0", x=_hardsigmoid_rule)


def _hardswish_np(x):
    t = x.dtype.type
    return (x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)).astype(x.dtype, copy=False)


def _hardswish_rule(g, x):
    # ATen: x <= -3 ? 0 : (x < 3 ? g * (x / 3 + 0.5) : g)
    d = x._data
    return _sel(d <= -3, 0.0, _sel(d < 3, g * (x / 3 + 0.5), g))


_hardswish_op = primitive("hardswish", _hardswish_np, node="HardswishBackward0", x=_hardswish_rule)


def _act(op, name: str, input: Tensor, inplace: bool, static: dict | None = None) -> Tensor:
    _float_check(name, input)
    if inplace:
        return apply_inplace(op, input, (), static)
    return apply(op, (input,), static)


def hardsigmoid(input: Tensor, inplace: bool = False) -> Tensor:
    """relu6(x + 3) / 6 (backward node HardsigmoidBackward0)."""
    return _act(_hardsigmoid_op, "hardsigmoid_cpu", input, inplace)


def hardswish(input: Tensor, inplace: bool = False) -> Tensor:
    """x * relu6(x + 3) / 6 (backward node HardswishBackward0)."""
    return _act(_hardswish_op, "hardswish_cpu", input, inplace)


def _leaky_np(x, *, slope):
    return np.where(x > 0, x, x * x.dtype.type(slope)).astype(x.dtype, copy=False)


_LEAKY_INPLACE_NEG_MSG = (
    "In-place leakyReLu backward calculation is triggered with a negative slope which is not supported. This is "
    "caused by calling in-place forward function with a negative slope, please call out-of-place version instead. "
    "File an issue at https://github.com/pytorch/pytorch if you do require supporting in-place leakRelu backward "
    "calculation with negative slope")


def _leaky_result_rule(g, out, slope):
    # Through the result, the input's sign is lost when the slope is negative: PyTorch refuses
    # in the backward (the forward itself is allowed)
    if slope < 0:
        raise RuntimeError(_LEAKY_INPLACE_NEG_MSG)
    return leaky_relu_backward(g, out, slope)


_leaky_inplace_op = primitive("leaky_relu_inplace", _leaky_np, node="LeakyReluBackward1",
                              x=lambda g, out, slope: keep_graph(_leaky_result_rule(g, out, slope), out,
                                                                 node="LeakyReluBackwardBackward0"))


def leaky_relu_inplace(input: Tensor, negative_slope: float) -> Tensor:
    """In-place leaky_relu (backward node LeakyReluBackward1, through the result)."""
    return apply_inplace(_leaky_inplace_op, input, (), {"slope": negative_slope})


def _logsigmoid_np(x):
    # ATen: min(x, 0) - log1p(exp(-|x|))  (+inf gives +0, not -0)
    with _err():
        return (np.minimum(x, x.dtype.type(0)) - np.log1p(np.exp(-np.abs(x)))).astype(x.dtype, copy=False)


def _logsigmoid_rule(g, x):
    d = x._data
    neg = d < 0
    z = _exp(-_abs(x))
    return g * (_t(neg.astype(d.dtype)) - _t(np.where(neg, 1, -1).astype(d.dtype)) * (z / (z + 1)))


_logsigmoid_op = primitive("log_sigmoid", _logsigmoid_np, node="LogSigmoidBackward0", x=_logsigmoid_rule)


def logsigmoid(input: Tensor) -> Tensor:
    """log(sigmoid(x)) = min(x, 0) - log1p(exp(-|x|)) (backward node LogSigmoidBackward0)."""
    _float_check("log_sigmoid_forward", input)
    return apply(_logsigmoid_op, (input,))


def _glu_np(x, *, dim):
    n = x.shape[dim] // 2
    a, b = np.split(x, [n], axis=dim)
    with _err():
        return (a * (1 / (1 + np.exp(-b)))).astype(x.dtype, copy=False)


def _glu_rule(g, x, dim):
    # one gradient for the whole input, as ATen's glu_backward (no 0 + -0 from summing two narrow views)
    from .shape_more import cat

    n = x.shape[dim] // 2
    a, b = x.narrow(dim, 0, n), x.narrow(dim, n, n)
    s = _sigmoid(b)
    return cat([s * g, (1 - s) * s * a * g], dim)


_glu_op = primitive("glu", _glu_np, node="GluBackward0", x=_glu_rule)


def glu(input: Tensor, dim: int = -1) -> Tensor:
    """a * sigmoid(b) for the two halves of ``dim`` (backward node GluBackward0)."""
    if input.ndim == 0:
        raise RuntimeError("glu does not support scalars because halving size must be even")
    d = dim % input.ndim
    n = input.shape[d]
    if n % 2:
        raise RuntimeError(f"Halving dimension must be even, but dimension {d} is size {n}")
    return apply(_glu_op, (input,), {"dim": d})


def _softshrink_np(x, *, lambd):
    # ATen: x > l ? x - l : (x < -l ? x + l : x * 0)  (-0 and NaN pass through)
    t = x.dtype.type
    with _err():
        mid = x * t(0)
    return np.where(x > lambd, x - t(lambd), np.where(x < -lambd, x + t(lambd), mid)).astype(x.dtype, copy=False)


def _shrink_bw_np(gy, x, *, a, b):
    # ATen: (x >= -lambd && x <= lambd) ? 0 : g  (a NaN passes its gradient on)
    return np.where((x >= -a) & (x <= a), gy.dtype.type(0), gy)


_softshrink_backward = masked_grad_op("softshrink_backward", "SoftshrinkBackwardBackward0", _shrink_bw_np)
_hardshrink_backward = masked_grad_op("hardshrink_backward", "HardshrinkBackwardBackward0", _shrink_bw_np)
_softshrink_op = primitive("softshrink", _softshrink_np, node="SoftshrinkBackward0",
                           x=lambda g, x, lambd: _softshrink_backward(g, x, lambd))


def _hardshrink_np(x, *, lambd):
    return np.where((x >= -lambd) & (x <= lambd), x.dtype.type(0), x).astype(x.dtype, copy=False)


_hardshrink_op = primitive("hardshrink", _hardshrink_np, node="HardshrinkBackward0",
                           x=lambda g, x, lambd: _hardshrink_backward(g, x, lambd))


def softshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x - lambd if x > lambd, x + lambd if x < -lambd, else 0 (backward node SoftshrinkBackward0).

    >>> import retrograd as torch
    >>> torch.nn.functional.softshrink(torch.tensor([-1., 0.2, 2.]), 0.5)
    tensor([-0.5000,  0.0000,  1.5000])
    """
    _float_check("softshrink_cpu", input)
    if lambd < 0:
        fmax, name = (3.4028234663852886e38, "Float") if input._data.dtype == np.float32 else (
            1.7976931348623157e308, "Double")
        raise RuntimeError(f"lambda must be in range [0, {fmax:g}] for input dtype {name}, but found {lambd:g}")
    return apply(_softshrink_op, (input,), {"lambd": lambd})


def hardshrink(input: Tensor, lambd: float = 0.5) -> Tensor:
    """x if |x| > lambd else 0 (backward node HardshrinkBackward0).

    >>> import retrograd as torch
    >>> torch.nn.functional.hardshrink(torch.tensor([0.2, 1.]))
    tensor([0., 1.])
    """
    _float_check("hardshrink_cpu", input)
    return apply(_hardshrink_op, (input,), {"lambd": lambd})


def _prelu_np(x, w):
    return np.where(x > 0, x, w * x).astype(x.dtype, copy=False)


# PyTorch's _prelu_kernel_backward as two ops (one per gradient) under its node name: both are
# linear in gy, so each is its own derivative w.r.t. gy; x enters only through the mask (a zero
# derivative, kept in the graph) and through the product x * gy of the weight's gradient.
def _prelu_bw_x_np(gy, x, w):
    return np.where(x > 0, gy, w * gy).astype(gy.dtype, copy=False)


def _prelu_bw_w_np(gy, x):
    return np.where(x > 0, gy.dtype.type(0), x * gy).astype(gy.dtype, copy=False)


def _prelu_bw_x(gy, x, w):
    return apply(_prelu_bw_x_op, (gy, x, w))


def _prelu_bw_w(gy, x):
    return apply(_prelu_bw_w_op, (gy, x))


_prelu_bw_x_op = primitive("prelu_backward_input", _prelu_bw_x_np, node="PreluKernelBackwardBackward0",
                           gy=lambda g, x, w: _prelu_bw_x(g, x, w),
                           x=lambda g: _t(np.zeros_like(g._data)),
                           w=lambda g, gy, x: _sel(x._data > 0, 0.0, g * gy))
_prelu_bw_w_op = primitive("prelu_backward_weight", _prelu_bw_w_np, node="PreluKernelBackwardBackward0",
                           gy=lambda g, x: _prelu_bw_w(g, x),
                           x=lambda g, gy, x: _sel(x._data > 0, 0.0, g * gy))
_prelu_op = primitive("prelu", _prelu_np, node="PreluKernelBackward0",
                      x=lambda g, x, w: _prelu_bw_x(g, x, w),
                      w=lambda g, x: _prelu_bw_w(g, x))


def prelu(input: Tensor, weight: Tensor) -> Tensor:
    """x if x > 0 else weight * x, weight along the channel dim (backward node PreluKernelBackward0).

    >>> import retrograd as torch
    >>> torch.nn.functional.prelu(torch.tensor([-2., 2.]), torch.tensor([0.5]))
    tensor([-1.,  2.])
    """
    if weight.ndim > 1:
        raise RuntimeError(f"prelu: Expected `weight` to be a scalar or 1D tensor, but got: ndim = {weight.ndim}")
    n = weight.numel()
    c = input.shape[1] if input.ndim >= 2 else 1
    if n != 1 and n != c:
        raise RuntimeError(f"Mismatch of parameter numbers and input channel size. Found parameter numbers = "
                           f"{n} and channel size = {c}.")
    w = weight
    if input.ndim >= 2 and n > 1:
        w = w.reshape((-1,) + (1,) * (input.ndim - 2))
    elif input.ndim == 0:
        w = w.reshape(())
    return apply(_prelu_op, (input, w))


# rrelu in eval mode: leaky_relu with the mean slope, under PyTorch's node (gradient slope at x <= 0)
_rrelu_eval_op = primitive("rrelu_eval", _leaky_np, node="RreluWithNoiseBackward0",
                           x=lambda g, x, slope: _sel(x._data > 0, g, g * slope))
# in place (rrelu_ in eval mode): through the result, as leaky_relu_
_rrelu_eval_inplace_op = primitive("rrelu_eval_inplace", _leaky_np, node="RreluWithNoiseBackward1",
                                   x=_leaky_result_rule)


def _gelu_np(x, *, approximate):
    out = _gelu_fw(x, approximate=approximate)
    if approximate == "none" and x.dtype == np.float32:
        # ATen's float32 kernel gives NaN at +inf (inf * Phi(inf) in its vectorised erf path); float64 gives +inf
        out = np.where(np.isposinf(x), np.float32(np.nan), out)
    return out


_gelu_op2 = primitive("gelu2", _gelu_np, node="GeluBackward0", x=_gelu_rule)


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (or its tanh approximation; backward node GeluBackward0)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(_gelu_op2, (input,), {"approximate": approximate})


# ====================================================================== smooth L1 / Huber with their own nodes
def _smooth_np(a, b, *, reduction, beta, huber):
    with _err():
        z = np.abs(a - b)
        t = z.dtype.type
        if huber:
            loss = np.where(z < beta, t(0.5) * z * z, t(beta) * (z - t(0.5 * beta)))
        else:
            loss = np.where(z < beta, t(0.5) * z * z / t(beta), z - t(0.5 * beta))
        loss = loss.astype(z.dtype, copy=False)
        if reduction == "mean":
            return np.asarray(loss.mean(), dtype=z.dtype)
        if reduction == "sum":
            return np.asarray(loss.sum(), dtype=z.dtype)
        return loss


def _smooth_rule(g, a, b, reduction, beta, huber, sign):
    # ATen: x <= -beta ? -norm : (x >= beta ? norm : norm * x / beta)  (Huber: times delta, no / delta);
    # a select, so the unused branch's inf never meets a zero
    x = a - b
    d = x._data
    norm = sign
    if reduction == "mean":
        norm /= max(int(np.prod(np.broadcast_shapes(a.shape, b.shape))), 1)
    edge = norm * beta if huber else norm
    mid = x * norm if huber else x * (norm / beta)
    return _sel(d <= -beta, -edge * g, _sel(d >= beta, edge * g, mid * g))


def _smooth_rules():
    return dict(a=lambda g, a, b, reduction, beta, huber: _smooth_rule(g, a, b, reduction, beta, huber, 1.0),
                b=lambda g, a, b, reduction, beta, huber: _smooth_rule(g, a, b, reduction, beta, huber, -1.0))


_smooth_l1_op = primitive("smooth_l1_loss", _smooth_np, node="SmoothL1LossBackward0", **_smooth_rules())
_huber_op = primitive("huber_loss", _smooth_np, node="HuberLossBackward0", **_smooth_rules())


def smooth_l1(a: Tensor, b: Tensor, reduction: str, beta: float, huber: bool, cast=None) -> Tensor:
    """The SmoothL1Loss / HuberLoss node on same-dtype operands (the caller broadcasts and checks)."""
    return apply(_huber_op if huber else _smooth_l1_op, (a, b),
                 {"reduction": reduction, "beta": float(beta), "huber": huber}, cast)


# ====================================================================== binary cross entropy (ATen's kernel)
def _bce_np(x, t, w, *, reduction):
    with _err():
        loss = (t - 1) * np.maximum(np.log1p(-x), x.dtype.type(-100)) - t * np.maximum(np.log(x), x.dtype.type(-100))
        loss = (loss * w).astype(x.dtype, copy=False)
    if reduction == "mean":
        return np.asarray(loss.mean(), dtype=x.dtype)
    if reduction == "sum":
        return np.asarray(loss.sum(), dtype=x.dtype)
    return loss


def _bce_norm(x, t, reduction) -> float:
    if reduction == "mean":
        return 1.0 / max(int(np.prod(np.broadcast_shapes(x.shape, t.shape))), 1)
    return 1.0


_BCE_EPS = float(np.float32(1e-12))  # ATen: the float constant 1e-12f, in double too


def _bce_x_rule(g, x, t, w, reduction):
    # ATen: g * (x - t) / max((1 - x) * x, 1e-12) * w
    from .tensor_extras import clamp_min

    return g * ((x - t) / clamp_min((1 - x) * x, _BCE_EPS)) * w * _bce_norm(x, t, reduction)


def _bce_t_rule(g, x, t, w, reduction):
    from .pointwise import log
    from .pointwise_more import log1p

    # ATen: -(log(x) - log1p(-x)) * g, unclamped (so +-inf at x = 0 / 1, and -0 where the logs agree)
    return -(log(x) - log1p(-x)) * g * w * _bce_norm(x, t, reduction)


_bce_op = primitive("binary_cross_entropy", _bce_np, node="BinaryCrossEntropyBackward0",
                    x=_bce_x_rule, t=_bce_t_rule)


def binary_cross_entropy(x: Tensor, t: Tensor, w: Tensor, reduction: str) -> Tensor:
    """The BinaryCrossEntropy node (the caller checks shapes and the [0, 1] range)."""
    return apply(_bce_op, (x, t, w), {"reduction": reduction})


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
_UNBATCHED_TWIN[_fractional_max2d_op] = _max_index_twin(_fractional_max2d_op, "fractional_max_pool2d")
_UNBATCHED_TWIN[_fractional_max3d_op] = _max_index_twin(_fractional_max3d_op, "fractional_max_pool3d")


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
        from .._creation import rand

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
    >>> from retrograd._ops.nn_ops_more import fractional_max_pool2d
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


# ---- PyTorch's C++ composites divide by a number through div(Tensor, Scalar), whose node is
# DivBackward1 (a Python-level ``t / 2.0`` records DivBackward0)
def _div_scalar_fw(x, *, other):
    with np.errstate(divide="ignore", invalid="ignore"):  # (x / 0: inf or nan, as PyTorch, silently)
        return x / x.dtype.type(other) if x.dtype.kind == "f" else x / other


_div_scalar_op = primitive("div_scalar", _div_scalar_fw, node="DivBackward1", x=lambda g, other: g / other)


def div_scalar(input: Tensor, other: float) -> Tensor:
    """``input / other`` recorded as PyTorch's C++ kernels record it (node DivBackward1)."""
    return apply(_div_scalar_op, (input,), {"other": float(other)})
