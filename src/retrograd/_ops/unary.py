"""Elementwise one-input math: exp/log/sin.../abs/sign/square, round, logit, nan_to_num, polygamma,
positive, frexp, signbit, in-place exp_...."""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D, return_types as RT
from .._layout import like_input
from .._tensor import Tensor, _scalar_type_name
from . import _special
from ._out import declares_out
from ._common import _need_tensor, float_dtype_for
from ._composite import _R, _out, _supports_out
from ._registry import apply, apply_binary, apply_inplace, on_arrays, primitive

__all__ = ["exp", "log", "sqrt", "sin", "cos", "tan", "tanh", "sigmoid", "relu", "abs", "absolute", "sign",
           "reciprocal", "square", "zeros_like_grad", "exp_", "log_", "sqrt_", "sin_", "cos_", "tan_", "tanh_",
           "sigmoid_", "reciprocal_", "relu_", "abs_", "sign_", "sgn", "rsqrt", "exp2", "expm1", "log2", "log10",
           "log1p", "asin", "acos", "atan", "sinh", "cosh", "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan",
           "arcsinh", "arccosh", "arctanh", "logit", "erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma",
           "floor", "ceil", "round", "trunc", "fix", "frac", "nan_to_num", "sinc", "deg2rad", "rad2deg", "positive",
           "angle", "rsqrt_", "exp2_", "expm1_", "log2_", "log10_", "log1p_", "asin_", "acos_", "atan_", "sinh_",
           "cosh_", "asinh_", "acosh_", "atanh_", "arcsin_", "arccos_", "arctan_", "arcsinh_", "arccosh_",
           "arctanh_", "logit_", "erf_", "erfc_", "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_",
           "nan_to_num_", "sinc_", "deg2rad_", "rad2deg_", "frexp", "absolute_", "square_"]


def _np_err():
    return np.errstate(divide="ignore", invalid="ignore", over="ignore")


def _quiet_state():
    """(set, reset, state): NumPy's error-state context variable and a quiet state, or None.

    NumPy >= 2.0 keeps its error state in a context variable; setting it directly costs about a
    quarter of entering ``np.errstate`` (0.27 against 1.1 us per call on 0-d arrays), which is
    most of a 0-d ``sin``.  A private name: if a NumPy lacks it, or it does not act as the error
    state, ``np.errstate`` is used.
    """
    try:
        from numpy._core._ufunc_config import _extobj_contextvar as var
        with np.errstate(divide="ignore", invalid="ignore", over="ignore"):
            quiet = var.get()
        token = var.set(quiet)
        try:
            ok = np.geterr()["divide"] == "ignore" and np.geterr()["invalid"] == "ignore"
        finally:
            var.reset(token)
        return (var.set, var.reset, quiet) if ok else None
    except (ImportError, AttributeError, KeyError):
        return None


_QUIET = _quiet_state()


def _quiet(f):
    """NumPy warns on log(0), 1/0 ...; PyTorch returns inf/nan silently."""
    if _QUIET is None:
        def fw(*a, **k):
            with _np_err():
                return f(*a, **k)
    else:
        set_, reset, state = _QUIET
        params = list(__import__("inspect").signature(f).parameters.values())
        if len(params) == 1 and params[0].kind is params[0].POSITIONAL_OR_KEYWORD:
            def fw(a):  # (one array: the unary ops' forwards, no argument packing)
                token = set_(state)
                try:
                    return f(a)
                finally:
                    reset(token)
        else:
            def fw(*a, **k):
                token = set_(state)
                try:
                    return f(*a, **k)
                finally:
                    reset(token)
    fw.__signature__ = __import__("inspect").signature(f)
    fw.__wrapped__ = f  # (so ``python -m retrograd where`` finds the op's own forward)
    return fw


# ---------------------------------------------------------------- unary
def _unary(name: str, fw, rule, node: str | None = None, float_only: bool = True, quiet: bool = True, fast=None):
    # quiet: run the forward under np.errstate (PyTorch never warns on inf/NaN); the context
    # costs ~1 us per call, so ops that cannot raise a floating-point error skip it.
    # fast: the rule on arrays (the op's declared first-order path, see _registry.primitive)
    op = primitive(name, _quiet(fw) if quiet else fw, node=node, a=rule, fast=fast and {"a": fast},
                   batch="elementwise")

    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        cast = float_dtype_for(input) if float_only else None
        return _out(apply(op, (input,), None, cast), out, name, same=not float_only, inputs=(input,))

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = f"Elementwise {name}; differentiable (backward node {op.node_name})."
    fn.op = op
    fn.float_only = float_only
    return fn


