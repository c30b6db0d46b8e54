"""Tests of the addmm ops (src/retrograd/_ops/linalg/addmm.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


torch.set_default_dtype(torch.float32)


def test_inplace_add_family_records_the_op_node():
    for lib in (retrograd, torch):
        w = lib.ones(2, 3, dtype=lib.float64, requires_grad=True)
        x = (w * 1).addmm_(lib.ones(2, 2, dtype=lib.float64), w, beta=2)
        assert type(x.grad_fn).__name__ == "AddmmBackward0"
        x.sum().backward()
        if lib is retrograd:
            ours = w.grad.numpy()
    np.testing.assert_allclose(ours, w.grad.numpy())
