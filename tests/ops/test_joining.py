"""Tests of the joining ops (src/retrograd/_ops/joining.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest
import retrograd
torch = pytest.importorskip("torch")


LIBS = (retrograd, torch)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _base(lib, shape=(3, 4), grad=False):
    n = int(np.prod(shape))
    x = lib.tensor(np.arange(n, dtype=np.float64).reshape(shape) - 5.0)
    return x.requires_grad_() if grad else x


def test_cat_skips_legacy_empty_tensors_and_promotes():
    res = []
    for lib in LIBS:
        x = _base(lib, grad=True)
        e = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        y = lib.cat([x, e, lib.ones(1, 4, dtype=lib.int64)])
        y.sum().backward()
        res.append((_np(y), str(y.dtype)[-7:], _np(x.grad), tuple(e.grad.shape)))
    assert res[0][1] == res[1][1] and res[0][3] == res[1][3]
    np.testing.assert_array_equal(res[0][0], res[1][0])
    np.testing.assert_array_equal(res[0][2], res[1][2])


def _both(a):
    return retrograd.tensor(a), torch.tensor(a)


def _same(ours, theirs, atol=1e-12):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1]
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=atol, rtol=1e-7, equal_nan=True)


def _raises_like(fn, exc=RuntimeError):
    """fn(lib) raises the same exception type with the same message in both libraries."""
    with pytest.raises(exc) as theirs:
        fn(torch)
    with pytest.raises(exc) as ours:
        fn(retrograd)
    assert str(ours.value) == str(theirs.value)


def test_splits_errors_and_diff_errors():
    _raises_like(lambda L: L.hsplit(L.ones(2, 3), 2))
    _raises_like(lambda L: L.vsplit(L.ones(3), 1))
    _raises_like(lambda L: L.dsplit(L.ones(2, 2), 1))
    _raises_like(lambda L: L.diff(L.ones(2, 3), prepend=L.ones(3, 1)))
    _raises_like(lambda L: L.diff(L.tensor(1.0)))
    b = _both(np.array([True, False, False, True]))
    _same(retrograd.diff(b[0]), torch.diff(b[1]))
    x = _both(np.array([1.0, 4.0, 9.0]))
    _same(retrograd.diff(x[0], 3), torch.diff(x[1], 3))
