"""Specs for the ops of ``retrograd._ops.binary``: elementwise arithmetic of two inputs:
add/sub/mul/div/pow (+ in-place), floor_divide, remainder, fmod, float_power, atan2, hypot,
logaddexp, xlogy, copysign, heaviside, nextafter, ldexp."""
from ._spec import OpSpec, S, T


POS = dict(low=0.5, high=2.0)


def _op(f):
    """call(lib, *args) for Python operators."""
    return lambda lib, *a, **k: f(*a, **k)


X = T((2, 3))
POS_T = T((2, 3), low=0.5, high=2.0)
INT = T((2, 3), kind="int", low=-9, high=9)
INT_POS = T((2, 3), kind="int", low=1, high=5)


def _inplace_ops(x, b):
    x &= 7
    x |= b
    x ^= 1
    x <<= 2
    x >>= 1
    x %= 5
    x //= 2
    return x


def _alias(name, of, *samples, **kw):
    return OpSpec("special." + name, list(samples), note=f"alias of {of}", **kw)


def _on_clone(name):
    """call(lib, x, *args): ``x.clone().<name>(*args)`` (in-place ops on a non-leaf)."""
    return lambda lib, x, *a, **k: getattr(x.clone(), name)(*a, **k)


SPECS = [
    OpSpec("add", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), T((3,))), S(T((2,)), 2.5), S(T((2, 2)), T((2, 2)), alpha=3)],
           method=True, inplace="add_", broadcast=True),
    OpSpec("sub", [S(T((2, 3)), T((2, 3))), S(T((3, 1)), T((3,))), S(T((2,)), 1.5), S(T((2,)), T((2,)), alpha=2)],
           method=True, inplace="sub_", broadcast=True),
    OpSpec("mul", [S(T((2, 3)), T((2, 3))), S(T((2, 1)), T((1, 3))), S(T((3,)), 2.0)],
           method=True, inplace="mul_", broadcast=True),
    OpSpec("div", [S(T((2, 3)), T((2, 3), **POS)), S(T((3,)), T((2, 1), **POS)), S(T((3,)), 4.0)],
           method=True, inplace="div_", broadcast=True),
    OpSpec("neg", [S(T((2, 3)))], method=True, inplace="neg_"),
    OpSpec("pow", [S(T((2, 3), **POS), T((2, 3))), S(T((3,)), 2), S(T((3,)), 3.0), S(T((2,), **POS), 0.5)],
           method=True, inplace="pow_"),
    OpSpec("rpow", [S(2.0, T((3,)))], torch_name="pow", call=lambda lib, a, b: a ** b, note="alias of rsub"),
    OpSpec("rsub", [S(T((3,)), 2.0)], call=_op(lambda a, b: b - a)),
    OpSpec("rsub_tensor", [S(T((2, 3)), T((3,))), S(T((3,)), T((3,)), alpha=2)], torch_name="rsub",
           call=lambda lib, a, b, **k: lib.rsub(a, b, **k), note="rsub with a tensor other"),
    OpSpec("heaviside", [S(T((5,)), T((1,), grad=False)),
                         S(T((2, 3)), T((2, 3)))], method=True, inplace="heaviside_", grad=False),
    OpSpec("ldexp", [S(T((2, 3)), T((3,), kind="int", low=-3, high=4)), S(T((2, 3)), T((3,), low=-2, high=2))],
           method=True, inplace="ldexp_"),
    OpSpec("nextafter", [S(T((2, 3)), T((2, 3)))], method=True, inplace="nextafter_", grad=False),
    OpSpec("mod_operator", [S(X, POS_T), S(X, 0.7), S(INT, 4)], torch_name="remainder",
           call=_op(lambda a, b: a % b), note="alias of remainder"),
    OpSpec("rmod_operator", [S(POS_T, 5.5), S(INT_POS, 7)], torch_name="remainder", grad=False,
           call=_op(lambda a, b: b % a), note="alias of remainder"),
    OpSpec("floordiv_operator", [S(X, POS_T), S(INT_POS, 4), S(INT_POS, -7)], torch_name="floor_divide", grad=False,
           call=_op(lambda a, b: (a // b, b // a)), note="alias of floor_divide"),
    OpSpec("inplace_operators", [S(INT, 3)], torch_name="bitwise_and", grad=False,
           call=_op(lambda a, b: _inplace_ops(a.clone(), b)), note="alias of bitwise_and"),
    _alias("xlogy", "xlogy", S(X, POS_T)),
]

for _n, _a in (("subtract", "sub"), ("multiply", "mul"), ("divide", "div"), ("true_divide", "div"),
               ("negative", "neg"), ("absolute", "abs")):
    SPECS.append(OpSpec(_n, [S(T((2, 3), low=0.5, high=2), T((2, 3), low=0.5, high=2))] if _a not in ("neg", "abs")
                        else [S(T((2, 3)))], method=True))

SPECS += [OpSpec(f"{_n}_int", [S(INT, INT_POS)], torch_name=_n, call=lambda lib, *a, _n=_n: getattr(lib, _n)(*a),
                 note=f"alias of {_n}", loose64=True)
          for _n in ("atan2", "xlogy", "copysign", "maximum", "fmin")]

for _n, _s in (("divide_", [S(T((2, 3)), T((2, 3), **POS)), S(T((2, 3)), 2.0)]),
               ("true_divide_", [S(T((2, 3)), T((3,), **POS))]),
               ("multiply_", [S(T((2, 3)), T((2, 3)))]),
               ("subtract_", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), T((3,)), alpha=2)]),
               ("negative_", [S(T((2, 3)))]),
               ("absolute_", [S(T((2, 3)))]),
               ("square_", [S(T((2, 3)))])):
    SPECS.append(OpSpec(_n, _s, call=_on_clone(_n), check_grad_fn=False))
