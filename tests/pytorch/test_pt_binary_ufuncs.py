"""Regressions from running PyTorch's test_binary_ufuncs.py / test_sort_and_select.py on retrograd.

Each case runs the same code on retrograd and on torch (the oracle) and compares values
(float16 bit-exact where PyTorch's kernels compute in float32), dtypes, grad_fn names,
exception types and messages.
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

LIBS = (rg, torch)


def _dt(lib, name):
    return getattr(lib, name)


def _outcome(f):
    """What ``f()`` gives: ("ok", result) or (exception type name, message)."""
    try:
        return "ok", f()
    except Exception as e:  # noqa: BLE001 (the comparison is the point)
        return type(e).__name__, str(e).split("\n")[0]


def _same_error(f_rg, f_t):
    a, b = _outcome(f_rg), _outcome(f_t)
    assert a[0] == b[0] != "ok", (a, b)
    assert a[1] == b[1]


def _vals(t):
    return t.detach().double().reshape(-1).tolist()


# ------------------------------------------------------------- Scalar arguments (alpha=, value=)
@pytest.mark.parametrize("call", [
    lambda L, y, v: y.addcmul(y, y, value=v),
    lambda L, y, v: L.addcdiv(y, y, y, value=v),
    lambda L, y, v: L.add(y, y, alpha=v),
    lambda L, y, v: L.sub(y, y, alpha=v),
    lambda L, y, v: y.clone().add_(y, alpha=v),
])
@pytest.mark.parametrize("kind", ["grad0d", "vec", "str", "none", "plain0d"])
def test_scalar_argument_binding(call, kind):
    def run(L):
        y = L.tensor([3.0])
        v = {"grad0d": L.tensor(2.0, requires_grad=True), "vec": L.tensor([2.0]), "str": "a",
             "none": None, "plain0d": L.tensor(2.0)}[kind]
        return _outcome(lambda: call(L, y, v))
    a, b = run(rg), run(torch)
    assert a[0] == b[0]
    if a[0] == "ok":
        assert _vals(a[1]) == _vals(b[1])
    else:
        assert a[1] == b[1]


@pytest.mark.parametrize("op", ["add", "sub"])
@pytest.mark.parametrize("alpha", [1.0, True])
def test_integral_alpha_checks(op, alpha):
    def f(L):
        m = L.tensor([1], dtype=L.int8)
        return lambda: getattr(L, op)(m, m, alpha=alpha)
    _same_error(f(rg), f(torch))


# ------------------------------------------------------------- float16 (*|/) scalar in float32
@pytest.mark.parametrize("s", [1e5, 1e-5, 70000.0, 0.1, 3])
@pytest.mark.parametrize("form", ["mul", "rmul", "div", "rdiv", "mul_", "div_", "t0", "lerp"])
def test_half_scalar_opmath(s, form):
    def run(L):
        x = L.tensor([1e-5, 100.0, 3.0, 60000.0, -0.3], dtype=L.float16)
        f = {"mul": lambda: x * s, "rmul": lambda: s * x, "div": lambda: x / s, "rdiv": lambda: s / x,
             "mul_": lambda: x.clone().mul_(s), "div_": lambda: x.clone().div_(s),
             "t0": lambda: L.mul(x, L.tensor(float(s))), "lerp": lambda: L.lerp(x, x * 2, s)}[form]
        r = f()
        return str(r.dtype).split(".")[-1], r.float().tolist()
    assert run(rg) == run(torch)


def test_half_scalar_grad():
    def run(L):
        x = L.tensor([1e-5, 3.0], dtype=L.float16, requires_grad=True)
        y = x * 1e5
        z = x / 1e-5
        (y.float().sum() + z.float().sum()).backward()
        return type(y.grad_fn).__name__, type(z.grad_fn).__name__, y.float().tolist(), x.grad.float().tolist()
    assert run(rg) == run(torch)


def test_half_lerp_tensor_weight():
    def run(L):
        x = L.full((4,), -30000.0, dtype=L.float16)
        y = L.full((4,), -20000.0, dtype=L.float16)
        return L.lerp(x, y, L.full((4,), 8.0, dtype=L.float16)).float().tolist()
    assert run(rg) == run(torch)


# ------------------------------------------------------------- out= overlapping an input
_PARTIAL = [
    ("add", lambda L, x: L.add(x[:5], x[5:], out=x[1:6])),
    ("mul", lambda L, x: L.mul(x[:5], 2.0, out=x[1:6])),
    ("div", lambda L, x: L.div(x[5:], x[:5], out=x[1:6])),
    ("pow", lambda L, x: L.pow(x[:5], 2, out=x[1:6])),
    ("rpow", lambda L, x: L.pow(2, x[:5], out=x[1:6])),
    ("atan2", lambda L, x: L.atan2(x[:5], x[5:], out=x[1:6])),
    ("hypot", lambda L, x: L.hypot(x[:5], x[5:], out=x[1:6])),
    ("fmod", lambda L, x: L.fmod(x[:5], 2.0, out=x[1:6])),
    ("remainder", lambda L, x: L.remainder(x[:5], 2.0, out=x[1:6])),
    ("lt", lambda L, x: L.lt(x[:5], x[5:], out=x[1:6])),
    ("exp", lambda L, x: L.exp(x[:5], out=x[1:6])),
    ("clamp", lambda L, x: L.clamp(x[:5], 0, out=x[1:6])),
    ("where", lambda L, x: L.where(x[:5] > 0, x[:5], x[5:], out=x[1:6])),
    ("nextafter", lambda L, x: L.nextafter(x[:5], x[5:], out=x[1:6])),
    ("igamma", lambda L, x: L.igamma(x[:5], x[5:], out=x[1:6])),
    ("square", lambda L, x: L.square(x[:5], out=x[1:6])),
    ("sort", lambda L, x: L.sort(x[:5], out=(x[1:6], L.empty(5, dtype=L.long)))),
    # kernels using assert_no_overlap refuse ``out`` even when it is the input itself
    ("kthvalue", lambda L, x: L.kthvalue(x, 5, out=(x, L.empty((), dtype=L.long)))),
    ("gather", lambda L, x: L.gather(x, 0, L.arange(10), out=x)),
    ("index_select", lambda L, x: L.index_select(x, 0, L.arange(10), out=x)),
    ("take", lambda L, x: L.take(x, L.arange(10), out=x)),
]


@pytest.mark.parametrize("name,call", _PARTIAL, ids=[n for n, _ in _PARTIAL])
def test_out_overlapping_input_refused(name, call):
    _same_error(lambda: call(rg, rg.randn(10)), lambda: call(torch, torch.randn(10)))


@pytest.mark.parametrize("call", [
    lambda L, x: L.add(x[:5], x[5:], out=x[:5]),        # out is exactly an input: fine
    lambda L, x: L.logical_xor(x[:5] > 0, x[5:] > 0, out=L.empty(5, dtype=L.bool)),
    lambda L, x: L.sort(x, out=(x, L.empty(10, dtype=L.long))),
    lambda L, x: L.mul(x[::2], 2.0, out=x[1::2]),        # non-dense: PyTorch does not judge it
])
def test_out_overlap_allowed(call):
    def run(L):
        L.manual_seed(0)
        x = L.arange(10, dtype=L.float64) - 4.5
        call(L, x)
        return x.tolist()
    assert run(rg) == run(torch)


def test_inplace_on_expanded_igamma():
    def f(L):
        t = L.rand(1, dtype=L.float64).expand(3, 3)
        return lambda: t.igamma_(L.rand(3, 3, dtype=L.float64))
    _same_error(f(rg), f(torch))


# ------------------------------------------------------------- bool is not an int dim
@pytest.mark.parametrize("call", [
    lambda x: x.topk(2, True), lambda x: x.topk(2, dim=True), lambda x: x.sort(True), lambda x: x.sum(True),
    lambda x: x.softmax(True), lambda x: x.cumsum(True), lambda x: x.kthvalue(1, True), lambda x: x.argmax(True),
])
def test_bool_dim_is_type_error(call):
    assert _outcome(lambda: call(rg.randn(3, 4)))[0] == _outcome(lambda: call(torch.randn(3, 4)))[0] == "TypeError"


# ------------------------------------------------------------- operators with foreign operands
_DUNDERS = [f"__{p}{op}__" for op in ("add", "sub", "mul", "truediv", "floordiv", "mod", "pow", "lshift",
                                      "rshift", "and", "or", "xor") for p in ("", "r", "i")]


@pytest.mark.parametrize("name", _DUNDERS)
def test_binary_dunder_not_implemented(name):
    class Unknown:
        pass
    a = getattr(rg.empty((), dtype=rg.int64), name)(Unknown())
    b = getattr(torch.empty((), dtype=torch.int64), name)(Unknown())
    assert a is b is NotImplemented


def test_reflected_operand_and_errors():
    class R:
        def __radd__(self, other):
            return "radd"

        def __rmul__(self, other):
            return "rmul"

    for L in LIBS:
        x = L.ones(2)
        assert (x + R(), x * R()) == ("radd", "rmul")
    _same_error(lambda: rg.ones(2) + [1, 2], lambda: torch.ones(2) + [1, 2])
    _same_error(lambda: rg.ones(2) - None, lambda: torch.ones(2) - None)


# ------------------------------------------------------------- in-place promotion, new methods, dtypes
@pytest.mark.parametrize("other", ["float16", "int8", "uint8", "float64"])
def test_xlogy_inplace_computes_in_promoted_dtype(other):
    def run(L):
        x = L.tensor([3.5, 700.25, 12.0])
        y = L.tensor([2, 100, 7], dtype=_dt(L, other))
        return x.clone().xlogy_(y).tolist(), L.xlogy(x, y).tolist()
    assert run(rg) == run(torch)


@pytest.mark.parametrize("name", ["igamma_", "igammac_"])
def test_igamma_inplace_methods(name):
    def run(L):
        x = L.tensor([1.0, 2.0, 0.5], dtype=L.float64)
        r = getattr(x, name)(L.tensor([0.5, 3.0, 1.0], dtype=L.float64))
        bad = _outcome(lambda: getattr(L.tensor([1, 2]), name)(L.tensor([1.0, 2.0])))
        return r is x, np.round(x.tolist(), 12).tolist(), bad
    assert run(rg) == run(torch)
    assert not hasattr(rg, "igamma_")


@pytest.mark.parametrize("a,b", [("float16", "int64"), ("int32", "float16"), ("int64", "int64"),
                                 ("float16", "float32"), ("bool", "int64"), ("float64", "int8")])
def test_ldexp_result_dtype(a, b):
    def run(L):
        r = L.ldexp(L.tensor([1.5, -2.0]).to(_dt(L, a)), L.tensor([3, -1]).to(_dt(L, b)))
        return str(r.dtype).split(".")[-1], r.tolist()
    assert run(rg) == run(torch)