exp = _unary("exp", lambda a: np.exp(a), lambda g, out: g * out,
             fast=lambda g, out: g * out)
log = _unary("log", lambda a: np.log(a), lambda g, a: g / a,
             fast=lambda g, a: g / a)
sqrt = _unary("sqrt", lambda a: np.sqrt(a), lambda g, out: g / (2 * out),
              fast=lambda g, out: g / (2 * out))
sin = _unary("sin", lambda a: np.sin(a), lambda g, a: g * cos(a),
             fast=lambda g, a: g * np.cos(a))
cos = _unary("cos", lambda a: np.cos(a), lambda g, a: -g * sin(a),
             fast=lambda g, a: -g * np.sin(a))
tan = _unary("tan", lambda a: np.tan(a), lambda g, out: g * (1 + out * out),
             fast=lambda g, out: g * (1 + out * out))
tanh = _unary("tanh", lambda a: np.tanh(a), lambda g, out: _tanh_backward(g, out), quiet=False,
              fast=lambda g, out: _tanh_bw_op.forward(g, out))  # (bounded: never warns)
sigmoid = _unary("sigmoid", lambda a: _sigmoid_np(a), lambda g, out: _sigmoid_backward(g, out),
                 fast=lambda g, out: _sigmoid_bw_op.forward(g, out))
reciprocal = _unary("reciprocal", lambda a: 1 / a, lambda g, out: -g * out * out,
                    fast=lambda g, out: -g * out * out)
relu = _unary("relu", lambda a: np.where(a < 0, a.dtype.type(0), a),  # relu(-0.) = -0., relu(NaN) = NaN
              # PyTorch's threshold_backward(g, out, 0): g where out > 0 or NaN, else +0 (never
              # g * mask: that gives NaN for an infinite g and -0); its node keeps out in the graph
              lambda g, out: _threshold_backward(g, out), float_only=False, quiet=False,
              fast=lambda g, out: _threshold_bw_np(g, out))
abs = _unary("abs", lambda a: np.abs(a), lambda g, a: g * sign(a), float_only=False,
             fast=lambda g, a: g * sign.op.forward(a))
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
sign = _unary("sign", lambda a: like_input(np.sign(np.nan_to_num(a, nan=0.0)) if a.dtype.kind == "f"  # sign(NaN) = 0
                                            else np.sign(a) if a.dtype.kind != "b" else a.copy(), a),
              lambda g: zeros_like_grad(g), float_only=False, fast=lambda g: np.zeros_like(g))  # PyTorch: zeros_like(grad), never NaN or -0
square = None  # defined below as a composite


@declares_out("cast", grad_name="pow")
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
                           y=lambda g, gy, y: g * gy * (1 - 2 * y), batch="elementwise")
_tanh_bw_op = primitive("tanh_backward", _half_in_float(lambda gy, y: gy * (1 - y * y)), node="TanhBackwardBackward0",
                        gy=lambda g, y: _tanh_backward(g, y),
                        y=lambda g, gy, y: g * gy * y * -2, batch="elementwise")


def _apply_promoted(op, a: Tensor, b: Tensor) -> Tensor:
    """A binary primitive on two tensors, computed in their promoted dtype."""
    if a._data.dtype == b._data.dtype:
        return apply_binary(op, a, b)
    return apply(op, (a, b), None, D.promote_types(a.dtype, b.dtype))


def _threshold_bw_np(g, out):
    from .nn.activation import _threshold_bw_np as tb

    return tb(g, out, threshold=0)


def _threshold_backward(g: Tensor, out: Tensor) -> Tensor:
    from .nn.activation import _threshold_backward as tb

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


def zeros_like_grad(t: Tensor) -> Tensor:
    return Tensor._wrap(np.zeros_like(t._data), False, None, 0)


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


_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_PI = math.pi
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _not_implemented(kernel: str, dt) -> NotImplementedError:
    """PyTorch's refusal of a dtype a kernel has no loop for."""
    return NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(dt)}\'')


