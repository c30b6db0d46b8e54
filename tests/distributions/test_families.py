"""The less common distributions of retrograd.distributions (HalfNormal ... Weibull, LowRank MVN,
MixtureSameFamily, VonMises, LKJCholesky, Wishart ...) against torch.distributions."""
import math

import numpy as np
import pytest

import retrograd as R
import retrograd.distributions as RD

torch = pytest.importorskip("torch")

from ._families_helpers import TD, close, pair  # noqa: E402

RNG = np.random.default_rng(1)


def pos(*shape, lo=0.5, hi=3.0):
    return RNG.uniform(lo, hi, size=shape)


def unit(*shape):
    return RNG.uniform(0.05, 0.95, size=shape)


def simplex(*shape):
    x = RNG.uniform(0.1, 1.0, size=shape)
    return x / x.sum(-1, keepdims=True)


ALL = ["log_prob", "entropy", "mean", "mode", "variance"]
# name, kwargs (numpy, differentiable unless listed in the 5th field), value, methods, fixed kwargs
CASES = [
    ("HalfNormal", dict(scale=pos(2, 3)), pos(4, 2, 3), ALL + ["cdf", "icdf"], {}),
    ("HalfCauchy", dict(scale=pos(3)), pos(2, 3), ["log_prob", "entropy", "mode", "variance", "cdf", "icdf"], {}),
    ("Gumbel", dict(loc=RNG.normal(size=3), scale=pos(3)), RNG.normal(size=(2, 3)),
     ALL + ["stddev", "cdf", "icdf"], {}),
    ("Weibull", dict(scale=pos(3), concentration=pos(3, lo=1.2)), pos(2, 3), ALL + ["cdf", "icdf"], {}),
    ("Pareto", dict(scale=pos(3, lo=0.2, hi=0.5), alpha=np.array([0.7, 1.5, 3.0])), pos(2, 3, lo=0.6),
     ALL + ["cdf", "icdf"], {}),
    ("Kumaraswamy", dict(concentration1=pos(3, lo=1.1), concentration0=pos(3, lo=1.1)), unit(2, 3),
     ALL + ["cdf", "icdf"], {}),
    ("InverseGamma", dict(concentration=np.array([0.8, 1.5, 3.0]), rate=pos(3)), pos(2, 3), ALL, {}),
    ("FisherSnedecor", dict(df1=np.array([1.5, 3.0, 6.0]), df2=np.array([1.5, 3.0, 6.0])), pos(2, 3),
     ["log_prob", "mean", "mode", "variance"], {}),
    ("VonMises", dict(loc=RNG.normal(size=4), concentration=np.array([0.3, 2.0, 3.9, 8.0])),
     RNG.uniform(-3, 3, size=(2, 4)), ["log_prob", "mean", "mode", "variance"], {}),
    ("ContinuousBernoulli", dict(probs=np.array([0.1, 0.4995, 0.7, 0.95])), unit(2, 4),
     ["log_prob", "entropy", "mean", "variance", "stddev", "cdf", "icdf", "logits"], {}),
    ("ContinuousBernoulli", dict(logits=RNG.normal(size=3)), unit(3), ["log_prob", "entropy", "mean", "probs"], {}),
    ("GeneralizedPareto", dict(loc=RNG.normal(size=4), scale=pos(4), concentration=np.array([-0.3, 0.0, 0.2, 0.6])),
     None, ["entropy", "mean", "mode", "variance", "icdf"], {}),
    ("NegativeBinomial", dict(probs=unit(4)), np.array([0.0, 1.0, 3.0, 7.0]), ALL[:1] + ["mean", "mode", "variance", "logits"],
     dict(total_count=np.array([1.0, 2.5, 4.0, 7.0]))),
    ("NegativeBinomial", dict(logits=RNG.normal(size=3), total_count=pos(3)), np.array([0.0, 2.0, 5.0]),
     ["log_prob", "mean", "variance", "probs"], {}),
    ("Multinomial", dict(probs=simplex(2, 3)), np.array([[1.0, 0.0, 3.0], [2.0, 1.0, 1.0]]),
     ["log_prob", "entropy", "mean", "variance", "logits"], dict(total_count=4)),
    ("Multinomial", dict(logits=RNG.normal(size=4)), np.array([0.0, 2.0, 1.0, 2.0]),
     ["log_prob", "mean", "probs"], dict(total_count=5)),
    ("LogisticNormal", dict(loc=RNG.normal(size=(2, 3)), scale=pos(2, 3)), simplex(2, 4), ["log_prob"], {}),
    ("RelaxedBernoulli", dict(probs=unit(3)), unit(2, 3), ["log_prob"], dict(temperature=np.array(0.7))),
    ("RelaxedBernoulli", dict(logits=RNG.normal(size=3)), unit(3), ["log_prob", "probs"],
     dict(temperature=np.array(1.3))),
    ("RelaxedOneHotCategorical", dict(probs=simplex(2, 3)), simplex(2, 3), ["log_prob", "logits"],
     dict(temperature=np.array(0.6))),
    ("RelaxedOneHotCategorical", dict(logits=RNG.normal(size=4)), simplex(4), ["log_prob"],
     dict(temperature=np.array(2.0))),
    ("OneHotCategoricalStraightThrough", dict(probs=simplex(2, 3)), np.eye(3)[[0, 2]],
     ["log_prob", "entropy", "mean", "mode", "variance"], {}),
]
CASE_IDS = [f"{c[0]}-{'-'.join(c[1])}" for c in CASES]


