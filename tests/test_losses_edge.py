"""Loss edge cases against torch 2.13: infinite inputs to hinge_embedding_loss, and soft_margin_loss's
refusal of a target that requires grad."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_hinge_embedding_loss_with_infinite_inputs(reduction):
    x = np.array([np.inf, -np.inf, 0.5, 2.0, -np.inf, np.inf])
    t = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    out = []
    for T in (retrograd, torch):
        xt = T.tensor(x, requires_grad=True)
        y = T.nn.functional.hinge_embedding_loss(xt, T.tensor(t), reduction=reduction)
        y.sum().backward()
        out.append((y.detach().numpy(), xt.grad.numpy()))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_soft_margin_loss_target_requiring_grad_is_refused_like_torch():
    msgs = []
    for T in (retrograd, torch):
        x, t = T.tensor([0.5, 2.0], requires_grad=True), T.tensor([1.0, -1.0], requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            T.nn.functional.soft_margin_loss(x, t)
        msgs.append(str(e.value))
        with T.no_grad():
            T.nn.functional.soft_margin_loss(x, t)  # fine without grad mode
    assert msgs[0] == msgs[1]
