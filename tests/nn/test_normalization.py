"""nn.CrossMapLRN2d (src/retrograd/nn/modules/normalization.py), against torch."""

import numpy as np
import pytest

import retrograd as R

torch = pytest.importorskip("torch")

from ._lazy_helpers import A, same_error, tnn  # noqa: E402


@pytest.mark.parametrize("size,channels", [(3, 5), (4, 6), (5, 3), (2, 7), (7, 4)])
def test_cross_map_lrn2d(size, channels):
    t, m = tnn.CrossMapLRN2d(size, 1e-2, 0.75, 2), R.nn.CrossMapLRN2d(size, 1e-2, 0.75, 2)
    assert repr(m) == repr(t)
    rng = np.random.default_rng(size)
    x, g = rng.standard_normal((2, channels, 3, 3)), rng.standard_normal((2, channels, 3, 3))
    xt, xr = torch.tensor(x, requires_grad=True), R.tensor(x, requires_grad=True)
    yt, yr = t(xt), m(xr)
    np.testing.assert_allclose(A(yr), A(yt), rtol=1e-12, atol=1e-14)
    yt.backward(torch.tensor(g))
    yr.backward(R.tensor(g))
    np.testing.assert_allclose(A(xr.grad), A(xt.grad), rtol=1e-10, atol=1e-13)


def test_cross_map_lrn2d_errors():
    assert repr(R.nn.CrossMapLRN2d(3)) == repr(tnn.CrossMapLRN2d(3))
    same_error(lambda: R.nn.CrossMapLRN2d(3)(R.randn(5, 4, 4)), lambda: tnn.CrossMapLRN2d(3)(torch.randn(5, 4, 4)))
