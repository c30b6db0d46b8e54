"""misc_more ops: what the op table cannot express (errors, NaN handling, bins tensors,
random sampling, in-place dtype rules, derivatives torch itself cannot take)."""
import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


def _both(a):
    return retrograd.tensor(a), torch.tensor(a)


def _same(ours, theirs, atol=1e-12):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=atol, rtol=1e-7, equal_nan=True)


def _raises_like(fn, exc=RuntimeError):
    """fn(lib) raises the same exception type with the same message in both libraries."""
    with pytest.raises(exc) as theirs:
        fn(torch)
    with pytest.raises(exc) as ours:
        fn(retrograd)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("interp", ["linear", "lower", "higher", "midpoint", "nearest"])
def test_quantile_nan_rows(interp):
    a = np.array([[1.0, np.nan, 3.0, 0.5], [2.0, 1.0, 4.0, 3.0], [np.nan] * 4])
    r, t = _both(a)
    for q in (0.0, 0.4, 1.0):
        _same(retrograd.quantile(r, q, 1, interpolation=interp), torch.quantile(t, q, 1, interpolation=interp))
        _same(retrograd.nanquantile(r, q, 1, interpolation=interp), torch.nanquantile(t, q, 1, interpolation=interp))
    qs = _both(np.array([0.2, 0.7]))
    _same(retrograd.nanquantile(r, qs[0], 1, True), torch.nanquantile(t, qs[1], 1, True))
    _same(retrograd.nanquantile(r, 0.5), torch.nanquantile(t, 0.5))
    _same(retrograd.quantile(r, 0.5), torch.quantile(t, 0.5))


def test_quantile_errors():
    _raises_like(lambda L: L.quantile(L.tensor([1, 2]), 0.5))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), 1.5))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor([0.5, 2.0])))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), 0.5, interpolation="cubic"))
    _raises_like(lambda L: L.quantile(L.tensor([1.0, 2.0]), L.tensor([0.5], dtype=L.float64)))


def test_histogram_with_bin_tensor_weight_density():
    x = np.random.default_rng(0).uniform(-2, 2, 20)
    r, t = _both(x)
    br, bt = _both(np.array([-2.0, -0.5, 0.5, 2.0]))
    w = _both(np.random.default_rng(1).uniform(0, 1, 20))
    for kw in ({}, {"density": True}):
        o, e = retrograd.histogram(r, br, weight=w[0], **kw)
        to, te = torch.histogram(t, bt, weight=w[1], **kw)
        _same(o, to)
        _same(e, te)
    res = retrograd.histogram(r, 5, range=(-1.0, 1.0), density=True)
    tres = torch.histogram(t, 5, range=(-1.0, 1.0), density=True)
    assert type(res).__name__ == "histogram" and res._fields == ("hist", "bin_edges")
    _same(res.hist, tres.hist)
    _same(res.bin_edges, tres.bin_edges)
    _raises_like(lambda L: L.histogram(L.tensor([1.0, 2.0]), L.tensor([0.0, 1.0], dtype=L.float64)))


def test_bincount_and_histc():
    idx = _both(np.array([0, 3, 3, 1]))
    w32 = _both(np.array([0.5, 1.0, 2.0, 3.0], dtype=np.float32))
    wi = _both(np.array([1, 2, 3, 4]))
    _same(retrograd.bincount(idx[0], w32[0]), torch.bincount(idx[1], w32[1]))
    _same(retrograd.bincount(idx[0], wi[0], 6), torch.bincount(idx[1], wi[1], 6))
    _same(retrograd.bincount(retrograd.tensor([], dtype=retrograd.int64)),
          torch.bincount(torch.tensor([], dtype=torch.int64)))
    _raises_like(lambda L: L.bincount(L.tensor([-1, 2])))
    _raises_like(lambda L: L.bincount(L.tensor([1.0, 2.0])))
    c = _both(np.array([1.0, 1.0, 1.0]))
    _same(retrograd.histc(c[0], 4), torch.histc(c[1], 4))
    o = _both(np.array([-3.0, 0.0, 0.5, 1.0, 7.0]))
    _same(retrograd.histc(o[0], 3, -1, 1), torch.histc(o[1], 3, -1, 1))


