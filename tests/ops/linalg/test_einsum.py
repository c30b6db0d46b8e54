"""Tests of the einsum ops (src/retrograd/_ops/linalg/einsum.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


torch.set_default_dtype(torch.float32)


def test_einsum_gradient_of_a_three_operand_chain_twice():
    rng = np.random.default_rng(1)
    arrays = [rng.standard_normal(s) for s in ((2, 3), (3, 3), (3, 2))]
    res = []
    for lib in (retrograd, torch):
        xs = [lib.tensor(a, requires_grad=True) for a in arrays]
        y = lib.einsum("ij,jj,jk->ik", *xs).sin().sum()
        gs = lib.autograd.grad(y, xs, create_graph=True)
        g2 = lib.autograd.grad(sum((g * g).sum() for g in gs), xs)
        res.append([g.detach().numpy() for g in gs] + [g.numpy() for g in g2])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, atol=1e-10)