def _cannot_cast(result: D.dtype, target: Tensor, *others) -> RuntimeError:
    from ._registry import check_inplace_broadcast

    check_inplace_broadcast(target, others)  # (PyTorch reports a shape mismatch first)
    return RuntimeError(f"result type {_scalar_type_name(result)} can't be cast to the desired output type "
                        f"{_scalar_type_name(target.dtype)}")


def _zero_rule(g):
    return zeros_like_grad(g)


def _nie(name: str):
    """A rule for ops whose derivative PyTorch does not implement (node ``NotImplemented``)."""
    def rule(g):
        raise RuntimeError(f"derivative for aten::{name} is not implemented")
    return rule


# ================================================================ unary ops
# policy: how the input dtype is treated.
#   "float"  integer/bool inputs compute in the default float dtype (exp2(int) -> float32)
#   "round"  integer dtypes pass through unchanged, bool is refused (floor, ceil, ...)
#   "keep"   every dtype is kept (sgn, nan_to_num)
#   "fonly"  floating dtypes only (frac)
def _prepare(name: str, input, policy: str, kernel: str | None):
    """The cast for ``apply`` under ``policy`` (None = none), with PyTorch's refusals."""
    _need_tensor(name, input)
    if policy == "float":
        return float_dtype_for(input)
    kind = input._data.dtype.kind
    if policy == "round" and kind == "b" or policy == "fonly" and kind != "f":
        raise _not_implemented(kernel, input.dtype)
    return None


def _prepare_inplace(name: str, self: Tensor, policy: str, kernel: str | None) -> None:
    cast = _prepare(name, self, policy, kernel)
    if cast is not None:  # a float result cannot be written into an integer tensor
        raise _cannot_cast(cast, self)


def _doc(name: str, node: str, example: str | None) -> str:
    text = f"Elementwise ``{name}`` (backward node {node}); PyTorch's dtype rules."
    if example:
        call, result = example.split(" -> ")
        text += f"\n\n>>> import retrograd as torch\n>>> {call}\n{result}\n"
    return text


def _unary_with_inplace(name: str, fw, rule, *, node: str | None = None, policy: str = "float", kernel: str | None = None,
           example: str | None = None, inplace: tuple[str, str] | None = None, fast=None):
    """A unary primitive plus its function ``name(input, *, out=None)`` and method ``name_``
    (``inplace``: (name, node) of the in-place form's own primitive, where PyTorch names its node
    differently; ``fast``: the rule on arrays, the op's declared first-order path)."""
    fast = fast and {"a": fast}
    op = primitive(name, _quiet(fw), node=node, a=rule, fast=fast, batch="elementwise")
    op_ = op if inplace is None else primitive(inplace[0], op.forward, node=inplace[1], a=rule,
                                               batch="elementwise")

    def fn(input: Tensor, *, out: Tensor | None = None) -> Tensor:
        # (only the float-promoting family casts into any ``out``; the others want the input's dtype)
        return _out(apply(op, (input,), None, _prepare(name, input, policy, kernel)), out, name, same=policy != "float")

    def fn_(self: Tensor) -> Tensor:
        _prepare_inplace(name, self, policy, kernel)
        return apply_inplace(op_, self, ())

    fn.__name__ = fn.__qualname__ = name
    fn_.__name__ = fn_.__qualname__ = name + "_"
    fn.__doc__ = _doc(name, op.node_name, example)
    fn_.__doc__ = f"In-place :func:`{name}`."
    fn.op = op
    return fn, fn_


def _special_fw(f):
    """A float64 NumPy special function as a forward that keeps the input's float dtype."""
    return lambda a: like_input(f(a).astype(a.dtype, copy=False), a)


def _floor_like(npf):
    return lambda a: npf(a) if a.dtype.kind == "f" else a.copy()


def _sinc_np(a):
    if a.dtype == np.float16:  # PyTorch computes half in float32 and rounds once
        return _sinc_np(a.astype(np.float32)).astype(np.float16)
    return np.where(a == 0, np.ones_like(a), np.sin(a * _PI) / (a * _PI))


def _sinc_rule(g, a):
    # PyTorch's sinc_backward: 0 where pi x^2 is 0 (x = 0, or so small that it underflows)
    api = a * _PI
    sq = a * a * _PI
    return where(sq == 0, 0.0, g * (api * cos(api) - sin(api)) / sq)


