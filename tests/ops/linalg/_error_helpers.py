"""Tensor pairs and error comparison shared by the linear-algebra solver and decomposition tests."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


torch.set_default_dtype(torch.float32)


def _pair(value, dtype="float64", requires_grad=False):
    a = np.array(value, dtype=dtype)
    return (retrograd.tensor(a, requires_grad=requires_grad), torch.tensor(a, requires_grad=requires_grad))


def _same_error(f_ours, f_theirs):
    """Both raise; same message; ours is of torch's exception type (or a subclass of its base)."""
    with pytest.raises(Exception) as theirs:
        f_theirs()
    with pytest.raises(Exception) as ours:
        f_ours()
    assert str(ours.value) == str(theirs.value)
    if type(theirs.value).__name__ == "_LinAlgError":
        assert isinstance(ours.value, retrograd.linalg.LinAlgError)
        assert isinstance(ours.value, RuntimeError)
    else:
        assert type(ours.value) is type(theirs.value)
