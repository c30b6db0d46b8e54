"""Comparisons against torch shared by the reduction, sorting and statistics op tests."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


LIBS = (retrograd, torch)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _both(fn, values, dtype="float64"):
    """fn(lib, x) for both libraries on a leaf ``x`` built from ``values``; returns the pairs."""
    res = []
    for lib in LIBS:
        x = lib.tensor(values, dtype=getattr(lib, dtype), requires_grad=dtype.startswith("float"))
        res.append((x, fn(lib, x)))
    return res
