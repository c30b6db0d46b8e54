"""Tests of the joining ops (src/retrograd/_ops/joining.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._indexing_helpers import LIBS, _base, _np  # noqa: E402
from ._compare_helpers import _both, _raises_like, _same  # noqa: E402
from ._differential_helpers import assert_same_layout  # noqa: E402


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


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("op", [lambda L, x: L.cat([x, x], 0), lambda L, x: L.cat([x, x * 2], -1),
                                lambda L, x: L.stack([x, x], 0), lambda L, x: L.stack([x, x], -1)])
def test_cat_and_stack_results_are_contiguous(op):
    assert_same_layout(op)


def test_cat_of_transposed_views_can_be_viewed_flat():
    out = [L.cat([L.ones(2, 3).t(), L.zeros(2, 3).t()], 1).view(-1).tolist() for L in (retrograd, torch)]
    assert out[0] == out[1]


def test_cat_of_channels_last_inputs_stays_channels_last():
    def f(L, x):
        y = x.reshape(1, 2, 3, 4).contiguous(memory_format=L.channels_last)
        return L.cat([y, y], 1)
    assert_same_layout(f, lambda L: {"nchw": L.arange(24.0)})


def test_cat_of_legacy_empty_vectors_ignores_the_dim():
    out = [tuple(L.cat([L.zeros(0), L.zeros(0)], 1).shape) for L in (retrograd, torch)]
    assert out[0] == out[1]
