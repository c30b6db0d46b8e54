"""nn.init (distributions, bounds, gains, fans, deprecated aliases) vs torch."""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg
import retrograd.nn as rnn
from retrograd.nn import init

torch = pytest.importorskip("torch")
tinit = torch.nn.init


def _np(t):
    return t.detach().numpy()


def test_calculate_gain_matches_torch():
    for nl, p in [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None), ("relu", None),
                  ("leaky_relu", None), ("leaky_relu", 0.2), ("selu", None), ("conv_transpose2d", None)]:
        assert init.calculate_gain(nl, p) == tinit.calculate_gain(nl, p)
    for bad in (("foo", None), ("leaky_relu", "x")):
        with pytest.raises(ValueError) as er:
            init.calculate_gain(*bad)
        with pytest.raises(ValueError) as et:
            tinit.calculate_gain(*bad)
        assert str(er.value) == str(et.value)


def test_fan_in_fan_out():
    for shape in [(3, 4), (6, 3, 5, 5), (2, 7, 3)]:
        assert init._calculate_fan_in_and_fan_out(retrograd.empty(shape)) == \
            tinit._calculate_fan_in_and_fan_out(torch.empty(shape))
    with pytest.raises(ValueError, match="Fan in and fan out can not be computed for tensor with fewer than 2 "
                                         "dimensions"):
        init._calculate_fan_in_and_fan_out(retrograd.empty(3))
    with pytest.raises(ValueError, match=r"Mode fan_avg not supported, please use one of \['fan_in', 'fan_out'\]"):
        init.kaiming_uniform_(retrograd.empty(3, 3), mode="fan_avg")


def test_distributions_and_bounds():
    retrograd.manual_seed(0)
    w = retrograd.empty(400, 300)
    assert init.uniform_(w, -2, 3) is w
    a = _np(w)
    assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.05
    a = _np(init.normal_(w, 1.0, 2.0))
    assert abs(a.mean() - 1) < 0.03 and abs(a.std() - 2) < 0.03
    a = _np(init.trunc_normal_(w, 0.0, 1.0, -0.5, 1.0))
    assert a.min() >= -0.5 and a.max() <= 1.0
    # the truncated standard normal's mean on [-0.5, 1]
    from math import erf, exp, pi, sqrt

    phi = lambda x: exp(-x * x / 2) / sqrt(2 * pi)  # noqa: E731
    cdf = lambda x: 0.5 * (1 + erf(x / sqrt(2)))  # noqa: E731
    assert abs(a.mean() - (phi(-0.5) - phi(1.0)) / (cdf(1.0) - cdf(-0.5))) < 0.01
    assert np.all(_np(init.constant_(w, 0.3)) == np.float32(0.3))
    assert np.all(_np(init.ones_(w)) == 1) and np.all(_np(init.zeros_(w)) == 0)
    assert np.array_equal(_np(init.eye_(retrograd.empty(3, 4))), np.eye(3, 4))
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions are supported"):
        init.eye_(retrograd.empty(3))
    bound = math.sqrt(6 / 700)
    a = _np(init.xavier_uniform_(w))
    assert a.max() <= bound and a.min() >= -bound and a.max() > 0.95 * bound
    a = _np(init.xavier_normal_(w, gain=2))
    assert abs(a.std() - 2 * math.sqrt(2 / 700)) < 0.003
    a = _np(init.kaiming_uniform_(w, a=math.sqrt(5)))
    b = math.sqrt(3) * tinit.calculate_gain("leaky_relu", math.sqrt(5)) / math.sqrt(300)
    assert a.max() <= b and a.max() > 0.95 * b
    a = _np(init.kaiming_normal_(w, mode="fan_out", nonlinearity="relu"))
    assert abs(a.std() - math.sqrt(2) / math.sqrt(400)) < 0.002
    q = _np(init.orthogonal_(retrograd.empty(5, 8), gain=2.0))
    np.testing.assert_allclose(q @ q.T, 4 * np.eye(5), atol=1e-5)
    q = _np(init.orthogonal_(retrograd.empty(8, 2, 2)))
    np.testing.assert_allclose(q.reshape(8, 4).T @ q.reshape(8, 4), np.eye(4), atol=1e-5)
    d = _np(init.dirac_(retrograd.empty(4, 4, 3, 3)))
    assert d.sum() == 4 and all(d[i, i, 1, 1] == 1 for i in range(4))


def test_init_on_parameters_keeps_graph_leaf_and_version():
    p = rnn.Parameter(retrograd.empty(3, 3))
    v = p._version
    init.normal_(p)
    assert p.is_leaf and p.requires_grad and p.grad_fn is None and p._version > v
    with pytest.warns(UserWarning, match="Initializing zero-element tensors is a no-op"):
        init.kaiming_uniform_(retrograd.empty(0, 3))


def test_generator_argument_reproducible():
    g1 = retrograd.Generator().manual_seed(5)
    g2 = retrograd.Generator().manual_seed(5)
    a = init.normal_(retrograd.empty(4), generator=g1)
    b = init.normal_(retrograd.empty(4), generator=g2)
    assert a.tolist() == b.tolist()


# ------------------------------------------------------------------ 5. nn.init deprecated aliases
ALIASES = [("uniform", ()), ("normal", ()), ("constant", (0.5,)), ("xavier_uniform", ()), ("xavier_normal", ()),
           ("kaiming_uniform", ()), ("kaiming_normal", ()), ("orthogonal", ()), ("sparse", (0.5,)), ("eye", ()),
           ("dirac", ())]


@pytest.mark.parametrize("name,args", ALIASES)
def test_nn_init_deprecated_aliases(name, args):
    shape = (3, 2, 3) if name == "dirac" else (4, 3)

    def call(lib):
        lib.manual_seed(0)
        w = lib.empty(*shape)
        with warnings.catch_warnings(record=True) as rec:
            warnings.simplefilter("always")
            out = getattr(lib.nn.init, name)(w, *args)
        assert out is w
        return w.numpy(), [(r.category, str(r.message)) for r in rec]

    tw, twarn = call(torch)
    rw, rwarn = call(rg)
    assert rwarn == twarn == [(FutureWarning, f"`nn.init.{name}` is now deprecated in favor of `nn.init.{name}_`.")]
    if name in ("constant", "eye", "dirac", "uniform", "normal", "xavier_uniform", "xavier_normal",
                "kaiming_uniform", "kaiming_normal"):
        np.testing.assert_allclose(rw, tw, rtol=1e-6, atol=1e-7)
    assert getattr(rg.nn.init, name).__name__ == name
