"""Pointwise ops on special values (NaN of both signs, +-inf, +-0, tiny, huge, negatives) against
PyTorch: forward values bit-for-bit where torch is exact (NaN positions, inf, the sign of zeros),
result dtypes, first-order gradients (NaN vs 0 vs inf, with a gradient of ones and a random one)
and grad_fn names.

Left out on purpose (PyTorch's own results depend on its SIMD path, i.e. on the tensor's
length, not on the values): fmod / remainder by a subnormal divisor and log1p of a subnormal
(NaN / 0 in the vectorized kernels only), logit's gradient at NaN and -0 in float64 vectors,
and logaddexp2's last-ulp rounding (PyTorch uses an FMA).
"""
from __future__ import annotations

import math

import numpy as np
import pytest

import retrograd as R

torch = pytest.importorskip("torch")

from parity import TORCH_RUNS_VECTOR_KERNELS  # noqa: E402

DTYPES = [np.float32, np.float64]


def _special(dt, subnormal: bool = True) -> np.ndarray:
    fi = np.finfo(dt)
    with np.errstate(invalid="ignore"):
        neg_nan = np.array(0.0, dt) * np.array(-np.inf, dt)  # NaN with the sign bit set (x86)
    v = [np.nan, 0.0, np.inf, -np.inf, 0.0, -0.0, float(fi.tiny), float(fi.max), -float(fi.max),
         -2.5, -2.0, -1.0, -0.5, 0.5, 1.0, 2.0, 3.7, 1e4]
    if subnormal:
        v += [float(fi.smallest_subnormal), -float(fi.smallest_subnormal)]
    a = np.array(v, dt)
    a[1] = neg_nan
    return a


def _grid(dt):
    v = np.array([np.nan, np.inf, -np.inf, 0.0, -0.0, -1.0, -2.5, 0.5, 1.0, 2.0, 1e30], dt)
    a, b = np.meshgrid(v, v, indexing="ij")
    return a.ravel().copy(), b.ravel().copy()


def _assert_same(r, t, what: str) -> None:
    """Equal NaN positions, infinities and zero signs; finite values to a few ulps."""
    rv = np.asarray(r)
    tv = np.asarray(t)
    assert rv.shape == tv.shape, what
    if tv.dtype.kind != "f":
        np.testing.assert_array_equal(rv, tv, err_msg=what)
        return
    np.testing.assert_array_equal(np.isnan(rv), np.isnan(tv), err_msg=what + " (NaN positions)")
    ok = ~np.isnan(tv)
    np.testing.assert_array_equal(np.isinf(rv[ok]), np.isinf(tv[ok]), err_msg=what + " (inf positions)")
    inf = ok & np.isinf(tv)
    np.testing.assert_array_equal(rv[inf], tv[inf], err_msg=what + " (inf signs)")
    zero = ok & (tv == 0)
    np.testing.assert_array_equal(rv[zero], tv[zero], err_msg=what + " (zeros)")
    np.testing.assert_array_equal(np.signbit(rv[zero]), np.signbit(tv[zero]), err_msg=what + " (sign of zeros)")
    fin = ok & np.isfinite(tv) & (tv != 0)
    rtol = {np.dtype(np.float16): 2e-4, np.dtype(np.float32): 1e-5}.get(tv.dtype, 1e-9)
    np.testing.assert_allclose(rv[fin], tv[fin], rtol=rtol, atol=0, err_msg=what)


