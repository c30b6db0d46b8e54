"""Method, in-place and out= variants of the ops against PyTorch: in-place casting rules, out= writing,
resizing and refusals."""
import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._compare_helpers import _both, _same  # noqa: E402
from ._expression_helpers import B, F, FG, I, _same_error as _same_error_expr  # noqa: E402


def _pair(data, dtype="float64", requires_grad=False):
    a = np.asarray(data, dtype=dtype)
    return (torch.tensor(a, requires_grad=requires_grad), rg.tensor(a, requires_grad=requires_grad))


def _close(t, r, tol=1e-10):
    assert tuple(t.shape) == tuple(r.shape)
    assert str(t.dtype).split(".")[-1] == str(r.dtype).split(".")[-1]
    np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


def _same_error(ft, fr):
    with pytest.raises(Exception) as et:
        ft()
    with pytest.raises(Exception) as er:
        fr()
    assert type(er.value).__name__ == type(et.value).__name__
    assert str(er.value).split("\n")[0] == str(et.value).split("\n")[0]


RNG = np.random.default_rng(0)
X = RNG.standard_normal((3, 4))
POS = np.abs(X) + 2.0


# ---------------------------------------------------------------- in-place: node names, grads
INPLACE = [
    ("clamp_min_", X, lambda lib: (0.1,)),
    ("clamp_max_", X, lambda lib: (0.1,)),
    ("clamp_min_", X, lambda lib: (lib.tensor(np.full((4,), 0.2)),)),
    ("clamp_max_", X, lambda lib: (lib.tensor(np.full((4,), 0.2)),)),
    ("clamp_", X, lambda lib: (lib.tensor(np.full((4,), -0.2)), lib.tensor(np.full((4,), 0.3)))),
    ("i0_", X, lambda lib: ()),
    ("mvlgamma_", POS, lambda lib: (2,)),
    ("renorm_", X, lambda lib: (2, 0, 1.0)),
    ("nextafter_", X, lambda lib: (lib.tensor(np.zeros(4)),)),
    ("div_", X, lambda lib: (lib.tensor(POS[0]),), {"rounding_mode": "floor"}),
    ("div_", X, lambda lib: (lib.tensor(POS[0]),), {"rounding_mode": "trunc"}),
    ("ldexp_", X, lambda lib: (lib.tensor(np.array([1, 2, 0, 3])),)),
    ("index_reduce_", X, lambda lib: (0, lib.tensor([0, 2]), lib.tensor(X[:2] * 2), "amax")),
]


@pytest.mark.parametrize("case", INPLACE, ids=[c[0] + str(i) for i, c in enumerate(INPLACE)])
def test_inplace_records_the_ops_node(case):
    name, data, make_args = case[:3]
    kw = case[3] if len(case) > 3 else {}
    results = []
    for lib in (torch, rg):
        leaf = lib.tensor(data, requires_grad=True)
        x = leaf.clone()
        v0 = x._version
        r = getattr(x, name)(*make_args(lib), **kw)
        assert r is x and x._version > v0
        go = lib.tensor(np.linspace(-1, 1, x.numel()).reshape(x.shape))
        (g,) = lib.autograd.grad(x, leaf, go)
        results.append((x, type(x.grad_fn).__name__, g))
    (xt, nt, gt), (xr, nr, gr) = results
    assert nr == nt
    _close(xt, xr)
    _close(gt, gr)


@pytest.mark.parametrize("name,args", [("clamp_min_", (0.0,)), ("i0_", ()), ("renorm_", (2, 0, 1.0))])
def test_inplace_on_leaf_refused(name, args):
    t, r = _pair(X, requires_grad=True)
    _same_error(lambda: getattr(t, name)(*args), lambda: getattr(r, name)(*args))


@pytest.mark.parametrize("name", ["atan2_", "div_", "copysign_", "xlogy_", "gcd_", "eq_", "lt_", "heaviside_"])
def test_inplace_broadcast_shape_checked_before_dtype(name):
    # self [5, 1] op other [5, 5]: PyTorch reports the shape, even when the dtype would fail too
    dt = "float64" if name in ("eq_", "lt_", "heaviside_") else "int64"
    a = np.arange(5).reshape(5, 1).astype(dt)
    b = np.arange(25).reshape(5, 5).astype(dt) + 1
    _same_error(lambda: getattr(torch.tensor(a), name)(torch.tensor(b)),
                lambda: getattr(rg.tensor(a), name)(rg.tensor(b)))


