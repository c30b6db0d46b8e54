"""Elementwise ops: the table entries (forward + rules) and their public functions.

Rules are written in retrograd ops, so each derivative is differentiable again.
"""
from __future__ import annotations

import math
import sys

import numpy as np

from .. import _dtype as D
from .._blas import fused_add, int_scalar
from .._tensor import Tensor
from ..autograd import grad_mode
from ._common import binary_operands, check_out_overlap, checked_scalar, float_dtype_for, number_arg, scalar_tensor
from ._deprecated_overloads import NO_ARG, scalar_first
from ._registry import apply, apply_binary, apply_inplace, check_inplace_cast, primitive

__all__ = ["add", "sub", "rsub", "mul", "div", "true_divide", "neg", "negative", "pow",
           "exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "abs",
           "absolute", "sign", "reciprocal", "square", "eq", "ne", "lt", "le", "gt", "ge",
           "greater", "greater_equal", "less", "less_equal", "not_equal", "clamp", "clip",
           "where", "zeros_like_grad"]

def _np_err():
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _quiet(f):
    """NumPy warns on log(0), 1/0 ...; PyTorch returns inf/nan silently."""
    def fw(*a, **k):
        with _np_err():
            return f(*a, **k)
    fw.__signature__ = __import__("inspect").signature(f)
    return fw


# ---------------------------------------------------------------- binary arithmetic
_add = primitive("add", lambda a, b: a + b, node="AddBackward0", array_rules=True,
                 a=lambda g: g,
                 b=lambda g: g)
_add_alpha = primitive("add_alpha", lambda a, b, *, alpha: fused_add(a, b, alpha), node="AddBackward0", array_rules=True,
                       a=lambda g: g,
                       b=lambda g, alpha: g * alpha)
_sub = primitive("sub", lambda a, b: a - b, node="SubBackward0", array_rules=True,
                 a=lambda g: g,
                 b=lambda g: -g)
_sub_alpha = primitive("sub_alpha", lambda a, b, *, alpha: fused_add(a, b, -alpha), node="SubBackward0", array_rules=True,
                       a=lambda g: g,
                       b=lambda g, alpha: g * -alpha)
# rsub(input, other, alpha) = other - alpha * input.  A tensor ``other`` is an input of the
# node (RsubBackward0); a number is not (RsubBackward1 has one edge), as in PyTorch.
_rsub = primitive("rsub", lambda a, b, *, alpha: b - int_scalar(alpha, a.dtype) * a, node="RsubBackward0",
                  array_rules=True,
                  a=lambda g, alpha: g * -alpha,
                  b=lambda g: g)
_rsub_scalar = primitive("rsub_scalar", lambda a, *, other, alpha: other - int_scalar(alpha, a.dtype) * a,
                         node="RsubBackward1", array_rules=True,
                         a=lambda g, alpha: g * -alpha)
_mul = primitive("mul", lambda a, b: a * b, node="MulBackward0", array_rules=True,
                 a=lambda g, b: g * b,
                 b=lambda g, a: g * a)
# d/db a/b = -(a/b)/b, in PyTorch's order: b * b would overflow (or underflow to 0) first
_div = primitive("div", _quiet(lambda a, b: a / b), node="DivBackward0",
                 a=lambda g, b: g / b,
                 b=lambda g, a, b: -g * ((a / b) / b))
# float16 tensor (*|/) CPU scalar: PyTorch's CPU kernels compute in float32 with the scalar
# unrounded (``x * 1e5`` for x = 1e-5 is 1.0, not inf), then round the result to float16
_mul_opmath = primitive("mul_opmath", lambda a, *, other: (a.astype(np.float32) * np.float32(other)).astype(a.dtype),
                        node="MulBackward0", a=lambda g, other: g * other)
_div_opmath = primitive("div_opmath", _quiet(lambda a, *, other: (a.astype(np.float32) / np.float32(other)).astype(a.dtype)),
                        node="DivBackward0", a=lambda g, other: g / other)


def _half_scalar(input, other):
    """``other`` as a float when ``input`` is a float16 tensor and ``other`` a CPU scalar (a real
    Python number, or a 0-dim tensor without grad that does not promote the result), else None."""
    if not isinstance(input, Tensor) or input._data.dtype != np.float16:
        return None
    if isinstance(other, (int, float, np.integer, np.floating)) and not isinstance(other, (bool, np.bool_)):
        return float(other)
    if isinstance(other, Tensor) and other._data.ndim == 0 and not other.requires_grad and \
            other._data.dtype.kind in "fiu" and D.result_type(input, other) is D.float16:
        return float(other._data)
    return None


