"""Fixes from the op sweep against torch: in-place casting, alpha, reduction dtype/keepdim checks."""
import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


def _pair(make):
    return make(torch), make(retrograd)


def _same_error(fn_src):
    """Run ``fn_src`` (an expression in ``T``) in both libraries: same exception type and text."""
    errs = []
    for lib in (torch, retrograd):
        try:
            eval(fn_src, {"T": lib})
        except Exception as e:  # noqa: BLE001 - we compare whatever each raises
            errs.append((type(e), str(e)))
        else:
            errs.append(None)
    assert errs[0] is not None, f"torch did not raise for {fn_src}"
    assert errs[1] is not None, f"retrograd did not raise for {fn_src}"
    assert errs[0][0] is errs[1][0], (fn_src, errs)
    assert errs[0][1] == errs[1][1], (fn_src, errs)


def _first_line_same(fn_src):
    errs = []
    for lib in (torch, retrograd):
        with pytest.raises(Exception) as ei:
            eval(fn_src, {"T": lib})
        errs.append((ei.type, str(ei.value).splitlines()[0]))
    assert errs[0] == errs[1], (fn_src, errs)


I = "T.tensor([1, -2, 2])"
B = "T.tensor([True, False])"
F = "T.tensor([1., 2.])"
FG = "T.tensor([1., 2.], requires_grad=True)"


# ---------------------------------------------------------------- 1. in-place results that can't be cast
@pytest.mark.parametrize("src", [
    f"{I}.pow_(0.5)", f"{B}.pow_(2.0)", f"{B}.pow_(2)", f"{I}.pow_(T.tensor(0.5))",
    f"{I}.clamp_(0.5)", f"{I}.clamp_(max=0.5)", f"{B}.clamp_(0, 1)",
    "T.tensor([1, 2], dtype=T.int32).clamp_(0.5)",
    f"{B}.square_()", f"T.square_({B})", f"{B}.sigmoid_()", f"T.sigmoid_({B})", f"{B}.neg_()", f"{B}.negative_()",
    f"{I}.cos_()", f"{I}.exp_()", f"{B}.exp_()", f"{I}.sqrt_()", f"{I}.tanh_()", f"{I}.reciprocal_()",
    f"T.exp_({I})", f"{B}.cumsum_(0)", f"{B}.cumprod_(0)",
    f"{F}.cumsum_(0, dtype=T.float64)", f"{I}.cumprod_(0, dtype=T.float32)",
    f"{FG}.clone().cumsum_(0, dtype=T.float64)",
    "T.tensor([1, 2], dtype=T.int8).cumsum_(0, dtype=T.int16)",
])
def test_inplace_refusals(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    f"{B}.pow_(True)", f"{I}.pow_(2)", f"{I}.square_()", f"{I}.clamp_(0, 1)", f"{F}.exp_()",
    f"{I}.cumsum_(0, dtype=T.int64)", "T.tensor([1, 2], dtype=T.int32).cumsum_(0)",
])
def test_inplace_allowed_values(src):
    t = eval(src, {"T": torch})
    r = eval(src, {"T": retrograd})
    assert str(t.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-6)


def test_inplace_pow_keeps_grad():
    for lib in (torch, retrograd):
        x = lib.tensor([1.5, 2.0], dtype=lib.float64, requires_grad=True)
        y = x.clone()
        y.pow_(3)
        g, = lib.autograd.grad(y.sum(), x, create_graph=True)
        g2, = lib.autograd.grad(g.sum(), x)
        np.testing.assert_allclose(g.detach().numpy(), 3 * np.array([1.5, 2.0]) ** 2)
        np.testing.assert_allclose(g2.numpy(), 6 * np.array([1.5, 2.0]))
        assert type(y.grad_fn).__name__ == "PowBackward0"


