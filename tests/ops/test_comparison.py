"""Tests of the comparison ops (src/retrograd/_ops/comparison.py), checked against PyTorch."""
from __future__ import annotations

import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._pointwise_helpers import INF, NAN, _grads, _pair, _same  # noqa: E402


# ---------------------------------------------------------------- ties and NaN in max/min
@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin"])
def test_ties_and_nan_route_gradients_like_torch(name):
    a = [1.0, 2.0, NAN, 1.0, NAN, -3.0]
    b = [1.0, 1.0, 1.0, NAN, NAN, -3.0]
    for ours, theirs in _grads(name, [a, b]):
        _same(ours, theirs)


def test_maximum_tie_splits_gradient_in_half():
    x = retrograd.tensor([2.0, 2.0], requires_grad=True)
    y = retrograd.tensor([2.0, 1.0], requires_grad=True)
    retrograd.maximum(x, y).sum().backward()
    assert x.grad.tolist() == [0.5, 1.0]
    assert y.grad.tolist() == [0.5, 0.0]


# ---------------------------------------------------------------- comparisons, logical, bitwise
def test_isclose_allclose_equal_semantics():
    a = [1.0, NAN, INF, INF, -INF, 0.0, 1.0]
    b = [1.0 + 1e-7, NAN, INF, -INF, -INF, 1e-9, 1.1]
    (ra, ta), (rb, tb) = _pair(a), _pair(b)
    for kw in ({}, {"equal_nan": True}, {"rtol": 0, "atol": 0}, {"atol": INF}, {"rtol": 0.2}):
        _same(retrograd.isclose(ra, rb, **kw), torch.isclose(ta, tb, **kw))
        assert retrograd.allclose(ra, rb, **kw) is torch.allclose(ta, tb, **kw)
    assert retrograd.allclose(ra[:1], rb[:1]) is True
    assert retrograd.equal(ra, ra) is False  # NaN
    assert retrograd.equal(retrograd.ones(2, 2), retrograd.ones(2)) is False
    assert retrograd.equal(retrograd.tensor([1, 2]), retrograd.tensor([1.0, 2.0])) is True
    ri, ti = _pair([1, 5, 9], "int64")
    _same(retrograd.isclose(ri, ri + 1, rtol=0, atol=1), torch.isclose(ti, ti + 1, rtol=0, atol=1))
    rb_, tb_ = _pair([True, False], "bool")
    _same(retrograd.isclose(rb_, rb_), torch.isclose(tb_, tb_))


def test_logical_inplace_keeps_history_and_bumps_version():
    for lib in (retrograd, torch):
        x = lib.tensor([1.0, 0.0, 2.0], requires_grad=True)
        y = x * 1
        y.logical_and_(lib.tensor([1.0, 1.0, 0.0]))
        assert type(y.grad_fn).__name__ == "MulBackward0"
        assert y.tolist() == [1.0, 0.0, 0.0]
        x.logical_not_()  # allowed even on a leaf that requires grad: nothing to differentiate
        assert x.grad_fn is None and x.requires_grad and x.tolist() == [0.0, 1.0, 0.0]
    z = retrograd.tensor([3, 0])
    z.logical_not_()
    assert z.tolist() == [0, 1] and z._version == 1 and z.dtype is retrograd.int64