_neg = primitive("neg", lambda a: -a, node="NegBackward0", array_rules=True, a=lambda g: -g)


def _is_bool(x) -> bool:
    return isinstance(x, (bool, np.bool_)) or (isinstance(x, Tensor) and x._data.dtype.kind == "b")


def _bool_sub_check(a, b) -> None:
    """PyTorch refuses subtraction with a bool operand (tensor or Python bool) on either side."""
    ab, bb = _is_bool(a), _is_bool(b)
    if ab and bb:
        raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not supported. "
                           "Use the `^` or `logical_xor()` operator instead.")
    if ab or bb:
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")


def _check_alpha(a: Tensor, cast, alpha, name: str = "add"):
    """PyTorch's checks of ``alpha`` against the result type (``cast`` or ``a``'s dtype).

    Returns alpha as the kernel uses it (for a bool result it is a bool: ``a or b``)."""
    if isinstance(alpha, Tensor):  # only a 0-dim tensor without grad binds as a number
        alpha = number_arg(name, "alpha", alpha)
    elif not isinstance(alpha, (int, float, complex, bool, np.number, np.bool_)):
        number_arg(name, "alpha", alpha)
    rt = cast or a.dtype
    is_float = isinstance(alpha, (float, np.floating)) or (
        isinstance(alpha, Tensor) and alpha.dtype.is_floating_point)
    if isinstance(alpha, (bool, np.bool_)):
        if rt is not D.bool:
            raise RuntimeError("Boolean alpha only supported for Boolean results.")
    elif not rt.is_floating_point and is_float:
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating point number.")
    if isinstance(alpha, Tensor):
        alpha = alpha.item()
    return bool(alpha) if rt is D.bool else alpha


