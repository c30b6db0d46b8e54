"""Sample points, activations and comparisons shared by the elementwise, activation and special-function op tests."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


LIBS = (rg, torch)


def _np(t):
    return t.detach().numpy()


def _close(a, b, rtol=1e-12, atol=1e-14):
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=True)


def _short(dt) -> str:
    return str(dt).split(".")[-1]


# ====================================================================== activations: graphs of first grads
_X = [-2.0, -0.5, -0.1, 0.2, 0.7, 3.0, 7.0]


ACTIVATIONS = {
    "hardtanh": lambda L, x: L.nn.functional.hardtanh(x, -0.3, 0.9),
    "relu6": lambda L, x: L.nn.functional.relu6(x),
    "softshrink": lambda L, x: L.nn.functional.softshrink(x, 0.4),
    "hardshrink": lambda L, x: L.nn.functional.hardshrink(x, 0.4),
    "leaky_relu": lambda L, x: L.nn.functional.leaky_relu(x, 0.2),
    "threshold": lambda L, x: L.nn.functional.threshold(x, 0.1, 20.0),
    "relu": lambda L, x: L.nn.functional.relu(x),
    "hardtanh_": lambda L, x: L.nn.functional.hardtanh(x * 1, inplace=True),
    "leaky_relu_": lambda L, x: L.nn.functional.leaky_relu(x * 1, 0.3, inplace=True),
    "threshold_": lambda L, x: L.nn.functional.threshold(x * 1, 0.1, 2.0, inplace=True),
    "torch.threshold_": lambda L, x: L.threshold_(x * 1, 0.1, 2.0),
}
