"""Softmax/log_softmax, relu/threshold, leaky_relu, elu/celu, gelu, silu, softplus, mish, hardtanh,
hardsigmoid, hardswish, logsigmoid, glu, shrink, prelu, rrelu."""
from __future__ import annotations

import math

import numpy as np

from ... import _dtype as D
from ..._tensor import Tensor
from .._out import declares_out
from .._common import wrap_dim
from .._keep_graph import keep_graph
from .._registry import apply, apply_inplace, primitive
from ..masked import where, where as _where
from ..reduction import sum as _sum
from ..unary import exp, sigmoid, sigmoid as _sigmoid, tanh
from .conv import _t

__all__ = ["softmax", "log_softmax"]


# ====================================================================== softmax
# (the ufuncs' own reduce: np.max's / ndarray.sum's wrappers cost more than a small row)
_max_reduce = np.maximum.reduce
_add_reduce = np.add.reduce


# A row whose max is +inf or NaN comes out all NaN, as in PyTorch (x - max is NaN there);
# a row of -inf gives NaN too (-inf - -inf).  NumPy's invalid-value warnings from this
# module are silenced at import, so these rows need no special path.
def _softmax_np(x, *, dim):
    x = np.asarray(x, order="C")  # (PyTorch's kernel runs on input.contiguous(): so is its result)
    if not x.size:  # (an empty dim has no max; the result is just as empty)
        return x.copy()
    e = np.exp(x - _max_reduce(x, axis=dim, keepdims=True))
    return e / _add_reduce(e, axis=dim, keepdims=True)


def _log_softmax_np(x, *, dim):
    # (non-finite rows: as _softmax_np; a finite row holds exp(0) = 1, so the sum is >= 1)
    x = np.asarray(x, order="C")
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
                        x=lambda g, out, dim: out * (g - _sum(g * out, dim, True)), batch="dim")
_log_softmax_op = primitive("log_softmax", _log_softmax_np, node="LogSoftmaxBackward0",
                            fast={"x": lambda g, out, dim: _log_softmax_bw_np(g, out, dim=dim)},
                            x=lambda g, out, dim: apply(_log_softmax_bw_op, (g, out), {"dim": dim}), batch="dim")
# r = gy - e * sum(gy) with e = exp(y):  d/dgy = G - sum(G e);  d/dy = -G e sum(gy)
# (the input is ``y``, not ``out``: in a rule ``out`` names the op's own output)
_log_softmax_bw_op = primitive("log_softmax_backward", _log_softmax_bw_np, node="LogSoftmaxBackwardDataBackward0",
                               gy=lambda g, y, dim: g - _sum(g * exp(y), dim, True),
                               y=lambda g, gy, y, dim: -(g * exp(y)) * _sum(gy, dim, True), batch="dim")


def _softmax_like(op, input: Tensor, dim, dtype):
    if dtype is not None and input.dtype is not dtype:
        input = input.to(dtype)
    if input._data.dtype.kind != "f":
        from ..._tensor import _scalar_type_name

        # (PyTorch's kernel for the last dim, a 0-d tensor included, has its own name)
        last = input.ndim == 0 or (isinstance(dim, (int, np.integer)) and dim in (input.ndim - 1, -1))
        kernel = f"{op.name}_lastdim_kernel_impl" if last else f"{op.name}_kernel_impl"
        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(input.dtype)}\'')
    d = wrap_dim(dim, input.ndim)  # (a 0-d tensor takes dim 0 / -1: PyTorch's IndexError otherwise)
    if input.ndim == 0:  # reduce over no axis: the kernels then compute exp(x - x) / 1 and its grads
        return apply(op, (input,), {"dim": ()})
    return apply(op, (input,), {"dim": d})


@declares_out("same", grad_check=False)  # (PyTorch allows grad here)
def softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """exp(x) / sum(exp(x)) along ``dim``, computed stably (backward node SoftmaxBackward0).

    >>> import retrograd as torch
    >>> torch.softmax(torch.tensor([0., 0.]), 0)
    tensor([0.5000, 0.5000])
    """
    return _softmax_like(_softmax_op, input, dim, dtype)


@declares_out("same", grad_check=False)  # (PyTorch allows grad here)
def log_softmax(input: Tensor, dim: int, dtype=None) -> Tensor:
    """log(softmax(x)) along ``dim`` without overflow (backward node LogSoftmaxBackward0)."""
    return _softmax_like(_log_softmax_op, input, dim, dtype)


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
                    x=lambda g, x: g * (exp(-(x * x)) * _TWO_OVER_SQRT_PI), batch="elementwise")


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
                             y=lambda g: g * 0, batch="elementwise")