def test_heaviside_at_zero_and_grad_refused():
    r, t = _both(np.array([-1.0, 0.0, 2.0, 0.0]))
    v = _both(np.array([0.25, 0.5, 0.75, 1.0]))
    _same(retrograd.heaviside(r, v[0]), torch.heaviside(t, v[1]))
    _raises_like(lambda L: L.heaviside(L.tensor([1.0]), L.tensor([1])))
    x = retrograd.tensor([0.0, 1.0], requires_grad=True)
    y = retrograd.heaviside(x, retrograd.tensor([0.5, 0.5]))
    assert type(y.grad_fn).__name__ == "NotImplemented"
    with pytest.raises(RuntimeError, match="not implemented"):
        y.sum().backward()


def test_integer_ops_and_inplace_dtype_rules():
    a, b = _both(np.array([0, -4, 6, 15])), _both(np.array([0, 6, -4, 10]))
    _same(retrograd.gcd(a[0], b[0]), torch.gcd(a[1], b[1]))
    _same(retrograd.lcm(a[0], b[0]), torch.lcm(a[1], b[1]))
    _raises_like(lambda L: L.gcd(L.tensor([1.0]), L.tensor([2.0])))
    _raises_like(lambda L: L.tensor([1, 2]).ldexp_(L.tensor([1, 1])))
    _raises_like(lambda L: L.tensor([1, 2]).i0_())
    x, e = _both(np.array([1.0, -3.0])), _both(np.array([2, -1]))
    _same(retrograd.ldexp(x[0], e[0]), torch.ldexp(x[1], e[1]))
    _same(retrograd.ldexp(e[0], e[0]), torch.ldexp(e[1], e[1]))


def test_frexp_nextafter_signbit():
    a = np.array([0.0, -0.0, 3.5, -1e-3, 1e10])
    r, t = _both(a)
    m, e = retrograd.frexp(r)
    tm, te = torch.frexp(t)
    _same(m, tm)
    _same(e, te)
    _raises_like(lambda L: L.frexp(L.tensor([1, 2])))
    o = _both(np.array([1.0, -1.0, 0.0, 3.0, 0.0]))
    _same(retrograd.nextafter(r, o[0]), torch.nextafter(t, o[1]))
    _same(retrograd.signbit(r), torch.signbit(t))


def test_i0_large_and_second_derivative():
    r, t = _both(np.array([-6.0, -0.3, 0.0, 0.7, 5.0, 12.0]))
    _same(retrograd.i0(r), torch.i0(t), atol=1e-9)
    for lib, x in ((retrograd, r), (torch, t)):
        x.requires_grad_(True)
    g1 = retrograd.autograd.grad(retrograd.i0(r).sum(), r, create_graph=True)[0]
    tg1 = torch.autograd.grad(torch.i0(t).sum(), t, create_graph=True)[0]
    _same(g1, tg1, atol=1e-9)
    _same(retrograd.autograd.grad(g1.sum(), r)[0], torch.autograd.grad(tg1.sum(), t)[0], atol=1e-9)


def test_vander_grad_by_gradcheck():
    # torch's own vander backward fails (an in-place cumprod), so check ours numerically
    x = retrograd.tensor([0.5, -1.2, 2.0], dtype=retrograd.float64, requires_grad=True)
    assert retrograd.autograd.gradcheck(lambda x: retrograd.vander(x, 4), (x,))
    assert retrograd.autograd.gradgradcheck(lambda x: retrograd.vander(x, 4, True), (x,))


