"""Tests of the ternary ops (src/retrograd/_ops/ternary.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
import retrograd
torch = pytest.importorskip("torch")


def _pair(values, dtype="float64", grad=False):
    a = np.array(values, dtype=dtype)
    r = retrograd.tensor(a.copy())
    t = torch.tensor(a.copy())
    if grad:
        r.requires_grad_()
        t.requires_grad_()
    return r, t


def _same(ours, theirs, rtol=1e-12, atol=0.0):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


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
