"""Base tensors and comparisons shared by the indexing, scatter and view tests."""
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