def _sign_np(a):
    if a.dtype.kind == "f":
        return np.sign(np.nan_to_num(a, nan=0.0))  # PyTorch: sign(NaN) = 0
    return np.sign(a) if a.dtype.kind != "b" else a.copy()


sgn, sgn_ = _unary_with_inplace("sgn", _sign_np, _zero_rule, policy="keep",
                   example="torch.sgn(torch.tensor([-2., 0., 3.])) -> tensor([-1.,  0.,  1.])")


def _angle_np(a):
    # the argument of a real number: pi below zero (-inf too), 0 at and above (-0 included), NaN kept
    t = a.dtype.type
    return np.where(np.isnan(a), a, np.where(a < 0, t(_PI), t(0))).astype(a.dtype, copy=False)


# (real inputs: the derivative is zero, with no graph, as PyTorch's; torch has no angle_)
angle, _ = _unary_with_inplace("angle", _angle_np, _zero_rule,
                  example="torch.angle(torch.tensor([-2., 0., 3.])) -> tensor([3.1416, 0.0000, 0.0000])")
rsqrt, rsqrt_ = _unary_with_inplace("rsqrt", lambda a: 1 / np.sqrt(a), lambda g, out: g * -0.5 * out * out * out,
                       fast=lambda g, out: g * -0.5 * out * out * out,
                       example="torch.rsqrt(torch.tensor([4., 0.25])) -> tensor([0.5000, 2.0000])")
exp2, exp2_ = _unary_with_inplace("exp2", lambda a: np.exp2(a), lambda g, out: g * out * _LN2,
                     fast=lambda g, out: g * out * _LN2,
                     example="torch.exp2(torch.tensor([0, 3])) -> tensor([1., 8.])")
expm1, expm1_ = _unary_with_inplace("expm1", lambda a: np.expm1(a), lambda g, out: g * (out + 1),
                       fast=lambda g, out: g * (out + 1),
                       example="torch.expm1(torch.tensor([0.])) -> tensor([0.])")
log2, log2_ = _unary_with_inplace("log2", lambda a: np.log2(a), lambda g, a: g / (a * _LN2),
                     fast=lambda g, a: g / (a * _LN2),
                     example="torch.log2(torch.tensor([1., 8.])) -> tensor([0., 3.])")
log10, log10_ = _unary_with_inplace("log10", lambda a: np.log10(a), lambda g, a: g / (a * _LN10),
                       fast=lambda g, a: g / (a * _LN10),
                       example="torch.log10(torch.tensor([1., 10.])) -> tensor([0., 1.])")
log1p, log1p_ = _unary_with_inplace("log1p", lambda a: np.log1p(a), lambda g, a: g / (a + 1), node="Log1PBackward0",
                       fast=lambda g, a: g / (a + 1),
                       example="torch.log1p(torch.tensor([0.])) -> tensor([0.])")
asin, asin_ = _unary_with_inplace("asin", lambda a: np.arcsin(a), lambda g, a: g * rsqrt(1 - a * a),
                     example="torch.asin(torch.tensor([0.])) -> tensor([0.])")
acos, acos_ = _unary_with_inplace("acos", lambda a: np.arccos(a), lambda g, a: -g * rsqrt(1 - a * a),
                     example="torch.acos(torch.tensor([1.])) -> tensor([0.])")
atan, atan_ = _unary_with_inplace("atan", lambda a: np.arctan(a), lambda g, a: g / (a * a + 1),
                     fast=lambda g, a: g / (a * a + 1),
                     example="torch.atan(torch.tensor([0.])) -> tensor([0.])")
sinh, sinh_ = _unary_with_inplace("sinh", lambda a: np.sinh(a), lambda g, a: g * cosh(a),
                     fast=lambda g, a: g * np.cosh(a),
                     example="torch.sinh(torch.tensor([0.])) -> tensor([0.])")
cosh, cosh_ = _unary_with_inplace("cosh", lambda a: np.cosh(a), lambda g, a: g * sinh(a),
                     fast=lambda g, a: g * np.sinh(a),
                     example="torch.cosh(torch.tensor([0.])) -> tensor([1.])")