def _compare(fr, ft, arrays, grads: bool = True) -> None:
    """Run fr on retrograd tensors and ft on torch tensors; compare outputs, node names, grads."""
    rin = [R.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    tin = [torch.tensor(a, requires_grad=grads and a.dtype.kind == "f") for a in arrays]
    ro, to = fr(*rin), ft(*tin)
    assert str(ro.dtype).split(".")[-1] == str(to.dtype).split(".")[-1]
    _assert_same(ro.detach().numpy(), to.detach().numpy(), "forward")
    rname = None if ro.grad_fn is None else type(ro.grad_fn).__name__
    tname = None if to.grad_fn is None else type(to.grad_fn).__name__
    assert rname == tname
    if tname is None:
        return
    rng = np.random.default_rng(0)
    shape = tuple(to.shape)
    for gv in (np.ones(shape), rng.standard_normal(shape)):
        gv = gv.astype(to.detach().numpy().dtype)
        try:
            tg = torch.autograd.grad(to, tin, torch.tensor(gv), retain_graph=True, allow_unused=True)
        except RuntimeError as e:  # derivative not implemented (floor_divide, Number % Tensor)
            with pytest.raises(RuntimeError) as info:
                R.autograd.grad(ro, rin, R.tensor(gv), retain_graph=True, allow_unused=True)
            assert str(info.value) == str(e)
            continue
        rg = R.autograd.grad(ro, rin, R.tensor(gv), retain_graph=True, allow_unused=True)
        for i, (x, y) in enumerate(zip(rg, tg)):
            assert (x is None) == (y is None)
            if x is not None:
                _assert_same(x.numpy(), y.numpy(force=True), f"grad of input {i}")


# ---------------------------------------------------------------- unary
UNARY = ["abs", "neg", "exp", "expm1", "exp2", "log", "log2", "log10", "sqrt", "rsqrt", "sin", "cos", "tan",
         "asin", "acos", "atan", "sinh", "cosh", "tanh", "asinh", "acosh", "atanh", "sigmoid", "sign", "sgn",
         "floor", "ceil", "round", "trunc", "frac", "reciprocal", "erf", "erfc", "erfinv", "lgamma", "digamma",
         "relu", "square", "sinc", "deg2rad", "rad2deg", "nan_to_num", "isnan", "isinf", "isfinite",
         "isposinf", "isneginf", "logical_not", "signbit"]
# (log1p: PyTorch's vectorized kernel flushes subnormal input to 0; it is checked without them)
UNARY_NO_SUBNORMAL = ["log1p", "logit"]

WITH_ARGS = {
    "polygamma1": lambda M: lambda x: M.polygamma(1, x),  # digamma's derivative: float32 arithmetic
    "polygamma2": lambda M: lambda x: M.polygamma(2, x),
    "round_decimals": lambda M: lambda x: M.round(x, decimals=2),
    "nan_to_num_args": lambda M: lambda x: M.nan_to_num(x, nan=1.0, posinf=2.0, neginf=-3.0),
    "clamp_min_neg0": lambda M: lambda x: M.clamp(x, min=-0.0),
    "clamp_max_0": lambda M: lambda x: M.clamp(x, max=0.0),
    "clamp_both": lambda M: lambda x: M.clamp(x, -1.0, 2.0),
    "clamp_inverted": lambda M: lambda x: M.clamp(x, 2.0, -1.0),
    "clamp_nan_min": lambda M: lambda x: M.clamp(x, min=math.nan),
    "clamp_nan_max": lambda M: lambda x: M.clamp(x, 0.0, math.nan),
    "pow_0": lambda M: lambda x: M.pow(x, 0),
    "pow_0.5": lambda M: lambda x: M.pow(x, 0.5),
    "pow_-0.5": lambda M: lambda x: M.pow(x, -0.5),
    "pow_1.5": lambda M: lambda x: M.pow(x, 1.5),
    "pow_2": lambda M: lambda x: M.pow(x, 2),
    "pow_3": lambda M: lambda x: M.pow(x, 3),
    "pow_-1": lambda M: lambda x: M.pow(x, -1),
    "pow_-2": lambda M: lambda x: M.pow(x, -2),
    "pow_2.5": lambda M: lambda x: M.pow(x, 2.5),
    "rpow_2": lambda M: lambda x: M.pow(2.0, x),
    "rpow_0": lambda M: lambda x: M.pow(0.0, x),
    "rpow_1": lambda M: lambda x: M.pow(1.0, x),
    "rpow_-2": lambda M: lambda x: M.pow(-2.0, x),
    "logit_eps": lambda M: lambda x: M.logit(x, eps=0.1),
}


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", UNARY + UNARY_NO_SUBNORMAL)
def test_unary_special(name, dt):
    x = _special(dt, subnormal=name not in UNARY_NO_SUBNORMAL)
    if name == "logit" and (dt == np.float64 or not TORCH_RUNS_VECTOR_KERNELS):
        x = x[(x != 0) | ~np.signbit(x)]  # PyTorch's float64 SIMD kernel (and its DEFAULT ones) differ at -0
    _compare(getattr(R, name), getattr(torch, name), [x])


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(WITH_ARGS))
def test_unary_with_args_special(name, dt):
    x = _special(dt)
    if name == "logit_eps" and (dt == np.float64 or not TORCH_RUNS_VECTOR_KERNELS):
        x = x[~np.isnan(x)]  # at NaN PyTorch's gradient is 0 or NaN depending on its kernel build
    _compare(WITH_ARGS[name](R), WITH_ARGS[name](torch), [x])


