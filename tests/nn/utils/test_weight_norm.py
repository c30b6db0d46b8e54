"""Tests of retrograd.nn.utils.weight_norm, checked against PyTorch."""
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


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_hook(dim):
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated"):
        retrograd.nn.utils.weight_norm(retrograd.nn.Linear(2, 2))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, rm = _pair(lambda nn: nn.utils.weight_norm(nn.Conv1d(2, 3, 2), dim=dim))
    assert list(rm.state_dict()) == list(tm.state_dict())
    assert tuple(rm.weight_g.shape) == tuple(tm.weight_g.shape)
    _check_grads(tm, rm, rng.standard_normal((2, 2, 5)))
    with warnings.catch_warnings(), pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks "
                                                                      "on the same parameter weight"):
        warnings.simplefilter("ignore")
        retrograd.nn.utils.weight_norm(rm, dim=dim)
    retrograd.nn.utils.remove_weight_norm(rm)
    torch.nn.utils.remove_weight_norm(tm)
    assert list(rm.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight), rtol=1e-12)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        retrograd.nn.utils.remove_weight_norm(rm)
