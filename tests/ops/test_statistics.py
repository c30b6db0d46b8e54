"""Tests of the statistics ops (src/retrograd/_ops/statistics.py), checked against PyTorch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
import retrograd as R
import retrograd as rg

torch = pytest.importorskip("torch")

from ._nn_linalg_helpers import _close  # noqa: E402
from ._reduce_shape_helpers import _grads_match  # noqa: E402
from ._reduction_helpers import LIBS, _both as _both_reduce, _np as _np_reduce  # noqa: E402
from ._ties_helpers import _both as _both_ties, _same as _same_ties  # noqa: E402
from ._compare_helpers import _both as _both_ops, _raises_like, _same as _same_ops  # noqa: E402


def test_cov_keeps_weight_dtype():
    x = np.array([[-4.827, -7.5824, -0.6047], [-1.5412, -1.9719, -4.146]])
    aw = np.array([0.3666, 0.0583, 0.7006], dtype=np.float32)
    outs = [lib.cov(lib.tensor(x), correction=2, aweights=lib.tensor(aw)) for lib in (torch, rg)]
    _close(outs[0], outs[1], 1e-12)
    assert str(outs[1].dtype).split(".")[-1] == "float64"


# ------------------------------------------------------------------ quantile: differentiable in q
@pytest.mark.parametrize("fn", ["quantile", "nanquantile"])
def test_quantile_gradient_flows_into_q(fn):
    x = np.array([[-4.8, -7.5, 1.0, 3.0], [0.5, np.nan if fn == "nanquantile" else 2.0, 1.5, -1.0]])
    q = np.array([0.2318, 0.0788, 0.9])
    _grads_match(lambda lib, a, b: getattr(lib, fn)(a, b), x[0], q)
    _grads_match(lambda lib, a, b: getattr(lib, fn)(a, b, dim=1, keepdim=True), x, q)
    _grads_match(lambda lib, a, b: getattr(lib, fn)(a, b), 2.5, q)  # a 0-d input


@pytest.mark.parametrize("interp", ["lower", "higher", "midpoint", "nearest"])
def test_quantile_other_interpolations_leave_q_without_grad(interp):
    _grads_match(lambda lib, a, b: lib.quantile(a, b, interpolation=interp), [-4.8, -7.5, 1.0, 3.0],
                 [0.2318, 0.5])


def test_var_with_too_large_correction():
    for lib in LIBS:
        with pytest.warns(UserWarning, match=r"var\(\): degrees of freedom is <= 0"):
            lib.tensor([1., 2.]).var(correction=2)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        (_, a), (_, b) = _both_reduce(lambda lib, x: (x.var(correction=5), x.std(correction=2), lib.tensor(2.).var()),
                               [1., 2., 4.])
    for u, v in zip(a, b):
        np.testing.assert_allclose(_np_reduce(u), _np_reduce(v), equal_nan=True)


# ---------------------------------------------------------------- quantile / histc / bincount
def test_quantile_ties_values_and_grads():
    rng = np.random.default_rng(11)
    a = rng.integers(0, 3, size=(4, 33)).astype(np.float64)
    a[0, 3] = np.nan
    for interp in ("linear", "lower", "higher", "midpoint", "nearest"):
        for f in ("quantile", "nanquantile"):
            q = [0.0, 0.25, 0.5, 0.9, 1.0]
            ta, ra = torch.tensor(a, requires_grad=True), R.tensor(a, requires_grad=True)
            tv = getattr(torch, f)(ta, torch.tensor(q, dtype=ta.dtype), dim=1, interpolation=interp)
            rv = getattr(R, f)(ra, R.tensor(q, dtype=ra.dtype), dim=1, interpolation=interp)
            _same_ties(rv, tv.detach(), (f, interp))
            w = np.arange(tv.numel(), dtype=np.float64).reshape(tuple(tv.shape))
            (tv * torch.tensor(w)).sum().backward()
            (rv * R.tensor(w)).sum().backward()
            np.testing.assert_allclose(ra.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_quantile_float32_ranks():
    a = np.array([[2.0, 2.0], [1.0, 2.0], [2.0, 0.0], [-1.0, 1.0], [-1.0, 0.0]], np.float32)
    _both_ties(lambda L, x: L.quantile(x, 0.3, dim=0), a, False)


def test_histc_edges_and_bincount():
    rng = np.random.default_rng(13)
    for _ in range(300):
        a = (rng.standard_normal(int(rng.integers(0, 20))) * rng.choice([1e-3, 1.0, 100.0]))
        a = (np.round(a * 4) / 4 if rng.random() < 0.4 else a).astype(rng.choice([np.float32, np.float64]))
        bins = int(rng.integers(1, 12))
        mn, mx = [(0, 0), (-1, 1), (0.1, 0.7), (-2.5, 3.3)][int(rng.integers(0, 4))]
        _both_ties(lambda L, x: L.histc(x, bins, mn, mx), a, False, (bins, mn, mx))
    _both_ties(lambda L, x: L.histc(x, 6), np.array(-0.19148093, np.float32), False)
    idx = rng.integers(0, 5, size=40)
    for w in (rng.standard_normal(40).astype(np.float32), rng.standard_normal(40), rng.integers(0, 3, 40)):
        _both_ties(lambda L, x: L.bincount(x, L.tensor(w), minlength=7), idx, False)
    _both_ties(lambda L, x: L.bincount(x, L.tensor(np.zeros(0, np.float32)), minlength=3), np.zeros(0, np.int64), False)


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_nan_rows(interp):
    a = np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 1.0, 4.0, 3.0], [np.nan] * 4])
    r, t = _both_ops(a)
    for q in (0.0, 0.4, 1.0):
        _same_ops(retrograd.quantile(r, q, 1, interpolation=interp), torch.quantile(t, q, 1, interpolation=interp))
        _same_ops(retrograd.nanquantile(r, q, 1, interpolation=interp), torch.nanquantile(t, q, 1, interpolation=interp))
    qs = _both_ops(np.array([0.2, 0.7]))
    _same_ops(retrograd.nanquantile(r, qs[0], 1, True), torch.nanquantile(t, qs[1], 1, True))
    _same_ops(retrograd.nanquantile(r, 0.5), torch.nanquantile(t, 0.5))
    _same_ops(retrograd.quantile(r, 0.5), torch.quantile(t, 0.5))


def test_quantile_errors():
    _raises_like(lambda L: L.quantile(L.tensor([1, 2]), 0.5))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), 1.5))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor([0.5, 2.0])))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), 0.5, interpolation="cubic"))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor([0.5], dtype=L.float64)))


def test_histogram_with_bin_tensor_weight_density():
    x = np.random.default_rng(0).uniform(-2, 2, 20)
    r, t = _both_ops(x)
    br, bt = _both_ops(np.array([-2.0, -0.5, 0.5, 2.0]))
    w = _both_ops(np.random.default_rng(1).uniform(0, 1, 20))
    for kw in ({}, {"density": True}):
        o, e = retrograd.histogram(r, br, weight=w[0], **kw)
        to, te = torch.histogram(t, bt, weight=w[1], **kw)
        _same_ops(o, to)
        _same_ops(e, te)
    res = retrograd.histogram(r, 5, range=(-1.0, 1.0), density=True)
    tres = torch.histogram(t, 5, range=(-1.0, 1.0), density=True)
    assert type(res).__name__ == "histogram" and res._fields == ("hist", "bin_edges")
    _same_ops(res.hist, tres.hist)
    _same_ops(res.bin_edges, tres.bin_edges)
    _raises_like(lambda L: L.histogram(L.tensor([1.0, 2.0]), L.tensor([0.0, 1.0], dtype=L.float64)))


def test_bincount_and_histc():
    idx = _both_ops(np.array([0, 3, 3, 1]))
    w32 = _both_ops(np.array([0.5, 1.0, 2.0, 3.0], dtype=np.float32))
    wi = _both_ops(np.array([1, 2, 3, 4]))
    _same_ops(retrograd.bincount(idx[0], w32[0]), torch.bincount(idx[1], w32[1]))
    _same_ops(retrograd.bincount(idx[0], wi[0], 6), torch.bincount(idx[1], wi[1], 6))
    _same_ops(retrograd.bincount(retrograd.tensor([], dtype=retrograd.int64)),
          torch.bincount(torch.tensor([], dtype=torch.int64)))
    _raises_like(lambda L: L.bincount(L.tensor([-1, 2])))
    _raises_like(lambda L: L.bincount(L.tensor([1.0, 2.0])))
    c = _both_ops(np.array([1.0, 1.0, 1.0]))
    _same_ops(retrograd.histc(c[0], 4), torch.histc(c[1], 4))
    o = _both_ops(np.array([-3.0, 0.0, 0.5, 1.0, 7.0]))
    _same_ops(retrograd.histc(o[0], 3, -1, 1), torch.histc(o[1], 3, -1, 1))


def test_mvlgamma_domain_error_and_cov_weights():
    _same_ops(retrograd.mvlgamma(retrograd.tensor([0.5, 3.0]), 2), torch.mvlgamma(torch.tensor([0.5, 3.0]), 2), 1e-6)
    _raises_like(lambda L: L.mvlgamma(L.tensor([2.0]), 0))
    x = _both_ops(np.random.default_rng(4).uniform(-1, 1, (2, 5)))
    fw = _both_ops(np.array([1, 2, 1, 1, 3]))
    aw = _both_ops(np.array([0.5, 1.0, 0.2, 0.9, 0.4]))
    _same_ops(retrograd.cov(x[0], correction=2, fweights=fw[0], aweights=aw[0]),
          torch.cov(x[1], correction=2, fweights=fw[1], aweights=aw[1]))
    _same_ops(retrograd.cov(x[0], aweights=aw[0]), torch.cov(x[1], aweights=aw[1]))
    i = _both_ops(np.array([[1, 2, 4], [0, 3, 3]]))
    _same_ops(retrograd.cov(i[0]), torch.cov(i[1]), atol=1e-6)
    _same_ops(retrograd.corrcoef(i[0]), torch.corrcoef(i[1]), atol=1e-6)


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("value", [0.1, 1.336527949436392, -7.3, 1e-3])
def test_std_var_of_equal_values_is_exactly_zero(value, dtype):
    # PyTorch's Welford pass keeps the mean exact for equal values; a two-pass formula leaves ~1e-16
    x = np.full((2, 7), value)
    for name in ("std", "var"):
        for dim in (1, 0):
            r = getattr(rg.tensor(x, dtype=getattr(rg, dtype)), name)(dim)
            t = getattr(torch.tensor(x, dtype=getattr(torch, dtype)), name)(dim)
            assert r.tolist() == t.tolist() == [0.0] * t.numel()


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("shape, dim", [((2, 7), None), ((1, 7), 1), ((7, 1), 0), ((7,), 0)])
def test_std_var_with_one_result_sum_squares_in_double(shape, dim, dtype):
    # one output element: PyTorch's std_var_all_cpu (mean in the input's dtype, then the squared
    # deviations summed in double), which is not 0 for equal values whose mean rounds
    x = np.full(shape, 1.336527949436392) + (np.arange(np.prod(shape)).reshape(shape) % 2) * 0.25
    for values in (np.full(shape, 1.336527949436392), x):
        for name in ("std", "var"):
            r = getattr(rg.tensor(values, dtype=getattr(rg, dtype)), name)(dim)
            t = getattr(torch.tensor(values, dtype=getattr(torch, dtype)), name)(dim)
            # the mean: NumPy's pairwise sum vs ATen's cascade sum of at most 14 terms, a few roundings
            eps = float(np.finfo(dtype).eps)
            np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=8 * eps, atol=8 * eps * abs(values).max())


@pytest.mark.parametrize("values, correction", [([0.0], 1), (0.0, 1), ([1.0, 2.0], 2)])
def test_var_gradient_without_degrees_of_freedom_is_a_constant(values, correction):
    # PyTorch's var_backward: grad * where(x == mean, nan, inf), not differentiable again
    out = []
    for L in (rg, torch):
        x = L.tensor(values, dtype=L.float64, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            g, = L.autograd.grad(x.var(correction=correction), x, create_graph=True)
        out.append((str(g.tolist()), g.requires_grad))  # (str: NaN == NaN)
    assert out[0] == out[1]
