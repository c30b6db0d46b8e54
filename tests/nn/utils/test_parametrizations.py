"""Tests of retrograd.nn.utils.parametrizations, checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


from ._helpers import _n, _pair  # noqa: E402


rng = np.random.default_rng(0)


def _check_grads(tm, rm, x, rtol=1e-9):
    tx, rx = torch.tensor(x, requires_grad=True), retrograd.tensor(x, requires_grad=True)
    to, ro = tm(tx), rm(rx)
    np.testing.assert_allclose(_n(ro), _n(to), rtol=rtol, atol=1e-12)
    w = rng.standard_normal(tuple(to.shape))
    (to * torch.tensor(w)).sum().backward()
    (ro * retrograd.tensor(w)).sum().backward()
    np.testing.assert_allclose(_n(rx.grad), _n(tx.grad), rtol=rtol, atol=1e-12)
    tp = dict(tm.named_parameters())
    for name, p in rm.named_parameters():
        np.testing.assert_allclose(_n(p.grad), _n(tp[name].grad), rtol=rtol, atol=1e-12, err_msg=name)
    for name, b in rm.named_buffers():
        np.testing.assert_allclose(_n(b), _n(dict(tm.named_buffers())[name]), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("dim", [0, 1])
def test_parametrizations_weight_norm(dim):
    P = "parametrizations"
    tm, rm = _pair(lambda nn: getattr(nn.utils, P).weight_norm(nn.Linear(3, 4), dim=dim))
    assert list(rm.state_dict()) == list(tm.state_dict())
    _check_grads(tm, rm, rng.standard_normal((2, 3)))
    torch.nn.utils.parametrize.remove_parametrizations(tm, "weight")
    retrograd.nn.utils.parametrize.remove_parametrizations(rm, "weight")
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight), rtol=1e-12)


def test_parametrizations_spectral_norm():
    tm, rm = _pair(lambda nn: nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3)))
    assert list(rm.state_dict()) == list(tm.state_dict())
    x = rng.standard_normal((2, 4))
    for _ in range(2):
        for m in (tm, rm):
            m.zero_grad()
        _check_grads(tm, rm, x)
    tm.eval()
    rm.eval()
    rm.zero_grad()
    tm.zero_grad()
    _check_grads(tm, rm, x)


@pytest.mark.parametrize("shape,omap", [((4, 4), None), ((4, 4), "cayley"), ((5, 3), None), ((3, 5), None),
                                        ((5, 3), "matrix_exp"), ((3, 5), "cayley")])
def test_parametrizations_orthogonal(shape, omap):
    tm, rm = _pair(lambda nn: nn.utils.parametrizations.orthogonal(nn.Linear(shape[1], shape[0]).double(),
                                                                    orthogonal_map=omap))
    assert list(rm.state_dict()) == list(tm.state_dict())
    # move away from the initial point (original = -I) so the map and its gradient are non-trivial
    v = rng.standard_normal(shape) * 0.1
    idx = np.arange(min(shape))
    v[idx, idx] = 0  # householder keeps only int(diagonal) as signs (PyTorch); keep them -1
    with torch.no_grad():
        tm.parametrizations.weight.original.add_(torch.tensor(v))
    with retrograd.no_grad():
        rm.parametrizations.weight.original.add_(retrograd.tensor(v))
    w = _n(rm.weight)
    small = w if shape[0] >= shape[1] else w.T
    np.testing.assert_allclose(small.T @ small, np.eye(min(shape)), atol=1e-10)
    _check_grads(tm, rm, rng.standard_normal((2, shape[1])))
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        retrograd.nn.utils.parametrizations.orthogonal(retrograd.nn.Linear(2, 2), orthogonal_map="x")