def _build(lib, name, diff, fixed):
    dist = getattr(lib.distributions if lib is R else TD, name)
    kw = dict(diff)
    for k, v in fixed.items():
        if isinstance(v, np.ndarray):
            kw[k] = (R.tensor(v, dtype=R.float64) if lib is R else torch.tensor(v, dtype=torch.float64))
        else:
            kw[k] = v
    return dist(**kw)


def _eval(d, method, value, q):
    if method in ("log_prob", "cdf"):
        return getattr(d, method)(value)
    if method == "icdf":
        return d.icdf(q)
    if method == "entropy":
        return d.entropy()
    return getattr(d, method)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_values_and_grads(case):
    name, kwargs, value, methods, fixed = case
    rk, tk = {}, {}
    for k, v in kwargs.items():
        rk[k], tk[k] = pair(v, grad=True)
    rd, td = _build(R, name, rk, fixed), _build(torch, name, tk, fixed)
    assert rd.batch_shape == tuple(td.batch_shape) and rd.event_shape == tuple(td.event_shape)
    assert rd.has_rsample == td.has_rsample
    assert type(rd.support).__name__ == type(td.support).__name__
    assert sorted(rd.arg_constraints) == sorted(td.arg_constraints)
    if value is None:  # GeneralizedPareto: points inside each support
        with torch.no_grad():
            value = td.icdf(torch.tensor(unit(3, 4))).numpy()
    rv, tv = pair(value)
    rq, tq = pair(unit(*td.batch_shape))
    r_loss, t_loss = 0.0, 0.0
    for m in methods:
        ro, to = _eval(rd, m, rv, rq), _eval(td, m, tv, tq)
        assert str(ro.dtype).split(".")[-1] == str(to.dtype).split(".")[-1], m
        close(ro, to)
        if to.requires_grad and m != "mode":
            finite = torch.isfinite(to).detach().numpy().astype(float)
            r_loss = r_loss + (ro * R.tensor(finite)).nan_to_num().sum()
            t_loss = t_loss + (to * torch.tensor(finite)).nan_to_num().sum()
    params = list(kwargs)
    r_grads = R.autograd.grad(r_loss, [rk[p] for p in params], allow_unused=True)
    t_grads = torch.autograd.grad(t_loss, [tk[p] for p in params], allow_unused=True)
    for p, rg, tg in zip(params, r_grads, t_grads):
        if tg is None:
            assert rg is None or not rg.detach().numpy().any(), p
        else:
            close(rg, tg, rtol=1e-7, atol=1e-9)


