"""Value and error comparisons against torch shared by several op test files."""

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


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