def test_inplace_int_dtype_error_kept():
    a = np.arange(4)
    _same_error(lambda: torch.tensor(a).atan2_(torch.tensor(a)), lambda: rg.tensor(a).atan2_(rg.tensor(a)))
    _same_error(lambda: torch.tensor(a).clamp_min_(0.5), lambda: rg.tensor(a).clamp_min_(0.5))


# ---------------------------------------------------------------- out=: resize warning
@pytest.mark.parametrize("fn", ["sin", "exp", "sigmoid", "erf", "digamma"])
def test_out_resize_warns_like_torch(fn):
    for shape, warns in (((7,), True), ((0,), False)):
        seen = []
        for lib in (torch, rg):
            o = lib.zeros(shape, dtype=lib.float64)
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                r = getattr(lib, fn)(lib.tensor(X), out=o)
            assert r is o and tuple(o.shape) == (3, 4)
            seen.append(any("resized" in str(x.message) for x in w))
        assert seen == [warns, warns]


# ---------------------------------------------------------------- out=: functions that lacked it
IDX = np.array([[0, 1], [2, 0], [1, 3]])
OUT_CASES = [
    ("square", lambda lib: (lib.tensor(X),), {}),
    ("diff", lambda lib: (lib.tensor(X),), {}),
    ("clamp_min", lambda lib: (lib.tensor(X), 0.0), {}),
    ("argmax", lambda lib: (lib.tensor(X), 1), {}),
    ("softmax", lambda lib: (lib.tensor(X), 1), {}),
    ("log_softmax", lambda lib: (lib.tensor(X), 0), {}),
    ("take", lambda lib: (lib.tensor(X), lib.tensor(IDX)), {}),
    ("gather", lambda lib: (lib.tensor(X), 1, lib.tensor(IDX)), {}),
    ("index_select", lambda lib: (lib.tensor(X), 1, lib.tensor([0, 2])), {}),
    ("index_add", lambda lib: (lib.tensor(X), 1, lib.tensor([0, 2]), lib.tensor(X[:, :2])), {}),
    ("scatter", lambda lib: (lib.tensor(X), 1, lib.tensor(IDX), lib.tensor(X[:, :2])), {}),
    ("scatter_add", lambda lib: (lib.tensor(X), 1, lib.tensor(IDX), lib.tensor(X[:, :2])), {}),
    ("isin", lambda lib: (lib.tensor(X), lib.tensor(X[0])), {}),
]