@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_expand_and_seeded_samples(case):
    name, kwargs, _, _, fixed = case
    rk, tk = {}, {}
    for k, v in kwargs.items():
        rk[k], tk[k] = pair(v)
    rd, td = _build(R, name, rk, fixed), _build(torch, name, tk, fixed)
    new = (5,) + tuple(td.batch_shape)
    re_, te_ = rd.expand(new), td.expand(new)
    assert type(re_) is type(rd) and re_.batch_shape == tuple(te_.batch_shape)
    assert re_.event_shape == tuple(te_.event_shape)
    R.manual_seed(3)
    torch.manual_seed(3)
    rs, ts = re_.sample((2,)), te_.sample((2,))
    assert rs.shape == tuple(ts.shape) and not rs.requires_grad
    # Our Gamma sampler (also behind Poisson) draws a different stream from torch's.
    if name not in ("NegativeBinomial", "InverseGamma", "FisherSnedecor"):
        close(rs, ts, rtol=1e-7, atol=1e-9)


def test_rsample_gradients():
    # Pathwise gradients of samples drawn from the same seed.
    for name, kwargs in [("HalfNormal", dict(scale=pos(3))), ("Gumbel", dict(loc=pos(3), scale=pos(3))),
                         ("Weibull", dict(scale=pos(3), concentration=pos(3))),
                         ("Kumaraswamy", dict(concentration1=pos(3), concentration0=pos(3))),
                         ("GeneralizedPareto", dict(loc=pos(3), scale=pos(3), concentration=np.array([-0.2, 0.0, 0.3]))),
                         ("ContinuousBernoulli", dict(probs=unit(3))),
                         ("LowRankMultivariateNormal", dict(loc=pos(2, 3), cov_factor=pos(3, 2), cov_diag=pos(3)))]:
        rk, tk = {}, {}
        for k, v in kwargs.items():
            rk[k], tk[k] = pair(v, grad=True)
        R.manual_seed(7)
        torch.manual_seed(7)
        rs = getattr(RD, name)(**rk).rsample((4,))
        ts = getattr(TD, name)(**tk).rsample((4,))
        close(rs, ts, rtol=1e-7, atol=1e-9)
        rg = R.autograd.grad(rs.sum(), list(rk.values()))
        tg = torch.autograd.grad(ts.sum(), list(tk.values()))
        for a, b in zip(rg, tg):
            close(a, b, rtol=1e-7, atol=1e-9)


def test_lowrank_multivariate_normal():
    rl, tl = pair(RNG.normal(size=(2, 3)), grad=True)
    rw, tw = pair(RNG.normal(size=(3, 2)), grad=True)
    rdg, tdg = pair(pos(3), grad=True)
    rd = RD.LowRankMultivariateNormal(rl, rw, rdg)
    td = TD.LowRankMultivariateNormal(tl, tw, tdg)
    assert rd.batch_shape == tuple(td.batch_shape) and rd.event_shape == tuple(td.event_shape)
    rv, tv = pair(RNG.normal(size=(4, 2, 3)))
    r_out = [rd.log_prob(rv), rd.entropy(), rd.variance, rd.scale_tril, rd.covariance_matrix, rd.precision_matrix]
    t_out = [td.log_prob(tv), td.entropy(), td.variance, td.scale_tril, td.covariance_matrix, td.precision_matrix]
    for a, b in zip(r_out, t_out):
        close(a, b)
    rg = R.autograd.grad(sum(o.sum() for o in r_out), [rl, rw, rdg])
    tg = torch.autograd.grad(sum(o.sum() for o in t_out), [tl, tw, tdg])
    for a, b in zip(rg, tg):
        close(a, b, rtol=1e-7, atol=1e-9)
    assert rd.expand((5, 2)).batch_shape == (5, 2)
    with pytest.raises(ValueError, match="cov_factor must be a batch of matrices with shape 3 x m"):
        RD.LowRankMultivariateNormal(R.zeros(3), R.zeros(2, 1), R.ones(3))


