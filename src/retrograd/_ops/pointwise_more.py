"""More elementwise ops: unary math and rounding, binary arithmetic (remainder, atan2, lerp,
addcmul, xlogy ...), tensor-bound clamp and rounding division.

Each primitive's NumPy forward sits next to its backward rules, written in retrograd ops so
every derivative is differentiable again.  Dtype rules are PyTorch's: integer and bool inputs
of float functions compute in the default float dtype; rounding ops keep integer dtypes.
"""
from __future__ import annotations

import math

import numpy as np

from .. import _dtype as D
from .._tensor import Tensor, _scalar_type_name
from ..autograd import grad_mode
from . import _special
from ._common import binary_operands, float_dtype_for, number_arg
from ._deprecated_overloads import NO_ARG, scalar_first
from ._registry import apply, apply_inplace, primitive
from .logical import isfinite, logical_or
from .pointwise import _np_err, _out, _quiet, cos, div, exp, pow, pow_, sin, where, zeros_like_grad  # noqa: A004

__all__ = [
    # unary
    "sgn", "rsqrt", "exp2", "expm1", "log2", "log10", "log1p", "asin", "acos", "atan", "sinh", "cosh",
    "asinh", "acosh", "atanh", "arcsin", "arccos", "arctan", "arcsinh", "arccosh", "arctanh", "logit",
    "erf", "erfc", "erfinv", "lgamma", "digamma", "polygamma", "floor", "ceil", "round", "trunc", "fix",
    "frac", "nan_to_num", "sinc", "deg2rad", "rad2deg", "positive", "angle",
    # binary
    "floor_divide", "remainder", "fmod", "float_power", "atan2", "arctan2", "maximum", "minimum", "fmax",
    "fmin", "hypot", "lerp", "addcmul", "addcdiv", "xlogy", "copysign", "logaddexp", "logaddexp2",
    # in-place forms torch also has as functions
    "rsqrt_", "exp2_", "expm1_", "log2_", "log10_", "log1p_", "asin_", "acos_", "atan_", "sinh_", "cosh_",
    "asinh_", "acosh_", "atanh_", "arcsin_", "arccos_", "arctan_", "arcsinh_", "arccosh_", "arctanh_",
    "logit_", "erf_", "erfc_", "floor_", "ceil_", "round_", "trunc_", "fix_", "frac_", "nan_to_num_",
    "sinc_", "deg2rad_", "rad2deg_", "xlogy_",
]

_LN2 = math.log(2.0)
_LN10 = math.log(10.0)
_PI = math.pi
_TWO_OVER_SQRT_PI = 2.0 / math.sqrt(math.pi)


