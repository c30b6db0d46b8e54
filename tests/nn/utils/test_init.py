"""Tests of retrograd.nn.utils.init, checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._helpers import _n  # noqa: E402


def test_skip_init_and_init_helpers():
    m = retrograd.nn.utils.skip_init(retrograd.nn.Linear, 6, 1)
    assert tuple(m.weight.shape) == (1, 6)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        retrograd.nn.utils.skip_init(retrograd.nn.ReLU)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        retrograd.nn.utils.skip_init(int)
    for shape, groups in [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((2, 3, 3, 3, 3), 1)]:
        a, b = retrograd.empty(*shape), torch.empty(*shape)
        retrograd.nn.init.dirac_(a, groups)
        torch.nn.init.dirac_(b, groups)
        np.testing.assert_array_equal(_n(a), _n(b))
    a, b = retrograd.empty(3, 5), torch.empty(3, 5)
    np.testing.assert_array_equal(_n(retrograd.nn.init.eye_(a)), _n(torch.nn.init.eye_(b)))