def test_mixture_same_family():
    rlog, tlog = pair(RNG.normal(size=(2, 3)), grad=True)
    rloc, tloc = pair(RNG.normal(size=(2, 3, 4)), grad=True)
    rsc, tsc = pair(pos(2, 3, 4), grad=True)
    rd = RD.MixtureSameFamily(RD.Categorical(logits=rlog), RD.Independent(RD.Normal(rloc, rsc), 1))
    td = TD.MixtureSameFamily(TD.Categorical(logits=tlog), TD.Independent(TD.Normal(tloc, tsc), 1))
    assert rd.batch_shape == tuple(td.batch_shape) and rd.event_shape == tuple(td.event_shape)
    rv, tv = pair(RNG.normal(size=(5, 2, 4)))
    r_out = [rd.log_prob(rv), rd.mean, rd.variance]
    t_out = [td.log_prob(tv), td.mean, td.variance]
    for a, b in zip(r_out, t_out):
        close(a, b)
    rg = R.autograd.grad(sum(o.sum() for o in r_out), [rlog, rloc, rsc])
    tg = torch.autograd.grad(sum(o.sum() for o in t_out), [tlog, tloc, tsc])
    for a, b in zip(rg, tg):
        close(a, b, rtol=1e-7, atol=1e-9)
    R.manual_seed(0)
    torch.manual_seed(0)
    close(rd.sample((3,)), td.sample((3,)))
    # scalar components: cdf, and the support constraint
    r1 = RD.MixtureSameFamily(RD.Categorical(logits=rlog), RD.Normal(rloc[..., 0], rsc[..., 0]))
    t1 = TD.MixtureSameFamily(TD.Categorical(logits=tlog), TD.Normal(tloc[..., 0], tsc[..., 0]))
    close(r1.cdf(rv[..., 0]), t1.cdf(tv[..., 0]))
    assert repr(r1.support) == repr(t1.support).replace("torch.", "")
    assert r1.expand((4, 2)).batch_shape == (4, 2)
    with pytest.raises(ValueError, match="does not equal"):
        RD.MixtureSameFamily(RD.Categorical(logits=R.zeros(2)), RD.Normal(R.zeros(3), R.ones(3)))
    with pytest.raises(ValueError, match="needs to be an"):
        RD.MixtureSameFamily(RD.Normal(0.0, 1.0), RD.Normal(R.zeros(3), R.ones(3)))


def test_straight_through_and_multinomial_samples():
    rp, tp = pair(simplex(2, 3), grad=True)
    R.manual_seed(4)
    torch.manual_seed(4)
    rs = RD.OneHotCategoricalStraightThrough(probs=rp).rsample((3,))
    ts = TD.OneHotCategoricalStraightThrough(probs=tp).rsample((3,))
    close(rs, ts)
    w = RNG.normal(size=(3, 2, 3))
    (rg,) = R.autograd.grad((rs * R.tensor(w)).sum(), [rp])
    (tg,) = torch.autograd.grad((ts * torch.tensor(w)).sum(), [tp])
    close(rg, tg)
    R.manual_seed(5)
    torch.manual_seed(5)
    close(RD.Multinomial(6, probs=rp.detach()).sample((4,)), TD.Multinomial(6, probs=tp.detach()).sample((4,)))


def test_von_mises_sample_and_float32():
    # Rejection sampling runs in float64 and is cast back, as torch does.
    rl, tl = pair([0.3, -2.0])
    rc, tc = pair([0.5, 20.0])
    R.manual_seed(2)
    torch.manual_seed(2)
    close(RD.VonMises(rl.float(), rc.float()).sample((50,)), TD.VonMises(tl.float(), tc.float()).sample((50,)),
          rtol=1e-6, atol=1e-6)


# ---- transforms ----


# ---- validation and errors ----

