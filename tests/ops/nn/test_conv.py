"""Tests of the conv ops (src/retrograd/_ops/nn/conv.py), checked against PyTorch."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from .._nn_linalg_helpers import _close  # noqa: E402


def test_gradient_penalty_through_a_small_cnn():
    # WGAN-GP style: the input gradient (create_graph) of a CNN is differentiated again, through
    # every first gradient that keep_graph links to its inputs
    rng = np.random.default_rng(11)
    arrays = {"x": rng.standard_normal((2, 2, 8, 8)), "w1": rng.standard_normal((4, 2, 3, 3)) * 0.3,
              "b1": rng.standard_normal(4) * 0.1, "g": rng.uniform(0.5, 1.5, 4), "b": rng.standard_normal(4) * 0.1,
              "w2": rng.standard_normal((3, 4 * 3 * 3)) * 0.2}
    res = []
    for lib in (torch, rg):
        F = lib.nn.functional
        t = {k: lib.tensor(v, requires_grad=True) for k, v in arrays.items()}
        h = F.conv2d(F.pad(t["x"], (1, 1, 1, 1), mode="reflect"), t["w1"], t["b1"])
        h = F.leaky_relu(F.batch_norm(h, None, None, t["g"], t["b"], training=True), 0.2)
        h = F.avg_pool2d(F.max_pool2d(h, 2, 1), 2)
        out = F.linear(h.flatten(1), t["w2"])
        y = F.nll_loss(F.log_softmax(out, 1), lib.tensor([0, 2]))
        (gx,) = lib.autograd.grad(y, t["x"], create_graph=True)
        penalty = ((gx.flatten(1).norm(dim=1) - 1) ** 2).mean()
        grads = lib.autograd.grad(penalty, [t[k] for k in arrays])
        res.append(grads)
    for a, b in zip(*res):
        _close(a, b, 1e-8)
