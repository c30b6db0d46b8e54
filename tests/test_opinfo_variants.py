"""Method, in-place and out= variants against PyTorch (findings of the OpInfo variant sweep).

In-place ops without a primitive of their own record the op's node (not a copy node), check the
broadcast shape before the dtype, and refuse leaves; out= writes into (and returns) ``out``,
resizes with PyTorch's warning, and refuses bad dtypes with PyTorch's messages.
"""
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


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