def test_matrix_exp_large_norm_and_grad():
    a = np.random.default_rng(3).uniform(-4, 4, (2, 3, 3))
    r, t = _both(a)
    r.requires_grad_(True)
    t.requires_grad_(True)
    _same(retrograd.linalg.matrix_exp(r), torch.linalg.matrix_exp(t), atol=1e-8)
    g = retrograd.autograd.grad(retrograd.matrix_exp(r).sum(), r)[0]
    tg = torch.autograd.grad(torch.matrix_exp(t).sum(), t)[0]
    _same(g, tg, atol=1e-7)
    _raises_like(lambda L: L.matrix_exp(L.ones(2, 3)))


def test_logcumsumexp_extremes():
    r, t = _both(np.array([-1000.0, 0.0, 1000.0, -np.inf]))
    _same(retrograd.logcumsumexp(r, 0), torch.logcumsumexp(t, 0))
    _raises_like(lambda L: L.logcumsumexp(L.tensor([1, 2]), 0), NotImplementedError)
    x = retrograd.tensor([-1000.0, 0.0, 1000.0], dtype=retrograd.float64, requires_grad=True)
    tx = torch.tensor([-1000.0, 0.0, 1000.0], dtype=torch.float64, requires_grad=True)
    gw = [1.0, -2.0, 0.5]
    retrograd.logcumsumexp(x, 0).backward(retrograd.tensor(gw, dtype=retrograd.float64))
    torch.logcumsumexp(tx, 0).backward(torch.tensor(gw, dtype=torch.float64))
    _same(x.grad, tx.grad)


def test_splits_errors_and_diff_errors():
    _raises_like(lambda L: L.hsplit(L.ones(2, 3), 2))
    _raises_like(lambda L: L.vsplit(L.ones(3), 1))
    _raises_like(lambda L: L.dsplit(L.ones(2, 2), 1))
    _raises_like(lambda L: L.diff(L.ones(2, 3), prepend=L.ones(3, 1)))
    _raises_like(lambda L: L.diff(L.tensor(1.0)))
    b = _both(np.array([True, False, False, True]))
    _same(retrograd.diff(b[0]), torch.diff(b[1]))
    x = _both(np.array([1.0, 4.0, 9.0]))
    _same(retrograd.diff(x[0], 3), torch.diff(x[1], 3))


def test_index_helpers():
    i = _both(np.array([[0, 5], [11, -12]]))
    ours, theirs = retrograd.unravel_index(i[0], (3, 4)), torch.unravel_index(i[1], (3, 4))
    assert len(ours) == len(theirs)
    for o, t in zip(ours, theirs):
        _same(o, t)
    w = _both(np.array([12, -13, 23]))  # torch wraps out-of-range indices
    for o, t in zip(retrograd.unravel_index(w[0], (3, 4)), torch.unravel_index(w[1], (3, 4))):
        _same(o, t)
    _same(retrograd.tril_indices(3, 4, dtype=retrograd.int32), torch.tril_indices(3, 4, dtype=torch.int32))
    _same(retrograd.triu_indices(0, 3), torch.triu_indices(0, 3))
    v = _both(np.array([1.0, 2.0, 3.0]))
    _same(retrograd.combinations(v[0], 0), torch.combinations(v[1], 0))
    _same(retrograd.combinations(v[0], 4), torch.combinations(v[1], 4))
    _same(retrograd.cartesian_prod(v[0]), torch.cartesian_prod(v[1]))
    _same(retrograd.isin(2, retrograd.tensor([1, 2])), torch.isin(2, torch.tensor([1, 2])))
    _same(retrograd.block_diag(retrograd.ones(2, 0), retrograd.ones(1, 2)),
          torch.block_diag(torch.ones(2, 0), torch.ones(1, 2)))
    _raises_like(lambda L: L.block_diag(L.ones(1, 1, 1)))
    _same(retrograd.block_diag(retrograd.tensor([1, 2]), retrograd.tensor([[0.5]])),
          torch.block_diag(torch.tensor([1, 2]), torch.tensor([[0.5]])))


