"""Tests of the random ops (src/retrograd/_ops/random.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._compare_helpers import _raises_like  # noqa: E402
from .._error_compare import _err  # noqa: E402


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


N = 20000


# (method, args, mean, var) of each distribution on a float64 tensor
MOMENTS = [
    ("uniform_", (-1.0, 3.0), 1.0, 16 / 12),
    ("normal_", (2.0, 0.5), 2.0, 0.25),
    ("bernoulli_", (0.3,), 0.3, 0.21),
    ("random_", (2, 6), 3.5, (16 - 1) / 12),
    ("exponential_", (2.0,), 0.5, 0.25),
    ("geometric_", (0.4,), 2.5, 0.6 / 0.16),
    ("log_normal_", (0.0, 0.5), np.exp(0.125), (np.exp(0.25) - 1) * np.exp(0.25)),
]


@pytest.mark.parametrize("name,args,mean,var", MOMENTS, ids=[m[0] for m in MOMENTS])
def test_random_fill_moments(name, args, mean, var):
    x = retrograd.empty(N, dtype=retrograd.float64)
    res = getattr(x, name)(*args)
    assert res is x and x._version == 1
    d = x.numpy()
    assert abs(d.mean() - mean) < 5 * np.sqrt(var / N) + 1e-3
    assert abs(d.var() - var) < 0.15 * var


def test_cauchy_median():
    x = retrograd.empty(N, dtype=retrograd.float64).cauchy_(1.0, 2.0)
    assert abs(np.median(x.numpy()) - 1.0) < 0.1
    q1, q3 = np.percentile(x.numpy(), [25, 75])
    assert abs((q3 - q1) / 2 - 2.0) < 0.2


@pytest.mark.parametrize("name,args", [(m[0], m[1]) for m in MOMENTS] + [("cauchy_", ())])
def test_random_fill_seeded_and_generator(name, args):
    retrograd.manual_seed(123)
    a = getattr(retrograd.empty(5), name)(*args).clone()
    retrograd.manual_seed(123)
    b = getattr(retrograd.empty(5), name)(*args).clone()
    assert np.array_equal(a.numpy(), b.numpy())
    g1, g2 = retrograd.Generator().manual_seed(7), retrograd.Generator().manual_seed(7)
    c = getattr(retrograd.empty(5), name)(*args, generator=g1)
    d = getattr(retrograd.empty(5), name)(*args, generator=g2)
    assert np.array_equal(c.numpy(), d.numpy())
    assert c.dtype == retrograd.float32 and c.shape == (5,)


def test_random_fill_dtypes_and_ranges():
    x = retrograd.zeros(1000, dtype=retrograd.int64).random_(3, 7)
    assert x.dtype == retrograd.int64 and x.min().item() >= 3 and x.max().item() <= 6
    y = retrograd.zeros(1000, dtype=retrograd.int32).random_(4)
    assert set(np.unique(y.numpy())) <= {0, 1, 2, 3}
    b = retrograd.zeros(100, dtype=retrograd.bool).bernoulli_(0.5)
    assert b.dtype == retrograd.bool
    assert retrograd.zeros(3).bernoulli_(retrograd.tensor([0., 1., 0.])).tolist() == [0., 1., 0.]
    w = retrograd.empty(4, 4).uniform_(-0.1, 0.1)
    assert (w.abs() <= 0.1).all()


def test_random_fill_no_grad_and_data():
    w = retrograd.randn(3, 4, requires_grad=True)
    with retrograd.no_grad():
        w.uniform_(-0.1, 0.1)
    w.data.normal_(0, 0.01)
    assert w.requires_grad and w.is_leaf and w.grad_fn is None
    # on a non-leaf: the overwritten value gets zero gradient, as torch
    x = retrograd.ones(3, requires_grad=True)
    y = x * 2
    y.uniform_()
    assert type(y.grad_fn).__name__ == "UniformBackward0"
    (y * x).sum().backward()
    assert np.allclose(x.grad.numpy(), y.detach().numpy())


def test_bernoulli_multinomial_methods():
    retrograd.manual_seed(0)
    p = retrograd.full((2, 1000), 0.25)
    assert abs(p.bernoulli().mean().item() - 0.25) < 0.05
    m = retrograd.tensor([0., 1., 3.]).multinomial(200, replacement=True)
    assert m.dtype == retrograd.int64 and set(np.unique(m.numpy())) <= {1, 2}


def test_binomial_errors_and_is_conj_type_check():
    for call in (lambda L: L.binomial(L.tensor([10, 5]), L.tensor([.5, .2])),
                 lambda L: L.is_conj(1), lambda L: L.is_neg([1.])):
        r, t = _err(lambda: call(retrograd), lambda: call(torch))
        assert r == t