def _need_tensor(name: str, x, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


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


def _unary(name: str, fw, rule, *, node: str | None = None, policy: str = "float", kernel: str | None = None,
           example: str | None = None, inplace_node: str | None = None):
    """A unary primitive plus its function ``name(input, *, out=None)`` and method ``name_``
    (``inplace_node``: PyTorch names a few in-place forms' nodes differently)."""
    op = primitive(name, _quiet(fw), node=node, a=rule)
    op_ = op if inplace_node is None else primitive(name + "_", op.forward, node=inplace_node, a=rule)

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
    return lambda a: f(a).astype(a.dtype, copy=False)


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


sgn, sgn_ = _unary("sgn", _sign_np, _zero_rule, policy="keep",
                   example="torch.sgn(torch.tensor([-2., 0., 3.])) -> tensor([-1.,  0.,  1.])")


def _angle_np(a):
    # the argument of a real number: pi below zero (-inf too), 0 at and above (-0 included), NaN kept
    t = a.dtype.type
    return np.where(np.isnan(a), a, np.where(a < 0, t(_PI), t(0))).astype(a.dtype, copy=False)


# (real inputs: the derivative is zero, with no graph, as PyTorch's; torch has no angle_)
angle, _ = _unary("angle", _angle_np, _zero_rule,
                  example="torch.angle(torch.tensor([-2., 0., 3.])) -> tensor([3.1416, 0.0000, 0.0000])")
rsqrt, rsqrt_ = _unary("rsqrt", lambda a: 1 / np.sqrt(a), lambda g, out: g * -0.5 * out * out * out,
                       example="torch.rsqrt(torch.tensor([4., 0.25])) -> tensor([0.5000, 2.0000])")
exp2, exp2_ = _unary("exp2", lambda a: np.exp2(a), lambda g, out: g * out * _LN2,
                     example="torch.exp2(torch.tensor([0, 3])) -> tensor([1., 8.])")
expm1, expm1_ = _unary("expm1", lambda a: np.expm1(a), lambda g, out: g * (out + 1),
                       example="torch.expm1(torch.tensor([0.])) -> tensor([0.])")
log2, log2_ = _unary("log2", lambda a: np.log2(a), lambda g, a: g / (a * _LN2),
                     example="torch.log2(torch.tensor([1., 8.])) -> tensor([0., 3.])")
log10, log10_ = _unary("log10", lambda a: np.log10(a), lambda g, a: g / (a * _LN10),
                       example="torch.log10(torch.tensor([1., 10.])) -> tensor([0., 1.])")
log1p, log1p_ = _unary("log1p", lambda a: np.log1p(a), lambda g, a: g / (a + 1), node="Log1PBackward0",
                       example="torch.log1p(torch.tensor([0.])) -> tensor([0.])")
asin, asin_ = _unary("asin", lambda a: np.arcsin(a), lambda g, a: g * rsqrt(1 - a * a),
                     example="torch.asin(torch.tensor([0.])) -> tensor([0.])")
acos, acos_ = _unary("acos", lambda a: np.arccos(a), lambda g, a: -g * rsqrt(1 - a * a),
                     example="torch.acos(torch.tensor([1.])) -> tensor([0.])")
atan, atan_ = _unary("atan", lambda a: np.arctan(a), lambda g, a: g / (a * a + 1),
                     example="torch.atan(torch.tensor([0.])) -> tensor([0.])")
sinh, sinh_ = _unary("sinh", lambda a: np.sinh(a), lambda g, a: g * cosh(a),
                     example="torch.sinh(torch.tensor([0.])) -> tensor([0.])")
cosh, cosh_ = _unary("cosh", lambda a: np.cosh(a), lambda g, a: g * sinh(a),
                     example="torch.cosh(torch.tensor([0.])) -> tensor([1.])")
asinh, asinh_ = _unary("asinh", lambda a: np.arcsinh(a), lambda g, a: g * rsqrt(a * a + 1),
                       inplace_node="AsinhBackward1",
                       example="torch.asinh(torch.tensor([0.])) -> tensor([0.])")
acosh, acosh_ = _unary("acosh", lambda a: np.arccosh(a), lambda g, a: g * rsqrt(a * a - 1),
                       inplace_node="AcoshBackward1",
                       example="torch.acosh(torch.tensor([1.])) -> tensor([0.])")
atanh, atanh_ = _unary("atanh", lambda a: np.arctanh(a), lambda g, a: g / (1 - a * a),
                       inplace_node="AtanhBackward1",
                       example="torch.atanh(torch.tensor([0.])) -> tensor([0.])")
arcsin, arccos, arctan, arcsinh, arccosh, arctanh = asin, acos, atan, asinh, acosh, atanh
arcsin_, arccos_, arctan_, arcsinh_, arccosh_, arctanh_ = asin_, acos_, atan_, asinh_, acosh_, atanh_

erf, erf_ = _unary("erf", _special_fw(_special.erf),
                   lambda g, a: g * _TWO_OVER_SQRT_PI * exp(-(a * a)),
                   example="torch.erf(torch.tensor([0.])) -> tensor([0.])")
erfc, erfc_ = _unary("erfc", _special_fw(_special.erfc),
                     lambda g, a: g * -_TWO_OVER_SQRT_PI * exp(-(a * a)),
                     example="torch.erfc(torch.tensor([0.])) -> tensor([1.])")
erfinv, erfinv_ = _unary("erfinv", _special_fw(_special.erfinv),
                         lambda g, out: g * (math.sqrt(math.pi) / 2) * exp(out * out),
                         example="torch.erfinv(torch.tensor([0.])) -> tensor([0.])")
lgamma, lgamma_ = _unary("lgamma", _special_fw(_special.lgamma), lambda g, a: g * digamma(a),
                         example="torch.lgamma(torch.tensor([1., 3.])) -> tensor([0.0000, 0.6931])")
digamma, digamma_ = _unary("digamma", _special_fw(_special.digamma), lambda g, a: g * polygamma(1, a),
                           example="torch.digamma(torch.tensor([1.])) -> tensor([-0.5772])")

floor, floor_ = _unary("floor", _floor_like(np.floor), _zero_rule, policy="round", kernel="floor_vml_cpu",
                       example="torch.floor(torch.tensor([-1.5, 1.5])) -> tensor([-2.,  1.])")
ceil, ceil_ = _unary("ceil", _floor_like(np.ceil), _zero_rule, policy="round", kernel="ceil_vml_cpu",
                     example="torch.ceil(torch.tensor([-1.5, 1.5])) -> tensor([-1.,  2.])")
trunc, trunc_ = _unary("trunc", _floor_like(np.trunc), _zero_rule, policy="round", kernel="trunc_vml_cpu",
                       example="torch.trunc(torch.tensor([-1.5, 1.5])) -> tensor([-1.,  1.])")
fix, fix_ = trunc, trunc_
frac, frac_ = _unary("frac", lambda a: a - np.trunc(a), lambda g: g, policy="fonly", kernel="frac_cpu",
                     example="torch.frac(torch.tensor([-1.5, 2.25])) -> tensor([-0.5000,  0.2500])")
sinc, sinc_ = _unary(
    "sinc", lambda a: _sinc_np(a),
    lambda g, a: _sinc_rule(g, a),
    example="torch.sinc(torch.tensor([0., 0.5])) -> tensor([1.0000, 0.6366])")
deg2rad, deg2rad_ = _unary("deg2rad", lambda a: a * (_PI / 180), lambda g: g * (_PI / 180),
                           node="Deg2RadBackward0",
                           example="torch.deg2rad(torch.tensor([180.])) -> tensor([3.1416])")
rad2deg, rad2deg_ = _unary("rad2deg", lambda a: a * (180 / _PI), lambda g: g * (180 / _PI),
                           node="Rad2DegBackward0",
                           example="torch.rad2deg(torch.tensor([3.1416])) -> tensor([180.0004])")


# ---------------------------------------------------------------- unary ops with arguments
def _round_decimals_fw(a, *, decimals):
    # PyTorch: nearbyint(a * 10^d) / 10^d (d < 0: nearbyint(a / 10^-d) * 10^-d), in the
    # input's float type (float32 for half).
    work = a.astype(np.float32) if a.dtype == np.float16 else a
    ten = work.dtype.type(10.0 ** abs(decimals))
    with _np_err():
        r = np.rint(work / ten) * ten if decimals < 0 else np.rint(work * ten) / ten
    return r.astype(a.dtype, copy=False)


_round = primitive("round", _floor_like(np.rint), node="RoundBackward0", a=_zero_rule)
_round_dec = primitive("round_decimals", _round_decimals_fw, node="RoundBackward1", a=_zero_rule)


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
    # PyTorch has two forms: under create_graph (grad mode on) the formula, where a NaN input
    # gets 0 with eps; otherwise its logit_backward kernel, where a NaN input gives NaN and
    # x = -0 counts as +0 (gradient +inf, not -inf).
    if grad_mode.state.enabled:
        d = g / (a * (1 - a))
        if eps is None:
            return where(logical_or(a < 0, a > 1), math.nan, d)
        return where((a >= eps) & (a <= 1 - eps), d, 0.0)
    x = a.abs()
    d = g / (x * (1 - x))
    if eps is None:
        return where(logical_or(a < 0, a > 1), math.nan, d)
    return where(logical_or(a < eps, a > 1 - eps), 0.0, d)


_logit = primitive("logit", _quiet(_logit_fw), node="LogitBackward0", a=_logit_rule)


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
    return np.nan_to_num(a, copy=True, nan=nan, posinf=posinf, neginf=neginf)


_nan_to_num = primitive("nan_to_num", _nan_to_num_fw, node="NanToNumBackward0",
                        a=lambda g, a: g * isfinite(a))


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
                       a=lambda g, a, n: g * polygamma(n + 1, a))


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
                               a=lambda g, a, n: g * polygamma(n + 1, a))


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


