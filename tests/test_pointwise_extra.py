"""Elementwise ops beyond the test table: ties, edge values (0, NaN, inf, poles), integer
results, rounding division, PyTorch's errors, special-function accuracy, operators."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

NAN, INF = float("nan"), float("inf")


def _pair(values, dtype="float64", grad=False):
    a = np.array(values, dtype=dtype)
    r = retrograd.tensor(a.copy())
    t = torch.tensor(a.copy())
    if grad:
        r.requires_grad_()
        t.requires_grad_()
    return r, t


def _same(ours, theirs, rtol=1e-12, atol=0.0):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _grads(fn_name, values_list, *extra, **kw):
    """Grads of sum(op(*inputs)) in both libraries, for inputs given as value lists."""
    pairs = [_pair(v, grad=True) for v in values_list]
    ours = getattr(retrograd, fn_name)(*[p[0] for p in pairs], *extra, **kw)
    theirs = getattr(torch, fn_name)(*[p[1] for p in pairs], *extra, **kw)
    ours.sum().backward()
    theirs.sum().backward()
    return [(p[0].grad, p[1].grad) for p in pairs]


def _raises_like(call, exc_type=None):
    """Both libraries raise the same exception type with the same message (for PyTorch's
    'invalid combination of arguments' listings: the same first line)."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(exc_type or type(theirs.value)) as ours:
        call(retrograd)
    if "invalid combination of arguments" in str(theirs.value):
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]
    else:
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- ties and NaN in max/min
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_ties_and_nan_route_gradients_like_torch(name):
    a = [1.0, 2.0, NAN, 1.0, NAN, -3.0]
    b = [1.0, 1.0, 1.0, NAN, NAN, -3.0]
    for ours, theirs in _grads(name, [a, b]):
        _same(ours, theirs)


def test_maximum_tie_splits_gradient_in_half():
    x = retrograd.tensor([2.0, 2.0], requires_grad=True)
    y = retrograd.tensor([2.0, 1.0], requires_grad=True)
    retrograd.maximum(x, y).sum().backward()
    assert x.grad.tolist() == [0.5, 1.0]
    assert y.grad.tolist() == [0.5, 0.0]


