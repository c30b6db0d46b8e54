"""Tests of the calculus ops (src/retrograd/_ops/calculus.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._reduce_shape_helpers import _grads_match, _same  # noqa: E402


def test_diff_with_n_zero_is_a_copy():
    def f(lib, x, p):
        return lib.diff(x, 0, 0, p, p)
    r, t = _grads_match(f, np.arange(10.0).reshape(2, 5), np.ones((1, 5)))
    assert type(r.grad_fn).__name__ == type(t.grad_fn).__name__ == "CopyBackwards"


def test_gradient_accepts_spacing_none():
    for a in (np.array([-4.8, -7.5, -0.6, -1.5, -1.9]), np.arange(20.0).reshape(4, 5) ** 2):
        r = rg.gradient(rg.tensor(a, requires_grad=True), spacing=None, dim=None, edge_order=1)
        t = torch.gradient(torch.tensor(a, requires_grad=True), spacing=None, dim=None, edge_order=1)
        _same(r, t)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e).__name__, str(e).split(" (Triggered")[0]
    return None


@pytest.mark.parametrize("edge_order", [1, 2])
def test_gradient_coordinates_and_grad(edge_order):
    x = np.random.default_rng(0).standard_normal((4, 5))
    c0, c1 = np.array([0., 0.5, 1.5, 3.0]), np.array([0., 1., 1.2, 2., 4.])
    r = retrograd.tensor(x, requires_grad=True)
    t = torch.tensor(x, requires_grad=True)
    ro = retrograd.gradient(r, spacing=(retrograd.tensor(c0), retrograd.tensor(c1)), edge_order=edge_order)
    to = torch.gradient(t, spacing=(torch.tensor(c0), torch.tensor(c1)), edge_order=edge_order)
    assert isinstance(ro, tuple) and len(ro) == 2
    for a, b in zip(ro, to):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), atol=1e-12)
    (ro[0] * ro[1]).sum().backward()
    (to[0] * to[1]).sum().backward()
    np.testing.assert_allclose(r.grad.numpy(), t.grad.numpy(), atol=1e-12)


def test_gradient_errors():
    assert _err(lambda: retrograd.gradient(retrograd.ones(2), edge_order=2)) == \
        _err(lambda: torch.gradient(torch.ones(2), edge_order=2))
    assert _err(lambda: retrograd.gradient(retrograd.ones(3, 3), spacing=[1., 2., 3.])) == \
        _err(lambda: torch.gradient(torch.ones(3, 3), spacing=[1., 2., 3.]))