def test_scatter_helpers_errors_and_no_aliasing():
    _raises_like(lambda L: L.select_scatter(L.zeros(2, 2), L.ones(3), 0, 0))
    x = retrograd.zeros(2, 2)
    y = retrograd.slice_scatter(x, retrograd.ones(1, 2), 0, 0, 1)
    assert x.sum().item() == 0 and y.sum().item() == 2
    n = retrograd.narrow_copy(x, 0, 0, 1)
    n.add_(1)
    assert x.sum().item() == 0


def test_poisson_seeded_and_rates():
    rates = retrograd.tensor([0.0, 1.0, 50.0]).expand(4000, 3)
    retrograd.manual_seed(0)
    a = retrograd.poisson(rates)
    retrograd.manual_seed(0)
    b = retrograd.poisson(rates)
    assert np.array_equal(a.numpy(), b.numpy()) and a.dtype == retrograd.float32
    np.testing.assert_allclose(a.numpy().mean(0), [0.0, 1.0, 50.0], rtol=0.05, atol=1e-12)
    g = retrograd.Generator().manual_seed(3)
    assert retrograd.poisson(rates[:1], generator=g).shape == (1, 3)
    _raises_like(lambda L: L.poisson(L.tensor([-1.0])))
    assert not retrograd.poisson(retrograd.ones(2, requires_grad=True)).requires_grad


def test_mvlgamma_domain_error_and_cov_weights():
    _same(retrograd.mvlgamma(retrograd.tensor([0.5, 3.0]), 2), torch.mvlgamma(torch.tensor([0.5, 3.0]), 2), 1e-6)
    _raises_like(lambda L: L.mvlgamma(L.tensor([2.0]), 0))
    x = _both(np.random.default_rng(4).uniform(-1, 1, (2, 5)))
    fw = _both(np.array([1, 2, 1, 1, 3]))
    aw = _both(np.array([0.5, 1.0, 0.2, 0.9, 0.4]))
    _same(retrograd.cov(x[0], correction=2, fweights=fw[0], aweights=aw[0]),
          torch.cov(x[1], correction=2, fweights=fw[1], aweights=aw[1]))
    _same(retrograd.cov(x[0], aweights=aw[0]), torch.cov(x[1], aweights=aw[1]))
    i = _both(np.array([[1, 2, 4], [0, 3, 3]]))
    _same(retrograd.cov(i[0]), torch.cov(i[1]), atol=1e-6)
    _same(retrograd.corrcoef(i[0]), torch.corrcoef(i[1]), atol=1e-6)


def test_dist_special_norms_and_zero_distance():
    a, b = _both(np.array([1.0, 2.0, 0.0])), _both(np.array([1.0, 3.0, 2.0]))
    for p in (0, -float("inf"), 0.5):
        _same(retrograd.dist(a[0], b[0], p), torch.dist(a[1], b[1], p))
    _raises_like(lambda L: L.dist(L.tensor([1, 2]), L.tensor([1, 3])))
    x = retrograd.tensor([1.0, 2.0], requires_grad=True)
    retrograd.dist(x, x.detach()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])


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


def test_renorm_errors():
    _raises_like(lambda L: L.renorm(L.ones(2, 2, dtype=L.long), 2, 0, 1))
    _raises_like(lambda L: L.renorm(L.ones(3), 2, 0, 1))
    _raises_like(lambda L: L.renorm(L.ones(2, 2), -1, 0, 1))


def test_type_checks_and_tri_indices_errors_like_torch():
    def run(T):
        out = []
        for f in (lambda: T.is_floating_point(1.0), lambda: T.is_nonzero(1), lambda: T.is_complex(1.0),
                  lambda: T.is_complex(T.ones(1)), lambda: T.tril_indices(3, 3, dtype=T.float32),
                  lambda: T.tril_indices(-1, 3), lambda: T.triu_indices(3, -2),
                  lambda: T.triu_indices(3, 3, dtype=T.int32).tolist()):
            try:
                out.append(f())
            except (TypeError, RuntimeError, NotImplementedError) as e:
                out.append((type(e).__name__, str(e)))
        return out

    assert run(retrograd) == run(torch)