def add(input, other, _other=NO_ARG, *, alpha=1, out=None) -> Tensor:
    """input + alpha * other, with broadcasting and type promotion.

    (``_other``: PyTorch's deprecated ``add(input, alpha, other)`` form, with a warning.)

    >>> import retrograd as torch
    >>> torch.add(torch.tensor([1., 2.]), 1)
    tensor([2., 3.])
    """
    # (add/sub/mul/div run for every operator and inside every backward rule: keep them lean;
    # two plain Tensors of one dtype need no promotion, so skip binary_operands)
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and \
            type(alpha) is int and alpha == 1 and out is None and _other is NO_ARG:
        return apply_binary(_add, input, other)
    if _other is not NO_ARG:
        alpha, other = scalar_first("add", False, other, (_other,), alpha != 1 or alpha is True), _other
    a, b, cast = binary_operands(input, other, "add")
    if type(alpha) is not int or alpha != 1:  # (an int 1 is the common case: nothing to check)
        alpha = _check_alpha(a, cast, alpha, "add")
    if alpha == 1:
        r = apply_binary(_add, a, b) if cast is None else apply(_add, (a, b), None, cast)
    else:
        r = apply(_add_alpha, (a, b), {"alpha": alpha}, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


def sub(input, other, _other=NO_ARG, *, alpha=1, out=None) -> Tensor:
    """input - alpha * other (``_other``: the deprecated ``sub(input, alpha, other)`` form)."""
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and \
            type(alpha) is int and alpha == 1 and out is None and input._data.dtype.kind != "b" and _other is NO_ARG:
        return apply_binary(_sub, input, other)
    if _other is not NO_ARG:
        alpha, other = scalar_first("sub", False, other, (_other,), alpha != 1 or alpha is True), _other
    a, b, cast = binary_operands(input, other, "sub")
    if a._data.dtype.kind == "b" or b._data.dtype.kind == "b" or type(other) is bool or type(input) is bool:
        _bool_sub_check(input, other)
    if type(alpha) is not int or alpha != 1:
        alpha = _check_alpha(a, cast, alpha, "sub")
    if alpha == 1:
        r = apply_binary(_sub, a, b) if cast is None else apply(_sub, (a, b), None, cast)
    else:
        r = apply(_sub_alpha, (a, b), {"alpha": alpha}, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


def subtract(input, other, *, alpha=1, out=None) -> Tensor:
    """Alias of :func:`sub` (without its deprecated ``sub(input, alpha, other)`` form, as in PyTorch)."""
    return sub(input, other, alpha=alpha, out=out)


def _scalar_first_method(fn, name: str):
    """``x.add(alpha, other)``: the method form of the deprecated overload (messages skip self)."""
    def method(self, other, _other=NO_ARG, *, alpha=1, out=None):
        if _other is not NO_ARG:
            alpha, other = scalar_first(name, True, other, (_other,), alpha != 1 or alpha is True), _other
        return fn(self, other, alpha=alpha, out=out)
    method.__name__ = method.__qualname__ = name
    method.__doc__ = fn.__doc__
    return method


add.method_form = _scalar_first_method(add, "add")
sub.method_form = _scalar_first_method(sub, "sub")


def rsub(input, other, *, alpha=1) -> Tensor:
    """other - alpha * input (what ``2 - x`` calls)."""
    _bool_sub_check(input, other)
    a, b, cast = binary_operands(input, other, "rsub")
    if type(alpha) is not int or alpha != 1:
        alpha = _check_alpha(a, cast, alpha, "rsub")
    if isinstance(other, Tensor):
        return apply(_rsub, (a, b), {"alpha": alpha}, cast)
    # the number, already converted to the promoted dtype, is a static of the node
    other_np = b._data if cast is None else b._data.astype(cast.np)
    return apply(_rsub_scalar, (a,), {"other": other_np, "alpha": alpha}, cast)


def mul(input, other, *, out=None) -> Tensor:
    """Elementwise product with broadcasting."""
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and out is None:
        return apply_binary(_mul, input, other)
    if type(input) is Tensor and input._data.dtype is _F16:  # (one identity test on the hot path)
        h = _half_scalar(input, other)
        if h is not None:
            return _out(apply(_mul_opmath, (input,), {"other": h}), out, inputs=(input, other))
    a, b, cast = binary_operands(input, other, "mul")
    r = apply_binary(_mul, a, b) if cast is None else apply(_mul, (a, b), None, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


multiply = mul


def div(input, other, *, rounding_mode: str | None = None, out=None) -> Tensor:
    """True division (integers give floats) or ``rounding_mode='trunc'|'floor'``."""
    if type(other) is Tensor and type(input) is Tensor and input._data.dtype is other._data.dtype and \
            out is None and rounding_mode is None and input._data.dtype.kind == "f":
        return apply_binary(_div, input, other)
    a, b, cast = binary_operands(input, other, "div")
    if rounding_mode is not None:
        from .pointwise_more import _rounded_div

        return _out(_rounded_div(a, b, cast, rounding_mode), out, inputs=(input, other))
    if type(input) is Tensor and input._data.dtype is _F16:
        h = _half_scalar(input, other)
        if h is not None:
            return _out(apply(_div_opmath, (input,), {"other": h}), out, inputs=(input, other))
    if (a._data.dtype.kind != "f") if cast is None else not cast.is_floating_point:
        cast = D.get_default_dtype()  # integer / integer is a float division
    r = apply_binary(_div, a, b) if cast is None else apply(_div, (a, b), None, cast)
    return r if out is None else _out(r, out, inputs=(input, other))


divide = div
true_divide = div


def neg(input, *, out=None) -> Tensor:
    if input._data.dtype.kind == "b":
        raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. If you are "
                           "trying to invert a mask, use the `~` or `logical_not()` operator instead.")
    return _out(apply(_neg, (input,)), out, same=True)


negative = neg


def _out(result: Tensor, out: Tensor | None, name: str | None = None, same: bool = False,
         inputs: tuple = ()) -> Tensor:
    """``out=`` arguments: copy the result into ``out`` (resizing as PyTorch does).

    A result that requires grad means a differentiable op ran on inputs that require grad
    with grad mode on: PyTorch refuses that before writing (out= results have no history).
    PyTorch's rule for ``out``'s dtype: the result's type must cast to it (same kind or higher:
    a float result refuses an int ``out``); ``same`` ops (neg, abs, clamp ...: no type promotion)
    want exactly the result's dtype.
    """
    if out is None:
        return result
    if inputs:
        check_out_overlap(out, *inputs)
    if (result._requires_grad and result._grad_fn is not None) or (out._requires_grad and grad_mode.state.enabled):
        raise RuntimeError(f"{name or _caller_op_name()}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    if "_fw_tangent" in result.__dict__ or "_fw_tangent" in out.__dict__:
        from ..autograd import forward_ad

        if forward_ad._get(result) is not None or forward_ad._get(out) is not None:
            raise NotImplementedError(f"Trying to use forward AD with {name or _caller_op_name()}_out that does not "
                                      "support it because it is an out= function")
    rd, od = result._data.dtype, out._data.dtype
    if rd != od:
        from .._tensor import _scalar_type_name as _n

        if same:
            raise RuntimeError(f"Found dtype {_n(out.dtype)} but expected {_n(result.dtype)}")
        if not D.can_cast(result.dtype, out.dtype):
            raise RuntimeError(f"result type {_n(result.dtype)} can't be cast to the desired output type "
                               f"{_n(out.dtype)}")
    if out._data.shape != result._data.shape:
        from .linalg import warn_if_resized

        warn_if_resized(out, result._data.shape, stacklevel=4)
        out._data = np.empty(result._data.shape, dtype=out._data.dtype)
    return out.copy_(result)


def _caller_op_name() -> str:
    """For ``_out``'s messages: the op whose code called ``_out`` (``mul``, ``sin`` ...), as PyTorch names it."""
    return sys._getframe(2).f_code.co_name.lstrip("_")


# ---------------------------------------------------------------- pow
def _pow_fw(a, b):
    if a.dtype.kind in "iu" and b.dtype.kind in "iu":
        neg = b < 0
        if neg.any():  # PyTorch's integer pow: 1 ** -n = 1, (-1) ** -n = +-1, anything else 0
            r = np.power(a, np.where(neg, 0, b))
            odd = (b & 1).astype(bool)
            return np.where(neg, np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0)), r).astype(
                r.dtype, copy=False)
    with _np_err():
        return np.power(a, b)


# PyTorch's pow_backward_self / pow_backward_exponent: a zero exponent gives a zero gradient
# (also at a NaN or 0 base), and 0 ** b for b >= 0 has a zero gradient w.r.t. b
_pow = primitive("pow", _pow_fw, node="PowBackward1",
                 a=lambda g, a, b: where(b == 0, 0.0, g * (b * pow(a, b - 1))),
                 b=lambda g, a, b, out: g * where((a == 0) & (b >= 0), 0.0, out * log(a)))


def _pow_scalar_fw(a, *, exponent):
    if a.dtype.kind in "iu" and isinstance(exponent, int) and exponent < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    with _np_err():
        if a.dtype.kind == "f" and a.dtype.itemsize >= 4:
            # PyTorch's float/double kernel (not half's: it calls pow) turns these exponents
            # into sqrt, rsqrt, reciprocal and products, which differ from C's pow at -0
            # and -inf (sqrt(-0) = -0, rsqrt(-inf) = nan)
            if exponent == 0.5:
                return np.sqrt(a)
            if exponent == -0.5:
                return 1 / np.sqrt(a)
            if exponent == 3:
                return a * a * a
            if exponent == -2:
                return 1 / (a * a)
        r = np.power(a, exponent)
    return r.astype(a.dtype, copy=False) if a.dtype.kind in "fiub" else r


def _log_number(base) -> float:
    """log of a Python number as PyTorch's scalar log: -inf at 0, NaN below."""
    return math.log(base) if base > 0 else (-math.inf if base == 0 else math.nan)


def _rpow_rule(g, a, out, base):
    if base == 0:  # PyTorch: 0 ** x has a zero gradient for x >= 0, else out * log(0)
        return g * where(a >= 0, 0.0, out * -math.inf)
    return g * (out * _log_number(base))


_pow_scalar = primitive("pow_scalar", _pow_scalar_fw, node="PowBackward0",
                        a=lambda g, a, exponent: g * (exponent * pow(a, exponent - 1)) if exponent != 0
                        else zeros_like_grad(g))
_rpow_scalar = primitive("rpow_scalar", lambda a, *, base: _pow_fw(np.asarray(base, a.dtype), a),
                         node="PowBackward2", a=_rpow_rule)


def _pow_scalar_args(input: Tensor, exponent):
    """(exponent as a Python number, the result dtype if it differs from input's) for tensor ** number."""
    bool_exp = isinstance(exponent, (bool, np.bool_))
    if bool_exp:
        exponent = int(exponent)
    cast = None
    if isinstance(exponent, float) and input._data.dtype.kind in "iub":
        cast = D.get_default_dtype()
    elif input._data.dtype.kind == "b" and not bool_exp:  # (bool ** True stays bool)
        cast = D.int64
    if isinstance(exponent, np.generic):
        exponent = exponent.item()
    return exponent, cast


def pow(input, exponent, *, out=None) -> Tensor:
    """input ** exponent; either side may be a Python number.

    >>> import retrograd as torch
    >>> torch.pow(torch.tensor([1., 2.]), 2)
    tensor([1., 4.])
    """
    if isinstance(input, Tensor) and not isinstance(exponent, Tensor):
        exponent, cast = _pow_scalar_args(input, exponent)
        return _out(apply(_pow_scalar, (input,), {"exponent": exponent}, cast), out, inputs=(input,))
    if not isinstance(input, Tensor):
        rt = D.result_type(input, exponent)
        if rt is D.bool:
            raise NotImplementedError('"pow" not implemented for \'Bool\'')
        cast = rt if rt.np != exponent._data.dtype else None
        return _out(apply(_rpow_scalar, (exponent,), {"base": input}, cast), out, inputs=(exponent,))
    a, b, cast = binary_operands(input, exponent, "pow")
    if (cast or a.dtype) is D.bool:
        raise NotImplementedError('"pow" not implemented for \'Bool\'')
    return _out(apply(_pow, (a, b), None, cast), out, inputs=(input, exponent))


# ---------------------------------------------------------------- unary
def _unary(name: str, fw, rule, node: str | None = None, float_only: bool = True, quiet: bool = True):
    # quiet: run the forward under np.errstate (PyTorch never warns on inf/NaN); the context
    # costs ~1 us per call, so ops that cannot raise a floating-point error skip it
    op = primitive(name, _quiet(fw) if quiet else fw, node=node, a=rule)

    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        cast = float_dtype_for(input) if float_only else None
        return _out(apply(op, (input,), None, cast), out, name, same=not float_only, inputs=(input,))

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name}; differentiable (backward node {op.node_name})."
    fn.op = op
    fn.float_only = float_only
    return fn


