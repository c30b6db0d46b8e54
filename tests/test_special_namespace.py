"""retrograd.special against torch.special: values over wide ranges and at edge values,
dtypes, first and second derivatives, grad_fn names, the derivatives torch refuses and the
errors for bad arguments.  (tests/op_db/special_fns.py adds the generic op-table checks.)"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd.special as rs

torch = pytest.importorskip("torch")
ts = torch.special

INF, NAN = float("inf"), float("nan")
WIDE = np.concatenate([np.linspace(-40.0, 40.0, 4001), -np.logspace(-300, 300, 121), np.logspace(-300, 300, 121),
                       [0.0, -0.0, INF, -INF, NAN]])
PROB = np.concatenate([np.linspace(0.0, 1.0, 2001), np.logspace(-320, -1, 200), 1 - np.logspace(-16, -1, 60),
                       [-1.0, 2.0, NAN]])


def _pair(values, dtype="float64", grad=False):
    a = np.array(values, dtype=dtype)
    r = retrograd.from_numpy(a.copy())
    t = torch.from_numpy(a.copy())
    if grad:
        r.requires_grad_(True)
        t.requires_grad_(True)
    return r, t


def _np(x):
    return x.detach().numpy() if isinstance(x, retrograd.Tensor) else x.detach().numpy()


def _close(ours, theirs, rtol=1e-12, atol=0.0):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=rtol, atol=atol, equal_nan=True)


# ---------------------------------------------------------------------------- the namespace itself
def test_names_are_torch_special_names():
    torch_names = {n for n in dir(ts) if not n.startswith("_")}
    assert set(rs.__all__) <= torch_names
    for name in rs.__all__:
        assert callable(getattr(rs, name)), name


def test_aliases_are_the_existing_ops():
    assert rs.expit is retrograd.sigmoid
    assert rs.gammaln is retrograd.lgamma
    assert rs.psi is retrograd.digamma
    assert rs.multigammaln is retrograd.mvlgamma
    assert rs.i0 is retrograd.i0
    assert rs.xlogy is retrograd.xlogy


def test_signature_wrappers_match_torch():
    r, t = _pair([[0.5, -1.25, 2.0], [3.0, 0.1, -0.7]], grad=True)
    for f in ("softmax", "log_softmax"):
        _close(getattr(rs, f)(r, 1), getattr(ts, f)(t, 1))
        _close(getattr(rs, f)(r.float(), 0, dtype=retrograd.float64), getattr(ts, f)(t.float(), 0, dtype=torch.float64))
    o, p = rs.round(r), ts.round(t)
    _close(o, p)
    assert type(o.grad_fn).__name__ == type(p.grad_fn).__name__ == "RoundBackward1"
    _close(rs.round(r, decimals=1), ts.round(t, decimals=1))
    _close(rs.logsumexp(r, 1, keepdim=True), ts.logsumexp(t, 1, keepdim=True))
    _close(rs.multigammaln(r.abs() + 2, 3), ts.multigammaln(t.abs() + 2, 3))
    _close(rs.logit(r.sigmoid(), 1e-3), ts.logit(t.sigmoid(), 1e-3))


# ---------------------------------------------------------------------------- values
# (name, domain, rtol, atol): atol covers only what torch itself gets less right
UNARY = [
    ("entr", WIDE, 1e-14, 0.0),
    ("ndtr", WIDE, 1e-13, 2e-16),  # torch: 0.5 * (1 + erf(x / sqrt 2)) loses the far left tail
    ("log_ndtr", WIDE, 1e-12, 0.0),
    ("erfcx", WIDE, 1e-12, 0.0),
    ("i0e", WIDE, 1e-13, 0.0),
    ("i1e", WIDE, 1e-13, 0.0),
    ("i1", np.clip(WIDE, -700, 700), 1e-12, 0.0),
    ("ndtri", PROB, 1e-12, 1e-15),
    ("spherical_bessel_j0", WIDE, 1e-13, 1e-16),
    ("modified_bessel_i0", np.clip(WIDE, -700, 700), 1e-13, 0.0),
    ("modified_bessel_i1", np.clip(WIDE, -700, 700), 1e-12, 0.0),
]


@pytest.mark.parametrize("name,domain,rtol,atol", UNARY, ids=[u[0] for u in UNARY])
def test_unary_values_wide_range(name, domain, rtol, atol):
    r, t = _pair(domain)
    with np.errstate(all="ignore"):
        _close(getattr(rs, name)(r), getattr(ts, name)(t), rtol, atol)


@pytest.mark.parametrize("name", [u[0] for u in UNARY])
def test_unary_dtypes(name):
    r, t = _pair([0.25, 0.5, 0.75], "float32")
    _close(getattr(rs, name)(r), getattr(ts, name)(t), 1e-5, 1e-6)
    ri, ti = _pair([0, 1, 2], "int64")
    _close(getattr(rs, name)(ri), getattr(ts, name)(ti), 1e-5, 1e-6)


def test_unary_edge_values():
    r, t = _pair([0.0, -0.0, 1.0, -1.0, INF, -INF, NAN, 1e-310, -1e-310])
    for name, *_ in UNARY:
        with np.errstate(all="ignore"):
            ours, theirs = getattr(rs, name)(r), getattr(ts, name)(t)
        np.testing.assert_array_equal(np.isnan(_np(ours)), np.isnan(_np(theirs)), err_msg=name)
        np.testing.assert_array_equal(np.isinf(_np(ours)), np.isinf(_np(theirs)), err_msg=name)
        _close(ours, theirs, 1e-13)


def test_xlog1py_values_and_edges():
    x = np.array([0.0, 0.0, 0.0, 2.0, -1.5, 3.0, 0.0, INF, NAN])
    y = np.array([-1.0, -2.0, NAN, 0.5, 1e-20, -1.0, INF, 2.0, 1.0])
    (rx, tx), (ry, ty) = _pair(x), _pair(y)
    _close(rs.xlog1py(rx, ry), ts.xlog1py(tx, ty))
    _close(rs.xlog1py(2.5, ry), ts.xlog1py(2.5, ty))
    _close(rs.xlog1py(rx, 0.5), ts.xlog1py(tx, 0.5))
    ri, ti = _pair([0, 1, 2], "int64")
    _close(rs.xlog1py(ri, ri), ts.xlog1py(ti, ti), 1e-6)


def test_zeta_values_and_edges():
    s = np.array([1.0, 1.5, 2.0, 3.0, 4.5, 10.0, 30.0, 0.5, -2.0, INF, NAN])
    q = np.concatenate([np.linspace(-5, 5, 41), np.logspace(-3, 3, 13), [INF, -INF, NAN]])
    S, Q = np.meshgrid(s, q)
    (rs_, ts_), (rq, tq) = _pair(S), _pair(Q)
    _close(rs.zeta(rs_, rq), ts.zeta(ts_, tq), 1e-12)
    _close(rs.zeta(2.0, rq), ts.zeta(2.0, tq), 1e-12)
    _close(rs.zeta(rs_, 1.5), ts.zeta(ts_, 1.5), 1e-12)


def test_incomplete_gamma_values_and_edges():
    a = np.logspace(-3, 3, 31)
    x = np.concatenate([np.logspace(-5, 4, 46), [0.0]])
    A, X = np.meshgrid(a, x)
    (ra, ta), (rx, tx) = _pair(A), _pair(X)
    # torch's large-a asymptotic branch is good to ~2e-9 (ours to ~1e-12, checked against mpmath)
    _close(rs.gammainc(ra, rx), ts.gammainc(ta, tx), 1e-8, 1e-12)
    _close(rs.gammaincc(ra, rx), ts.gammaincc(ta, tx), 1e-8, 1e-12)
    edges_a = [0.0, 0.0, 1.0, -1.0, 1.0, INF, INF, 2.0, 0.0, NAN, 1.0]
    edges_x = [0.0, 1.0, 0.0, 1.0, -1.0, 1.0, INF, INF, INF, 1.0, NAN]
    (ra, ta), (rx, tx) = _pair(edges_a), _pair(edges_x)
    _close(rs.gammainc(ra, rx), ts.gammainc(ta, tx))
    _close(rs.gammaincc(ra, rx), ts.gammaincc(ta, tx))
    _close(retrograd.igamma(ra, rx), torch.igamma(ta, tx))
    _close(ra.igammac(rx), ta.igammac(tx))


def test_out_argument():
    r, t = _pair([0.2, 0.4])
    out_r, out_t = retrograd.empty(2, dtype=retrograd.float64), torch.empty(2, dtype=torch.float64)
    res = rs.ndtri(r, out=out_r)
    ts.ndtri(t, out=out_t)
    assert res is out_r
    _close(out_r, out_t)


# ---------------------------------------------------------------------------- derivatives
GRADS = [  # (name, call, samples of the differentiated input)
    ("entr", lambda L, x: L.special.entr(x), np.linspace(0.01, 5, 25)),
    ("ndtr", lambda L, x: L.special.ndtr(x), np.linspace(-8, 8, 25)),
    ("ndtri", lambda L, x: L.special.ndtri(x), np.linspace(1e-4, 1 - 1e-4, 25)),
    ("log_ndtr", lambda L, x: L.special.log_ndtr(x), np.linspace(-30, 8, 25)),
    ("erfcx", lambda L, x: L.special.erfcx(x), np.linspace(-4, 30, 25)),
    ("i0e", lambda L, x: L.special.i0e(x), np.linspace(-50, 50, 26)),
    ("i1", lambda L, x: L.special.i1(x), np.linspace(-20, 20, 26)),
    ("i1e", lambda L, x: L.special.i1e(x), np.concatenate([np.linspace(-50, 50, 26), [0.0]])),
    ("xlog1py_x", lambda L, x: L.special.xlog1py(x, L.tensor(np.linspace(-0.5, 3, 25))), np.linspace(-2, 2, 25)),
    ("xlog1py_y", lambda L, y: L.special.xlog1py(L.tensor(np.linspace(-2, 2, 25)), y), np.linspace(-0.5, 3, 25)),
    ("xlog1py_scalar_self", lambda L, y: L.special.xlog1py(1.5, y), np.linspace(-0.5, 3, 5)),
    ("xlog1py_scalar_other", lambda L, x: L.special.xlog1py(x, 0.5), np.linspace(-2, 2, 5)),
    ("zeta_q", lambda L, q: L.special.zeta(L.tensor(np.linspace(1.5, 6, 25)), q), np.linspace(0.2, 5, 25)),
    ("zeta_scalar_self", lambda L, q: L.special.zeta(3.0, q), np.linspace(0.2, 5, 5)),
    ("gammainc_x", lambda L, x: L.special.gammainc(L.tensor(np.linspace(0.5, 20, 25)), x), np.linspace(0.1, 25, 25)),
    ("gammaincc_x", lambda L, x: L.special.gammaincc(L.tensor(np.linspace(0.5, 20, 25)), x),
     np.linspace(0.1, 25, 25)),
]


@pytest.mark.parametrize("name,call,values", GRADS, ids=[g[0] for g in GRADS])
def test_first_and_second_derivatives(name, call, values):
    res = []
    for L in (retrograd, torch):
        x = L.tensor(values, dtype=L.float64, requires_grad=True)
        y = call(L, x)
        (g,) = L.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = L.autograd.grad(g.sum(), x, allow_unused=True) if g.requires_grad else (None,)
        res.append((y, g, gg))
    (y, g, gg), (ty, tg, tgg) = res
    assert type(y.grad_fn).__name__ == type(ty.grad_fn).__name__
    _close(g, tg, 1e-10, 1e-300)
    if tgg is None:
        assert gg is None or not np.any(_np(gg))
    else:
        _close(gg, tgg, 1e-9, 1e-300)


def test_grad_masks_of_xlog1py_at_zero():
    for L in (retrograd, torch):
        x = L.tensor([0.0, 0.0, 0.0], dtype=L.float64, requires_grad=True)
        y = L.tensor([-1.0, -2.0, 1.0], dtype=L.float64, requires_grad=True)
        L.special.xlog1py(x, y).sum().backward()
        if L is retrograd:
            ours = (_np(x.grad), _np(y.grad))
        else:
            theirs = (_np(x.grad), _np(y.grad))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a, b, equal_nan=True)


@pytest.mark.parametrize("call,msg", [
    (lambda L, a, x: L.special.zeta(a, x), "the derivative for 'zeta' is not implemented."),
    (lambda L, a, x: L.special.zeta(a, 2.0), "the derivative for 'zeta' is not implemented."),
    (lambda L, a, x: L.special.gammainc(a, x), "the derivative for 'igamma: input' is not implemented."),
    (lambda L, a, x: L.special.gammaincc(a, x), "the derivative for 'igammac: input' is not implemented."),
])
def test_derivatives_torch_refuses(call, msg):
    for L in (retrograd, torch):
        a = L.tensor([2.0, 3.0], dtype=L.float64, requires_grad=True)
        x = L.tensor([0.5, 1.5], dtype=L.float64)
        y = call(L, a, x)
        assert y.requires_grad
        with pytest.raises(NotImplementedError) as info:
            y.sum().backward()
        assert str(info.value) == msg


@pytest.mark.parametrize("name", ["spherical_bessel_j0", "modified_bessel_i0", "modified_bessel_i1"])
def test_not_differentiable_outputs_do_not_require_grad(name):
    for L in (retrograd, torch):
        x = L.tensor([0.5, 1.5], requires_grad=True)
        y = getattr(L.special, name)(x)
        assert not y.requires_grad and y.grad_fn is None


# ---------------------------------------------------------------------------- errors
@pytest.mark.parametrize("call", [
    lambda L: L.special.entr(1.0),
    lambda L: L.special.ndtri([0.5]),
    lambda L: L.special.zeta(2.0, 3.0),
    lambda L: L.special.xlog1py(2.0, 3.0),
    lambda L: L.special.gammainc(L.tensor([1.0]), 2.0),
    lambda L: L.special.gammaincc(2.0, L.tensor([1.0])),
    lambda L: L.igamma(L.tensor([1.0]), 2.0),
])
def test_bad_arguments_raise_torch_errors(call):
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(retrograd)
    assert str(ours.value) == str(theirs.value)