def test_clamp_tensor_bounds_ties_nan_and_crossed_bounds():
    x = [-1.0, 0.5, 2.0, NAN, 0.3, 0.5, 0.8, 0.2, 3.0]
    lo = [0.0, 0.0, 0.0, 0.0, NAN, 0.5, 0.5, 0.5, 0.8]
    hi = [1.0, 0.2, 1.0, 1.0, 1.0, 0.8, 0.8, 0.8, 0.2]  # last: min > max gives max
    pairs = [_pair(v, grad=True) for v in (x, lo, hi)]
    ours = retrograd.clamp(*[p[0] for p in pairs])
    theirs = torch.clamp(*[p[1] for p in pairs])
    _same(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "ClampBackward0"
    ours.sum().backward()
    theirs.sum().backward()
    for r, t in pairs:
        _same(r.grad, t.grad)


def test_clamp_one_tensor_bound_and_mixed_bounds():
    for kw in ({"min": [0.5, 0.8, 0.9]}, {"max": [0.5, 0.8, 0.9]}):
        (k, v), = kw.items()
        x = _pair([0.5, 0.8, 1.0], grad=True)
        b = _pair(v, grad=True)
        ours, theirs = retrograd.clamp(x[0], **{k: b[0]}), torch.clamp(x[1], **{k: b[1]})
        ours.sum().backward()
        theirs.sum().backward()
        _same(x[0].grad, x[1].grad)
        _same(b[0].grad, b[1].grad)
    _raises_like(lambda lib: lib.clamp(lib.tensor([1.0]), lib.tensor([0.0]), 1.0), TypeError)


# ---------------------------------------------------------------- rounding division
@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounding_div_integers_stay_integers(mode):
    for a, b in (([7, -7, 6, -6, 0], [2, 2, -4, -4, 3]), ([7, -7], 2), ([7, -7], 2.5)):
        r, t = _pair(a, "int64")
        if isinstance(b, list):
            rb, tb = _pair(b, "int64")
        else:
            rb, tb = b, b
        _same(retrograd.div(r, rb, rounding_mode=mode), torch.div(t, tb, rounding_mode=mode))
    for dt in ("int32", "int8", "uint8"):
        r, t = _pair([7, 9, 100], dt)
        _same(retrograd.div(r, 3, rounding_mode=mode), torch.div(t, 3, rounding_mode=mode))


@pytest.mark.parametrize("mode", ["trunc", "floor"])
def test_rounding_div_float_edges_grads_and_errors(mode):
    a = [-0.5, 0.5, 1.0, -1.0, 5.0, 0.0, INF, NAN, 7.5]
    b = [2.0, -2.0, INF, INF, 0.0, 0.0, 3.0, 1.0, -2.0]
    (ra, ta), (rb, tb) = _pair(a, grad=True), _pair(b, grad=True)
    ours, theirs = retrograd.div(ra, rb, rounding_mode=mode), torch.div(ta, tb, rounding_mode=mode)
    _same(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "DivBackward2"
    ours.sum().backward()
    assert ra.grad.tolist() == [0.0] * len(a) and rb.grad.tolist() == [0.0] * len(b)
    _raises_like(lambda lib: lib.div(lib.tensor([7, 1]), lib.tensor([0, 1]), rounding_mode=mode), RuntimeError)
    _raises_like(lambda lib: lib.div(lib.tensor([True]), lib.tensor([True]), rounding_mode=mode), NotImplementedError)
    x = retrograd.tensor([7.0, -7.0])
    assert x.div_(2, rounding_mode=mode) is x
    assert x.tolist() == torch.tensor([7.0, -7.0]).div_(2, rounding_mode=mode).tolist()


def test_rounding_div_rejects_unknown_mode():
    _raises_like(lambda lib: lib.div(lib.tensor([1.0]), 2.0, rounding_mode="round"), RuntimeError)


def test_floor_divide_remainder_fmod_edges():
    a = [-3.0, 3.0, -0.0, 5.0, INF, -INF, 1.0, -1.0, NAN, 7.5]
    b = [2.0, -2.0, 2.0, 0.0, 3.0, 2.0, INF, INF, 1.0, -0.5]
    for name in ("floor_divide", "remainder", "fmod"):
        (ra, ta), (rb, tb) = _pair(a), _pair(b)
        _same(getattr(retrograd, name)(ra, rb), getattr(torch, name)(ta, tb))
        _same(getattr(retrograd, name)(ra, 0.0), getattr(torch, name)(ta, 0.0))
        _raises_like(lambda lib: getattr(lib, name)(lib.tensor([7, -7]), 0), RuntimeError)
        _raises_like(lambda lib: getattr(lib, name)(lib.tensor([7, -7]), lib.tensor(0)), RuntimeError)
        _raises_like(lambda lib: getattr(lib, name)(lib.tensor([True]), lib.tensor([True])), NotImplementedError)


def test_nondifferentiable_binary_forms_raise_in_backward_like_torch():
    for call in (lambda lib, x: lib.floor_divide(x, 2.0), lambda lib, x: lib.floor_divide(2.0, x),
                 lambda lib, x: 5.0 // x, lambda lib, x: lib.remainder(2.0, x), lambda lib, x: 3.0 % x):
        r, t = _pair([1.5, 2.5], grad=True)
        out_r, out_t = call(retrograd, r), call(torch, t)
        assert type(out_r.grad_fn).__name__ == type(out_t.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError) as theirs:
            out_t.sum().backward()
        with pytest.raises(RuntimeError) as ours:
            out_r.sum().backward()
        assert str(ours.value) == str(theirs.value)


def test_remainder_fmod_grad_fn_names():
    r, t = _pair([1.5, -2.5], grad=True)
    for name, other in (("remainder", 2.0), ("remainder", [0.7, 0.9]), ("fmod", 2.0), ("fmod", [0.7, 0.9]),
                        ("xlogy", 2.0), ("copysign", -1.0)):
        o_r = retrograd.tensor(other, dtype=retrograd.float64) if isinstance(other, list) else other
        o_t = torch.tensor(other, dtype=torch.float64) if isinstance(other, list) else other
        assert type(getattr(retrograd, name)(r, o_r).grad_fn).__name__ == \
            type(getattr(torch, name)(t, o_t).grad_fn).__name__


# ---------------------------------------------------------------- integer and bool dtypes
@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "int8", "uint8"])
def test_rounding_ops_keep_integer_dtypes(dtype):
    r, t = _pair([1, 2, 7], dtype)
    for name in ("floor", "ceil", "round", "trunc", "fix", "sgn", "sign", "nan_to_num", "positive"):
        ours = getattr(retrograd, name)(r)
        _same(ours, getattr(torch, name)(t))
        if name != "positive":
            assert ours is not r
    for name in ("exp2", "log1p", "erf", "lgamma", "sinc", "deg2rad", "logit", "rsqrt"):
        _same(getattr(retrograd, name)(r), getattr(torch, name)(t), rtol=1e-6)


def test_refused_dtypes_match_torch():
    cases = [
        lambda lib: lib.floor(lib.tensor([True])),
        lambda lib: lib.round(lib.tensor([True])),
        lambda lib: lib.round(lib.tensor([1, 2]), decimals=0),
        lambda lib: lib.round(lib.tensor([1, 2]), decimals=1),
        lambda lib: lib.frac(lib.tensor([1, 2])),
        lambda lib: lib.frac(lib.tensor([1], dtype=lib.int8)),
        lambda lib: lib.hypot(lib.tensor([3]), lib.tensor([4])),
        lambda lib: lib.logaddexp(lib.tensor([3]), lib.tensor([4])),
        lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), 0.5),
        lambda lib: lib.lerp(lib.tensor([1, 2]), lib.tensor([3, 4]), lib.tensor([1, 1])),
        lambda lib: lib.addcmul(lib.tensor([True]), lib.tensor([True]), lib.tensor([True])),
        lambda lib: lib.bitwise_and(lib.tensor([1.0]), 3),
        lambda lib: lib.bitwise_or(lib.tensor([1]), lib.tensor([1.0])),
        lambda lib: lib.bitwise_not(lib.tensor([1.0])),
        lambda lib: lib.tensor([1.0]) << 2,
        lambda lib: lib.tensor([True]) >> lib.tensor([True]),
        lambda lib: lib.tensor([1.0]).bitwise_xor_(lib.tensor([1])),
    ]
    for call in cases:
        _raises_like(call, NotImplementedError)
    _raises_like(lambda lib: lib.tensor([1]).exp2_(), RuntimeError)
    _raises_like(lambda lib: lib.tensor([1]).atan2_(lib.tensor([1])), RuntimeError)
    _raises_like(lambda lib: ~lib.tensor([1.0]), TypeError)
    _raises_like(lambda lib: lib.positive(lib.tensor([True])), RuntimeError)


