"""Parameter makers and comparisons shared by the distribution family, transform, constraint and KL tests."""

import numpy as np
import pytest

import retrograd as R

torch = pytest.importorskip("torch")


TD = torch.distributions


def close(a, b, rtol=1e-9, atol=1e-10):
    a = a.detach().numpy() if hasattr(a, "detach") else np.asarray(a)
    b = b.detach().numpy() if hasattr(b, "detach") else np.asarray(b)
    assert a.shape == b.shape, (a.shape, b.shape)
    np.testing.assert_allclose(a, b, rtol=rtol, atol=atol, equal_nan=True)


def pair(arr, grad=False):
    arr = np.asarray(arr, dtype=np.float64)
    return (R.tensor(arr, dtype=R.float64, requires_grad=grad),
            torch.tensor(arr, dtype=torch.float64, requires_grad=grad))