# (floating-point input only, so max(0, x) keeps x's dtype; zero first: where x is -0 the two
# compare equal and NumPy returns the second operand, so relu(-0.) is -0. as in PyTorch)
_relu_op = primitive("nn_relu", lambda x: np.maximum(0, x), node="ReluBackward0",
                     fast={"x": lambda g, out: _threshold_bw_np(g, out, threshold=0)},
                     x=lambda g, out: _threshold_backward(g, out, 0), batch="elementwise")


_threshold_op = primitive("threshold", lambda x, *, threshold, value: np.where(
                              x <= threshold, value, x).astype(x.dtype, copy=False), node="ThresholdBackward0",
                          fast={"x": lambda g, x, threshold: _threshold_bw_np(g, x, threshold=threshold)},
                          x=lambda g, x, threshold: _threshold_backward(g, x, threshold), batch="elementwise")
# threshold_ (in place): the same kernel and rule under PyTorch's in-place node name
_threshold_inplace_op = primitive("threshold_inplace", _threshold_op.forward, node="ThresholdBackward1",
                                  x=lambda g, x, threshold: _threshold_backward(g, x, threshold), batch="elementwise")


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
        op = primitive(name, fw, node="NotImplemented", gy=refuse, x=refuse, batch="elementwise")
    else:
        op = primitive(name, fw, node=node, batch="elementwise", gy=lambda g, x, a, b: call(g, x, a, b),
                       x=lambda g: _t(np.zeros_like(g._data)))
    return call


def _leaky_fw(x, *, slope):
    return np.where(x > 0, x, x * slope).astype(x.dtype, copy=False)


# ATen: x > 0 ? g : g * slope
leaky_relu_backward = masked_grad_op(
    "leaky_relu_backward", "LeakyReluBackwardBackward0",
    lambda gy, x, *, a, b: np.where(x > 0, gy, gy * gy.dtype.type(a)).astype(gy.dtype, copy=False))
_leaky_relu_op = primitive("leaky_relu", _leaky_fw, node="LeakyReluBackward0",
                           x=lambda g, x, slope: leaky_relu_backward(g, x, slope), batch="elementwise")


def leaky_relu(input: Tensor, negative_slope: float = 0.01) -> Tensor:
    """x if x > 0 else negative_slope * x."""
    return apply(_leaky_relu_op, (input,), {"slope": negative_slope})


def _elu_fw(x, *, alpha, scale, input_scale):
    with _np_err():
        return np.where(x > 0, x * scale, alpha * scale * np.expm1(np.minimum(x, 0) * input_scale)).astype(
            x.dtype, copy=False)


_elu_op = primitive("elu", _elu_fw, node="EluBackward0",
                    x=lambda g, x, alpha, scale, input_scale: g * where(
                        x > 0, scale, exp(x * input_scale) * (alpha * scale * input_scale)), batch="elementwise")


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


_gelu_op = primitive("gelu", _gelu_fw, node="GeluBackward0", x=_gelu_rule, batch="elementwise")


def _sig(x):
    with _np_err():
        return 1 / (1 + np.exp(-x))


_silu_op = primitive("silu", lambda x: (x * _sig(x)).astype(x.dtype, copy=False), node="SiluBackward0",
                     x=lambda g, x: _silu_rule(g, x), batch="elementwise")


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


def _softplus_bw_np(gy, x, *, beta, threshold):
    # ATen's softplus_backward: z = exp(x * beta); x * beta > threshold ? gy : gy * z / (z + 1)
    t = x.dtype.type
    with _np_err():
        xb = x * t(beta)
        z = np.exp(xb)
        return np.where(xb > t(threshold), gy, gy * z / (z + 1)).astype(gy.dtype, copy=False)


# PyTorch's softplus_double_backward: sigmoid_backward(g * gy, sigmoid(x * beta)) * (x * beta < threshold) * beta
# (0 at x * beta == threshold, where the first derivative's two branches meet)
_softplus_backward = primitive(
    "softplus_backward", _softplus_bw_np, node="SoftplusBackwardBackward0",
    gy=lambda g, x, beta, threshold: _softplus_bw(g, x, beta, threshold),
    x=lambda g, gy, x, beta, threshold: _sigmoid_bw(g * gy, sigmoid(x * beta)) * (x * beta < threshold) * beta)


def _sigmoid_bw(a, s):
    return a * (1 - s) * s


def _softplus_bw(gy, x, beta, threshold):
    return apply(_softplus_backward, (gy, x), {"beta": beta, "threshold": threshold})