def test_type_promotion_results():
    i, f32 = retrograd.tensor([3, -4]), retrograd.tensor([1.5, 2.0])
    f64 = retrograd.tensor([1.5, 2.0], dtype=retrograd.float64)
    ti, tf32, tf64 = torch.tensor([3, -4]), torch.tensor([1.5, 2.0]), torch.tensor([1.5, 2.0], dtype=torch.float64)
    for name in ("remainder", "fmod", "floor_divide", "xlogy", "copysign", "float_power"):
        f, g = getattr(retrograd, name), getattr(torch, name)
        for (a, b), (c, d) in (((i, 2.5), (ti, 2.5)), ((i, i), (ti, ti)), ((f32, f64), (tf32, tf64)),
                               ((f32, f64[0]), (tf32, tf64[0])), ((i, f32), (ti, tf32))):
            _same(f(a, b), g(c, d), rtol=1e-6)
    for name in ("atan2", "maximum", "fmin", "hypot", "logaddexp"):
        f, g = getattr(retrograd, name), getattr(torch, name)
        _same(f(f32, f64), g(tf32, tf64))
        _same(f(i, f64[0]), g(ti, tf64[0]), rtol=1e-6)
    _same(retrograd.addcmul(i, i, f64), torch.addcmul(ti, ti, tf64))
    _same(retrograd.addcmul(i, i, i, value=2.5), torch.addcmul(ti, ti, ti, value=2.5))
    _same(retrograd.lerp(f32, f32, f64[0]), torch.lerp(tf32, tf32, tf64[0]))