@pytest.mark.parametrize("make", [
    lambda M: M.HalfNormal(-1.0 * M_ones(M)),
    lambda M: M.Gumbel(M_ones(M), -M_ones(M)),
    lambda M: M.Weibull(M_ones(M), -M_ones(M)),
    lambda M: M.Pareto(M_ones(M), 0 * M_ones(M)),
    lambda M: M.Kumaraswamy(-M_ones(M), M_ones(M)),
    lambda M: M.InverseGamma(M_ones(M), -M_ones(M)),
    lambda M: M.FisherSnedecor(M_ones(M), -M_ones(M)),
    lambda M: M.VonMises(M_ones(M), -M_ones(M)),
    lambda M: M.GeneralizedPareto(M_ones(M), -M_ones(M), M_ones(M)),
    lambda M: M.NegativeBinomial(-M_ones(M), probs=0.5 * M_ones(M)),
    lambda M: M.Multinomial(3, probs=M_ones(M) * M_ones(M).cumsum(0) - 1.5),
    lambda M: M.ContinuousBernoulli(probs=2 * M_ones(M), validate_args=True),
    lambda M: M.RelaxedBernoulli(M_ones(M), probs=2 * M_ones(M)),
    lambda M: M.LogisticNormal(M_ones(M), -M_ones(M)),
])
def test_invalid_parameters(make):
    with pytest.raises(ValueError) as te:
        make(TD)
    with pytest.raises(ValueError) as re_:
        make(RD)
    msg = lambda e: str(e.value).replace("torch.", "").split(", but found")[0]  # noqa: E731
    assert msg(re_) == msg(te)


def M_ones(M):
    return R.ones(2, dtype=R.float64) if M is RD else torch.ones(2, dtype=torch.float64)


@pytest.mark.parametrize("make,value", [
    (lambda M: M.HalfNormal(M_ones(M)), -1.0),
    (lambda M: M.Pareto(M_ones(M), M_ones(M)), 0.5),
    (lambda M: M.Kumaraswamy(M_ones(M), M_ones(M)), 1.5),
    (lambda M: M.Multinomial(3, probs=M_ones(M) / 2), 2.0),
    (lambda M: M.NegativeBinomial(M_ones(M), probs=M_ones(M) / 2), 0.5),
])
def test_invalid_samples(make, value):
    with pytest.raises(ValueError) as te:
        make(TD).log_prob(torch.full((2,), value, dtype=torch.float64))
    with pytest.raises(ValueError) as re_:
        make(RD).log_prob(R.full((2,), value, dtype=R.float64))
    msg = lambda e: str(e.value).replace("torch.", "").split(", but found")[0]  # noqa: E731
    assert msg(re_) == msg(te)


def test_misc_errors():
    with pytest.raises(NotImplementedError, match="inhomogeneous total_count is not supported"):
        RD.Multinomial(R.tensor(3), probs=R.ones(2) / 2)
    with pytest.raises(ValueError, match="Either `probs` or `logits` must be specified, but not both."):
        RD.NegativeBinomial(2.0)
    with pytest.raises(NotImplementedError, match="Cannot transform _LowerCholesky constraints"):
        RD.biject_to(RD.constraints.lower_cholesky)
    with pytest.raises(TypeError, match="Expected constraint to be either a Constraint subclass or instance"):
        RD.constraint_registry.ConstraintRegistry().register(3, lambda c: None)
    assert math.isinf(float(RD.HalfCauchy(1.0).mean))


def test_generalized_pareto_log_prob_float32():
    # torch's GeneralizedPareto.log_prob / cdf only run in float32 (it compares with a float32 zero).
    args = [np.array([0.1, -0.5, 0.0]), np.array([1.0, 2.0, 0.5]), np.array([-0.3, 0.0, 0.4])]
    rk = [R.tensor(a, dtype=R.float32, requires_grad=True) for a in args]
    tk = [torch.tensor(a, dtype=torch.float32, requires_grad=True) for a in args]
    rd, td = RD.GeneralizedPareto(*rk), TD.GeneralizedPareto(*tk)
    rv = R.tensor([[0.5, 1.0, 2.0], [1.5, 0.0, 0.3]], dtype=R.float32)
    tv = torch.tensor(rv.numpy())
    r_out = [rd.log_prob(rv), rd.cdf(rv), rd.log_survival_function(rv)]
    t_out = [td.log_prob(tv), td.cdf(tv), td.log_survival_function(tv)]
    for a, b in zip(r_out, t_out):
        close(a, b, rtol=2e-6, atol=2e-6)
    rg = R.autograd.grad(sum(o.sum() for o in r_out), rk)
    tg = torch.autograd.grad(sum(o.sum() for o in t_out), tk)
    for a, b in zip(rg, tg):
        close(a, b, rtol=1e-5, atol=1e-5)
    assert repr(rd.support.upper_bound) == repr(td.support.upper_bound).replace("torch.", "")