# ---------------------------------------------------------------- 2. alpha
@pytest.mark.parametrize("src", [
    f"T.add({I}, {I}, alpha=0.5)", f"T.sub({I}, {I}, alpha=0.5)", f"T.add({I}, 2, alpha=0.5)",
    f"T.add({B}, {B}, alpha=0.5)", f"{I}.add_({I}, alpha=0.5)", f"{I}.sub({I}, alpha=2.0)",
    f"T.add({I}, {I}, alpha=True)", f"T.sub({I}, {I}, alpha=True)", f"T.add({F}, {F}, alpha=True)",
    f"T.rsub({I}, {I}, alpha=0.5)", f"T.rsub({I}, 2, alpha=0.5)", f"T.add({I}, {I}, alpha=T.tensor(0.5))",
])
def test_alpha_errors(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    f"T.add({I}, 2.5, alpha=2)", f"T.add({B}, {B}, alpha=True)", f"T.add({B}, {B}, alpha=2)",
    f"T.add({I}, {I}, alpha=3)", f"T.add({F}, {F}, alpha=0.5)", f"T.sub({F}, {I}[:2], alpha=2)",
])
def test_alpha_values(src):
    t = eval(src, {"T": torch})
    r = eval(src, {"T": retrograd})
    assert str(t.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    np.testing.assert_allclose(r.numpy(), t.numpy())


def test_alpha_grad():
    for lib in (torch, retrograd):
        a = lib.tensor([1., 2.], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([3., 4.], dtype=lib.float64, requires_grad=True)
        ga, gb = lib.autograd.grad(lib.sub(a, b, alpha=0.5).sum(), (a, b))
        np.testing.assert_allclose(ga.numpy(), [1., 1.])
        np.testing.assert_allclose(gb.numpy(), [-0.5, -0.5])


# ---------------------------------------------------------------- 3. integer dtype= with autograd
@pytest.mark.parametrize("src", [
    f"T.sum({FG}, dtype=T.int64)", f"T.sum({FG}, 0, dtype=T.int64)", f"T.sum({FG}, dtype=T.bool)",
    f"T.prod({FG}, dtype=T.int64)", f"T.prod({FG}, 0, dtype=T.int32)", f"T.nansum({FG}, dtype=T.int64)",
    f"T.cumsum({FG}, 0, dtype=T.int64)", f"T.cumprod({FG}, 0, dtype=T.int64)",
    f"T.nanmean({FG}, dtype=T.int64)", f"T.nanmean({F}, dtype=T.int64)", f"T.nanmean({FG}, 0, dtype=T.int64)",
    f"{FG}.sum(dtype=T.int64)",
])
def test_grad_dtype_errors(src):
    _same_error(src)


def test_integer_dtype_without_grad_still_works():
    for src in (f"T.sum({F}, dtype=T.int64)", f"T.cumsum({FG}.detach(), 0, dtype=T.int64)"):
        t = eval(src, {"T": torch})
        r = eval(src, {"T": retrograd})
        assert str(r.dtype).endswith("int64") and not r.requires_grad
        np.testing.assert_array_equal(r.numpy(), t.numpy())
    with retrograd.no_grad():
        r = retrograd.sum(retrograd.tensor([1.5, 2.], requires_grad=True), dtype=retrograd.int64)
    assert r.item() == 3


def test_float_dtype_with_grad_keeps_graph():
    for lib in (torch, retrograd):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        y = lib.cumprod(x, 0, dtype=lib.float64)
        g, = lib.autograd.grad(y.sum(), x)
        np.testing.assert_allclose(g.numpy(), [1 + 2 + 6, 1 + 3, 2])
        assert type(y.grad_fn).__name__ == "CumprodBackward0"


# ---------------------------------------------------------------- 4. keepdim without dim
@pytest.mark.parametrize("name,src", [
    ("sum", f"{F}.sum(keepdim=True)"), ("mean", f"{F}.mean(keepdim=True)"), ("prod", f"{F}.prod(keepdim=True)"),
    ("mean", f"{I}.mean(keepdim=True)"), ("sum", f"T.sum({F}, keepdim=True)"),
    ("mean", f"T.mean({F}, keepdim=True)"), ("prod", f"T.prod({F}, keepdim=True)"),
])
def test_keepdim_without_dim(name, src):
    with pytest.raises(TypeError) as et:
        eval(src, {"T": torch})
    with pytest.raises(TypeError) as er:
        eval(src, {"T": retrograd})
    assert str(et.value).startswith(f"{name}() received an invalid combination of arguments")
    assert str(er.value).startswith(f"{name}() received an invalid combination of arguments")


def test_keepdim_with_dim_still_works():
    t, r = _pair(lambda L: L.tensor([[1., 2.], [3., 4.]]).mean(1, keepdim=True))
    assert tuple(r.shape) == tuple(t.shape) == (2, 1)
    np.testing.assert_allclose(r.numpy(), t.numpy())


# ---------------------------------------------------------------- 5. out=
_X = "T.tensor([[1., -2., 3.], [0.5, 2., -1.]])"
_OUT_CASES = {
    "all": "T.all(T.tensor([[True, False], [True, True]]), out=O)",
    "amax": f"T.amax({_X}, 0, out=O)", "amin": f"T.amin({_X}, 1, out=O)",
    "cumsum": f"T.cumsum({_X}, 0, out=O)", "cumprod": f"T.cumprod({_X}, 1, out=O)",
    "logsumexp": f"T.logsumexp({_X}, 0, out=O)", "std": f"T.std({_X}, 0, out=O)", "var": f"T.var({_X}, 1, out=O)",
    "nanmean": f"T.nanmean({_X}, 0, out=O)", "max": f"T.max({_X}, out=O)", "min": f"T.min({_X}, out=O)",
    "diag": f"T.diag({_X}, out=O)", "tril": f"T.tril({_X}, out=O)", "triu": f"T.triu({_X}, 1, out=O)",
    "vstack": f"T.vstack([{_X}, {_X}], out=O)", "hstack": f"T.hstack([{_X}, {_X}], out=O)",
    "dstack": f"T.dstack([{_X}, {_X}], out=O)", "column_stack": f"T.column_stack([{_X}, {_X}], out=O)",
    "row_stack": f"T.row_stack([{_X}, {_X}], out=O)",
    "masked_select": f"T.masked_select({_X}, {_X} > 0, out=O)",
    "take_along_dim": f"T.take_along_dim({_X}, T.tensor([[0], [1]]), 1, out=O)",
    "outer": "T.outer(T.tensor([1., 2.]), T.tensor([3., 4., 5.]), out=O)",
    "ger": "T.ger(T.tensor([1., 2.]), T.tensor([3., 4., 5.]), out=O)",
    "isposinf": "T.isposinf(T.tensor([1., float('inf')]), out=O)",
    "isneginf": "T.isneginf(T.tensor([1., float('-inf')]), out=O)",
    "renorm": f"T.renorm({_X}, 2, 0, 1., out=O)",
    "searchsorted": f"T.searchsorted(T.tensor([0., 1.]), {_X}, out=O)",
    "bucketize": f"T.bucketize({_X}, T.tensor([0., 1.]), out=O)",
    "nonzero": f"T.nonzero({_X} > 0, out=O)",
    "conj_physical": f"T.conj_physical({_X}, out=O)",
}


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("name", sorted(_OUT_CASES))
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64", "bool"])
def test_out_is_written_and_returned(name, out_dtype):
    src = _OUT_CASES[name]
    outcome = []
    for lib in (torch, retrograd):
        o = lib.empty(0, dtype=getattr(lib, out_dtype))
        try:
            r = eval(src, {"T": lib, "O": o})
        except Exception as e:  # noqa: BLE001
            outcome.append((type(e), str(e)))
            continue
        assert r is o
        outcome.append((str(o.dtype).split(".")[-1], tuple(o.shape), o.double().numpy().round(5).tolist()))
    assert outcome[0] == outcome[1]


@pytest.mark.parametrize("name", ["cumsum", "std", "tril", "vstack", "outer", "masked_select", "renorm", "amax"])
def test_out_refuses_grad(name):
    src = _OUT_CASES[name].replace(_X, f"{_X}.requires_grad_()").replace("T.tensor([1., 2.])",
                                                                        "T.tensor([1., 2.], requires_grad=True)")
    _same_error(src.replace("out=O", "out=T.empty(0)"))


def test_out_resizes_non_empty_with_warning():
    for lib in (torch, retrograd):
        o = lib.empty(5)
        with pytest.warns(UserWarning, match="was resized"):
            r = lib.cumsum(lib.tensor([[1., 2.], [3., 4.]]), 1, out=o)
        assert r is o and tuple(o.shape) == (2, 2)
        np.testing.assert_allclose(o.numpy(), [[1., 3.], [3., 7.]])


def test_out_tuple_for_max_with_dim():
    for lib in (torch, retrograd):
        v, i = lib.empty(0), lib.empty(0, dtype=lib.int64)
        r = lib.max(lib.tensor([[1., 5.], [3., 2.]]), 0, out=(v, i))
        assert r[0] is v and r[1] is i
        np.testing.assert_allclose(v.numpy(), [3., 5.])
        np.testing.assert_array_equal(i.numpy(), [1, 0])


# ---------------------------------------------------------------- 6. concatenate / movedim / softmax / adjoint
@pytest.mark.parametrize("src", [
    "T.concatenate([T.ones(2), T.zeros(1)], dim=0)", "T.concatenate([T.ones(2), T.zeros(1)], axis=0)",
    "T.concatenate([T.ones(1, 2), T.zeros(1, 2)], dim=1)",
    "T.movedim(T.tensor(1.), 0, -1)", "T.moveaxis(T.tensor(1.), 0, 0)", "T.movedim(T.tensor(1.), (0,), (-1,))",
    "T.ones(2, 3).permute(1, 0)", "T.ones(2).permute(0)", "T.permute(T.ones(2, 3), (1, 0))",
    "T.ones(2, 3).adjoint()", "T.ones(2, 3, 4).adjoint()",
])
def test_shape_values(src):
    t = eval(src, {"T": torch})
    r = eval(src, {"T": retrograd})
    assert tuple(r.shape) == tuple(t.shape)
    np.testing.assert_allclose(r.numpy(), t.numpy())


@pytest.mark.parametrize("src", [
    "T.movedim(T.tensor(1.), 1, 0)", "T.permute(T.ones(2, 3), 0)", "T.permute(T.ones(2), 0)", "T.ones(2).permute()",
    "T.softmax(T.tensor(1.), 1)", "T.log_softmax(T.tensor(1.), -2)", "T.tensor([1., 2.]).adjoint()",
])
def test_shape_errors(src):
    _same_error(src)


def test_adjoint_0d_returns_self_with_warning():
    for lib in (torch, retrograd):
        x = lib.tensor(1.)
        with pytest.warns(UserWarning, match="adjoint\\(\\) is deprecated on 0-D tensors"):
            assert x.adjoint() is x


def test_movedim_0d_is_an_alias_view():
    for lib in (torch, retrograd):
        x = lib.tensor(2., dtype=lib.float64, requires_grad=True)
        y = lib.movedim(x, 0, -1)
        assert type(y.grad_fn).__name__ == "AliasBackward0"
        g, = lib.autograd.grad(y * 3, x)
        assert g.item() == 3.


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_0d_grad_fn_and_grads(fn):
    res = []
    for lib in (torch, retrograd):
        x = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        y = getattr(lib, fn)(x * 2, 0)
        g, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad(g, x, allow_unused=True)
        res.append((type(y.grad_fn).__name__, y.item(), g.item(), None if g2 is None else g2.item()))
    assert res[0] == res[1]


# ---------------------------------------------------------------- 7/8. arguments that must be tuples / Tensors
@pytest.mark.parametrize("src", [
    f"T.flip({F}, 0)", "T.flip(T.tensor(1.), (0, 1))", f"T.tile({F}, 0)", f"T.take({F}, 0)", f"{F}.take(0)",
    f"{F}.put_(0, 0)", f"{F}.put_(T.tensor([0]), 0)", f"T.index_select({F}, 0, 0)", f"{F}.index_select(0, 0)",
    "T.ones(2, 3).sum_to_size(3, 2)", "T.tensor(1.).sum_to_size(2)", "T.ones(2, 3).sum_to_size(1, 2, 3)",
    f"T.cross({F}, 2.5)", f"T.cross(2.5, {F})", f"T.inner({F}, 2.5)", f"T.kron({F}, 2.5)", f"T.vdot({F}, 2.5)",
    f"T.dot({F}, 2.5)", f"T.dot(2.5, {F})", f"{F}.dot(2.5)", f"{F}.expand_as(2.5)", f"{F}.view_as(2)",
    f"{F}.reshape_as(2)", "T.conv_transpose1d(T.ones(1, 1, 3), 0.3)", f"T.prelu({F}, 0.3)",
    f"T.index_add({F}, 0, 0, 0)", f"T.index_copy({F}, 0, 0, 0)", f"{F}.index_add(0, 0, 0)",
    f"{F}.index_copy_(0, T.tensor([0]), 0)", f"T.gather({F}, 0, 0)", f"{F}.gather(0, 0)", f"T.matmul({F}, 2.5)",
    f"T.mvlgamma({F} + 5, float('inf'))", f"T.mvlgamma({F} + 5, True)", f"T.gcd({I}, 2)", f"T.lcm({I}, 2)",
    f"{I}.gcd(2)", f"T.ldexp({F}, 2)", f"{F}.ldexp_(2)",
])
def test_argument_type_errors(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    "T.conv1d(T.ones(1, 1, 3), 0.3)", "T.conv2d(T.ones(1, 1, 3, 3), 0.3)", f"T.index_fill({F}, 0, 0, .5)",
])
def test_overload_type_errors(src):
    _first_line_same(src)
    _same_error(src)


@pytest.mark.parametrize("src", [
    f"{F}.flip(0)", f"T.flip({F}, (0,))", "T.ones(2, 3).flip(1, 0)", f"{F}.tile(2)", f"T.tile({F}, (2,))",
    "T.ones(2, 3).tile(2, 1)", "T.ones(2, 1).sum_to_size(1, 1)", "T.ones(2, 3).sum_to_size(1, 3)",
    "T.ones(2, 3).sum_to_size((3,))", "T.ones(2).permute(0)", f"T.gcd({I}, T.tensor(4))",
])
def test_argument_forms_that_work(src):
    t = eval(src, {"T": torch})
    r = eval(src, {"T": retrograd})
    assert tuple(r.shape) == tuple(t.shape)
    np.testing.assert_allclose(r.numpy(), t.numpy())


# ---------------------------------------------------------------- 9. dtype checks
@pytest.mark.parametrize("src", [
    "T.gcd(T.tensor([1.]), T.tensor([2.]))", "T.lcm(T.tensor([True]), T.tensor([True]))",
    "T.gcd(T.tensor([1]), T.tensor([2.]))", "T.tensor([1]).gcd_(T.tensor([2.]))",
    "T.nextafter(T.tensor([1]), T.tensor([2]))", "T.nextafter(T.tensor([True]), T.tensor([True]))",
])
def test_dtype_errors(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    f"T.hardshrink({I})", f"T.hardshrink({B})", f"{I}.hardshrink()", f"T.threshold_({B}, 0.5, 1.)",
    f"T.threshold({B}, 0, 1)", f"T.nn.functional.threshold({B}, 0, 1)", f"T.igamma({I}, {I})",
    f"T.igamma({B}, {B})", f"T.igammac({I}, {I})", f"T.mvlgamma({B}, 1)", f"T.cov({B})", f"T.corrcoef({B})",
    f"T.gradient({B})", f"{B}.cumsum_(0)",
])
def test_dtype_refusals(src):
    _same_error(src)