# ---------------------------------------------------------------- argument errors
def test_argument_errors_match_torch():
    t = lambda lib, v=(1.0, 2.0): lib.tensor(list(v))  # noqa: E731
    type_errors = [
        lambda lib: lib.atan2(t(lib), 2.0), lambda lib: lib.maximum(2.0, t(lib)),
        lambda lib: lib.hypot(t(lib), [1.0, 2.0]), lambda lib: lib.exp2(2.0), lambda lib: lib.isnan(1.0),
        lambda lib: lib.fmod(2.0, t(lib)), lambda lib: lib.copysign(2.0, t(lib)), lambda lib: lib.xlogy(2.0, 3.0),
        lambda lib: lib.remainder(2.0, 3.0), lambda lib: lib.float_power(2.0, 3.0),
        lambda lib: lib.lerp(t(lib), 3.0, 0.5), lambda lib: lib.addcmul(t(lib), 2.0, t(lib)),
        lambda lib: lib.isclose(t(lib), 1.0), lambda lib: lib.equal(t(lib), 1),
        lambda lib: lib.logical_and(t(lib), 1), lambda lib: lib.where(t(lib) > 0, t(lib)),
        lambda lib: lib.where(True, t(lib), 0.0),
    ]
    for call in type_errors:
        _raises_like(call, TypeError)
    runtime_errors = [
        lambda lib: lib.lerp(t(lib), t(lib).double(), 0.5),
        lambda lib: lib.lerp(t(lib), lib.tensor([3, 4]), 0.5),
        lambda lib: lib.lerp(t(lib), t(lib), lib.tensor([0.5], dtype=lib.float64)),
        lambda lib: t(lib).lerp_(lib.tensor([[3.0, 4.0]]), 0.5),
        lambda lib: lib.addcdiv(t(lib), lib.tensor([3, 4]), lib.tensor([3, 4])),
        lambda lib: lib.isclose(t(lib), t(lib).double()),
        lambda lib: lib.allclose(t(lib), lib.tensor([1, 2])),
        lambda lib: lib.isclose(t(lib), t(lib), rtol=-1),
        lambda lib: lib.isclose(t(lib), t(lib), atol=-0.5),
        lambda lib: lib.polygamma(-1, t(lib)),
        lambda lib: t(lib).float_power_(2),
        lambda lib: lib.where(lib.tensor([1, 0]), 1.0, 0.0),
        lambda lib: lib.where(lib.tensor([1.0, 0.0]), 1.0, 0.0),
    ]
    for call in runtime_errors:
        _raises_like(call, RuntimeError)


# ---------------------------------------------------------------- edge values and special functions
EDGES = [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, 0.5, -0.5, -2.5, 1e-300, 1e-8, 30.0, 1e10, INF, -INF, NAN]


@pytest.mark.parametrize("name", ["erf", "erfc", "lgamma", "digamma", "sinc", "expm1", "log1p", "rsqrt", "exp2",
                                  "log2", "log10", "asin", "acos", "atanh", "acosh", "frac", "logit", "sgn", "sign",
                                  "round", "nan_to_num", "deg2rad"])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_edge_values_match_torch(name, dtype):
    r, t = _pair(EDGES, dtype)
    rtol = 1e-12 if dtype == "float64" else 2e-6
    _same(getattr(retrograd, name)(r), getattr(torch, name)(t), rtol=rtol)