asinh, asinh_ = _unary_with_inplace("asinh", lambda a: np.arcsinh(a), lambda g, a: g * rsqrt(a * a + 1),
                       inplace=("asinh_", "AsinhBackward1"),
                       example="torch.asinh(torch.tensor([0.])) -> tensor([0.])")
acosh, acosh_ = _unary_with_inplace("acosh", lambda a: np.arccosh(a), lambda g, a: g * rsqrt(a * a - 1),
                       inplace=("acosh_", "AcoshBackward1"),
                       example="torch.acosh(torch.tensor([1.])) -> tensor([0.])")
atanh, atanh_ = _unary_with_inplace("atanh", lambda a: np.arctanh(a), lambda g, a: g / (1 - a * a),
                       fast=lambda g, a: g / (1 - a * a),
                       inplace=("atanh_", "AtanhBackward1"),
                       example="torch.atanh(torch.tensor([0.])) -> tensor([0.])")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
arcsin_, arccos_, arctan_, arcsinh_, arccosh_, arctanh_ = asin_, acos_, atan_, asinh_, acosh_, atanh_

erf, erf_ = _unary_with_inplace("erf", _special_fw(_special.erf),
                   lambda g, a: g * _TWO_OVER_SQRT_PI * exp(-(a * a)),
                   example="torch.erf(torch.tensor([0.])) -> tensor([0.])")
erfc, erfc_ = _unary_with_inplace("erfc", _special_fw(_special.erfc),
                     lambda g, a: g * -_TWO_OVER_SQRT_PI * exp(-(a * a)),
                     example="torch.erfc(torch.tensor([0.])) -> tensor([1.])")
erfinv, erfinv_ = _unary_with_inplace("erfinv", _special_fw(_special.erfinv),
                         lambda g, out: g * (math.sqrt(math.pi) / 2) * exp(out * out),
                         example="torch.erfinv(torch.tensor([0.])) -> tensor([0.])")
lgamma, lgamma_ = _unary_with_inplace("lgamma", _special_fw(_special.lgamma), lambda g, a: g * digamma(a),
                         example="torch.lgamma(torch.tensor([1., 3.])) -> tensor([0.0000, 0.6931])")
digamma, digamma_ = _unary_with_inplace("digamma", _special_fw(_special.digamma), lambda g, a: g * polygamma(1, a),
                           example="torch.digamma(torch.tensor([1.])) -> tensor([-0.5772])")

floor, floor_ = _unary_with_inplace("floor", _floor_like(np.floor), _zero_rule, policy="round", kernel="floor_vml_cpu",
                       example="torch.floor(torch.tensor([-1.5, 1.5])) -> tensor([-2.,  1.])")
ceil, ceil_ = _unary_with_inplace("ceil", _floor_like(np.ceil), _zero_rule, policy="round", kernel="ceil_vml_cpu",
                     example="torch.ceil(torch.tensor([-1.5, 1.5])) -> tensor([-1.,  2.])")
trunc, trunc_ = _unary_with_inplace("trunc", _floor_like(np.trunc), _zero_rule, policy="round", kernel="trunc_vml_cpu",
                       example="torch.trunc(torch.tensor([-1.5, 1.5])) -> tensor([-1.,  1.])")
fix, fix_ = trunc, trunc_
frac, frac_ = _unary_with_inplace("frac", lambda a: a - np.trunc(a), lambda g: g, policy="fonly", kernel="frac_cpu",
                     fast=lambda g: g,
                     example="torch.frac(torch.tensor([-1.5, 2.25])) -> tensor([-0.5000,  0.2500])")
sinc, sinc_ = _unary_with_inplace(
    "sinc", lambda a: _sinc_np(a),
    lambda g, a: _sinc_rule(g, a),
    example="torch.sinc(torch.tensor([0., 0.5])) -> tensor([1.0000, 0.6366])")
deg2rad, deg2rad_ = _unary_with_inplace("deg2rad", lambda a: a * (_PI / 180), lambda g: g * (_PI / 180),
                           node="Deg2RadBackward0",
                           example="torch.deg2rad(torch.tensor([180.])) -> tensor([3.1416])")
rad2deg, rad2deg_ = _unary_with_inplace("rad2deg", lambda a: a * (180 / _PI), lambda g: g * (180 / _PI),
                           node="Rad2DegBackward0",
                           example="torch.rad2deg(torch.tensor([3.1416])) -> tensor([180.0004])")


