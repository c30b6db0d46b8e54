"""Tests of the complex ops (src/retrograd/_ops/complex.py), checked against PyTorch."""
from __future__ import annotations

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from ._elementwise_helpers import LIBS, _close, _short  # noqa: E402


# ====================================================================== angle
def test_angle_values_dtypes_and_grad():
    vals = [-2.0, -0.0, 0.0, 3.0, float("nan"), -float("inf"), float("inf")]
    res = []
    for L in LIBS:
        x = L.tensor(vals, dtype=L.float64, requires_grad=True)
        y = L.angle(x)
        g, = L.autograd.grad(y.sum(), x, create_graph=True)
        others = [L.angle(L.tensor([-1, 0, 2])), L.tensor([True, False]).angle(),
                  L.angle(L.tensor([-1.0, 1.0], dtype=L.float16))]
        res.append((y, type(y.grad_fn).__name__, g, g.requires_grad, others))
    (yr, nr, gr, qr, orr), (yt, nt, gt, qt, ot) = res
    _close(yr, yt)
    assert (nr, qr) == (nt, qt) == ("AngleBackward0", False)
    _close(gr, gt)
    for a, b in zip(orr, ot):
        assert _short(a.dtype) == _short(b.dtype)
        _close(a.double(), b.double(), rtol=1e-3)
    with pytest.raises(RuntimeError, match="result type Float can't be cast to the desired output type Long"):
        rg.angle(rg.tensor([-1, 2]), out=rg.empty(2, dtype=rg.int64))
