"""Tensor pairs and comparisons shared by the nn and linear-algebra op tests."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _pair(shape, seed, *, low=-2.0, high=2.0, grad=True):
    a = np.random.default_rng(seed).uniform(low, high, shape)
    return (torch.tensor(a, requires_grad=grad), rg.tensor(a, requires_grad=grad))


def _np(t):
    return t.detach().numpy()


def _close(a, b, tol=1e-9):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(_np(b), _np(a), rtol=tol, atol=tol)