# ---------------------------------------------------------------- unary ops with arguments
def _round_decimals_fw(a, *, decimals):
    # PyTorch: nearbyint(a * 10^d) / 10^d (d < 0: nearbyint(a / 10^-d) * 10^-d), in the
    # input's float type (float32 for half).
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    ten = work.dtype.type(10.0 ** (-decimals if decimals < 0 else decimals))
    with _np_err():
        r = np.rint(work / ten) * ten if decimals < 0 else np.rint(work * ten) / ten
    return r.astype(a.dtype, copy=False)


_round = primitive("round", _floor_like(np.rint), node="RoundBackward0", a=_zero_rule, batch="elementwise")
_round_dec = primitive("round_decimals", _round_decimals_fw, node="RoundBackward1", a=_zero_rule, batch="elementwise")


def _round_args(name: str, input, decimals):
    _need_tensor(name, input)
    if decimals is None:
        if input._data.dtype.kind == "b":
            raise _not_implemented("round_vml_cpu", input.dtype)
        return _round, None
    if input._data.dtype.kind != "f":  # torch has no integer kernel for round(decimals=)
        raise _not_implemented("round_vml_cpu" if decimals == 0 else "round_cpu", input.dtype)
    return _round_dec, {"decimals": int(decimals)}


def round(input: Tensor, *, decimals: int | None = None, out: Tensor | None = None) -> Tensor:  # noqa: A001
    """Round half to even, optionally to ``decimals`` places (negative: tens, hundreds ...).

    >>> import retrograd as torch
    >>> torch.round(torch.tensor([0.5, 1.5, 2.567]))
    tensor([0., 2., 3.])
    >>> torch.round(torch.tensor([2.567, 1234.]), decimals=1)
    tensor([   2.6000, 1234.0000])
    """
    op, static = _round_args("round", input, decimals)
    return _out(apply(op, (input,), static), out, same=True)


def round_(self: Tensor, *, decimals: int | None = None) -> Tensor:
    """In-place :func:`round`."""
    op, static = _round_args("round_", self, decimals)
    return apply_inplace(op, self, (), static)


def _logit_fw(a, *, eps):
    x = a if eps is None else np.clip(a, eps, 1 - eps)
    return np.log(x / (1 - x))


def _logit_rule(g, a, eps):
    # d/dx log(x / (1 - x)) = 1 / (x (1 - x)); NaN outside [0, 1], or 0 where eps clamped.
    # PyTorch has two forms: under create_graph the formula (here), where a NaN input gets 0
    # with eps; in a first-order backward its logit_backward kernel (the fast path below).
    d = g / (a * (1 - a))
    if eps is None:
        return where(logical_or(a < 0, a > 1), math.nan, d)
    return where((a >= eps) & (a <= 1 - eps), d, 0.0)


def _logit_first_order(g, a, eps):
    # PyTorch's logit_backward kernel: a NaN input gives NaN, x = -0 counts as +0 (gradient +inf)
    x = a.abs()
    d = g / (x * (1 - x))
    if eps is None:
        return where(logical_or(a < 0, a > 1), math.nan, d)
    return where(logical_or(a < eps, a > 1 - eps), 0.0, d)


_logit = primitive("logit", _quiet(_logit_fw), node="LogitBackward0", a=_logit_rule,
                   fast={"a": on_arrays(_logit_first_order)}, batch="elementwise")


def logit(input: Tensor, eps: float | None = None, *, out: Tensor | None = None) -> Tensor:
    """log(p / (1 - p)), with p clamped to [eps, 1 - eps] when eps is given.

    >>> import retrograd as torch
    >>> torch.logit(torch.tensor([0.5, 0.0]), eps=0.1)
    tensor([ 0.0000, -2.1972])
    """
    cast = _prepare("logit", input, "float", None)
    return _out(apply(_logit, (input,), {"eps": None if eps is None else float(eps)}, cast), out)


def logit_(self: Tensor, eps: float | None = None) -> Tensor:
    """In-place :func:`logit`."""
    _prepare_inplace("logit", self, "float", None)
    return apply_inplace(_logit, self, (), {"eps": None if eps is None else float(eps)})


def _nan_to_num_fw(a, *, nan, posinf, neginf):
    if a.dtype.kind != "f":
        return a.copy()
    return like_input(np.nan_to_num(a, copy=True, nan=nan, posinf=posinf, neginf=neginf), a)


