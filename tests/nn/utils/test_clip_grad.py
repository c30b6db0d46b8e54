"""Tests of retrograd.nn.utils.clip_grad, checked against PyTorch."""
from __future__ import annotations

import math

import numpy as np
import pytest

import retrograd
import retrograd.nn as rnn

torch = pytest.importorskip("torch")

from .._module_helpers import LIBS  # noqa: E402
from ._helpers import _n  # noqa: E402


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), "inf", 0.5])
@pytest.mark.parametrize("foreach", [None, True])
def test_clip_grad_norm(norm_type, foreach):
    res = []
    for T in LIBS:
        ps = []
        for i, shp in enumerate([(3,), (2, 2), (1,)]):
            n = 1
            for s in shp:
                n *= s
            p = T.nn.Parameter(T.arange(n, dtype=T.float32).reshape(shp))
            p.grad = (T.arange(n, dtype=T.float32).reshape(shp) - 2.0) * (i + 1)
            ps.append(p)
        tot = T.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type, foreach=foreach)
        res.append((tot.item(), [x for p in ps for x in p.grad.reshape(-1).tolist()]))
    assert res[0][0] == pytest.approx(res[1][0], rel=1e-5)
    assert res[0][1] == pytest.approx(res[1][1], rel=1e-5, abs=1e-6)


def _grad_pair(values):
    tp = [torch.nn.Parameter(torch.zeros(len(v), dtype=torch.float64)) for v in values]
    rp = [rnn.Parameter(retrograd.zeros(len(v), dtype=retrograd.float64)) for v in values]
    for p, v in zip(tp, values):
        p.grad = torch.tensor(v, dtype=torch.float64)
    for p, v in zip(rp, values):
        p.grad = retrograd.tensor(v, dtype=retrograd.float64)
    return tp, rp


@pytest.mark.parametrize("norm_type", [2.0, 1, math.inf, 3])
@pytest.mark.parametrize("max_norm", [0.5, 100.0])
def test_clip_grad_norm_matches_torch(norm_type, max_norm):
    vals = [[3.0, -4.0, 1.0], [0.5, 2.0]]
    tp, rp = _grad_pair(vals)
    tn = torch.nn.utils.clip_grad_norm_(tp, max_norm, norm_type)
    rn = rnn.utils.clip_grad_norm_(rp, max_norm, norm_type)
    np.testing.assert_allclose(float(rn), float(tn), rtol=1e-12)
    assert rn.dtype is retrograd.float64 and rn.ndim == 0
    for a, b in zip(rp, tp):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12)


def test_clip_grad_value_and_errors():
    tp, rp = _grad_pair([[3.0, -4.0, 0.1]])
    torch.nn.utils.clip_grad_value_(tp, 0.5)
    rnn.utils.clip_grad_value_(rp, 0.5)
    assert rp[0].grad.tolist() == tp[0].grad.tolist() == [0.5, -0.5, 0.1]
    _, rp = _grad_pair([[float("inf"), 1.0]])
    with pytest.raises(RuntimeError, match="The total norm of order 2.0 for gradients from `parameters` is non-finite"):
        rnn.utils.clip_grad_norm_(rp, 1.0, error_if_nonfinite=True)
    assert float(rnn.utils.clip_grad_norm_([rnn.Parameter(retrograd.ones(2))], 1.0)) == 0.0


rng = np.random.default_rng(0)


def test_get_total_norm_and_clip_with_norm():
    gs = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    for p in (2.0, 1.0, float("inf"), 3.0):
        r = retrograd.nn.utils.get_total_norm([retrograd.tensor(g) for g in gs], p)
        t = torch.nn.utils.get_total_norm([torch.tensor(g) for g in gs], p)
        np.testing.assert_allclose(r.item(), t.item(), rtol=1e-12)
    rp = [retrograd.nn.Parameter(retrograd.tensor(g)) for g in gs]
    tp = [torch.nn.Parameter(torch.tensor(g)) for g in gs]
    for a, b in zip(rp, tp):
        a.grad, b.grad = retrograd.tensor(_n(a) * 2), torch.tensor(_n(b) * 2)
    retrograd.nn.utils.clip_grads_with_norm_(rp, 0.5, retrograd.tensor(3.0))
    torch.nn.utils.clip_grads_with_norm_(tp, 0.5, torch.tensor(3.0))
    for a, b in zip(rp, tp):
        np.testing.assert_allclose(_n(a.grad), _n(b.grad), rtol=1e-12)