@pytest.mark.parametrize("case", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_out_written_and_returned(case):
    name, make, kw = case
    exp = getattr(torch, name)(*make(torch), **kw)
    res = []
    for lib in (torch, rg):
        o = lib.zeros(tuple(exp.shape), dtype=getattr(lib, str(exp.dtype).split(".")[-1]))
        r = getattr(lib, name)(*make(lib), **kw, out=o)
        assert r is o
        res.append(o)
    _close(*res)
    bad = "bool" if exp.dtype == torch.int64 else "int64"
    _same_error(lambda: getattr(torch, name)(*make(torch), **kw, out=torch.zeros(0, dtype=getattr(torch, bad))),
                lambda: getattr(rg, name)(*make(rg), **kw, out=rg.zeros(0, dtype=getattr(rg, bad))))


@pytest.mark.parametrize("name,args", [("sort", (1,)), ("topk", (2,)), ("cummax", (1,)), ("kthvalue", (2, 1))])
def test_out_pairs(name, args):
    res = []
    for lib in (torch, rg):
        v, i = lib.zeros(0, dtype=lib.float64), lib.zeros(0, dtype=lib.int64)
        r = getattr(lib, name)(lib.tensor(X), *args, out=(v, i))
        assert r[0] is v and r[1] is i
        res.append((v, i))
    _close(res[0][0], res[1][0])
    _close(res[0][1], res[1][1])
    _same_error(lambda: getattr(torch, name)(torch.tensor(X), *args, out=(torch.zeros(0, dtype=torch.int64),
                                                                           torch.zeros(0, dtype=torch.int64))),
                lambda: getattr(rg, name)(rg.tensor(X), *args, out=(rg.zeros(0, dtype=rg.int64),
                                                                    rg.zeros(0, dtype=rg.int64))))


def test_out_pairs_refuse_grad_inputs():
    for name, args in (("max", (1,)), ("sort", ())):
        def run(lib):
            x = lib.tensor(X, requires_grad=True)
            return getattr(lib, name)(x, *args, out=(lib.zeros(0, dtype=lib.float64), lib.zeros(0, dtype=lib.int64)))
        _same_error(lambda: run(torch), lambda: run(rg))


def test_out_max_binary_casts():
    a = X.astype(np.float64)
    _same_error(lambda: torch.max(torch.tensor(a), torch.tensor(a), out=torch.zeros(0, dtype=torch.int64)),
                lambda: rg.max(rg.tensor(a), rg.tensor(a), out=rg.zeros(0, dtype=rg.int64)))
    ot, orr = torch.zeros(0, dtype=torch.float64), rg.zeros(0, dtype=rg.float64)
    torch.max(torch.tensor(a, dtype=torch.float32), torch.tensor(a, dtype=torch.float32), out=ot)
    rg.max(rg.tensor(a, dtype=rg.float32), rg.tensor(a, dtype=rg.float32), out=orr)
    _close(ot, orr, 1e-6)


def test_out_nuclear_norm_and_misc_names():
    ot, orr = torch.zeros(()), rg.zeros(())
    assert torch.norm(torch.tensor(X, dtype=torch.float32), "nuc", out=ot) is ot
    assert rg.norm(rg.tensor(X, dtype=rg.float32), "nuc", out=orr) is orr
    _close(ot, orr, 1e-5)
    # the refusal names the op (not an internal wrapper)
    _same_error(lambda: torch.i0(torch.tensor(X, requires_grad=True), out=torch.zeros(3, 4, dtype=torch.float64)),
                lambda: rg.i0(rg.tensor(X, requires_grad=True), out=rg.zeros(3, 4, dtype=rg.float64)))


@pytest.mark.parametrize("name,args", [("view_copy", ((4, 3),)), ("t_copy", ()), ("permute_copy", ((1, 0),))])
def test_copy_ops_out_wants_exact_dtype_and_allow_grad(name, args):
    _same_error(lambda: getattr(torch, name)(torch.tensor(X), *args, out=torch.zeros(0, dtype=torch.float32)),
                lambda: getattr(rg, name)(rg.tensor(X), *args, out=rg.zeros(0, dtype=rg.float32)))
    res = []
    for lib in (torch, rg):
        o = lib.zeros(0, dtype=lib.float64)
        assert getattr(lib, name)(lib.tensor(X, requires_grad=True), *args, out=o) is o
        res.append(o)
    _close(*res)


def test_out_arguments():
    x = _both(np.array([[3.0, 1.0], [2.0, 5.0]]))
    for name, call in [("msort", lambda L, t, o: L.msort(t, out=o)),
                       ("quantile", lambda L, t, o: L.quantile(t, 0.3, 1, out=o)),
                       ("logcumsumexp", lambda L, t, o: L.logcumsumexp(t, 0, out=o)),
                       ("i0", lambda L, t, o: L.i0(t, out=o)),
                       ("gcd", lambda L, t, o: L.gcd(t.long(), t.long().flip(0), out=o))]:
        outs = []
        for L, t in ((retrograd, x[0]), (torch, x[1])):
            o = L.empty(0, dtype=L.int64 if name == "gcd" else L.float64)
            r = call(L, t, o)
            assert r is o
            outs.append(o)
        _same(*outs)
    m, e = retrograd.empty(0, dtype=retrograd.float64), retrograd.empty(0, dtype=retrograd.int32)
    res = retrograd.frexp(x[0], out=(m, e))
    assert res.mantissa is m and res.exponent is e
    _same(e, torch.frexp(x[1]).exponent)


@pytest.mark.parametrize("name", ["add", "cat", "stack"])
def test_other_common_out_users_accept_out(name):
    def run(T):
        a = T.arange(6.).reshape(2, 3)
        fn, args, shape = {"add": (T.add, (a, 1), (2, 3)), "cat": (T.cat, ([a, a],), (4, 3)),
                           "stack": (T.stack, ([a, a],), (2, 2, 3))}[name]
        out = T.empty(shape)
        assert fn(*args, out=out) is out
        return out.tolist()
    assert run(rg) == run(torch)


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
    _same_error_expr(src)


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
    _same_error_expr(src.replace("out=O", "out=T.empty(0)"))


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