_nan_to_num = primitive("nan_to_num", _nan_to_num_fw, node="NanToNumBackward0",
                        a=lambda g, a: g * isfinite(a), batch="elementwise")


def nan_to_num(input: Tensor, nan: float = 0.0, posinf: float | None = None, neginf: float | None = None, *,
               out: Tensor | None = None) -> Tensor:
    """Replace NaN, +inf and -inf (default: 0 and the dtype's largest / lowest finite value).

    >>> import retrograd as torch
    >>> torch.nan_to_num(torch.tensor([float('nan'), 1.]))
    tensor([0., 1.])
    """
    _need_tensor("nan_to_num", input)
    return _out(apply(_nan_to_num, (input,), {"nan": nan, "posinf": posinf, "neginf": neginf}), out)


def nan_to_num_(self: Tensor, nan: float = 0.0, posinf: float | None = None,
                neginf: float | None = None) -> Tensor:
    """In-place :func:`nan_to_num`."""
    return apply_inplace(_nan_to_num, self, (), {"nan": nan, "posinf": posinf, "neginf": neginf})


_polygamma = primitive("polygamma", lambda a, *, n: _special.polygamma(n, a).astype(a.dtype, copy=False),
                       node="PolygammaBackward0",
                       a=lambda g, a, n: g * polygamma(n + 1, a), batch="elementwise")


def _polygamma_n(n) -> int:
    if n < 0:
        raise RuntimeError("polygamma(n, x) does not support negative n.")
    return int(n)


def polygamma(n: int, input: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The n-th derivative of digamma.

    >>> import retrograd as torch
    >>> torch.polygamma(1, torch.tensor([1.]))
    tensor([1.6449])
    """
    cast = _prepare("polygamma", input, "float", None)
    return _out(apply(_polygamma, (input,), {"n": _polygamma_n(n)}, cast), out)


def _polygamma_method(self: Tensor, n: int) -> Tensor:
    return polygamma(n, self)


# the in-place form has its own node name in PyTorch
_polygamma_inplace = primitive("polygamma_", _polygamma.forward, node="PolygammaBackward1",
                               a=lambda g, a, n: g * polygamma(n + 1, a), batch="elementwise")


def polygamma_(self: Tensor, n: int) -> Tensor:
    """In-place :func:`polygamma` (``x.polygamma_(n)``)."""
    _prepare_inplace("polygamma", self, "float", None)
    return apply_inplace(_polygamma_inplace, self, (), {"n": _polygamma_n(n)})


def positive(input: Tensor) -> Tensor:
    """``input`` itself (``+x``); refused for bool tensors.

    >>> import retrograd as torch
    >>> torch.positive(torch.tensor([-1., 2.]))
    tensor([-1.,  2.])
    """
    _need_tensor("positive", input)
    if input._data.dtype.kind == "b":
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


def _frexp_fw(a):
    m, e = np.frexp(a)
    return m.astype(a.dtype), e.astype(np.int32)


_frexp = primitive("frexp", _frexp_fw, node="FrexpBackward0", n_out=2,
                   # the exponent is an integer output: a constant here (detached, so the
                   # gradient has no graph through it, as in PyTorch)
                   a=lambda g, out: g[0] / _R().exp2(out[1].detach().to(g[0].dtype)), batch="elementwise")


@_supports_out
def frexp(input: Tensor, *, out=None):
    """Mantissa in [0.5, 1) and integer exponent (``torch.return_types.frexp``).

    >>> import retrograd as torch
    >>> torch.frexp(torch.tensor([8.])).exponent
    tensor([4], dtype=torch.int32)
    """
    if input._data.dtype.kind != "f":
        raise RuntimeError("torch.frexp() only supports floating-point dtypes")
    m, e = apply(_frexp, (input,))
    return RT.frexp((m, Tensor._wrap(e._data, False, None, 0)))  # the int exponent has no grad_fn


absolute_ = abs_


def square_(self: Tensor) -> Tensor:
    """In-place ``square``."""
    return pow_(self, 2)


# Run-time references to modules that import this one (bound last, so either import order works)
from .binary import pow, pow_  # noqa: E402
from .comparison import isfinite, logical_or  # noqa: E402
from .masked import where  # noqa: E402