# ================================================================ binary ops
def _tensor_operands(name: str, input, other):
    """binary_operands for the ops PyTorch only defines on two tensors (atan2, maximum ...)."""
    _need_tensor(name, input)
    _need_tensor(name, other, "other", 2)
    return binary_operands(input, other, name)


def _result_dtype(a: Tensor, cast) -> D.dtype:
    return cast if cast is not None else a.dtype


def _float_cast(a: Tensor, cast):
    """Integer results become the default float dtype (atan2, xlogy, copysign)."""
    if not _result_dtype(a, cast).is_floating_point:
        return D.get_default_dtype()
    return cast


def _require_float(kernel: str, a: Tensor, cast) -> None:
    rt = _result_dtype(a, cast)
    if not rt.is_floating_point:
        raise _not_implemented(kernel, rt)


def _check_int_zero(b: Tensor, rt: D.dtype) -> None:
    if not rt.is_floating_point and not b._data.all():
        raise RuntimeError("ZeroDivisionError")


def _invalid_combination(name: str, got: tuple, overloads: list[str]) -> TypeError:
    lines = "\n".join(f" * ({o})" for o in overloads)
    names = ", ".join(type(g).__name__ if not isinstance(g, Tensor) else "Tensor" for g in got)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({names}), but expected one "
                     f"of:\n{lines}\n")


# ---------------------------------------------------------------- rounding division family
def _trunc_div_np(a, b):
    if a.dtype.kind in "iu":
        q = np.floor_divide(a, b)
        # floor -> toward zero: add one where the division was inexact and the signs differ
        return q + ((q * b != a) & ((a < 0) != (b < 0)))
    return np.trunc(a / b)


_div_trunc = primitive("div_trunc", _quiet(_trunc_div_np), node="DivBackward2", a=_zero_rule, b=_zero_rule)
_floordiv_fw = _quiet(lambda a, b: np.floor_divide(a, b))
_div_floor = primitive("div_floor", _floordiv_fw, node="DivBackward2", a=_zero_rule, b=_zero_rule)


def _rounded_div(a: Tensor, b: Tensor, cast, rounding_mode) -> Tensor:
    """``div(a, b, rounding_mode='trunc'|'floor')``: integer inputs stay integer; zero grads."""
    if rounding_mode not in ("trunc", "floor"):
        raise RuntimeError("div expected rounding_mode to be one of None, 'trunc', or 'floor' but found "
                           f"'{rounding_mode}'")
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented(f"div_{rounding_mode}_cpu", rt)
    _check_int_zero(b, rt)
    return apply(_div_trunc if rounding_mode == "trunc" else _div_floor, (a, b), None, cast)


_floor_divide = primitive("floor_divide", _floordiv_fw, node="NotImplemented",
                          a=_nie("floor_divide"), b=_nie("floor_divide"))


def _floor_divide_args(input, other, name: str):
    a, b, cast = binary_operands(input, other, name)
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented("div_floor_cpu", rt)
    _check_int_zero(b, rt)
    return a, b, cast


def floor_divide(input, other, *, out: Tensor | None = None) -> Tensor:
    """Division rounded toward minus infinity (``//``); integers stay integers.

    >>> import retrograd as torch
    >>> torch.floor_divide(torch.tensor([7, -7]), 2)
    tensor([ 3, -4])
    """
    a, b, cast = _floor_divide_args(input, other, "floor_divide")
    return _out(apply(_floor_divide, (a, b), None, cast), out)


def floor_divide_(self: Tensor, other) -> Tensor:
    """In-place :func:`floor_divide`."""
    a, b, _ = _floor_divide_args(self, other, "floor_divide_")
    return apply_inplace(_floor_divide, self, (b,))


def _remainder_np(a, b):
    if a.dtype.kind in "iu":
        return np.remainder(a, b)
    # PyTorch: fmod, then shifted by b where the signs of the result and b differ
    mod = np.fmod(a, b)
    return np.where((mod != 0) & ((b < 0) != (mod < 0)), mod + b, mod)


