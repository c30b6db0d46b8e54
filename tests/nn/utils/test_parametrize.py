"""Tests of retrograd.nn.utils.parametrize, checked against PyTorch."""
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


# ---------------------------------------------------------------------- parametrize
def _sym(nn):
    class Sym(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

        def right_inverse(self, a):
            return a.triu()
    return Sym()


def test_register_parametrization():
    import torch.nn.utils.parametrize as TP

    from retrograd.nn.utils import parametrize as RP

    tm, rm = _pair(lambda nn: nn.Linear(3, 3))
    TP.register_parametrization(tm, "weight", _sym(torch.nn))
    RP.register_parametrization(rm, "weight", _sym(retrograd.nn))
    assert type(rm).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert repr(rm).replace("Sym", "S") == repr(tm).replace("Sym", "S")
    assert list(rm.state_dict()) == list(tm.state_dict())
    assert RP.is_parametrized(rm) and RP.is_parametrized(rm, "weight") and not RP.is_parametrized(rm, "bias")
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight))
    _check_grads(tm, rm, rng.standard_normal((2, 3)))
    # assignment goes through right_inverse
    v = rng.standard_normal((3, 3))
    with torch.no_grad():
        tm.weight = torch.tensor(v)
    rm.weight = retrograd.tensor(v)
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight))
    with RP.cached():
        assert rm.weight is rm.weight
    assert rm.weight is not rm.weight
    TP.remove_parametrizations(tm, "weight", leave_parametrized=False)
    RP.remove_parametrizations(rm, "weight", leave_parametrized=False)
    assert type(rm).__name__ == "Linear" and isinstance(rm.weight, retrograd.nn.Parameter)
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight))
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        RP.remove_parametrizations(rm, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        RP.register_parametrization(rm, "nope", _sym(retrograd.nn))