def test_igamma_integer_promoted_to_float_still_works():
    t, r = _pair(lambda L: L.igamma(L.tensor([1, 2]), L.tensor([0.5, 1.5])))
    assert str(r.dtype).endswith("float32")
    np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-6)


# ---------------------------------------------------------------- 10. values
@pytest.mark.parametrize("form", ["function", "method", "functional"])
def test_hardshrink_nan_grad_fn_and_grads(form):
    res = []
    for lib in (torch, retrograd):
        x = lib.tensor([float("nan"), 1., 0.3, -2., 0.5], dtype=lib.float64, requires_grad=True)
        y = {"function": lambda: lib.hardshrink(x, 0.5), "method": lambda: x.hardshrink(0.5),
             "functional": lambda: lib.nn.functional.hardshrink(x, 0.5)}[form]()
        g, = lib.autograd.grad((y * y.detach().nan_to_num()).sum(), x)
        res.append((type(y.grad_fn).__name__, y.detach().numpy().tolist(), g.numpy().tolist()))
    assert str(res[0]) == str(res[1])


@pytest.mark.parametrize("fn", ["igamma", "igammac"])
def test_igamma_edges(fn):
    n, inf = float("nan"), float("inf")
    a = [n, n, n, 0., 1., -1., n, 2., 2.]
    x = [0., -0., 1., 0., -1., 0., inf, n, 0.]
    t = getattr(torch, fn)(torch.tensor(a, dtype=torch.float64), torch.tensor(x, dtype=torch.float64))
    r = getattr(retrograd, fn)(retrograd.tensor(a, dtype=retrograd.float64), retrograd.tensor(x, dtype=retrograd.float64))
    np.testing.assert_array_equal(r.numpy(), t.numpy())