exp = _unary("exp", lambda a: np.exp(a), lambda g, out: g * out)
log = _unary("log", lambda a: np.log(a), lambda g, a: g / a)
sqrt = _unary("sqrt", lambda a: np.sqrt(a), lambda g, out: g / (2 * out))
sin = _unary("sin", lambda a: np.sin(a), lambda g, a: g * cos(a))
cos = _unary("cos", lambda a: np.cos(a), lambda g, a: -g * sin(a))
tan = _unary("tan", lambda a: np.tan(a), lambda g, out: g * (1 + out * out))
tanh = _unary("tanh", lambda a: np.tanh(a), lambda g, out: _tanh_backward(g, out), quiet=False)  # (bounded: never warns)
sigmoid = _unary("sigmoid", lambda a: _sigmoid_np(a), lambda g, out: _sigmoid_backward(g, out))
reciprocal = _unary("reciprocal", lambda a: 1 / a, lambda g, out: -g * out * out)
relu = _unary("relu", lambda a: np.where(a < 0, a.dtype.type(0), a),  # relu(-0.) = -0., relu(NaN) = NaN
              # PyTorch's threshold_backward(g, out, 0): g where out > 0 or NaN, else +0 (never
              # g * mask: that gives NaN for an infinite g and -0); its node keeps out in the graph
              lambda g, out: _threshold_backward(g, out), float_only=False, quiet=False)
