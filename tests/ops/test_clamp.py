"""Tests of the clamp ops (src/retrograd/_ops/clamp.py), checked against PyTorch."""
from __future__ import annotations

import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._pointwise_helpers import NAN, _pair, _raises_like, _same  # noqa: E402


def test_clamp_tensor_bounds_ties_nan_and_crossed_bounds():
    x = [-1.0, 0.5, 2.0, NAN, 0.3, 0.5, 0.8, 0.2, 3.0]
    lo = [0.0, 0.0, 0.0, 0.0, NAN, 0.5, 0.5, 0.5, 0.8]
    hi = [1.0, 0.2, 1.0, 1.0, 1.0, 0.8, 0.8, 0.8, 0.2]  # last: min > max gives max
    pairs = [_pair(v, grad=True) for v in (x, lo, hi)]
    ours = retrograd.clamp(*[p[0] for p in pairs])
    theirs = torch.clamp(*[p[1] for p in pairs])
    _same(ours, theirs)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "ClampBackward0"
    ours.sum().backward()
    theirs.sum().backward()
    for r, t in pairs:
        _same(r.grad, t.grad)


def test_clamp_one_tensor_bound_and_mixed_bounds():
    for kw in ({"min": [0.5, 0.8, 0.9]}, {"max": [0.5, 0.8, 0.9]}):
        (k, v), = kw.items()
        x = _pair([0.5, 0.8, 1.0], grad=True)
        b = _pair(v, grad=True)
        ours, theirs = retrograd.clamp(x[0], **{k: b[0]}), torch.clamp(x[1], **{k: b[1]})
        ours.sum().backward()
        theirs.sum().backward()
        _same(x[0].grad, x[1].grad)
        _same(b[0].grad, b[1].grad)
    _raises_like(lambda lib: lib.clamp(lib.tensor([1.0]), lib.tensor([0.0]), 1.0), TypeError)