# ---------------------------------------------------------------- 11. message-only fixes
@pytest.mark.parametrize("src", [
    "T.softmax(T.tensor([[1, 2], [3, 4]]), 0)", "T.softmax(T.tensor([[1, 2], [3, 4]]), -1)",
    "T.log_softmax(T.tensor([[1, 2], [3, 4]]), 0)", "T.softmax(T.tensor(1), 0)",
    "T.ones(2, 3, 4).t_()", "T.ones(2, 3).expand(3, 2)", "T.ones(2, 3).expand(4, 5)",
    "T.broadcast_to(T.ones(2, 3), (4, 5))", "T.gcd_(T.tensor([1, 2]), 2)", "T.ldexp_(T.tensor([1., 2.]), 2)",
])
def test_messages(src):
    _same_error(src)


@pytest.mark.filterwarnings("ignore")
@pytest.mark.parametrize("out_dtype", ["float32", "float64", "int64"])
def test_range_out_computes_in_out_dtype(out_dtype):
    res = []
    for lib in (torch, retrograd):
        o = lib.empty(0, dtype=getattr(lib, out_dtype))
        assert lib.range(0, 4, out=o) is o
        res.append((str(o.dtype).split(".")[-1], o.double().numpy().tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("src", ["T.tensor([1., 2.]).igamma(2.5)", "T.igamma(T.tensor([1., 2.]), 2.5)"])
def test_igamma_method_and_function_positions(src):
    _same_error(src)


@pytest.mark.parametrize("case", [
    lambda T: (lambda o: (T.zeros(3, out=o) is o, o))(T.empty(2, dtype=T.int64)),   # out's dtype, resized
    lambda T: (lambda o: (T.arange(3, out=o) is o, o))(T.empty(3)),
    lambda T: (lambda o: (T.linspace(0, 1, 3, out=o) is o, o))(T.empty(3, dtype=T.int64)),
    lambda T: (lambda o: (T.eye(2, out=o) is o, o))(T.empty(2, 2)),
    lambda T: (lambda o: (T.full((2,), 3., out=o) is o, o))(T.empty(1)),
    lambda T: T.zeros(2, out=T.empty(2), dtype=T.int64),                              # dtype clash
    lambda T: T.ones(2, out=T.empty(2, requires_grad=True)),
    lambda T: T.full((2,), 2.5, out=T.empty(2, dtype=T.int64)),
    lambda T: T.eye(2, 3, out=T.empty(0, dtype=T.bool)),
    lambda T: T.arange(0, 1, 0.3, out=T.empty(0, dtype=T.int64)),                  # int out: step 0
    lambda T: T.logspace(0, 2, 3, out=T.empty(3, dtype=T.float64)),
    lambda T: (lambda o: (T.ones(3, out=o), o[:1]))(T.empty(3)),                    # same shape: in place
])
def test_factory_functions_out_as_torch(case):
    def run(T):
        try:
            return "ok", repr(case(T))
        except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
            return type(exc).__name__, str(exc)

    assert run(retrograd) == run(torch)