# ---------------------------------------------------------------- binary
BINARY = ["add", "sub", "mul", "div", "pow", "atan2", "fmod", "remainder", "maximum", "minimum", "fmax", "fmin",
          "hypot", "copysign", "xlogy", "logaddexp", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
          "logical_or", "logical_xor", "floor_divide", "float_power", "isclose"]
BINARY_ARGS = {
    "div_trunc": lambda M: lambda a, b: M.div(a, b, rounding_mode="trunc"),
    "div_floor": lambda M: lambda a, b: M.div(a, b, rounding_mode="floor"),
    "add_alpha": lambda M: lambda a, b: M.add(a, b, alpha=2),
    "sub_alpha": lambda M: lambda a, b: M.sub(a, b, alpha=-0.5),
    "rsub": lambda M: lambda a, b: M.rsub(a, b),
    "clamp_tensor": lambda M: lambda a, b: M.clamp(a, b, b + 1),
    "clamp_tensor_min": lambda M: lambda a, b: M.clamp(a, min=b),
    "clamp_tensor_max": lambda M: lambda a, b: M.clamp(a, max=b),
    "where": lambda M: lambda a, b: M.where(a > b, a, b),
    "lerp": lambda M: lambda a, b: M.lerp(a, b, 0.3),
}


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", BINARY)
def test_binary_special(name, dt):
    _compare(getattr(R, name), getattr(torch, name), list(_grid(dt)))


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", list(BINARY_ARGS))
def test_binary_with_args_special(name, dt):
    _compare(BINARY_ARGS[name](R), BINARY_ARGS[name](torch), list(_grid(dt)))


SCALARS = [0.0, -0.0, 2.0, -1.5, math.inf, -math.inf, math.nan, 0, 2, -3]


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "fmod", "remainder", "copysign", "xlogy",
                                  "eq", "lt", "floor_divide", "rsub", "div_trunc", "div_floor"])
def test_tensor_scalar_special(name, dt):
    x = _special(dt, subnormal=name not in ("fmod", "remainder"))
    for s in SCALARS:
        if name.startswith("div_"):
            mode = name[4:]
            _compare(lambda t, s=s, m=mode: R.div(t, s, rounding_mode=m),
                     lambda t, s=s, m=mode: torch.div(t, s, rounding_mode=m), [x])
        else:
            _compare(lambda t, s=s: getattr(R, name)(t, s), lambda t, s=s: getattr(torch, name)(t, s), [x])


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "remainder", "xlogy"])
def test_scalar_tensor_special(name, dt):
    x = _special(dt, subnormal=name != "remainder")
    for s in [0.0, -0.0, 2.0, -1.5, math.inf, math.nan, 0, 2]:
        _compare(lambda t, s=s: getattr(R, name)(s, t), lambda t, s=s: getattr(torch, name)(s, t), [x])


# ---------------------------------------------------------------- integers and dtypes
IA = np.array([0, 1, -1, 7, -7, 2 ** 62, -2 ** 63 + 1, 3], np.int64)
IB = np.array([0, 2, -2, 3, -3, 1, -1, 0], np.int64)


