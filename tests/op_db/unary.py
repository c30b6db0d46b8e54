"""Specs for the ops of ``retrograd._ops.unary``: elementwise one-input math:
exp/log/sin.../abs/sign/square, round, logit, nan_to_num, polygamma, positive, frexp, signbit, in-
place exp_...."""
from ._spec import OpSpec, S, T


POS = dict(low=0.5, high=2.0)
X = T((2, 3))
POS_T = T((2, 3), low=0.5, high=2.0)
UNIT = T((2, 3), low=-0.9, high=0.9)
INT = T((2, 3), kind="int", low=-9, high=9)
INT_POS = T((2, 3), kind="int", low=1, high=5)
BOOL = T((2, 3), kind="bool")
NAN_INF = T(kind="fixed", value=[1.5, float("nan"), float("inf"), -float("inf"), 0.0, -2.0])


def _unary(name, *samples, inplace=True, **kw):
    return OpSpec(name, list(samples), method=True, inplace=(name + "_") if inplace else None, **kw)


def _nonfinite(lib, x, *a, **k):
    """nan_to_num on x with NaN, +inf and -inf written into three places (grads flow elsewhere)."""
    nan = lib.tensor([[True, False, False], [False, False, False]])
    pinf = lib.tensor([[False, True, False], [False, False, False]])
    ninf = lib.tensor([[False, False, False], [False, True, False]])
    y = lib.where(nan, float("nan"), lib.where(pinf, float("inf"), lib.where(ninf, -float("inf"), x)))
    return lib.nan_to_num(y, *a, **k)


UNIT_T = T((2, 3), low=0.05, high=0.95)


def _alias(name, of, *samples, **kw):
    return OpSpec("special." + name, list(samples), note=f"alias of {of}", **kw)


