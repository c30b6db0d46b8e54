"""Tests of the distances ops (src/retrograd/_ops/linalg/distances.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from .._compare_helpers import _both, _raises_like, _same  # noqa: E402


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, 0.5, 1.5, float("inf")])
def test_cdist_is_twice_differentiable(p):
    """torch cannot differentiate _cdist_backward (so the op table checks first order only); we can."""
    rng = np.random.default_rng(3)
    a = retrograd.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    b = retrograd.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    f = lambda x, y: retrograd.cdist(x, y, p=p)  # noqa: E731
    assert retrograd.autograd.gradgradcheck(f, (a, b), eps=1e-6, atol=1e-5, rtol=1e-3)


def test_dist_special_norms_and_zero_distance():
    a, b = _both(np.array([1.0, 2.0, 0.0])), _both(np.array([1.0, 3.0, 2.0]))
    for p in (0, -float("inf"), 0.5):
        _same(retrograd.dist(a[0], b[0], p), torch.dist(a[1], b[1], p))
    _raises_like(lambda L: L.dist(L.tensor([1, 2]), L.tensor([1, 3])))
    x = retrograd.tensor([1.0, 2.0], requires_grad=True)
    retrograd.dist(x, x.detach()).backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0.0, 0.0])