_softplus_op = primitive("softplus", lambda x, *, beta, threshold: _softplus_np(x, beta, threshold),
                         node="SoftplusBackward0",
                         x=lambda g, x, beta, threshold: _softplus_bw(g, x, beta, threshold), batch="elementwise")


def softplus(input: Tensor, beta: float = 1.0, threshold: float = 20.0) -> Tensor:
    """log(1 + exp(beta * x)) / beta, linear above ``threshold``."""
    return apply(_softplus_op, (input,), {"beta": beta, "threshold": threshold})


def _mish_rule(g, x):
    t = tanh(softplus(x))
    return g * (t + x * sigmoid(x) * (1 - t * t))


_mish_op = primitive("mish", lambda x: (x * np.tanh(_softplus_np(x, 1.0, 20.0))).astype(x.dtype, copy=False),
                     node="MishBackward0", x=_mish_rule, batch="elementwise")


def mish(input: Tensor) -> Tensor:
    """x * tanh(softplus(x))."""
    return apply(_mish_op, (input,))


_hardtanh_op = primitive("hardtanh", lambda x, *, lo, hi: np.clip(x, lo, hi).astype(x.dtype, copy=False),
                         node="HardtanhBackward0",
                         x=lambda g, x, lo, hi: g * _t(((x._data > lo) & (x._data < hi)).astype(g._data.dtype)), batch="elementwise")


def _err():
    return np.errstate(over="ignore", invalid="ignore", divide="ignore", under="ignore")


def _sel(cond, a, b) -> Tensor:
    """where(cond, a, b) with a constant (no-grad) condition."""
    return _where(cond if isinstance(cond, Tensor) else _t(cond), a, b)


def _float_check(name: str, input: Tensor) -> None:
    if input._data.dtype.kind != "f":
        from ..._tensor import _scalar_type_name

        raise NotImplementedError(f'"{name}" not implemented for \'{_scalar_type_name(input.dtype)}\'')


def _elu_np(x, *, alpha, scale, input_scale):
    # ATen: x <= 0 ? alpha * scale * expm1(x * input_scale) : x * scale  (-0 stays -0)
    with _err():
        neg = np.expm1(x * x.dtype.type(input_scale)) * x.dtype.type(alpha * scale)
        return np.where(x <= 0, neg, x * x.dtype.type(scale)).astype(x.dtype, copy=False)


def _elu_bw_np(gy, x, *, alpha, scale, input_scale):
    # ATen's elu_backward (is_result=false): x <= 0 ? gy * input_scale * (alpha * scale) * exp(x * input_scale)
    # : gy * scale, multiplied in that order
    t = x.dtype.type
    with _err():
        neg = gy * t(input_scale) * t(alpha * scale) * np.exp(x * t(input_scale))
        return np.where(x <= 0, neg, gy * t(scale)).astype(gy.dtype, copy=False)


# PyTorch's elu_double_backward: elu_backward(g * gy * input_scale, x) * (x < 0), so the second
# derivative is 0 at x = 0 (the kink), at +inf and at NaN, not the exp branch's value
_elu_backward = primitive(
    "elu_backward", _elu_bw_np, node="EluBackwardBackward0",
    gy=lambda g, x, alpha, scale, input_scale: _elu_bw(g, x, alpha, scale, input_scale),
    x=lambda g, gy, x, alpha, scale, input_scale: _elu_bw(g * gy * input_scale, x, alpha, scale, input_scale)
    * (x < 0))


def _elu_bw(gy, x, alpha, scale, input_scale):
    return apply(_elu_backward, (gy, x), {"alpha": alpha, "scale": scale, "input_scale": input_scale})


def _elu_rule(g, x, alpha, scale, input_scale):
    return _elu_bw(g, x, alpha, scale, input_scale)


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


_elu_op2 = primitive("elu2", _elu_np, node="EluBackward0", x=_elu_rule, batch="elementwise")
_celu_op = primitive("celu", _elu_np, node="CeluBackward0", x=_celu_rule, batch="elementwise")
_elu_inplace_op = primitive("elu_inplace", _elu_np, node="EluBackward1", x=_elu_result_rule, batch="elementwise")
_celu_inplace_op = primitive("celu_inplace", _elu_np, node="CeluBackward1", x=_celu_result_rule, batch="elementwise")


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
                          x=lambda g, x, lo, hi: _hardtanh_backward(g, x, lo, hi), batch="elementwise")


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


_hardsigmoid_op = primitive("hardsigmoid", _hardsigmoid_np, node="HardsigmoidBackward0", x=_hardsigmoid_rule, batch="elementwise")


