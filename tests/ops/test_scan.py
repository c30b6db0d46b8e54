"""Tests of the scan ops (src/retrograd/_ops/scan.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._reduction_helpers import LIBS, _np  # noqa: E402
from ._compare_helpers import _both, _raises_like, _same  # noqa: E402
from ._differential_helpers import assert_same_layout  # noqa: E402


def test_prod_and_cumprod_zeros_second_derivative():
    for vals in ([2., 0., 3., 0.5], [0., 0., 3., 2.]):
        out = []
        for lib in LIBS:
            x = lib.tensor(vals, dtype=lib.float64, requires_grad=True)
            y = x.prod() + x.cumprod(0).sum() + x.reshape(2, 2).prod(1).sum()
            (g,) = lib.autograd.grad(y, x, create_graph=True)
            (gg,) = lib.autograd.grad((g * lib.tensor([1., 2., 3., 4.], dtype=lib.float64)).sum(), x)
            out.append((_np(g), _np(gg)))
        np.testing.assert_allclose(out[0][0], out[1][0])
        np.testing.assert_allclose(out[0][1], out[1][1])


def test_logcumsumexp_extremes():
    r, t = _both(np.array([-1000.0, 0.0, 1000.0, -np.inf]))
    _same(retrograd.logcumsumexp(r, 0), torch.logcumsumexp(t, 0))
    _raises_like(lambda L: L.logcumsumexp(L.tensor([1, 2]), 0), NotImplementedError)
    x = retrograd.tensor([-1000.0, 0.0, 1000.0], dtype=retrograd.float64, requires_grad=True)
    tx = torch.tensor([-1000.0, 0.0, 1000.0], dtype=torch.float64, requires_grad=True)
    gw = [1.0, -2.0, 0.5]
    retrograd.logcumsumexp(x, 0).backward(retrograd.tensor(gw, dtype=retrograd.float64))
    torch.logcumsumexp(tx, 0).backward(torch.tensor(gw, dtype=torch.float64))
    _same(x.grad, tx.grad)


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("op", [lambda L, x: x.cumsum(0), lambda L, x: x.cumsum(-1), lambda L, x: x.cumprod(1),
                                lambda L, x: x.logcumsumexp(0)])
def test_cumulative_results_are_contiguous(op):
    assert_same_layout(op)
