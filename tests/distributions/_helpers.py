"""Parameter makers and comparisons shared by tests/distributions/test_distributions.py and test_kl.py."""

import numpy as np
import pytest

import retrograd as R

torch = pytest.importorskip("torch")


TD = torch.distributions


DT = {"float64": (R.float64, torch.float64), "float32": (R.float32, torch.float32)}


def _tol(dt):
    return dict(rtol=1e-9, atol=1e-10) if dt == "float64" else dict(rtol=2e-5, atol=2e-5)


def close(a, b, dt="float64", **kw):
    tol = _tol(dt)
    tol.update(kw)
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, equal_nan=True, **tol)


def pair(arr, dt="float64", grad=False):
    arr = np.asarray(arr, dtype=np.float64)
    r = R.tensor(arr, dtype=DT[dt][0], requires_grad=grad)
    t = torch.tensor(arr, dtype=DT[dt][1], requires_grad=grad)
    return r, t