_remainder_fw = _quiet(_remainder_np)
_remainder = primitive("remainder", _remainder_fw, node="RemainderBackward1",
                       a=lambda g: g,
                       b=lambda g, a, b: -g * div(a, b, rounding_mode="floor"))
_remainder_s = primitive("remainder_scalar", _remainder_fw, node="RemainderBackward0", a=lambda g: g)
_rremainder = primitive("remainder_scalar_self", _remainder_fw, node="NotImplemented", b=_nie("remainder"))


def _remainder_args(input, other, name: str):
    if not isinstance(input, Tensor) and not isinstance(other, Tensor):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other",
            "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented("remainder_cpu", rt)
    _check_int_zero(b, rt)
    op = _remainder if isinstance(other, Tensor) and isinstance(input, Tensor) else (
        _remainder_s if isinstance(input, Tensor) else _rremainder)
    return op, a, b, cast


def remainder(input, other, *, out: Tensor | None = None) -> Tensor:
    """Python's modulus (``%``): the result has the sign of ``other``.

    >>> import retrograd as torch
    >>> torch.remainder(torch.tensor([-3., 3.]), 2)
    tensor([1., 1.])
    """
    op, a, b, cast = _remainder_args(input, other, "remainder")
    return _out(apply(op, (a, b), None, cast), out, inputs=(input, other))


def remainder_(self: Tensor, other) -> Tensor:
    """In-place :func:`remainder`."""
    op, a, b, _ = _remainder_args(self, other, "remainder_")
    return apply_inplace(op, self, (b,))


_fmod = primitive("fmod", _quiet(lambda a, b: np.fmod(a, b)), node="FmodBackward1",
                  a=lambda g: g,
                  b=lambda g, a, b: -g * div(a, b, rounding_mode="trunc"))
_fmod_s = primitive("fmod_scalar", _quiet(lambda a, b: np.fmod(a, b)), node="FmodBackward0", a=lambda g: g)


def _fmod_args(input, other, name: str):
    if not isinstance(input, Tensor):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    rt = _result_dtype(a, cast)
    if rt is D.bool:
        raise _not_implemented("fmod_cpu", rt)
    _check_int_zero(b, rt)
    return (_fmod if isinstance(other, Tensor) else _fmod_s), a, b, cast


def fmod(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """C's fmod: the remainder of truncated division (sign of ``input``).

    >>> import retrograd as torch
    >>> torch.fmod(torch.tensor([-3., 3.]), 2)
    tensor([-1.,  1.])
    """
    op, a, b, cast = _fmod_args(input, other, "fmod")
    return _out(apply(op, (a, b), None, cast), out, inputs=(input, other))


def fmod_(self: Tensor, other) -> Tensor:
    """In-place :func:`fmod`."""
    op, a, b, _ = _fmod_args(self, other, "fmod_")
    return apply_inplace(op, self, (b,))


# ---------------------------------------------------------------- float_power (composite)
def float_power(input, exponent, *, out: Tensor | None = None) -> Tensor:
    """``input ** exponent`` computed in float64 (backward nodes are pow's).

    >>> import retrograd as torch
    >>> torch.float_power(torch.tensor([2, 3]), 2)
    tensor([4., 9.], dtype=torch.float64)
    """
    if isinstance(input, Tensor):
        base = input.to(D.float64)
        if isinstance(exponent, Tensor):
            return _out(pow(base, exponent.to(D.float64)), out)
        return _out(pow(base, float(exponent)), out)
    if isinstance(exponent, Tensor):
        return _out(pow(float(input), exponent.to(D.float64)), out)
    raise _invalid_combination("float_power", (input, exponent), [
        "Tensor input, Tensor exponent, *, Tensor out = None", "Number self, Tensor exponent, *, Tensor out = None",
        "Tensor input, Number exponent, *, Tensor out = None"])


def float_power_(self: Tensor, exponent) -> Tensor:
    """In-place :func:`float_power`; ``self`` must already be float64."""
    if self.dtype is not D.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_scalar_type_name(self.dtype)} but the "
                           "operation's result requires dtype Double")
    if isinstance(exponent, Tensor):
        return pow_(self, exponent.to(D.float64))
    return pow_(self, float(exponent))


# ---------------------------------------------------------------- atan2, hypot, logaddexp
def _atan2_recip(a, b):
    # PyTorch's atan2_backward: 1 / (a^2 + b^2), but 0 where that sum is 0 (at the origin,
    # or when both squares underflow) so the gradient there is 0, not NaN
    d = a * a + b * b
    return where(d == 0, 0.0, 1 / d)


def _atan2_rule_a(g, a, b):
    return g * b * _atan2_recip(a, b)


def _atan2_rule_b(g, a, b):
    return g * -a * _atan2_recip(a, b)


_atan2 = primitive("atan2", _quiet(lambda a, b: np.arctan2(a, b)), node="Atan2Backward0",
                   a=_atan2_rule_a, b=_atan2_rule_b)


def atan2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """The angle of the point (other, input), quadrant-aware.

    >>> import retrograd as torch
    >>> torch.atan2(torch.tensor([1.]), torch.tensor([-1.]))
    tensor([2.3562])
    """
    a, b, cast = _tensor_operands("atan2", input, other)
    return _out(apply(_atan2, (a, b), None, _float_cast(a, cast)), out, inputs=(input, other))


