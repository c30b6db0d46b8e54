"""Tests of the ternary ops (src/retrograd/_ops/ternary.py), checked against PyTorch."""
from __future__ import annotations

import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._pointwise_helpers import _pair, _same  # noqa: E402


def test_lerp_weight_forms_and_inplace_shapes():
    (ra, ta), (rb, tb) = _pair([1.0, 2.0, 3.0], grad=True), _pair([5.0, -1.0, 0.5], grad=True)
    for w in (0.0, 0.3, 0.5, 1.0, 1.7, -0.4):
        _same(retrograd.lerp(ra, rb, w), torch.lerp(ta, tb, w))
    rw, tw = _pair([0.0, 0.5, 1.0], grad=True)
    ours, theirs = retrograd.lerp(ra, rb, rw), torch.lerp(ta, tb, tw)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__ == "LerpBackward1"
    ours.sum().backward()
    theirs.sum().backward()
    for r, t in ((ra, ta), (rb, tb), (rw, tw)):
        _same(r.grad, t.grad)
