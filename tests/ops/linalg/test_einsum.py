"""Tests of the einsum ops (src/retrograd/_ops/linalg/einsum.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")
from parity import same_error  # noqa: E402


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


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("eq, sa, sb", [("ij,jk->ik", (3, 1), (3, 1)), ("ij,kl->il", (3, 4), (3, 4)),
                                        ("ij,jk->ik", (2, 1), (4, 3))])
def test_einsum_saves_the_summed_operand_not_the_operand(eq, sa, sb):
    # PyTorch sums b over a label that only b holds at full size before multiplying, and saves that
    # sum: changing b in place afterwards leaves a's gradient computable
    def run(L):
        a = L.arange(float(np.prod(sa))).reshape(sa).requires_grad_()
        b = L.arange(float(np.prod(sb))).reshape(sb) / 7
        y = L.einsum(eq, a, b)
        b.sigmoid_()
        (y * y).sum().backward()
        return y.detach().numpy(), a.grad.numpy()
    (y1, g1), (y2, g2) = run(rg), run(torch)
    np.testing.assert_allclose(y1, y2, rtol=1e-6)
    np.testing.assert_allclose(g1, g2, rtol=1e-6)


@pytest.mark.parametrize("eq, shapes", [("ii->i", [(1, 2)]), ("ii->i", [(2, 0)]), ("ij,ii->i", [(2, 2), (2, 3)])])
def test_einsum_repeated_subscript_sizes_message(eq, shapes):
    same_error(lambda L: L.einsum(eq, *[L.zeros(s) for s in shapes]))


def test_einsum_permutation_is_a_view():
    out = []
    for L in (rg, torch):
        a = L.arange(6.0).reshape(2, 3)
        b = L.einsum("ij->ji", a)
        b.add_(1)
        out.append((a.tolist(), b._is_view(), b.stride()))
    assert out[0] == out[1]
