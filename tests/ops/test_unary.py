"""The elementwise one-input ops (src/retrograd/_ops/unary.py): first-grad graphs and node names,
frexp, polygamma, round, nan_to_num, against torch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._elementwise_helpers import ACTIVATIONS, LIBS, _X, _close  # noqa: E402
from ._pointwise_helpers import EDGES, INF, NAN, _grads, _pair, _same  # noqa: E402
from ._compare_helpers import _both, _raises_like, _same as _same_ops  # noqa: E402
from ._differential_helpers import assert_same_layout  # noqa: E402


@pytest.mark.parametrize("name", ["hardtanh", "softshrink", "hardshrink", "leaky_relu", "relu"])
def test_first_grad_node_names(name):
    names = []
    for L in LIBS:
        x = L.tensor(_X, dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(ACTIVATIONS[name](L, x).sum(), x, create_graph=True)
        names.append(type(g.grad_fn).__name__)
    assert names[0] == names[1]


def test_first_grad_through_grad_output():
    """With a grad_output that requires grad, the first gradient's derivative w.r.t. it is the mask."""
    res = []
    for L in LIBS:
        x = L.tensor(_X, dtype=L.float64, requires_grad=True)
        go = L.ones(len(_X), dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(L.nn.functional.hardtanh(x, -0.3, 0.9), x, go, create_graph=True)
        res.append(L.autograd.grad((g * 3).sum(), go)[0])
    _close(*res)


def test_frexp_first_grad_has_no_graph():
    res = []
    for L in LIBS:
        x = L.tensor([-4.8, 0.6, 3.0, 1e-3], dtype=L.float64, requires_grad=True)
        m, e = L.frexp(x)
        g, = L.autograd.grad(m, x, L.tensor([1.0, -2.0, 0.5, 3.0], dtype=L.float64), create_graph=True)
        res.append((m.detach().tolist(), e.tolist(), g.tolist(), g.requires_grad))
    assert res[0] == res[1]


@pytest.mark.parametrize("n", [0, 1, 2, 3, 6])
def test_polygamma_values_and_poles(n):
    x = np.array(EDGES[:-3] + [-3.7, 4.2, 100.0, NAN, INF])
    r, t = _pair(x)
    np.testing.assert_allclose(retrograd.polygamma(n, r).numpy(), torch.polygamma(n, t).numpy(), rtol=1e-11,
                               equal_nan=True)


def test_polygamma_method_and_inplace():
    r, t = _pair([0.5, 2.0], grad=True)
    _same(r.polygamma(2), t.polygamma(2))
    ro, to = r * 1, t * 1
    ro.polygamma_(1), to.polygamma_(1)
    assert type(ro.grad_fn).__name__ == type(to.grad_fn).__name__ == "PolygammaBackward1"
    ro.sum().backward()
    to.sum().backward()
    _same(r.grad, t.grad)


def test_round_decimals_values_and_halves():
    x = [0.125, 2.675, 0.375, 1.005, -2.5, 2.5, 1234.5678, 15.0, 25.0, NAN, INF]
    for dtype in ("float32", "float64", "float16"):
        r, t = _pair(x, dtype)
        for d in (-2, -1, 0, 1, 2, 3):
            _same(retrograd.round(r, decimals=d), torch.round(t, decimals=d))
        _same(retrograd.round(r), torch.round(t))
    r, t = _pair([1.25], grad=True)
    assert type(retrograd.round(r, decimals=0).grad_fn).__name__ == type(torch.round(t, decimals=0).grad_fn).__name__


def test_nan_to_num_defaults_per_dtype_and_grads():
    for dtype in ("float16", "float32", "float64"):
        r, t = _pair([NAN, INF, -INF, 1.0], dtype)
        _same(retrograd.nan_to_num(r), torch.nan_to_num(t))
        _same(retrograd.nan_to_num(r, nan=1.0, posinf=2.0), torch.nan_to_num(t, nan=1.0, posinf=2.0))
        y = r.clone()
        assert y.nan_to_num_(neginf=-7.0) is y
        _same(y, t.clone().nan_to_num_(neginf=-7.0))
    for ours, theirs in _grads("nan_to_num", [[NAN, INF, -INF, 1.0]]):
        _same(ours, theirs)


def test_frexp_nextafter_signbit():
    a = np.array([0.0, -0.0, 3.5, -1e-3, 1e10])
    r, t = _both(a)
    m, e = retrograd.frexp(r)
    tm, te = torch.frexp(t)
    _same_ops(m, tm)
    _same_ops(e, te)
    _raises_like(lambda L: L.frexp(L.tensor([1, 2])))
    o = _both(np.array([1.0, -1.0, 0.0, 3.0, 0.0]))
    _same_ops(retrograd.nextafter(r, o[0]), torch.nextafter(t, o[1]))
    _same_ops(retrograd.signbit(r), torch.signbit(t))


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("name", ["sign", "erf", "erfc", "nan_to_num", "exp", "abs"])
def test_elementwise_results_of_expanded_and_sliced_inputs(name):
    assert_same_layout(lambda L, x: getattr(x, name)())