def test_erfinv_edges_and_accuracy():
    y = np.concatenate([[-1.0, 1.0, 1.5, -1.5, 0.0, -0.0, NAN, 1 - 1e-16, 1 - 1e-12, -1 + 1e-12, 1e-300],
                        np.random.default_rng(0).uniform(-1, 1, 2000)])
    _same(retrograd.erfinv(retrograd.tensor(y)), torch.erfinv(torch.tensor(y)), rtol=1e-13)


@pytest.mark.parametrize("name", ["erf", "erfc", "lgamma", "digamma"])
def test_special_functions_accurate_over_wide_ranges(name):
    rng = np.random.default_rng(1)
    x = np.concatenate([rng.uniform(-6, 6, 3000), rng.uniform(-60, 60, 500), np.exp(rng.uniform(-20, 20, 500))])
    ours = getattr(retrograd, name)(retrograd.tensor(x)).numpy()
    theirs = getattr(torch, name)(torch.tensor(x)).numpy()
    # lgamma has zeros at 1 and 2, where only absolute accuracy is meaningful
    np.testing.assert_allclose(ours, theirs, rtol=1e-12 if name != "erfc" else 1e-11, atol=1e-13)


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_values_and_poles(n):
    x = np.array(EDGES[:-3] + [-3.7, 4.2, 100.0, NAN, INF])
    r, t = _pair(x)
    np.testing.assert_allclose(retrograd.polygamma(n, r).numpy(), torch.polygamma(n, t).numpy(), rtol=1e-11,
                               equal_nan=True)


def test_polygamma_method_and_inplace():
    r, t = _pair([0.5, 2.0], grad=True)
    _same(r.polygamma(2), t.polygamma(2))
    ro, to = r * 1, t * 1
    ro.polygamma_(1), to.polygamma_(1)
    assert type(ro.grad_fn).__name__ == type(to.grad_fn).__name__ == "PolygammaBackward1"
    ro.sum().backward()
    to.sum().backward()
    _same(r.grad, t.grad)


def test_round_decimals_values_and_halves():
    x = [0.125, 2.675, 0.375, 1.005, -2.5, 2.5, 1234.5678, 15.0, 25.0, NAN, INF]
    for dtype in ("float32", "float64", "float16"):
        r, t = _pair(x, dtype)
        for d in (-2, -1, 0, 1, 2, 3):
            _same(retrograd.round(r, decimals=d), torch.round(t, decimals=d))
        _same(retrograd.round(r), torch.round(t))
    r, t = _pair([1.25], grad=True)
    assert type(retrograd.round(r, decimals=0).grad_fn).__name__ == type(torch.round(t, decimals=0).grad_fn).__name__


def test_nan_to_num_defaults_per_dtype_and_grads():
    for dtype in ("float16", "float32", "float64"):
        r, t = _pair([NAN, INF, -INF, 1.0], dtype)
        _same(retrograd.nan_to_num(r), torch.nan_to_num(t))
        _same(retrograd.nan_to_num(r, nan=1.0, posinf=2.0), torch.nan_to_num(t, nan=1.0, posinf=2.0))
        y = r.clone()
        assert y.nan_to_num_(neginf=-7.0) is y
        _same(y, t.clone().nan_to_num_(neginf=-7.0))
    for ours, theirs in _grads("nan_to_num", [[NAN, INF, -INF, 1.0]]):
        _same(ours, theirs)


def test_grads_at_special_points():
    cases = [
        ("logit", [[0.0, 0.05, 0.5, 1.0, 1.5, -0.5]], (), {}),
        ("logit", [[0.0, 0.05, 0.1, 0.5, 0.9, 1.0]], (0.1,), {}),
        ("sinc", [[0.0, 1.0, 0.5, -2.0]], (), {}),
        ("xlogy", [[0.0, 0.0, 1.0, 2.0, 0.0], [0.0, 1.0, 0.0, 3.0, NAN]], (), {}),
        ("copysign", [[0.0, -0.0, 1.0, -2.0], [-1.0, 1.0, -0.0, 3.0]], (), {}),
        ("hypot", [[0.0, 3.0, INF], [0.0, 4.0, 1.0]], (), {}),
        ("logaddexp", [[INF, -INF, 0.0, 1000.0], [INF, -INF, -1000.0, 1000.0]], (), {}),
        ("frac", [[-1.5, 2.25, 3.0]], (), {}),
        ("floor", [[-1.5, 2.0]], (), {}),
        ("erfinv", [[-1.0, 0.0, 0.5, 1.0]], (), {}),
        ("lgamma", [[-2.5, 0.5, 1.0, 2.0]], (), {}),
        ("digamma", [[-2.5, 0.5, 1.0, 2.0]], (), {}),
    ]
    for name, values, extra, kw in cases:
        for ours, theirs in _grads(name, values, *extra, **kw):
            _same(ours, theirs, rtol=1e-10)