def atan2_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`atan2`."""
    a, b, cast = _tensor_operands("atan2_", self, other)
    if not self.dtype.is_floating_point:
        raise _cannot_cast(_float_cast(a, cast), self, b)
    return apply_inplace(_atan2, self, (b,))


arctan2, arctan2_ = atan2, atan2_

_hypot = primitive("hypot", _quiet(lambda a, b: np.hypot(a, b)), node="HypotBackward0",
                   a=lambda g, a, out: g * a / out,
                   b=lambda g, b, out: g * b / out)


def hypot(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """sqrt(input**2 + other**2) without overflow.

    >>> import retrograd as torch
    >>> torch.hypot(torch.tensor([3.]), torch.tensor([4.]))
    tensor([5.])
    """
    a, b, cast = _tensor_operands("hypot", input, other)
    _require_float("hypot_cpu", a, cast)
    return _out(apply(_hypot, (a, b), None, cast), out, inputs=(input, other))


def hypot_(self: Tensor, other: Tensor) -> Tensor:
    """In-place :func:`hypot`."""
    a, b, cast = _tensor_operands("hypot_", self, other)
    _require_float("hypot_cpu", a, cast)
    return apply_inplace(_hypot, self, (b,))


_logaddexp = primitive("logaddexp", _quiet(lambda a, b: np.logaddexp(a, b)), node="LogaddexpBackward0",
                       a=lambda g, a, b: g / (1 + exp(b - a)),
                       b=lambda g, a, b: g / (1 + exp(a - b)))
_logaddexp2 = primitive("logaddexp2", _quiet(lambda a, b: np.logaddexp2(a, b)), node="Logaddexp2Backward0",
                        a=lambda g, a, b: g / (1 + exp2(b - a)),
                        b=lambda g, a, b: g / (1 + exp2(a - b)))


def logaddexp(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """log(exp(input) + exp(other)) without overflow.

    >>> import retrograd as torch
    >>> torch.logaddexp(torch.tensor([0.]), torch.tensor([0.]))
    tensor([0.6931])
    """
    a, b, cast = _tensor_operands("logaddexp", input, other)
    _require_float("logaddexp_cpu", a, cast)
    return _out(apply(_logaddexp, (a, b), None, cast), out)


def logaddexp2(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """log2(2**input + 2**other) without overflow.

    >>> import retrograd as torch
    >>> torch.logaddexp2(torch.tensor([1.]), torch.tensor([1.]))
    tensor([2.])
    """
    a, b, cast = _tensor_operands("logaddexp2", input, other)
    _require_float("logaddexp2_cpu", a, cast)
    return _out(apply(_logaddexp2, (a, b), None, cast), out)


# ---------------------------------------------------------------- maximum / minimum / fmax / fmin
def _max_rule(g, a, b):
    # PyTorch: the larger input gets the gradient, ties split it in half; NaN passes to both.
    return where(a == b, g / 2, where(a < b, 0.0, g))


def _min_rule(g, a, b):
    return where(a == b, g / 2, where(a > b, 0.0, g))


_maximum = primitive("maximum", lambda a, b: np.maximum(a, b), node="MaximumBackward0",
                     a=_max_rule, b=lambda g, a, b: _max_rule(g, b, a))
_minimum = primitive("minimum", lambda a, b: np.minimum(a, b), node="MinimumBackward0",
                     a=_min_rule, b=lambda g, a, b: _min_rule(g, b, a))


def _fmax_wins(a, b):
    """Where fmax's result comes from ``a`` (ties and a NaN ``b`` included), as PyTorch."""
    return logical_or(a >= b, b != b)


def _fmin_wins(a, b):
    return logical_or(a <= b, b != b)


# PyTorch's fmax / fmin keep ``a`` on ties (fmax(0., -0.) is 0., fmax(-0., 0.) is -0.)
def _fmax_np(a, b):
    keep = a >= b
    if b.dtype.kind == "f":
        keep |= np.isnan(b)
    return np.where(keep, a, b)


def _fmin_np(a, b):
    keep = a <= b
    if b.dtype.kind == "f":
        keep |= np.isnan(b)
    return np.where(keep, a, b)


_fmax = primitive("fmax", _fmax_np, node="FmaxBackward0",
                  a=lambda g, a, b: where(_fmax_wins(a, b), g, 0.0),
                  b=lambda g, a, b: where(_fmax_wins(a, b), 0.0, g))
_fmin = primitive("fmin", _fmin_np, node="FminBackward0",
                  a=lambda g, a, b: where(_fmin_wins(a, b), g, 0.0),
                  b=lambda g, a, b: where(_fmin_wins(a, b), 0.0, g))


def maximum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum; NaN propagates; ties split the gradient.

    >>> import retrograd as torch
    >>> torch.maximum(torch.tensor([1., 5.]), torch.tensor([3., 2.]))
    tensor([3., 5.])
    """
    a, b, cast = _tensor_operands("maximum", input, other)
    return _out(apply(_maximum, (a, b), None, cast), out)


def minimum(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum; NaN propagates; ties split the gradient.

    >>> import retrograd as torch
    >>> torch.minimum(torch.tensor([1., 5.]), torch.tensor([3., 2.]))
    tensor([1., 2.])
    """
    a, b, cast = _tensor_operands("minimum", input, other)
    return _out(apply(_minimum, (a, b), None, cast), out)