SPECS = [
    OpSpec("sqrt", [S(T((2, 3), **POS))], method=True, inplace="sqrt_"),
    OpSpec("exp", [S(T((2, 3)))], method=True, inplace="exp_"),
    OpSpec("log", [S(T((2, 3), **POS))], method=True, inplace="log_"),
    OpSpec("sin", [S(T((2, 3)))], method=True, inplace="sin_"),
    OpSpec("cos", [S(T((2, 3)))], method=True, inplace="cos_"),
    OpSpec("tan", [S(T((2, 3), low=-1, high=1))], method=True, inplace="tan_"),
    OpSpec("tanh", [S(T((2, 3)))], method=True, inplace="tanh_"),
    OpSpec("sigmoid", [S(T((2, 3), low=-5, high=5))], method=True, inplace="sigmoid_"),
    OpSpec("relu", [S(T((2, 3)))], method=True, inplace="relu_"),
    OpSpec("abs", [S(T((2, 3)))], method=True, inplace="abs_"),
    OpSpec("square", [S(T((2, 3)))], method=True),
    OpSpec("reciprocal", [S(T((2, 3), **POS))], method=True, inplace="reciprocal_"),
    OpSpec("sign", [S(T((2, 3)))], method=True, inplace="sign_"),
    OpSpec("frexp", [S(T((2, 3), low=-10, high=10))], method=True),
    *[
    # ------------------------------------------------------------ unary math
    _unary("sgn", S(X), S(INT)),
    _unary("angle", S(X), S(INT), S(NAN_INF), inplace=False),
    _unary("rsqrt", S(POS_T)),
    _unary("exp2", S(X)),
    _unary("expm1", S(X)),
    _unary("log2", S(POS_T)),
    _unary("log10", S(POS_T)),
    _unary("log1p", S(T((2, 3), low=-0.5, high=2.0))),
    _unary("asin", S(UNIT)),
    _unary("acos", S(UNIT)),
    _unary("atan", S(X)),
    _unary("sinh", S(X)),
    _unary("cosh", S(X)),
    _unary("asinh", S(X)),
    _unary("acosh", S(T((2, 3), low=1.2, high=3.0))),
    _unary("atanh", S(UNIT)),
    _unary("arcsin", S(UNIT)),
    _unary("arccos", S(UNIT)),
    _unary("arctan", S(X)),
    _unary("arcsinh", S(X)),
    _unary("arccosh", S(T((2, 3), low=1.2, high=3.0))),
    _unary("arctanh", S(UNIT)),
    _unary("logit", S(T((2, 3), low=0.1, high=0.9)), S(T((2, 3), low=0.02, high=0.98), 0.2),
           S(T((2, 3), low=0.1, high=0.9), eps=1e-6)),
    _unary("erf", S(X), S(T((2, 3), low=-4.0, high=4.0))),
    _unary("erfc", S(X), S(T((2, 3), low=-4.0, high=4.0))),
    _unary("erfinv", S(UNIT), S(T((2, 3), low=-0.999, high=0.999))),
    _unary("lgamma", S(POS_T), S(T((2, 3), low=-0.9, high=-0.1)), S(T((2, 3), low=3.0, high=30.0))),
    _unary("digamma", S(POS_T), S(T((2, 3), low=-2.9, high=-2.1)), S(T((2, 3), low=3.0, high=30.0))),
    OpSpec("polygamma", [S(1, POS_T), S(2, POS_T), S(0, T((2, 3), low=0.2, high=5.0)), S(3, T((2, 3), low=-0.9, high=-0.1)),
                         S(1, INT_POS)]),
    OpSpec("polygamma_method", [S(POS_T, 1), S(POS_T, 2)], torch_name="polygamma", note="alias of polygamma",
           call=lambda lib, x, n: x.polygamma(n)),
    OpSpec("polygamma_inplace", [S(POS_T, 1)], torch_name="polygamma", note="alias of polygamma",
           call=lambda lib, x, n: (x * 1).polygamma_(n)),
    # ------------------------------------------------------------ rounding
    _unary("floor", S(X), S(INT)),
    _unary("ceil", S(X), S(INT)),
    _unary("round", S(X), S(T((2, 3), low=-50, high=50), decimals=1), S(T((2, 3), low=-500, high=500), decimals=-1),
           S(INT)),
    _unary("trunc", S(X), S(INT)),
    _unary("fix", S(X), S(INT)),
    _unary("frac", S(T((2, 3), low=-3, high=3))),
    _unary("nan_to_num", S(X), S(X, 1.0, 2.0, -3.0), S(INT)),
    OpSpec("nan_to_num_nonfinite", [S(X), S(X, 0.5), S(X, nan=1.0, posinf=9.0, neginf=-9.0)],
           torch_name="nan_to_num", call=_nonfinite, note="alias of nan_to_num"),
    _unary("sinc", S(X)),
    _unary("deg2rad", S(X)),
    _unary("rad2deg", S(X)),
    _unary("positive", S(X), S(INT), inplace=False),
    # ------------------------------------------------------------ binary arithmetic
    OpSpec("floor_divide", [S(X, POS_T), S(X, 0.7), S(INT, INT_POS), S(INT, 4), S(INT, -3)], grad=False,
           method=True, inplace="floor_divide_"),
    OpSpec("remainder", [S(X, POS_T), S(X, 0.7), S(X, T((3,), low=-2.0, high=-0.5)), S(INT, INT_POS), S(INT, -4)],
           method=True, inplace="remainder_", broadcast=True),
    OpSpec("remainder_scalar_self", [S(5.5, T((2, 3), low=0.5, high=2.0, grad=False)), S(7, INT_POS)],
           torch_name="remainder", call=lambda lib, a, b: lib.remainder(a, b), grad=False,
           note="alias of remainder"),
    OpSpec("fmod", [S(X, POS_T), S(X, -0.7), S(X, T((3,), low=-2.0, high=-0.5)), S(INT, INT_POS), S(INT, 4)],
           method=True, inplace="fmod_", broadcast=True),
    OpSpec("float_power", [S(POS_T, X), S(X, 2), S(POS_T, 0.5), S(POS_T, T((3,)))],
           method=True, inplace="float_power_"),
    OpSpec("float_power_scalar_base", [S(2.0, X), S(3, INT), S(INT_POS, -1)], torch_name="float_power",
           note="alias of float_power",
           call=lambda lib, a, b: lib.float_power(a, b)),
    OpSpec("atan2", [S(X, X), S(X, T((3,)))], method=True, inplace="atan2_", broadcast=True),
    OpSpec("arctan2", [S(X, X)], method=True, inplace="arctan2_"),
    OpSpec("maximum", [S(X, X), S(T((2, 1)), T((3,))), S(INT, INT), S(BOOL, BOOL)], method=True, broadcast=True),
    OpSpec("minimum", [S(X, X), S(T((2, 1)), T((3,))), S(INT, INT)], method=True, broadcast=True),
    OpSpec("fmax", [S(X, X), S(T((3,)), X), S(NAN_INF, T(kind="fixed", value=[float("nan"), 1.0, 2.0, 3.0,
                                                                                float("nan"), -1.0]))],
           method=True, broadcast=True),
    OpSpec("fmin", [S(X, X), S(X, T((3,))), S(INT, INT)], method=True, broadcast=True),
    OpSpec("hypot", [S(X, X), S(X, T((3,)))], method=True, inplace="hypot_", broadcast=True),
    OpSpec("logaddexp", [S(X, X), S(T((2, 1), low=-30, high=30), T((3,), low=-30, high=30))], method=True,
           broadcast=True),
    OpSpec("logaddexp2", [S(X, X), S(T((3,)), X)], method=True, broadcast=True),
    OpSpec("lerp", [S(X, X, 0.3), S(X, X, 0.8), S(X, T((3,)), 0.4), S(X, X, T((2, 3), low=0.0, high=1.0)),
                    S(X, X, T((3,), low=-0.5, high=1.5))],
           method=True, inplace="lerp_", broadcast=True),
    OpSpec("addcmul", [S(X, X, X), S(X, X, X, value=0.5), S(X, T((3,)), T((2, 1)), value=-2),
                       S(INT, INT, INT, value=2)],
           method=True, inplace="addcmul_"),
    OpSpec("addcdiv", [S(X, X, POS_T), S(X, X, POS_T, value=0.5), S(X, T((3,)), T((2, 1), low=0.5, high=2.0), value=-2)],
           method=True, inplace="addcdiv_"),
    OpSpec("xlogy", [S(X, POS_T), S(X, 2.5), S(X, T((3,), low=0.5, high=2.0))],
           method=True, inplace="xlogy_"),
    OpSpec("xlogy_scalar_self", [S(2.0, POS_T), S(3, INT_POS)], torch_name="xlogy", note="alias of xlogy",
           call=lambda lib, a, b: lib.xlogy(a, b)),
    OpSpec("copysign", [S(X, X), S(X, -1.5), S(X, T((3,)))], method=True, inplace="copysign_",
           broadcast=True),
    # ------------------------------------------------------------ rounding division and tensor-bound clamp
    OpSpec("div_trunc", [S(X, POS_T), S(X, -0.7), S(INT, INT_POS), S(INT, -4), S(INT, 2.5)], torch_name="div",
           call=lambda lib, a, b: lib.div(a, b, rounding_mode="trunc"), note="alias of div"),
    OpSpec("div_floor", [S(X, POS_T), S(X, -0.7), S(INT, INT_POS), S(INT, -4), S(X, T((3,), low=0.5, high=2.0))],
           torch_name="div", call=lambda lib, a, b: lib.div(a, b, rounding_mode="floor"), note="alias of div"),
    OpSpec("clamp_tensor", [S(X, T((2, 3), low=-1.0, high=0.0), T((2, 3), low=0.2, high=1.0)),
                            S(X, T((3,), low=-1.0, high=0.0), T((2, 1), low=0.2, high=1.0)),
                            S(X, T((2, 3), low=0.5, high=1.0), T((2, 3), low=-1.0, high=0.0)),
                            S(INT, T((2, 3), low=-1.0, high=0.0, grad=False), T((3,), low=0.2, high=1.0))],
           torch_name="clamp", call=lambda lib, x, lo, hi: lib.clamp(x, lo, hi), note="alias of clamp"),
    OpSpec("clamp_tensor_min", [S(X, T((2, 3), low=-1.0, high=1.0)), S(X, T((3,), low=-1.0, high=1.0))],
           torch_name="clamp", call=lambda lib, x, lo: lib.clamp(x, min=lo), note="alias of clamp"),
    OpSpec("clamp_tensor_max", [S(X, T((2, 3), low=-1.0, high=1.0))],
           torch_name="clamp", call=lambda lib, x, hi: x.clamp(max=hi), note="alias of clamp"),
    OpSpec("clamp_int_scalar", [S(INT, 1.5, 4.5), S(INT, -2, 3)], torch_name="clamp", note="alias of clamp",
           call=lambda lib, x, lo, hi: lib.clamp(x, lo, hi)),
    OpSpec("where_scalars", [S(BOOL, 1.0, 0.0), S(BOOL, 1, 0), S(BOOL, 2, 0.5), S(BOOL, X, 2),
                             S(BOOL, T((3,), kind="int", low=0, high=5), 0.5), S(BOOL, X, T((), dtype="float64"))],
           torch_name="where", call=lambda lib, c, a, b: lib.where(c, a, b), note="alias of where"),
    # ------------------------------------------------------------ comparisons and logical
    OpSpec("isclose", [S(NAN_INF, T(kind="fixed", value=[1.5 + 1e-6, float("nan"), float("inf"), float("inf"),
                                                          1e-9, -2.1])),
                       S(NAN_INF, NAN_INF, equal_nan=True), S(X, X, 0.1, 0.5), S(INT, INT, 0.0, 3)],
           method=True, grad=False),
    OpSpec("allclose", [S(NAN_INF, NAN_INF), S(NAN_INF, NAN_INF, equal_nan=True), S(X, X, 0.5, 2.0), S(X, X)],
           method=True, grad=False),
    OpSpec("equal", [S(X, X), S(NAN_INF, NAN_INF), S(INT, INT), S(T((2,), kind="fixed", value=[1, 2]),
                                                                  T((2,), kind="fixed", value=[1.0, 2.0]))],
           method=True, grad=False),
    OpSpec("logical_and", [S(INT, BOOL), S(X, X)], method=True, inplace="logical_and_", grad=False),
    OpSpec("logical_or", [S(INT, BOOL), S(X, INT)], method=True, inplace="logical_or_", grad=False),
    OpSpec("logical_xor", [S(INT, BOOL), S(BOOL, BOOL)], method=True, inplace="logical_xor_", grad=False),
    OpSpec("logical_not", [S(INT), S(X), S(BOOL)], method=True, inplace="logical_not_", grad=False),
] + [OpSpec(n, [S(NAN_INF), S(INT), S(X)], method=True, grad=False)
     for n in ("isnan", "isinf", "isposinf", "isneginf", "isfinite", "isreal")],
    # other names for existing ops (their own specs test them in depth)
    _alias("expit", "sigmoid", S(X)),
    _alias("gammaln", "lgamma", S(POS_T)),
    _alias("psi", "digamma", S(POS_T)),
    _alias("digamma", "digamma", S(POS_T)),
    _alias("polygamma", "polygamma", S(1, POS_T)),
    _alias("erf", "erf", S(X)),
    _alias("erfc", "erfc", S(X)),
    _alias("erfinv", "erfinv", S(T((2, 3), low=-0.9, high=0.9))),
    _alias("exp2", "exp2", S(X)),
    _alias("expm1", "expm1", S(X)),
    _alias("log1p", "log1p", S(POS_T)),
    _alias("logit", "logit", S(UNIT_T), S(UNIT_T, 0.1)),
    _alias("sinc", "sinc", S(X)),
]

# Integer inputs of float functions compute in the default float dtype (their in-place forms
# refuse integer tensors, so these have no in-place check).
SPECS += [OpSpec(f"{_n}_int", [S(INT_POS)], torch_name=_n, call=lambda lib, *a, _n=_n: getattr(lib, _n)(*a),
                 note=f"alias of {_n}", loose64=True)  # torch computes these in float32
          for _n in ("exp2", "log1p", "erf", "erfc", "lgamma", "digamma", "deg2rad", "rad2deg", "rsqrt", "sinc",
                     "asinh", "logit")]