def test_second_derivatives_at_ties_and_through_special_functions():
    def gg(lib, name, *vals):
        xs = [lib.tensor(v, dtype=lib.float64, requires_grad=True) for v in vals]
        out = getattr(lib, name)(*xs)
        g = lib.autograd.grad(out.sum(), xs, create_graph=True)
        total = sum((gi * gi).sum() for gi in g if gi is not None and gi.requires_grad)
        return lib.autograd.grad(total, xs, allow_unused=True) if not isinstance(total, int) else None

    for name, vals in (("lgamma", ([0.7, 3.2],)), ("digamma", ([0.7, 3.2],)), ("erfinv", ([0.3, -0.6],)),
                       ("logit", ([0.3, 0.6],)), ("maximum", ([1.0, 2.0], [1.0, 3.0])),
                       ("lerp", ([1.0, 2.0], [3.0, 5.0], [0.3, 0.9])), ("atan2", ([1.0, -2.0], [0.5, 0.7]))):
        ours, theirs = gg(retrograd, name, *vals), gg(torch, name, *vals)
        if theirs is None:
            assert ours is None
            continue
        for o, t in zip(ours, theirs):
            if t is None:
                assert o is None or not o.numpy().any()
            else:
                _same(o, t, rtol=1e-10)


def test_where_forms_and_uint8_condition():
    c_r, c_t = retrograd.tensor([True, False, True]), torch.tensor([True, False, True])
    for a, b in ((1.0, 0.0), (1, 0), (2, 0.5), (True, False)):
        _same(retrograd.where(c_r, a, b), torch.where(c_t, a, b))
    with pytest.warns(UserWarning, match="uint8 condition"):
        ours = retrograd.where(retrograd.tensor([1, 0], dtype=retrograd.uint8), 1.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.where(torch.tensor([1, 0], dtype=torch.uint8), 1.0, 0.0)
    _same(ours, theirs)
    assert [t.tolist() for t in retrograd.where(retrograd.tensor([[1, 0], [0, 3]]))] == [[0, 1], [0, 1]]


# ---------------------------------------------------------------- comparisons, logical, bitwise
def test_isclose_allclose_equal_semantics():
    a = [1.0, NAN, INF, INF, -INF, 0.0, 1.0]
    b = [1.0 + 1e-7, NAN, INF, -INF, -INF, 1e-9, 1.1]
    (ra, ta), (rb, tb) = _pair(a), _pair(b)
    for kw in ({}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"atol": INF}, {"rtol": 0.2}):
        _same(retrograd.isclose(ra, rb, **kw), torch.isclose(ta, tb, **kw))
        assert retrograd.allclose(ra, rb, **kw) is torch.allclose(ta, tb, **kw)
    assert retrograd.allclose(ra[:1], rb[:1]) is True
    assert retrograd.equal(ra, ra) is False  # NaN
    assert retrograd.equal(retrograd.ones(2, 2), retrograd.ones(2)) is False
    assert retrograd.equal(retrograd.tensor([1, 2]), retrograd.tensor([1.0, 2.0])) is True
    ri, ti = _pair([1, 5, 9], "int64")
    _same(retrograd.isclose(ri, ri + 1, rtol=0, atol=1), torch.isclose(ti, ti + 1, rtol=0, atol=1))
    rb_, tb_ = _pair([True, False], "bool")
    _same(retrograd.isclose(rb_, rb_), torch.isclose(tb_, tb_))


