"""retrograd.distributions against torch.distributions: values and gradients of log_prob, cdf,
icdf, entropy, moments and kl_divergence, in float64 and float32 (API checks are in
test_distribution.py)."""
import numpy as np
import pytest

import retrograd as R
import retrograd.distributions as RD

torch = pytest.importorskip("torch")

from ._helpers import TD, close, pair  # noqa: E402

RNG = np.random.default_rng(0)


def pos(*shape, lo=0.5, hi=3.0):
    return RNG.uniform(lo, hi, size=shape)


def simplex(*shape):
    x = RNG.uniform(0.1, 1.0, size=shape)
    return x / x.sum(-1, keepdims=True)


def spd(n, batch=()):
    a = RNG.normal(size=batch + (n, n))
    return a @ np.swapaxes(a, -1, -2) + n * np.eye(n)


def tril(n, batch=()):
    return np.linalg.cholesky(spd(n, batch))


# name, kwargs (numpy, all differentiable), value (numpy), methods to compare
CASES = [
    ("Normal", dict(loc=RNG.normal(size=(2, 3)), scale=pos(2, 3)), RNG.normal(size=(4, 2, 3)),
     ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"]),
    ("Uniform", dict(low=-pos(3), high=pos(3)), RNG.uniform(-0.4, 0.4, size=(3,)),
     ["log_prob", "cdf", "icdf", "entropy", "mean", "variance", "stddev"]),
    ("Exponential", dict(rate=pos(2, 2)), pos(2, 2, lo=0.01, hi=0.99),
     ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"]),
    ("Laplace", dict(loc=RNG.normal(size=3), scale=pos(3)), RNG.uniform(0.05, 0.95, size=(5, 3)),
     ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance", "stddev"]),
    ("Cauchy", dict(loc=RNG.normal(size=3), scale=pos(3)), RNG.uniform(0.05, 0.95, size=(3,)),
     ["log_prob", "cdf", "icdf", "entropy", "mode", "mean", "variance"]),
    ("LogNormal", dict(loc=RNG.normal(size=3), scale=pos(3)), RNG.uniform(0.05, 0.95, size=(2, 3)),
     ["log_prob", "cdf", "icdf", "entropy", "mean", "mode", "variance"]),
    ("Gamma", dict(concentration=pos(4, lo=0.3), rate=pos(4)), pos(3, 4),
     ["log_prob", "entropy", "mean", "mode", "variance"]),
    ("Chi2", dict(df=pos(3, lo=1.0, hi=5.0)), pos(3),
     ["log_prob", "entropy", "mean", "variance"]),
    ("Beta", dict(concentration1=pos(3), concentration0=pos(3)), RNG.uniform(0.05, 0.95, size=(2, 3)),
     ["log_prob", "entropy", "mean", "mode", "variance"]),
    ("StudentT", dict(df=np.array([0.8, 1.5, 4.0]), loc=RNG.normal(size=3), scale=pos(3)), RNG.normal(size=(2, 3)),
     ["log_prob", "entropy", "mean", "mode", "variance"]),
    ("Dirichlet", dict(concentration=pos(2, 3)), simplex(2, 3),
     ["log_prob", "entropy", "mean", "mode", "variance"]),
    ("Bernoulli", dict(probs=RNG.uniform(0.1, 0.9, size=(3,))), np.array([0.0, 1.0, 1.0]),
     ["log_prob", "entropy", "mean", "variance", "enumerate_support"]),
    ("Bernoulli", dict(logits=RNG.normal(size=(2, 3))), np.array([[0.0, 1.0, 1.0]]),
     ["log_prob", "entropy", "mean", "mode", "variance", "probs"]),
    ("Geometric", dict(probs=RNG.uniform(0.1, 0.9, size=(3,))), np.array([0.0, 2.0, 5.0]),
     ["log_prob", "entropy", "mean", "mode", "variance", "logits"]),
    ("Geometric", dict(logits=RNG.normal(size=(3,))), np.array([0.0, 2.0, 5.0]),
     ["log_prob", "entropy", "mean", "variance"]),
    ("Poisson", dict(rate=pos(4)), np.array([0.0, 1.0, 3.0, 7.0]),
     ["log_prob", "mean", "mode", "variance"]),
    ("Categorical", dict(probs=simplex(2, 4) * 3), np.array([[0.0, 3.0], [2.0, 1.0], [1.0, 1.0]]),
     ["log_prob", "entropy", "mean", "variance", "logits", "probs", "enumerate_support"]),
    ("Categorical", dict(logits=RNG.normal(size=(4,))), np.array([0.0, 3.0, 2.0]),
     ["log_prob", "entropy", "mode", "probs"]),
    ("OneHotCategorical", dict(probs=simplex(2, 3)), np.eye(3)[[0, 2]],
     ["log_prob", "entropy", "mean", "mode", "variance", "enumerate_support"]),
    ("OneHotCategorical", dict(logits=RNG.normal(size=(3,))), np.eye(3)[[1, 2, 0]],
     ["log_prob", "entropy", "mean", "variance"]),
]
CASE_IDS = [f"{c[0]}-{'-'.join(c[1])}" for c in CASES]


def _eval(d, method, value):
    if method in ("log_prob", "cdf", "icdf"):
        return getattr(d, method)(value)
    if method in ("entropy",):
        return d.entropy()
    if method == "enumerate_support":
        return d.enumerate_support()
    return getattr(d, method)


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("case", CASES, ids=CASE_IDS)
def test_values_and_grads(case, dt):
    name, kwargs, value, methods = case
    rk, tk = {}, {}
    for k, v in kwargs.items():
        rk[k], tk[k] = pair(v, dt, grad=True)
    rd, td = getattr(RD, name)(**rk), getattr(TD, name)(**tk)
    assert rd.batch_shape == tuple(td.batch_shape) and rd.event_shape == tuple(td.event_shape)
    assert rd.has_rsample == td.has_rsample and rd.has_enumerate_support == td.has_enumerate_support
    rv, tv = pair(value, dt)
    if name in ("Categorical",):
        rv, tv = rv.long(), tv.long()
    r_loss, t_loss = 0.0, 0.0
    for m in methods:
        if m == "icdf":
            # icdf takes probabilities in (0, 1)
            rq, tq = pair(RNG.uniform(0.05, 0.95, size=tuple(td.batch_shape)), dt)
            ro, to = rd.icdf(rq), td.icdf(tq)
        else:
            ro, to = _eval(rd, m, rv), _eval(td, m, tv)
        assert ro.dtype.__repr__().split(".")[-1] == str(to.dtype).split(".")[-1], m
        close(ro, to, dt)
        if ro.dtype.is_floating_point and to.requires_grad and m not in ("mode", "enumerate_support"):
            finite = torch.isfinite(to).detach().numpy()
            r_loss = r_loss + (ro * R.tensor(finite.astype(float), dtype=ro.dtype)).nan_to_num().sum()
            t_loss = t_loss + (to * torch.tensor(finite.astype(float), dtype=to.dtype)).nan_to_num().sum()
    params = list(kwargs)
    r_grads = R.autograd.grad(r_loss, [rk[p] for p in params], allow_unused=True)
    t_grads = torch.autograd.grad(t_loss, [tk[p] for p in params], allow_unused=True)
    for p, rg, tg in zip(params, r_grads, t_grads):
        if tg is None:
            assert rg is None or not rg.detach().numpy().any(), p
        else:
            close(rg, tg, dt, rtol=1e-7 if dt == "float64" else 2e-4, atol=1e-9 if dt == "float64" else 2e-4)


@pytest.mark.parametrize("kind", ["covariance_matrix", "precision_matrix", "scale_tril"])
@pytest.mark.parametrize("dt", ["float64", "float32"])
def test_multivariate_normal(kind, dt):
    n = 3
    mat = {"covariance_matrix": spd(n, (2,)), "precision_matrix": spd(n, (2,)), "scale_tril": tril(n, (2,))}[kind]
    rl, tl = pair(RNG.normal(size=(2, n)), dt, grad=True)
    rm, tm = pair(mat, dt, grad=True)
    rd = RD.MultivariateNormal(rl, **{kind: rm})
    td = TD.MultivariateNormal(tl, **{kind: tm})
    assert rd.batch_shape == tuple(td.batch_shape) and rd.event_shape == tuple(td.event_shape)
    rv, tv = pair(RNG.normal(size=(4, 2, n)), dt)
    r_out = [rd.log_prob(rv), rd.entropy(), rd.mean, rd.variance, rd.covariance_matrix, rd.precision_matrix,
             rd.scale_tril]
    t_out = [td.log_prob(tv), td.entropy(), td.mean, td.variance, td.covariance_matrix, td.precision_matrix,
             td.scale_tril]
    tol = {} if dt == "float64" else dict(rtol=1e-4, atol=1e-4)
    for a, b in zip(r_out, t_out):
        close(a, b, dt, **tol)
    rg = R.autograd.grad(sum(o.sum() for o in r_out[:4]), [rl, rm])
    tg = torch.autograd.grad(sum(o.sum() for o in t_out[:4]), [tl, tm])
    for a, b in zip(rg, tg):
        close(a, b, dt, rtol=1e-7 if dt == "float64" else 1e-3, atol=1e-9 if dt == "float64" else 1e-3)


def test_binomial():
    rn, tn = pair([5.0, 5.0, 5.0])
    rp, tp = pair([0.2, 0.5, 0.9], grad=True)
    rd, td = RD.Binomial(rn, probs=rp), TD.Binomial(tn, probs=tp)
    rv, tv = pair([0.0, 3.0, 5.0])
    outs = [(rd.log_prob(rv), td.log_prob(tv)), (rd.entropy(), td.entropy()), (rd.mean, td.mean),
            (rd.variance, td.variance), (rd.mode, td.mode), (rd.enumerate_support(), td.enumerate_support())]
    for a, b in outs:
        close(a, b)
    (rg,) = R.autograd.grad(outs[0][0].sum() + outs[1][0].sum(), [rp])
    (tg,) = torch.autograd.grad(outs[0][1].sum() + outs[1][1].sum(), [tp])
    close(rg, tg)
    rl, tl = pair([-1.0, 0.3, 2.0], grad=True)
    close(RD.Binomial(10, logits=rl).log_prob(rv), TD.Binomial(10, logits=tl).log_prob(tv))
    with pytest.raises(NotImplementedError, match="Inhomogeneous total count"):
        RD.Binomial(R.tensor([1.0, 2.0]), probs=R.tensor([0.5, 0.5])).entropy()


# ---- second derivatives ----

def test_second_derivatives_normal_and_gamma():
    rs, ts = pair([0.7, 1.9], grad=True)
    rc, tc = pair([0.6, 2.5], grad=True)
    rv, tv = pair([0.3, -1.2])
    for mk in (lambda m, s, c: m.distributions.Normal(0.5, s).log_prob,
               lambda m, s, c: m.distributions.Gamma(c, s).log_prob):
        rlp = mk(R, rs, rc)(rv.abs()).sum()
        tlp = mk(torch, ts, tc)(tv.abs()).sum()
        (rg,) = R.autograd.grad(rlp, [rs], create_graph=True)
        (tg,) = torch.autograd.grad(tlp, [ts], create_graph=True)
        close(rg, tg)
        close(R.autograd.grad(rg.sum(), [rs])[0], torch.autograd.grad(tg.sum(), [ts])[0])
    rk = RD.kl_divergence(RD.Gamma(rc, 1.0), RD.Gamma(1.5, rs)).sum()
    tk = TD.kl_divergence(TD.Gamma(tc, 1.0), TD.Gamma(1.5, ts)).sum()
    (rg,) = R.autograd.grad(rk, [rc], create_graph=True)
    (tg,) = torch.autograd.grad(tk, [tc], create_graph=True)
    close(R.autograd.grad(rg.sum(), [rc])[0], torch.autograd.grad(tg.sum(), [tc])[0])


# ---- KL divergence ----


def test_expfamily_generic_entropy_and_kl():
    # The Bregman-divergence machinery against torch's.
    rc, tc = pair(pos(3), grad=True)
    rr, tr = pair(pos(3), grad=True)
    for name, rk, tk in [("Gamma", dict(concentration=rc, rate=rr), dict(concentration=tc, rate=tr)),
                         ("Exponential", dict(rate=rr), dict(rate=tr)),
                         ("Beta", dict(concentration1=rc, concentration0=rr), dict(concentration1=tc, concentration0=tr))]:
        rd, td = getattr(RD, name)(**rk), getattr(TD, name)(**tk)
        if name == "Beta":  # no carrier-measure mean: both refuse the generic entropy
            with pytest.raises(NotImplementedError):
                TD.ExponentialFamily.entropy(td)
            with pytest.raises(NotImplementedError):
                RD.ExponentialFamily.entropy(rd)
        else:
            close(RD.ExponentialFamily.entropy(rd), TD.ExponentialFamily.entropy(td))
        close(RD.kl._kl_expfamily_expfamily(rd, rd.expand((3,))), TD.kl._kl_expfamily_expfamily(td, td.expand((3,))),
              atol=1e-9)
    rp, tp = pair([0.3, 0.6], grad=True)
    rkl = RD.kl._kl_expfamily_expfamily(RD.Bernoulli(rp), RD.Bernoulli(1 - rp))
    tkl = TD.kl._kl_expfamily_expfamily(TD.Bernoulli(tp), TD.Bernoulli(1 - tp))
    close(rkl, tkl)
    close(R.autograd.grad(rkl.sum(), [rp])[0], torch.autograd.grad(tkl.sum(), [tp])[0])
