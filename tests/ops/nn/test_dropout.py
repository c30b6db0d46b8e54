"""Tests of the dropout ops (the op table's dropout nodes and src/retrograd/nn/_top_level.py), checked against PyTorch."""

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ..._error_compare import _err, _np  # noqa: E402


def test_feature_dropout_training_zeroes_whole_channels():
    x = retrograd.ones(4, 6, 3)
    y = retrograd.feature_dropout(x, 0.5, True)
    v = y.numpy()
    assert set(np.unique(v)) <= {0.0, 2.0}
    assert (v == v[:, :, :1]).all()


def test_native_dropout_masks_and_grid_sampler_errors():
    retrograd.manual_seed(5)
    torch.manual_seed(5)
    r = retrograd.native_dropout(retrograd.ones(20), 0.3, True)
    t = torch.native_dropout(torch.ones(20), 0.3, True)
    assert r[1].tolist() == t[1].tolist() and str(r[1].dtype) == "torch.bool"
    np.testing.assert_allclose(_np(r[0]), _np(t[0]), rtol=1e-6)
    for call in (lambda L: L.grid_sampler_2d(L.ones(1, 1, 3, 3, 3), L.zeros(1, 2, 2, 2, 3), 0, 0, False),
                 lambda L: L.grid_sampler_3d(L.ones(1, 1, 3, 3), L.zeros(1, 2, 2, 2), 0, 0, False),
                 lambda L: L.convolution(L.ones(2, 5), L.ones(3, 2, 2), None, [1], [0], [1], False, [0], 1)):
        r, t = _err(lambda: call(retrograd), lambda: call(torch))
        assert r == t