def test_shifts_out_of_range_and_unsigned():
    amounts = [-1, 0, 1, 7, 8, 62, 63, 64, 100]
    for dtype in ("int64", "int32", "int8", "uint8"):
        r, t = _pair([5] * len(amounts), dtype)
        rn, tn = _pair([-5 if dtype != "uint8" else 250] * len(amounts), dtype)
        ra, ta = _pair(amounts, "int64")
        for x, y in ((r, t), (rn, tn)):
            _same(retrograd.bitwise_left_shift(x, ra), torch.bitwise_left_shift(y, ta))
            _same(retrograd.bitwise_right_shift(x, ra), torch.bitwise_right_shift(y, ta))
            _same(x << 3, y << 3)
            _same(x >> 9, y >> 9)
    _same(retrograd.tensor([True]) << 1, torch.tensor([True]) << 1)


def test_operators_and_inplace_forms():
    ri, ti = _pair([12, -10, 7], "int64")
    rb, tb = _pair([True, False, True], "bool")
    for f in (lambda x, b: x & 6, lambda x, b: 6 & x, lambda x, b: x | 3, lambda x, b: 3 | x, lambda x, b: x ^ 5,
              lambda x, b: 5 ^ x, lambda x, b: ~x, lambda x, b: x % 5, lambda x, b: 50 % x, lambda x, b: x // 3,
              lambda x, b: 50 // x, lambda x, b: 2 << (x & 3), lambda x, b: x >> 1, lambda x, b: 64 >> (x & 3)):
        _same(f(ri, rb), f(ti, tb))
    _same(rb & rb, tb & tb)
    _same(~rb, ~tb)
    x, y = ri.clone(), ti.clone()
    for f in ("__iand__", "__ior__", "__ixor__", "__ilshift__", "__irshift__", "__imod__", "__ifloordiv__"):
        assert getattr(x, f)(3) is x
        getattr(y, f)(3)
        _same(x, y)
    assert x._version == 7


def test_logical_inplace_keeps_history_and_bumps_version():
    for lib in (retrograd, torch):
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        y = x * 1
        y.logical_and_(lib.tensor([1.0, 1.0, 0.0]))
        assert type(y.grad_fn).__name__ == "MulBackward0"
        assert y.tolist() == [1.0, 0.0, 0.0]
        x.logical_not_()  # allowed even on a leaf that requires grad: nothing to differentiate
        assert x.grad_fn is None and x.requires_grad and x.tolist() == [0.0, 1.0, 0.0]
    z = retrograd.tensor([3, 0])
    z.logical_not_()
    assert z.tolist() == [0, 1] and z._version == 1 and z.dtype is retrograd.int64


def test_lerp_weight_forms_and_inplace_shapes():
    (ra, ta), (rb, tb) = _pair([1.0, 2.0, 3.0], grad=True), _pair([5.0, -1.0, 0.5], grad=True)
    for w in (0.0, 0.3, 0.5, 1.0, 1.7, -0.4):
        _same(retrograd.lerp(ra, rb, w), torch.lerp(ta, tb, w))
    rw, tw = _pair([0.0, 0.5, 1.0], grad=True)
    ours, theirs = retrograd.lerp(ra, rb, rw), torch.lerp(ta, tb, tw)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "LerpBackward1"
    ours.sum().backward()
    theirs.sum().backward()
    for r, t in ((ra, ta), (rb, tb), (rw, tw)):
        _same(r.grad, t.grad)


def test_float_power_and_inplace():
    r, t = _pair([1.5, 2.0], "float32", grad=True)
    ours, theirs = retrograd.float_power(r, 2), torch.float_power(t, 2)
    _same(ours, theirs)
    ours.sum().backward()
    theirs.sum().backward()
    _same(r.grad, t.grad)
    x, y = retrograd.tensor([2.0, 3.0], dtype=retrograd.float64), torch.tensor([2.0, 3.0], dtype=torch.float64)
    assert x.float_power_(retrograd.tensor([2.0, 0.5])) is x
    _same(x, y.float_power_(torch.tensor([2.0, 0.5])))

