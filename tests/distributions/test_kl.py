"""Tests of retrograd.distributions.kl, checked against PyTorch."""

import numpy as np
import pytest

import retrograd as R
import retrograd.distributions as RD

torch = pytest.importorskip("torch")

from ._helpers import TD, close, pair  # noqa: E402
from ._families_helpers import TD as TD_families, close as close_families, pair as pair_families  # noqa: E402


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


def _mk(mod, name, kw):
    return getattr(mod.distributions if mod is torch else RD, name)(**kw)


KL_PAIRS = [
    (("Normal", dict(loc=RNG.normal(size=3), scale=pos(3))), ("Normal", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Bernoulli", dict(probs=np.array([0.0, 0.3, 1.0]))), ("Bernoulli", dict(probs=np.array([0.2, 0.6, 0.5])))),
    (("Bernoulli", dict(probs=np.array([0.4, 0.3]))), ("Bernoulli", dict(probs=np.array([0.0, 1.0])))),
    (("Categorical", dict(probs=simplex(2, 4))), ("Categorical", dict(logits=RNG.normal(size=(2, 4))))),
    (("Categorical", dict(probs=np.array([0.5, 0.0, 0.5]))), ("Categorical", dict(probs=np.array([0.2, 0.3, 0.5])))),
    (("Uniform", dict(low=np.array([0.0, -1.0]), high=np.array([1.0, 2.0]))),
     ("Uniform", dict(low=np.array([-1.0, 0.0]), high=np.array([2.0, 2.0])))),
    (("OneHotCategorical", dict(probs=simplex(3))), ("OneHotCategorical", dict(probs=simplex(3)))),
    (("Exponential", dict(rate=pos(3))), ("Exponential", dict(rate=pos(3)))),
    (("Laplace", dict(loc=RNG.normal(size=3), scale=pos(3))), ("Laplace", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Gamma", dict(concentration=pos(3), rate=pos(3))), ("Gamma", dict(concentration=pos(3), rate=pos(3)))),
    (("Beta", dict(concentration1=pos(3), concentration0=pos(3))),
     ("Beta", dict(concentration1=pos(3), concentration0=pos(3)))),
    (("Dirichlet", dict(concentration=pos(2, 3))), ("Dirichlet", dict(concentration=pos(2, 3)))),
    (("Poisson", dict(rate=pos(3))), ("Poisson", dict(rate=pos(3)))),
    (("Geometric", dict(probs=np.array([0.2, 0.7]))), ("Geometric", dict(probs=np.array([0.5, 0.4])))),
    (("Cauchy", dict(loc=RNG.normal(size=3), scale=pos(3))), ("Cauchy", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("LogNormal", dict(loc=RNG.normal(size=3), scale=pos(3))), ("LogNormal", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Normal", dict(loc=RNG.normal(size=3), scale=pos(3))), ("Laplace", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Laplace", dict(loc=RNG.normal(size=3), scale=pos(3))), ("Normal", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Exponential", dict(rate=pos(3))), ("Gamma", dict(concentration=pos(3), rate=pos(3)))),
    (("Exponential", dict(rate=pos(3))), ("Normal", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Gamma", dict(concentration=pos(3), rate=pos(3))), ("Exponential", dict(rate=pos(3)))),
    (("Gamma", dict(concentration=pos(3), rate=pos(3))), ("Normal", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Beta", dict(concentration1=pos(3), concentration0=pos(3))), ("Normal", dict(loc=RNG.normal(size=3), scale=pos(3)))),
    (("Beta", dict(concentration1=pos(3), concentration0=pos(3))), ("Gamma", dict(concentration=pos(3), rate=pos(3)))),
    (("Beta", dict(concentration1=pos(3), concentration0=pos(3))), ("Exponential", dict(rate=pos(3)))),
    (("Beta", dict(concentration1=pos(2), concentration0=pos(2))),
     ("Uniform", dict(low=np.array([-0.5, 0.2]), high=np.array([1.5, 1.0])))),
    (("Uniform", dict(low=np.array([0.1, 0.2]), high=np.array([0.5, 0.9]))), ("Normal", dict(loc=RNG.normal(size=2), scale=pos(2)))),
    (("Uniform", dict(low=np.array([0.1, -0.2]), high=np.array([0.5, 0.9]))), ("Gamma", dict(concentration=pos(2), rate=pos(2)))),
    (("Uniform", dict(low=np.array([0.1, -0.2]), high=np.array([0.5, 0.9]))), ("Exponential", dict(rate=pos(2)))),
    (("Uniform", dict(low=np.array([0.1, -0.2]), high=np.array([0.5, 0.9]))),
     ("Beta", dict(concentration1=pos(2), concentration0=pos(2)))),
    (("Normal", dict(loc=RNG.normal(size=2), scale=pos(2))), ("Uniform", dict(low=-pos(2), high=pos(2)))),
    (("Normal", dict(loc=RNG.normal(size=2), scale=pos(2))), ("Gamma", dict(concentration=pos(2), rate=pos(2)))),
    (("Bernoulli", dict(probs=np.array([0.2, 0.7]))), ("Poisson", dict(rate=pos(2)))),
    (("Poisson", dict(rate=pos(2))), ("Bernoulli", dict(probs=np.array([0.2, 0.7])))),
]


@pytest.mark.parametrize("dt", ["float64", "float32"])
@pytest.mark.parametrize("p_spec,q_spec", KL_PAIRS, ids=[f"{p[0]}-{q[0]}" for p, q in KL_PAIRS])
def test_kl_pairs(p_spec, q_spec, dt):
    rargs, targs = [], []
    rks, tks = [], []
    for name, kw in (p_spec, q_spec):
        rk, tk = {}, {}
        for k, v in kw.items():
            rk[k], tk[k] = pair(v, dt, grad=True)
        rks.append(rk)
        tks.append(tk)
        rargs.append(_mk(R, name, rk))
        targs.append(_mk(torch, name, tk))
    rkl, tkl = RD.kl_divergence(*rargs), TD.kl_divergence(*targs)
    close(rkl, tkl, dt)
    leaves_r = [v for d in rks for v in d.values()]
    leaves_t = [v for d in tks for v in d.values()]
    finite = torch.isfinite(tkl)
    if not finite.any():
        return
    mask_r = R.tensor(finite.numpy())
    rg = R.autograd.grad(R.where(mask_r, rkl, R.zeros_like(rkl)).sum(), leaves_r, allow_unused=True)
    tg = torch.autograd.grad(torch.where(finite, tkl, torch.zeros_like(tkl)).sum(), leaves_t, allow_unused=True)
    for a, b in zip(rg, tg):
        if b is None:
            assert a is None or not np.nan_to_num(a.numpy()).any()
        else:
            close(a, b, dt, rtol=1e-7 if dt == "float64" else 1e-3, atol=1e-9 if dt == "float64" else 1e-3)


def test_kl_mvn_independent_and_transformed():
    rl, tl = pair(RNG.normal(size=(2, 3)), grad=True)
    rs, ts = pair(tril(3, (2,)), grad=True)
    rq, tq = pair(spd(3), grad=True)
    rkl = RD.kl_divergence(RD.MultivariateNormal(rl, scale_tril=rs), RD.MultivariateNormal(rl * 0, rq))
    tkl = TD.kl_divergence(TD.MultivariateNormal(tl, scale_tril=ts), TD.MultivariateNormal(tl * 0, tq))
    close(rkl, tkl)
    for a, b in zip(R.autograd.grad(rkl.sum(), [rl, rs, rq]), torch.autograd.grad(tkl.sum(), [tl, ts, tq])):
        close(a, b, rtol=1e-7)
    ri = RD.kl_divergence(RD.Independent(RD.Normal(rl, 1.0), 1), RD.Independent(RD.Normal(0.0, rl.exp()), 1))
    ti = TD.kl_divergence(TD.Independent(TD.Normal(tl, 1.0), 1), TD.Independent(TD.Normal(0.0, tl.exp()), 1))
    close(ri, ti)
    with pytest.raises(NotImplementedError, match="No KL\\(p \\|\\| q\\) is implemented for p type Normal and q type Cauchy"):
        RD.kl_divergence(RD.Normal(0.0, 1.0), RD.Cauchy(0.0, 1.0))
    with pytest.raises(NotImplementedError):
        RD.kl_divergence(RD.Independent(RD.Normal(rl, 1.0), 1), RD.Independent(RD.Normal(rl, 1.0), 2))


def test_register_kl_dispatch():
    class MyNormal(RD.Normal):
        pass

    close(RD.kl_divergence(MyNormal(0.0, 1.0), RD.Normal(1.0, 2.0)), TD.kl_divergence(TD.Normal(0.0, 1.0), TD.Normal(1.0, 2.0)))

    @RD.register_kl(MyNormal, RD.Normal)
    def _kl(p, q):
        return R.tensor(42.0)

    assert RD.kl_divergence(MyNormal(0.0, 1.0), RD.Normal(1.0, 2.0)).item() == 42.0
    assert RD.kl_divergence(RD.Normal(0.0, 1.0), RD.Normal(0.0, 1.0)).item() == 0.0
    with pytest.raises(TypeError):
        RD.register_kl(int, RD.Normal)


RNG_families = np.random.default_rng(1)


def pos(*shape, lo=0.5, hi=3.0):
    return RNG_families.uniform(lo, hi, size=shape)


def test_kl_divergences():
    a, b = pos(3), pos(3)
    pairs = [
        (lambda M, x, y: (M.HalfNormal(x), M.HalfNormal(y))),
        (lambda M, x, y: (M.Gumbel(x, y), M.Gumbel(y, x))),
        (lambda M, x, y: (M.Normal(x, y), M.Gumbel(y, x))),
        (lambda M, x, y: (M.Exponential(x), M.Gumbel(y, x))),
        (lambda M, x, y: (M.Gamma(x, y), M.Gumbel(y, x))),
        (lambda M, x, y: (M.Pareto(x, y), M.Pareto(y, x))),
        (lambda M, x, y: (M.ContinuousBernoulli(x / 4), M.ContinuousBernoulli(y / 4))),
        (lambda M, x, y: (M.ContinuousBernoulli(x / 4), M.Exponential(y))),
        (lambda M, x, y: (M.ContinuousBernoulli(x / 4), M.Normal(y, x))),
        (lambda M, x, y: (M.ContinuousBernoulli(x / 4), M.Uniform(x - 4, y + 2))),
        (lambda M, x, y: (M.Beta(x, y), M.ContinuousBernoulli(y / 4))),
        (lambda M, x, y: (M.Uniform(x, x + y), M.Gumbel(y, x))),
        (lambda M, x, y: (M.Uniform(x, x + y), M.Pareto(x / 2, y))),
        (lambda M, x, y: (M.Gumbel(x, y), M.Normal(y, x))),
        (lambda M, x, y: (M.Pareto(x, y + 2), M.Exponential(y))),
        (lambda M, x, y: (M.Pareto(x, y + 2), M.Normal(y, x))),
        (lambda M, x, y: (M.Pareto(x, y), M.Gamma(y, x))),
        (lambda M, x, y: (M.Beta(x, y), M.Pareto(y, x))),
        (lambda M, x, y: (M.Exponential(x), M.Pareto(y, x))),
        (lambda M, x, y: (M.Normal(x, y), M.ContinuousBernoulli(y / 4))),
        (lambda M, x, y: (M.Gumbel(x, y), M.Uniform(x, x + y))),
        (lambda M, x, y: (M.Uniform(x / 16, 0.5 + y / 8), M.ContinuousBernoulli(y / 4))),
    ]
    for make in pairs:
        rx, tx = pair_families(a, grad=True)
        ry, ty = pair_families(b, grad=True)
        rk = RD.kl_divergence(*make(RD, rx, ry))
        tk = TD_families.kl_divergence(*make(TD_families, tx, ty))
        close_families(rk, tk)
        assert rk.requires_grad == tk.requires_grad
        if not tk.requires_grad:  # the infinite ones
            continue
        fin = torch.isfinite(tk).numpy().astype(float)
        rg = R.autograd.grad((rk * R.tensor(fin)).nan_to_num().sum(), [rx, ry], allow_unused=True)
        tg = torch.autograd.grad((tk * torch.tensor(fin)).nan_to_num().sum(), [tx, ty], allow_unused=True)
        for g1, g2 in zip(rg, tg):
            if g2 is not None:
                close_families(g1, g2, rtol=1e-7, atol=1e-9)
    w1, w2 = RNG_families.normal(size=(3, 2)), RNG_families.normal(size=(3, 1))
    rl, tl = pair_families(RNG_families.normal(size=3), grad=True)
    rp = RD.LowRankMultivariateNormal(rl, R.tensor(w1), R.tensor(a))
    tp = TD_families.LowRankMultivariateNormal(tl, torch.tensor(w1), torch.tensor(a))
    rq = RD.LowRankMultivariateNormal(R.zeros(3, dtype=R.float64), R.tensor(w2), R.tensor(b))
    tq = TD_families.LowRankMultivariateNormal(torch.zeros(3, dtype=torch.float64), torch.tensor(w2), torch.tensor(b))
    rm = RD.MultivariateNormal(R.zeros(3, dtype=R.float64), R.tensor(np.diag(b)))
    tm = TD_families.MultivariateNormal(torch.zeros(3, dtype=torch.float64), torch.tensor(np.diag(b)))
    for (p1, q1), (p2, q2) in [((rp, rq), (tp, tq)), ((rp, rm), (tp, tm)), ((rm, rp), (tm, tp))]:
        rk, tk = RD.kl_divergence(p1, q1), TD_families.kl_divergence(p2, q2)
        close_families(rk, tk)
    close_families(R.autograd.grad(RD.kl_divergence(rp, rq), [rl])[0], torch.autograd.grad(TD_families.kl_divergence(tp, tq), [tl])[0])