def _hardswish_np(x):
    t = x.dtype.type
    return (x * np.minimum(np.maximum(x + t(3), t(0)), t(6)) / t(6)).astype(x.dtype, copy=False)


def _hardswish_rule(g, x):
    # ATen: x <= -3 ? 0 : (x < 3 ? g * (x / 3 + 0.5) : g)
    d = x._data
    return _sel(d <= -3, 0.0, _sel(d < 3, g * (x / 3 + 0.5), g))


_hardswish_op = primitive("hardswish", _hardswish_np, node="HardswishBackward0", x=_hardswish_rule, batch="elementwise")


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
                                                                 node="LeakyReluBackwardBackward0"), batch="elementwise")


def leaky_relu_inplace(input: Tensor, negative_slope: float) -> Tensor:
    """In-place leaky_relu (backward node LeakyReluBackward1, through the result)."""
    return apply_inplace(_leaky_inplace_op, input, (), {"slope": negative_slope})


def _logsigmoid_np(x):
    # ATen: min(x, 0) - log1p(exp(-|x|))  (+inf gives +0, not -0)
    with _err():
        # (contiguous whatever the input's layout, as PyTorch's result)
        return np.asarray(np.minimum(x, x.dtype.type(0)) - np.log1p(np.exp(-np.abs(x))), dtype=x.dtype, order="C")


def _logsigmoid_bw_np(gy, x):
    # ATen's log_sigmoid_backward: gy * ((x < 0) - (x < 0 ? 1 : -1) * z / (1 + z)), z = exp(-|x|)
    with _err():
        neg = x < 0
        z = np.exp(-np.abs(x))
        return (gy * (neg.astype(x.dtype) - np.where(neg, 1, -1).astype(x.dtype) * (z / (z + 1)))).astype(
            gy.dtype, copy=False)


# its own op, with PyTorch's log_sigmoid_double_backward (g * gy * (sigmoid(x) - 1) * sigmoid(x)), so the
# second derivative at 0 is -1/4 (differentiating the formula above through |x| gave -0)
_logsigmoid_backward = primitive(
    "log_sigmoid_backward", _logsigmoid_bw_np, node="LogSigmoidBackwardBackward0",
    gy=lambda g, x: apply(_logsigmoid_backward, (g, x)),
    x=lambda g, gy, x: g * gy * (_sigmoid(x) - 1) * _sigmoid(x))


def _logsigmoid_rule(g, x):
    return apply(_logsigmoid_backward, (g, x))


_logsigmoid_op = primitive("log_sigmoid", _logsigmoid_np, node="LogSigmoidBackward0", x=_logsigmoid_rule, batch="elementwise")


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
    from ..joining import cat

    n = x.shape[dim] // 2
    a, b = x.narrow(dim, 0, n), x.narrow(dim, n, n)
    s = _sigmoid(b)
    return cat([s * g, (1 - s) * s * a * g], dim)


_glu_op = primitive("glu", _glu_np, node="GluBackward0", x=_glu_rule, batch="dim")


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
                           x=lambda g, x, lambd: _softshrink_backward(g, x, lambd), batch="elementwise")


def _hardshrink_np(x, *, lambd):
    return np.where((x >= -lambd) & (x <= lambd), x.dtype.type(0), x).astype(x.dtype, copy=False)


_hardshrink_op = primitive("hardshrink", _hardshrink_np, node="HardshrinkBackward0",
                           x=lambda g, x, lambd: _hardshrink_backward(g, x, lambd), batch="elementwise")


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
                           x=lambda g, x, slope: _sel(x._data > 0, g, g * slope), batch="elementwise")
# in place (rrelu_ in eval mode): through the result, as leaky_relu_
_rrelu_eval_inplace_op = primitive("rrelu_eval_inplace", _leaky_np, node="RreluWithNoiseBackward1",
                                   x=_leaky_result_rule, batch="elementwise")


def _gelu_np(x, *, approximate):
    out = _gelu_fw(x, approximate=approximate)
    if approximate == "none" and x.dtype == np.float32:
        # ATen's float32 kernel gives NaN at +inf (inf * Phi(inf) in its vectorised erf path); float64 gives +inf
        out = np.where(np.isposinf(x), np.float32(np.nan), out)
    return out


_gelu_op2 = primitive("gelu2", _gelu_np, node="GeluBackward0", x=_gelu_rule, batch="elementwise")


def gelu(input: Tensor, approximate: str = "none") -> Tensor:
    """x * Phi(x) (or its tanh approximation; backward node GeluBackward0)."""
    if approximate not in ("none", "tanh"):
        raise RuntimeError("approximate argument must be either none or tanh.")
    return apply(_gelu_op2, (input,), {"approximate": approximate})