def test_lkj_cholesky():
    rc, tc = pair([0.5, 1.0, 3.0], grad=True)
    rd, td = RD.LKJCholesky(4, rc), TD.LKJCholesky(4, tc)
    assert rd.batch_shape == tuple(td.batch_shape) and rd.event_shape == tuple(td.event_shape)
    torch.manual_seed(0)
    value = td.sample((2,))
    rl, tl = rd.log_prob(R.tensor(value.numpy())), td.log_prob(value)
    close(rl, tl)
    close(R.autograd.grad(rl.sum(), [rc])[0], torch.autograd.grad(tl.sum(), [tc])[0])
    R.manual_seed(0)
    s = rd.sample((3,))
    assert s.shape == (3, 3, 4, 4) and bool(RD.constraints.corr_cholesky.check(s).all())
    assert rd.expand((2, 3)).batch_shape == (2, 3)
    with pytest.raises(ValueError, match="Expected dim to be an integer greater than or equal to 2. Found dim=1."):
        RD.LKJCholesky(1)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
def test_wishart(kind):
    a = RNG.normal(size=(2, 3, 3))
    S = a @ np.swapaxes(a, -1, -2) + 3 * np.eye(3)
    rm, tm = pair(np.linalg.cholesky(S) if kind == "scale_tril" else S, grad=True)
    rdf, tdf = pair([4.5, 6.0], grad=True)
    rd, td = RD.Wishart(rdf, **{kind: rm}), TD.Wishart(tdf, **{kind: tm})
    assert rd.batch_shape == tuple(td.batch_shape) and rd.event_shape == tuple(td.event_shape)
    rv, tv = pair(S[::-1].copy())
    r_out = [rd.log_prob(rv), rd.entropy(), rd.mean, rd.mode, rd.variance, rd.covariance_matrix, rd.precision_matrix]
    t_out = [td.log_prob(tv), td.entropy(), td.mean, td.mode, td.variance, td.covariance_matrix, td.precision_matrix]
    for a_, b_ in zip(r_out, t_out):
        close(a_, b_, rtol=1e-8, atol=1e-9)
    rg = R.autograd.grad(sum(o.sum() for o in r_out[:3]), [rm, rdf])
    tg = torch.autograd.grad(sum(o.sum() for o in t_out[:3]), [tm, tdf])
    for a_, b_ in zip(rg, tg):
        close(a_, b_, rtol=1e-7, atol=1e-9)
    fresh = RD.Wishart(rdf, **{kind: rm})
    s = fresh.rsample((4,))
    assert s.shape == (4, 2, 3, 3) and bool(RD.constraints.positive_definite.check(s.detach()).all())
    assert R.autograd.grad(s.sum(), [rm])[0].shape == rm.shape
    assert rd.expand((5, 2)).sample().shape == (5, 2, 3, 3)
    with pytest.raises(ValueError, match=r"Value of df=1.5 expected to be greater than ndim - 1 = 2."):
        RD.Wishart(R.tensor(1.5), covariance_matrix=R.eye(3))


def test_tril_vec_helpers():
    from retrograd.distributions.utils import tril_matrix_to_vec, vec_to_tril_matrix
    from torch.distributions.utils import tril_matrix_to_vec as t_to_vec, vec_to_tril_matrix as t_to_mat
    m = RNG.normal(size=(3, 4, 4))
    for diag in (0, -1, -2):
        rv, tv = tril_matrix_to_vec(R.tensor(m), diag), t_to_vec(torch.tensor(m), diag)
        close(rv, tv)
        close(vec_to_tril_matrix(rv, diag), t_to_mat(tv, diag))
    with pytest.raises(ValueError, match="The size of last dimension is 4 which cannot be expressed"):
        vec_to_tril_matrix(R.zeros(4))
