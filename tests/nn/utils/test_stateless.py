"""Tests of retrograd.nn.utils.stateless, checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


from ._helpers import _n, _pair  # noqa: E402


rng = np.random.default_rng(0)


# ---------------------------------------------------------------------- stateless, grad norms, fusion, init
def test_functional_call():
    import warnings
    tm, rm = _pair(lambda nn: nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2)))
    x = rng.standard_normal((4, 3))
    new = {"0.weight": rng.standard_normal((2, 3)), "1.running_mean": rng.standard_normal(2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm.eval(), rm.eval()
        to = torch.nn.utils.stateless.functional_call(tm, {k: torch.tensor(v) for k, v in new.items()},
                                                      (torch.tensor(x),))
    with pytest.warns(FutureWarning, match="Please use .torch.func.functional_call."):
        ro = retrograd.nn.utils.stateless.functional_call(rm, {k: retrograd.tensor(v) for k, v in new.items()},
                                                          (retrograd.tensor(x),))
    np.testing.assert_allclose(_n(ro), _n(to), rtol=1e-10)
    np.testing.assert_allclose(_n(rm[0].weight), _n(tm[0].weight))  # restored
    assert isinstance(rm[0].weight, retrograd.nn.Parameter)
    # gradients flow to the passed-in tensors
    w = retrograd.tensor(new["0.weight"], requires_grad=True)
    from retrograd.nn.utils.stateless import _functional_call
    _functional_call(rm, {"0.weight": w}, retrograd.tensor(x)).sum().backward()
    assert w.grad is not None and rm[0].weight.grad is None
    with pytest.raises(RuntimeError, match="Missing key"):
        _functional_call(rm, {"0.weight": w}, retrograd.tensor(x), strict=True)
