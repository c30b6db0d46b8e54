"""Tests of retrograd.nn.utils.spectral_norm, checked against PyTorch."""
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


@pytest.mark.parametrize("kind", ["Linear", "ConvTranspose"])
def test_spectral_norm_hook(kind):
    make = (lambda nn: nn.Linear(4, 3)) if kind == "Linear" else (lambda nn: nn.ConvTranspose1d(2, 3, 2))
    tm, rm = _pair(lambda nn: nn.utils.spectral_norm(make(nn), n_power_iterations=2))
    assert list(rm.state_dict()) == list(tm.state_dict())
    x = rng.standard_normal((2, 4)) if kind == "Linear" else rng.standard_normal((2, 2, 5))
    for _ in range(2):  # training: power iteration updates the u/v buffers each call
        for m in (tm, rm):
            m.zero_grad()
        _check_grads(tm, rm, x)
    tm.eval()
    rm.eval()
    _check_grads(tm, rm, x)
    torch.nn.utils.remove_spectral_norm(tm)
    retrograd.nn.utils.remove_spectral_norm(rm)
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight), rtol=1e-10)
    assert list(rm.state_dict()) == list(tm.state_dict())
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        retrograd.nn.utils.spectral_norm(retrograd.nn.Linear(2, 2), n_power_iterations=0)