def fmax(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise maximum that ignores NaN (NaN only where both are NaN).

    >>> import retrograd as torch
    >>> torch.fmax(torch.tensor([1., float('nan')]), torch.tensor([float('nan'), 2.]))
    tensor([1., 2.])
    """
    a, b, cast = _tensor_operands("fmax", input, other)
    return _out(apply(_fmax, (a, b), None, cast), out)


def fmin(input: Tensor, other: Tensor, *, out: Tensor | None = None) -> Tensor:
    """Elementwise minimum that ignores NaN (NaN only where both are NaN).

    >>> import retrograd as torch
    >>> torch.fmin(torch.tensor([1., float('nan')]), torch.tensor([float('nan'), 2.]))
    tensor([1., 2.])
    """
    a, b, cast = _tensor_operands("fmin", input, other)
    return _out(apply(_fmin, (a, b), None, cast), out)


# ---------------------------------------------------------------- xlogy, copysign
def _xlogy_np(a, b):
    r = a * np.log(b)
    r = np.where(a == 0, np.zeros_like(r), r)  # 0 * log(0) = 0 ...
    return np.where(np.isnan(b), b, r)  # ... but NaN in b wins


def _xlogy_rule_a(g, a, b):
    # PyTorch: xlogy(g, b), but 0 at a == 0 where b <= 0 (see its note on xlogy at x = 0)
    return where((a == 0) & (b <= 0), 0.0, xlogy(g, b))


def _xlogy_rule_a_scalar(g, a, b):
    # a Number ``other``: the mask is a == 0 unless other > 0 (so a NaN other also gives 0)
    if b.item() > 0:
        return xlogy(g, b)
    return where(a == 0, 0.0, xlogy(g, b))


def _xlogy_rule_b(g, a, b):
    return g * a / b


_xlogy_fw = _quiet(_xlogy_np)
_xlogy = primitive("xlogy", _xlogy_fw, node="XlogyBackward0", a=_xlogy_rule_a, b=_xlogy_rule_b)
_xlogy_scalar_self = primitive("xlogy_scalar_self", _xlogy_fw, node="XlogyBackward1", b=_xlogy_rule_b)
_xlogy_scalar_other = primitive("xlogy_scalar_other", _xlogy_fw, node="XlogyBackward2", a=_xlogy_rule_a_scalar)


def _xlogy_args(input, other, name: str):
    ta, tb = isinstance(input, Tensor), isinstance(other, Tensor)
    if not (ta or tb):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Number self, Tensor other, *, Tensor out = None",
            "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    op = _xlogy if ta and tb else (_xlogy_scalar_other if ta else _xlogy_scalar_self)
    return op, a, b, _float_cast(a, cast)


def xlogy(input, other, *, out: Tensor | None = None) -> Tensor:
    """input * log(other), with 0 where input is 0 (unless other is NaN).

    >>> import retrograd as torch
    >>> torch.xlogy(torch.tensor([0., 2.]), torch.tensor([0., 1.]))
    tensor([0., 0.])
    """
    op, a, b, cast = _xlogy_args(input, other, "xlogy")
    return _out(apply(op, (a, b), None, cast), out)


def xlogy_(self: Tensor, other) -> Tensor:
    """In-place :func:`xlogy`."""
    op, a, b, cast = _xlogy_args(self, other, "xlogy_")
    if not self.dtype.is_floating_point:
        raise _cannot_cast(cast, self, b)
    if cast is not None and b.dtype is not cast:
        # the forward runs in the promoted dtype, as the out-of-place op does (NumPy would take
        # the log of an int8 or float16 ``other`` in float16)
        b = b.to(cast)
    return apply_inplace(op, self, (b,))


def _copysign_rule_a(g, a, out):
    # d/da |a| sign(b) = out / a, with 0 at a == 0 (PyTorch's convention)
    return g * where(a == 0, 0.0, out / a)


_copysign_fw = _quiet(lambda a, b: np.copysign(a, b))
_copysign = primitive("copysign", _copysign_fw, node="CopysignBackward0", a=_copysign_rule_a, b=_zero_rule)
_copysign_s = primitive("copysign_scalar", _copysign_fw, node="CopysignBackward1", a=_copysign_rule_a)


def _copysign_args(input, other, name: str):
    if not isinstance(input, Tensor):
        raise _invalid_combination(name, (input, other), [
            "Tensor input, Tensor other, *, Tensor out = None", "Tensor input, Number other, *, Tensor out = None"])
    a, b, cast = binary_operands(input, other, name)
    return (_copysign if isinstance(other, Tensor) else _copysign_s), a, b, _float_cast(a, cast)


def copysign(input: Tensor, other, *, out: Tensor | None = None) -> Tensor:
    """|input| with the sign of ``other`` (-0.0 counts as negative).

    >>> import retrograd as torch
    >>> torch.copysign(torch.tensor([1., -2.]), -0.0)
    tensor([-1., -2.])
    """
    op, a, b, cast = _copysign_args(input, other, "copysign")
    return _out(apply(op, (a, b), None, cast), out)


def copysign_(self: Tensor, other) -> Tensor:
    """In-place :func:`copysign`."""
    op, a, b, cast = _copysign_args(self, other, "copysign_")
    if not self.dtype.is_floating_point:
        raise _cannot_cast(cast, self, b)
    return apply_inplace(op, self, (b,))


# ---------------------------------------------------------------- lerp
def _lerp_np(a, e, w):
    # PyTorch's two-sided formula: exact at both ends (w = 0 gives a, w = 1 gives e).
    if a.dtype == np.float16:  # PyTorch's CPU kernel computes float16 in float32, rounding once
        r = _lerp_np(a.astype(np.float32), np.asarray(e, np.float32), np.asarray(w, np.float32))
        return r.astype(np.float16)
    return np.where(np.abs(w) < 0.5, a + w * (e - a), e - (e - a) * (1 - w))


_lerp_s = primitive("lerp_scalar", lambda a, e, *, weight: _lerp_np(a, e, weight), node="LerpBackward0",
                    a=lambda g, weight: g * (1 - weight),
                    e=lambda g, weight: g * weight)
_lerp_t = primitive("lerp", _lerp_np, node="LerpBackward1",
                    a=lambda g, w: g * (1 - w),
                    e=lambda g, w: g * w,
                    w=lambda g, a, e: g * (e - a))

_CPP_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
              "int64": "long int", "int32": "int", "int16": "short int", "int8": "signed char",
              "uint8": "unsigned char", "bool": "bool"}


def _lerp_args(input, end, weight, name: str):
    if not isinstance(input, Tensor) or not isinstance(end, Tensor) or not (
            isinstance(weight, (Tensor, int, float, np.number))):
        raise _invalid_combination(name, (input, end, weight), [
            "Tensor input, Tensor end, Tensor weight, *, Tensor out = None",
            "Tensor input, Tensor end, Number weight, *, Tensor out = None"])
    dt = input.dtype
    if end.dtype is not dt:
        raise RuntimeError(f"expected dtype {_CPP_NAMES[dt.name]} for `end` but got dtype {_CPP_NAMES[end.dtype.name]}")
    if isinstance(weight, Tensor):
        if weight.dtype is not dt and weight.ndim != 0:
            raise RuntimeError(f"expected dtype {_CPP_NAMES[dt.name]} for `weight` but got dtype "
                               f"{_CPP_NAMES[weight.dtype.name]}")
        if not dt.is_floating_point:
            raise _not_implemented("lerp_kernel_tensor", dt)
        if weight.dtype is not dt:
            weight = weight.to(dt)
        return _lerp_t, (end, weight), None
    if not dt.is_floating_point:
        raise _not_implemented("lerp_kernel_scalar", dt)
    return _lerp_s, (end,), {"weight": float(weight)}


def lerp(input: Tensor, end: Tensor, weight, *, out: Tensor | None = None) -> Tensor:
    """input + weight * (end - input); ``weight`` a number or a tensor.

    >>> import retrograd as torch
    >>> torch.lerp(torch.tensor([0., 10.]), torch.tensor([10., 20.]), 0.25)
    tensor([ 2.5000, 12.5000])
    """
    op, others, static = _lerp_args(input, end, weight, "lerp")
    return _out(apply(op, (input,) + others, static), out)


def lerp_(self: Tensor, end: Tensor, weight) -> Tensor:
    """In-place :func:`lerp`."""
    op, others, static = _lerp_args(self, end, weight, "lerp_")
    return apply_inplace(op, self, others, static)


# ---------------------------------------------------------------- addcmul / addcdiv
_addcmul = primitive("addcmul", lambda a, t1, t2, *, value: a + value * t1 * t2, node="AddcmulBackward0",
                     a=lambda g: g,
                     t1=lambda g, t2, value: g * (t2 * value),
                     t2=lambda g, t1, value: g * (t1 * value))
_addcdiv = primitive("addcdiv", _quiet(lambda a, t1, t2, *, value: a + value * t1 / t2), node="AddcdivBackward0",
                     a=lambda g: g,
                     t1=lambda g, t2, value: g * (value / t2),
                     t2=lambda g, t1, t2, value: -g * (value * t1 / (t2 * t2)))

_ADDCDIV_INT = (
    "Integer division with addcdiv is no longer supported, and in a future  release addcdiv will perform a true "
    "division of tensor1 and tensor2. The historic addcdiv behavior can be implemented as (input + value * "
    "torch.trunc(tensor1 / tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / tensor2) "
    "for float inputs. The future addcdiv behavior is just the latter implementation: (input + value * tensor1 / "
    "tensor2), for all dtypes.")


def _addc_args(name: str, input, tensor1, tensor2, value):
    for arg, pos, x in (("input", 1, input), ("tensor1", 2, tensor1), ("tensor2", 3, tensor2)):
        _need_tensor(name, x, arg, pos)
    if name.startswith("addcdiv") and tensor1._data.dtype.kind in "iub" and tensor2._data.dtype.kind in "iub":
        raise RuntimeError(_ADDCDIV_INT)
    rt = D.result_type(input, tensor1, tensor2)
    if rt is D.bool:
        raise _not_implemented(f"{name.rstrip('_')}_cpu_out", rt)
    value = number_arg(name, "value", value)
    # the scalar is converted to the result type (2.5 -> 2 for integer tensors)
    value = float(value) if rt.is_floating_point else int(value)
    return rt, {"value": value}


def addcmul(input: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
            out: Tensor | None = None) -> Tensor:
    """input + value * tensor1 * tensor2.

    >>> import retrograd as torch
    >>> torch.addcmul(torch.tensor([1.]), torch.tensor([2.]), torch.tensor([3.]), value=0.5)
    tensor([4.])
    """
    if _tensor2 is not NO_ARG:  # the deprecated addcmul(input, value, tensor1, tensor2)
        value, tensor1, tensor2 = scalar_first("addcmul", False, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    rt, static = _addc_args("addcmul", input, tensor1, tensor2, value)
    return _out(apply(_addcmul, (input, tensor1, tensor2), static, rt), out)


def _addcmul_method(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
                    out: Tensor | None = None) -> Tensor:
    if _tensor2 is not NO_ARG:  # x.addcmul(value, tensor1, tensor2): messages do not count self
        value, tensor1, tensor2 = scalar_first("addcmul", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    return addcmul(self, tensor1, tensor2, value=value, out=out)


addcmul.method_form = _addcmul_method


def addcdiv(input: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
            out: Tensor | None = None) -> Tensor:
    """input + value * tensor1 / tensor2 (integer tensor1 and tensor2 are refused, as in PyTorch).

    >>> import retrograd as torch
    >>> torch.addcdiv(torch.tensor([1.]), torch.tensor([2.]), torch.tensor([4.]), value=2)
    tensor([2.])
    """
    if _tensor2 is not NO_ARG:  # the deprecated addcdiv(input, value, tensor1, tensor2)
        value, tensor1, tensor2 = scalar_first("addcdiv", False, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    rt, static = _addc_args("addcdiv", input, tensor1, tensor2, value)
    return _out(apply(_addcdiv, (input, tensor1, tensor2), static, rt), out)


def _addcdiv_method(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1,
                    out: Tensor | None = None) -> Tensor:
    if _tensor2 is not NO_ARG:  # x.addcdiv(value, tensor1, tensor2): messages do not count self
        value, tensor1, tensor2 = scalar_first("addcdiv", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    return addcdiv(self, tensor1, tensor2, value=value, out=out)


addcdiv.method_form = _addcdiv_method


def addcmul_(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1) -> Tensor:
    """In-place :func:`addcmul` (``_tensor2``: the deprecated ``x.addcmul_(value, tensor1, tensor2)`` form)."""
    if _tensor2 is not NO_ARG:
        value, tensor1, tensor2 = scalar_first("addcmul_", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    _, static = _addc_args("addcmul_", self, tensor1, tensor2, value)
    return apply_inplace(_addcmul, self, (tensor1, tensor2), static)


def addcdiv_(self: Tensor, tensor1: Tensor, tensor2: Tensor, _tensor2=NO_ARG, *, value=1) -> Tensor:
    """In-place :func:`addcdiv` (``_tensor2``: the deprecated ``x.addcdiv_(value, tensor1, tensor2)`` form)."""
    if _tensor2 is not NO_ARG:
        value, tensor1, tensor2 = scalar_first("addcdiv_", True, tensor1, (tensor2, _tensor2), value != 1), \
            tensor2, _tensor2
    _, static = _addc_args("addcdiv_", self, tensor1, tensor2, value)
    return apply_inplace(_addcdiv, self, (tensor1, tensor2), static)


# ================================================================ clamp with tensor bounds
def _clamp_rule_a(g, a, lo, hi):
    return where((a >= lo) & (a <= hi), g, 0.0)


def _clamp_rule_lo(g, a, lo, hi):
    return where((lo > a) & (lo < hi), g, 0.0)


def _clamp_rule_hi(g, a, lo, hi):
    return where((hi < a) | (hi < lo), g, 0.0)  # min > max: the result is max


_clamp_t = primitive("clamp_tensor", lambda a, lo, hi: np.minimum(np.maximum(a, lo), hi), node="ClampBackward0",
                     a=_clamp_rule_a, lo=_clamp_rule_lo, hi=_clamp_rule_hi)
_clamp_min_t = primitive("clamp_min_tensor", lambda a, lo: np.maximum(a, lo), node="ClampBackward0",
                         a=lambda g, a, lo: where(a >= lo, g, 0.0),
                         lo=lambda g, a, lo: where(a < lo, g, 0.0))
_clamp_max_t = primitive("clamp_max_tensor", lambda a, hi: np.minimum(a, hi), node="ClampBackward0",
                         a=lambda g, a, hi: where(a <= hi, g, 0.0),
                         hi=lambda g, a, hi: where(a > hi, g, 0.0))


def _clamp_tensor(input: Tensor, min, max) -> Tensor:
    """clamp(input, min, max) where the bounds are tensors (or None), with type promotion."""
    if (min is not None and not isinstance(min, Tensor)) or (max is not None and not isinstance(max, Tensor)):
        raise _invalid_combination("clamp", (input, min, max), [
            "Tensor input, Tensor min = None, Tensor max = None, *, Tensor out = None",
            "Tensor input, Number min = None, Number max = None, *, Tensor out = None"])
    bounds = tuple(t for t in (min, max) if t is not None)
    rt = D.result_type(input, *bounds)
    cast = None if all(t._data.dtype == rt.np for t in (input,) + bounds) else rt
    op = _clamp_t if len(bounds) == 2 else (_clamp_min_t if min is not None else _clamp_max_t)
    return apply(op, (input,) + bounds, None, cast)


# ================================================================ Tensor methods and operators
METHODS = [n for n in __all__ if n != "polygamma"] + [
    "sgn_", "erfinv_", "lgamma_", "digamma_", "polygamma_", "floor_divide_", "remainder_", "fmod_",
    "float_power_", "atan2_", "arctan2_", "hypot_", "lerp_", "addcmul_", "addcdiv_", "copysign_"]

Tensor.polygamma = _polygamma_method  # x.polygamma(n) puts n first, unlike the function
Tensor.__mod__ = remainder
Tensor.__rmod__ = lambda self, other: remainder(other, self)
Tensor.__imod__ = remainder_
Tensor.__floordiv__ = floor_divide
Tensor.__rfloordiv__ = lambda self, other: floor_divide(other, self)
Tensor.__ifloordiv__ = floor_divide_