def _same_error_or_result(fr, ft, *args) -> None:
    try:
        expected = ft(*[torch.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    except Exception as e:  # noqa: BLE001 - the oracle decides which error
        with pytest.raises(type(e)) as info:
            fr(*[R.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
        assert str(info.value) == str(e)
        return
    got = fr(*[R.tensor(a) if isinstance(a, np.ndarray) else a for a in args])
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    _assert_same(got.numpy(), expected.numpy(), "forward")


@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "fmod", "remainder", "floor_divide", "maximum",
                                  "minimum", "fmax", "fmin", "atan2", "copysign", "xlogy", "pow", "eq", "lt"])
@pytest.mark.parametrize("divisor", ["with_zero", "nonzero"])
def test_int64_binary(name, divisor):
    b = IB if divisor == "with_zero" else np.where(IB == 0, 5, IB)
    _same_error_or_result(getattr(R, name), getattr(torch, name), IA, b)
    _same_error_or_result(getattr(R, name), getattr(torch, name), IA.astype(np.float32), b)


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_int64_rounding_division(mode):
    for b in (IB, np.where(IB == 0, 5, IB), 0, 2, -3, 0.0, 2.5):
        _same_error_or_result(lambda x, y: R.div(x, y, rounding_mode=mode),
                              lambda x, y: torch.div(x, y, rounding_mode=mode), IA, b)


def test_integer_pow_negative_tensor_exponents():
    # integer tensor ** negative integer tensor: no error in PyTorch (1, +-1 or 0)
    base = np.array([0, 1, -1, 2, -2, 3], np.int64)
    exp = np.array([-1, -2, -3, -1, -3, 2], np.int64)
    _same_error_or_result(R.pow, torch.pow, base, exp)
    _same_error_or_result(R.pow, torch.pow, 2, exp.astype(np.int8))
    _same_error_or_result(R.pow, torch.pow, -1, exp)
    _same_error_or_result(R.pow, torch.pow, base, -1)  # (a Number exponent is refused)


@pytest.mark.parametrize("call", [
    lambda M, b, i: b - i, lambda M, b, i: i - b, lambda M, b, i: b - 1, lambda M, b, i: 1 - b,
    lambda M, b, i: b - b, lambda M, b, i: b - True, lambda M, b, i: i - True, lambda M, b, i: M.sub(b, 1.5),
    lambda M, b, i: M.rsub(b, 1), lambda M, b, i: i.float() - b,
    lambda M, b, i: b ** 2, lambda M, b, i: b ** True, lambda M, b, i: b ** 2.5, lambda M, b, i: b ** b,
    lambda M, b, i: b ** i, lambda M, b, i: i ** b, lambda M, b, i: 2 ** b, lambda M, b, i: True ** b,
    lambda M, b, i: M.clamp(b, True), lambda M, b, i: M.clamp(b, max=True), lambda M, b, i: M.clamp(b, True, True),
    lambda M, b, i: M.clamp(b, 0), lambda M, b, i: M.clamp(b, False, 1), lambda M, b, i: M.abs(b),
    lambda M, b, i: M.relu(b), lambda M, b, i: b.clone().abs_(), lambda M, b, i: b.clone().relu_()])
def test_bool_operands(call):
    rb, ri = R.tensor([True, False]), R.tensor([1, 2])
    tb, ti = torch.tensor([True, False]), torch.tensor([1, 2])
    try:
        expected = call(torch, tb, ti)
    except Exception as e:  # noqa: BLE001
        with pytest.raises(type(e)) as info:
            call(R, rb, ri)
        assert str(info.value) == str(e)
        return
    got = call(R, rb, ri)
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.numpy(), expected.numpy())


@pytest.mark.parametrize("name", ["sigmoid", "sinc", "tanh"])
def test_half_precision_rounds_once(name):
    # PyTorch computes float16 in float32 and rounds once (sinc(-1.) is -0., not 3e-4; tanh's
    # and sigmoid's backward 1 - y*y and (1 - y) y too)
    x = np.array([-1.0, 0.0, -0.0, 2.5, -2.0, 2.0, -3.0, 0.25, np.inf, np.nan], np.float16)
    if name != "tanh":  # (their half backward differs by an ulp: sinc's has Python-number constants)
        _assert_same(getattr(R, name)(R.tensor(x)).numpy(), getattr(torch, name)(torch.tensor(x)).numpy(), name)
    else:
        _compare(getattr(R, name), getattr(torch, name), [x])


def test_lgamma_tiny_negative():
    x = np.array([-5e-324, -1e-300, -1e-12, -1e-9], np.float64)
    _assert_same(R.lgamma(R.tensor(x)).numpy(), torch.lgamma(torch.tensor(x)).numpy(), "lgamma")


# ---------------------------------------------------------------- the changed rules stay twice differentiable
SECOND = {
    "pow": lambda M: lambda a, b: M.pow(a.abs() + 0.1, b),
    "pow_scalar": lambda M: lambda a, b: M.pow(a, 3) * b,
    "pow_sqrt": lambda M: lambda a, b: M.pow(a.abs() + 0.1, 0.5) * b,
    "rpow": lambda M: lambda a, b: M.pow(2.0, a) * b,
    "rpow0": lambda M: lambda a, b: M.pow(0.0, a) * b,
    "atan2": lambda M: M.atan2,
    "xlogy": lambda M: lambda a, b: M.xlogy(a, b.abs() + 0.1),
    "xlogy_scalar": lambda M: lambda a, b: M.xlogy(a, 2.0) * b,
    "sinc": lambda M: lambda a, b: M.sinc(a) * b,
    "where": lambda M: lambda a, b: M.where(a > 0, a * b, b * b),
    "clamp": lambda M: lambda a, b: M.clamp(a * b, -0.5, 0.5),
    "relu": lambda M: lambda a, b: M.relu(a) * b,
    "div": lambda M: lambda a, b: M.div(a, b + 3),
    "logit_eps": lambda M: lambda a, b: M.logit(a.abs() / 3, eps=0.1) * b,
    "logit": lambda M: lambda a, b: M.logit(a.abs() / 3) * b,
    "sign": lambda M: lambda a, b: M.sign(a) * b * a,
    "fmax": lambda M: lambda a, b: M.fmax(a, b) * a,
    "digamma": lambda M: lambda a, b: M.digamma(a.abs() + 0.5) * b,
}


@pytest.mark.parametrize("name", list(SECOND))
def test_second_derivative(name):
    a0 = np.array([0.5, 1.5, -0.7, 2.0, 0.0, 0.3])
    b0 = np.array([1.2, -0.4, 0.0, 3.0, 2.0, -0.0])
    res = []
    for M in (R, torch):
        a, b = M.tensor(a0, requires_grad=True), M.tensor(b0, requires_grad=True)
        ga, gb = M.autograd.grad(SECOND[name](M)(a, b).sum(), (a, b), create_graph=True)
        h = M.autograd.grad((ga * ga).sum() + (gb * gb.sin()).sum(), (a, b), allow_unused=True)
        res.append([x.detach().numpy() for x in (ga, gb, *h)])
    for x, y in zip(*res):
        np.testing.assert_allclose(x, y, rtol=1e-7, atol=1e-12, equal_nan=True)


@pytest.mark.parametrize("exponent", [0, 0.5, -0.5, 2, 3, -1, -2, 2.5, 1.7, -0.3])
def test_half_pow_scalar(exponent):
    # half keeps C's pow (PyTorch's sqrt / rsqrt shortcuts are for float and double only)
    x = np.array([np.nan, np.inf, -np.inf, 0, -0.0, -2.5, -1, 0.3, 1.3, 3.3, 7.7, 11.1, 6e4, 1e-4], np.float16)
    _assert_same(R.pow(R.tensor(x), exponent).numpy(), torch.pow(torch.tensor(x), exponent).numpy(), "pow")


def test_clamp_integer_bounds_convert_like_torch():
    # integer bounds are converted to the result dtype first: -2 wraps to 254 for uint8, 300 overflows
    def run(T):
        out = []
        for args, kw in [((-2,), {}), ((300,), {}), ((1, 200), {}), ((), {"max": -1}), ((2.5,), {})]:
            x = T.tensor([0, 5, 250], dtype=T.uint8)
            try:
                y = T.clamp(x, *args, **kw)
                out.append((y.tolist(), str(y.dtype).split(".")[-1]))
            except RuntimeError as e:
                out.append(("RuntimeError", str(e)))
        out.append(T.clamp(T.tensor([0, 5, -7]), -3, 4).tolist())
        return out

    assert run(R) == run(torch)