abs = _unary("abs", lambda a: np.abs(a), lambda g, a: g * sign(a), float_only=False)
def _refuse_bool(fn, make_error):
    """A unary function that raises PyTorch's error on a bool tensor first."""
    def f(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        if isinstance(input, Tensor) and input._data.dtype.kind == "b":
            raise make_error()
        return fn(input, out=out)
    f.__name__ = f.__qualname__ = fn.__name__
    f.__doc__ = fn.__doc__
    f.op = fn.op
    f.refuse = make_error
    return f


abs = _refuse_bool(abs, lambda: NotImplementedError("\"abs_cpu\" not implemented for 'Bool'"))
relu = _refuse_bool(relu, lambda: RuntimeError("Boolean inputs not supported for relu"))
absolute = abs
sign = _unary("sign", lambda a: (np.sign(np.nan_to_num(a, nan=0.0)) if a.dtype.kind == "f"  # sign(NaN) = 0
                                 else np.sign(a) if a.dtype.kind != "b" else a.copy()),
              lambda g: zeros_like_grad(g), float_only=False)  # PyTorch: zeros_like(grad), never NaN or -0
square = None  # defined below as a composite


def square(input: Tensor) -> Tensor:  # noqa: F811 - torch.square is pow(x, 2)
    """input ** 2 (backward node PowBackward0, as in PyTorch)."""
    return pow(input, 2)


# The backward of sigmoid and tanh as one op each, as in PyTorch (sigmoid_backward /
# tanh_backward, nodes SigmoidBackwardBackward0 / TanhBackwardBackward0 under create_graph):
# one NumPy expression instead of three recorded ops per backward.
#   sigmoid: r = gy * (1 - y) * y (PyTorch's order);  dr/dgy = y (1 - y),  dr/dy = gy (1 - 2y)
#   tanh:    r = gy * (1 - y^2);    dr/dgy = 1 - y^2,    dr/dy = -2 gy y
_F16 = np.dtype(np.float16)


def _half_in_float(f):
    """PyTorch computes float16 kernels in float32 and rounds once (1 - y*y cancels badly in half)."""
    def fw(gy, y):
        if y.dtype is _F16 or y.dtype == _F16:
            return f(gy.astype(np.float32), y.astype(np.float32)).astype(np.float16)
        return f(gy, y)
    return fw


_sigmoid_bw_op = primitive("sigmoid_backward", _half_in_float(lambda gy, y: gy * (1 - y) * y),
                           node="SigmoidBackwardBackward0",
                           gy=lambda g, y: _sigmoid_backward(g, y),
                           y=lambda g, gy, y: g * gy * (1 - 2 * y))
_tanh_bw_op = primitive("tanh_backward", _half_in_float(lambda gy, y: gy * (1 - y * y)), node="TanhBackwardBackward0",
                        gy=lambda g, y: _tanh_backward(g, y),
                        y=lambda g, gy, y: g * gy * y * -2)


def _apply_promoted(op, a: Tensor, b: Tensor) -> Tensor:
    """A binary primitive on two tensors, computed in their promoted dtype."""
    if a._data.dtype == b._data.dtype:
        return apply_binary(op, a, b)
    return apply(op, (a, b), None, D.promote_types(a.dtype, b.dtype))


def _threshold_backward(g: Tensor, out: Tensor) -> Tensor:
    from .nn_ops import _threshold_backward as tb

    return tb(g, out, 0)


def _sigmoid_backward(gy: Tensor, y: Tensor) -> Tensor:
    return _apply_promoted(_sigmoid_bw_op, gy, y)


def _tanh_backward(gy: Tensor, y: Tensor) -> Tensor:
    return _apply_promoted(_tanh_bw_op, gy, y)


def _sigmoid_np(a):
    # 1 / (1 + exp(-a)), the formula PyTorch's kernel uses.  For very negative a, exp(-a)
    # overflows to inf and the result is the right limit, 0 (the op runs under errstate, so
    # NumPy does not warn).  No masks: boolean indexing made this 10x slower on small arrays.
    if a.dtype == np.float16:  # PyTorch computes half in float32 and rounds once
        return _sigmoid_np(a.astype(np.float32)).astype(np.float16)
    e = np.exp(-a)
    if type(e) is not np.ndarray:  # a 0-d input gives a NumPy scalar
        return np.asarray(1 / (1 + e), dtype=a.dtype)
    e += 1
    return np.reciprocal(e, out=e)


# ---------------------------------------------------------------- comparisons (no grad)
def _cmp(name: str, f):
    op = primitive(name, lambda a, b: f(a, b))

    def fn(input, other, *, out=None) -> Tensor:
        a, b, cast = binary_operands(input, other, name)
        return _out(apply(op, (a, b), None, cast), out, name, inputs=(input, other))

    fn.__name__ = name
    fn.__doc__ = f"Elementwise ``{name}`` comparison; returns a bool tensor."
    return fn


eq = _cmp("eq", np.equal)
ne = _cmp("ne", np.not_equal)
lt = _cmp("lt", np.less)
le = _cmp("le", np.less_equal)
gt = _cmp("gt", np.greater)
ge = _cmp("ge", np.greater_equal)
greater, greater_equal, less, less_equal, not_equal = gt, ge, lt, le, ne


# ---------------------------------------------------------------- where / clamp
# PyTorch: where(cond, g, 0) (a product with the mask would turn an infinite g into NaN)
_where = primitive("where", lambda cond, a, b: np.where(cond, a, b), node="WhereBackward0",
                   a=lambda g, cond: where(cond, g, 0.0),
                   b=lambda g, cond: where(cond, 0.0, g))


def logical_not_t(cond: Tensor) -> Tensor:
    return Tensor._wrap(np.logical_not(cond._data), False, None, 0)


def where(condition, input=None, other=None, *, out=None):
    """``where(cond, x, y)`` picks from x where cond else y; ``where(cond)`` = nonzero(as_tuple)."""
    if input is None and other is None:
        from .indexing import nonzero

        return nonzero(condition, as_tuple=True)
    if not isinstance(condition, Tensor) or input is None or other is None:
        got = ", ".join("Tensor" if isinstance(x, Tensor) else type(x).__name__
                        for x in (condition, input, other) if x is not None)
        raise TypeError(f"where() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                        " * (Tensor condition)\n"
                        " * (Tensor condition, Tensor input, Tensor other, *, Tensor out = None)\n"
                        " * (Tensor condition, Number self, Tensor other)\n"
                        " * (Tensor condition, Tensor input, Number other)\n"
                        " * (Tensor condition, Number self, Number other)\n")
    cond = condition
    kind = cond._data.dtype.kind
    if cond._data.dtype == np.uint8:
        import warnings

        warnings.warn("where received a uint8 condition tensor. This behavior is deprecated and will be removed in a "
                      "future version of PyTorch. Use a boolean condition instead.", UserWarning, stacklevel=2)
        cond = Tensor._wrap(cond._data.astype(bool), False, None, 0)
    elif kind != "b":
        from .._tensor import _scalar_type_name

        raise RuntimeError("where expected condition to be a boolean tensor, but got a tensor with dtype "
                           f"{_scalar_type_name(cond.dtype)}")
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        rt = D.result_type(input, other)  # two numbers: e.g. where(c, 2, 0.5) is float32
        return _out(apply(_where, (cond, scalar_tensor(input, rt), scalar_tensor(other, rt))), out, inputs=(cond,))
    a, b, cast = binary_operands(input, other, "where")
    r = apply(_where, (cond, a, b)) if cast is None else _where_cast(cond, a, b, cast)
    if out is not None and out._data.dtype != r._data.dtype:  # (where's own check and words)
        from .._tensor import _scalar_type_name as _n

        raise RuntimeError(f"Expected out type to be {_n(r.dtype)} but got {_n(out.dtype)}")
    return _out(r, out, inputs=(cond, input, other))


def _where_cast(cond, a, b, cast):
    a = a.to(cast) if a.dtype is not cast else a
    b = b.to(cast) if b.dtype is not cast else b
    return apply(_where, (cond, a, b))


def _clamp_fw(a, *, min, max):
    # PyTorch's min(max(a, lo), hi) keeps ``a`` on ties (clamp(0., min=-0.) is 0.) and a NaN
    # input stays NaN; min > max gives max everywhere
    if a.dtype.kind == "f" and any(isinstance(v, float) and math.isnan(v) for v in (min, max)):
        return np.full(a.shape, np.nan, a.dtype)  # a NaN bound makes every element NaN
    with _np_err():
        r = a
        if min is not None:
            r = np.where(r < min, min, r)
        if max is not None:
            r = np.where(r > max, max, r)
        return np.asarray(r, a.dtype)


_clamp = primitive("clamp", _clamp_fw, node="ClampBackward1",
                   a=lambda g, a, min, max: where(_clamp_mask(a, min, max), g, 0.0))


def _clamp_mask(a: Tensor, lo, hi) -> Tensor:
    d = a._data
    m = np.ones(d.shape, dtype=bool)
    if lo is not None:
        m &= d >= lo
    if hi is not None:
        m &= d <= hi
    return Tensor._wrap(m, False, None, 0)


def clamp(input: Tensor, min=None, max=None, *, out=None) -> Tensor:
    """Limit values to [min, max]; scalar or tensor bounds."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        from .pointwise_more import _clamp_tensor

        return _out(_clamp_tensor(input, min, max), out, same=True, inputs=(input, min, max))
    cast = None
    if input._data.dtype.kind in "iub":  # clamp(int tensor, 1.5) is float, as in PyTorch
        rt = D.result_type(input, *[v for v in (min, max) if v is not None])
        cast = rt if rt.np != input._data.dtype else None
        if rt is D.bool:
            kernel = "clamp_scalar_cpu" if min is not None and max is not None else (
                "clamp_min_scalar_cpu" if min is not None else "clamp_max_scalar_cpu")
            raise NotImplementedError(f"\"{kernel}\" not implemented for 'Bool'")
        if rt.np.kind in "iu":  # integer bounds are converted to the result type first (they may wrap)
            min = None if min is None else int(checked_scalar(min, rt))
            max = None if max is None else int(checked_scalar(max, rt))
    return _out(apply(_clamp, (input,), {"min": min, "max": max}, cast), out, same=True, inputs=(input,))


clip = clamp


def zeros_like_grad(t: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros_like(t._data), False, None, 0)


# ---------------------------------------------------------------- in-place variants
def _check_inplace_result(self: Tensor, result_dtype, *others) -> None:
    """PyTorch refuses in-place ops whose (promoted) result cannot be cast to self's dtype."""
    if result_dtype is not None:
        check_inplace_cast(result_dtype, self, others)


def _inplace_binary(op_plain, op_alpha=None, name=""):
    def fn(self: Tensor, other, _other=NO_ARG, *, alpha=1) -> Tensor:
        if _other is not NO_ARG:  # the deprecated x.add_(alpha, other)
            alpha, other = scalar_first(name, True, other, (_other,), alpha != 1 or alpha is True), _other
        a, b, cast = binary_operands(self, other, name)
        _check_inplace_result(self, cast, b)
        if name == "sub_":
            _bool_sub_check(self, other)
        if type(alpha) is not int or alpha != 1:
            alpha = _check_alpha(a, cast, alpha, name)
        if alpha != 1:
            return apply_inplace(op_alpha, self, (b,), {"alpha": alpha})
        return apply_inplace(op_plain, self, (b,))
    fn.__name__ = name
    return fn


add_ = _inplace_binary(_add, _add_alpha, "add_")
sub_ = _inplace_binary(_sub, _sub_alpha, "sub_")


def mul_(self: Tensor, other) -> Tensor:
    if self._data.dtype is _F16:
        h = _half_scalar(self, other)
        if h is not None:
            return apply_inplace(_mul_opmath, self, (), {"other": h})
    a, b, cast = binary_operands(self, other, "mul_")
    _check_inplace_result(self, cast, b)
    return apply_inplace(_mul, self, (b,))


def div_(self: Tensor, other, *, rounding_mode=None) -> Tensor:
    if rounding_mode is not None:
        return _rebind(self, lambda x: div(x, other, rounding_mode=rounding_mode), other)
    if self._data.dtype is _F16:
        h = _half_scalar(self, other)
        if h is not None:
            return apply_inplace(_div_opmath, self, (), {"other": h})
    a, b, cast = binary_operands(self, other, "div_")
    rt = cast or a.dtype
    _check_inplace_result(self, rt if rt.is_floating_point else D.get_default_dtype(), b)
    return apply_inplace(_div, self, (b,))


def neg_(self: Tensor) -> Tensor:
    """In-place :func:`neg` (refused on bool, as the out-of-place op)."""
    if self._data.dtype.kind == "b":
        neg(self)  # raises PyTorch's bool-negation error
    return apply_inplace(_neg, self, ())


def pow_(self: Tensor, exponent) -> Tensor:
    """In-place :func:`pow`; refused when the power's type can't be stored in ``self``."""
    if isinstance(exponent, Tensor):
        a, b, cast = binary_operands(self, exponent, "pow_")
        return apply_inplace(_pow, self, (exponent,), None, cast)
    exponent, cast = _pow_scalar_args(self, exponent)
    return apply_inplace(_pow_scalar, self, (), {"exponent": exponent}, cast)


_C_TYPE_NAMES = {"int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
                 "uint8": "unsigned char", "bool": "bool"}


def clamp_(self: Tensor, min=None, max=None) -> Tensor:
    """In-place :func:`clamp`; an integer tensor refuses a float bound, as in PyTorch."""
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if isinstance(min, Tensor) or isinstance(max, Tensor):
        return _rebind(self, lambda x: clamp(x, min, max), min, max)
    if self._data.dtype.kind in "iub":
        rt = D.result_type(self, *[v for v in (min, max) if v is not None])
        if not D.can_cast(rt, self.dtype):
            from .._tensor import _scalar_type_name

            # (PyTorch's clamp_ names the output type by its C name here: "long int", "bool")
            raise RuntimeError(f"result type {_scalar_type_name(rt)} can't be cast to the desired "
                               f"output type {_C_TYPE_NAMES[self._data.dtype.name]}")
    return apply_inplace(_clamp, self, (), {"min": min, "max": max})


clip_ = clamp_


def _rebind(self: Tensor, compute, *others) -> Tensor:
    """Generic in-place: ``compute(self)`` out of place, then self takes its value and node."""
    from ._inplace import inplace_via

    return inplace_via(self, compute, others)


def _unary_inplace(fn):
    op = fn.op
    float_only = getattr(fn, "float_only", False)
    refuse = getattr(fn, "refuse", None)

    def f(self: Tensor) -> Tensor:
        if refuse is not None and self._data.dtype.kind == "b":
            raise refuse()
        return apply_inplace(op, self, (), None, float_dtype_for(self) if float_only else None)
    f.__name__ = fn.__name__ + "_"
    return f


exp_, log_, sqrt_, sin_, cos_, tan_, tanh_, sigmoid_, reciprocal_, relu_, abs_, sign_ = (
    _unary_inplace(f) for f in (exp, log, sqrt, sin, cos, tan, tanh, sigmoid, reciprocal, relu, abs, sign))

__all__ += ["add_", "sub_", "mul_", "div_", "neg_", "pow_", "clamp_", "clip_", "exp_", "log_",
            "sqrt_", "sin_", "cos_", "tan_", "tanh_", "sigmoid_", "reciprocal_", "relu_", "abs_",
            "sign_", "subtract", "multiply", "divide"]
