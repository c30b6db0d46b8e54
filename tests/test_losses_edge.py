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


@pytest.mark.parametrize("kw", [
    dict(t=[-100, -100, -100, -100]),                      # every target ignored: loss nan, grad 0 (not nan)
    dict(t=[-100, -100, -100, -100], reduction="sum"),
    dict(t=[-100, -100, -100, -100], reduction="none"),
    dict(t=[1, -100, 2, -100], reduction="sum"),           # ignored rows: +0. gradients, as torch prints
    dict(t=[1, -100, 2, -100]),
    dict(t=[1, 2, -1, -1], ignore_index=-1),
    dict(t=[-1, -1, -1, -1], ignore_index=-1, label_smoothing=0.1),
])
def test_ignored_targets_give_torchs_loss_and_gradient(kw):
    def run(T):
        kw2 = dict(kw)
        x = T.tensor([[0.5, -1.0, 2.0, 0.1, 0.3], [1.5, 0.2, -0.3, 0.0, 1.0],
                      [-0.5, 0.4, 0.9, -2.0, 0.7], [0.05, 0.6, -0.8, 1.1, -0.2]], requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.tensor(kw2.pop("t")), **kw2)
        loss.sum().backward()
        return repr(loss.detach()), repr(x.grad)

    assert run(retrograd) == run(torch)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.CrossEntropyLoss()(T.zeros(3, 5), T.tensor([1., 2., 3.])),   # float labels by mistake
    lambda T: T.nn.CrossEntropyLoss()(T.zeros(3, 5), T.tensor([1, 2, 3], dtype=T.int32)),
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1., 2, 3])),
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1, 2, 3], dtype=T.int32)),
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1, 2, 3], dtype=T.uint8)),  # Byte is fine
    lambda T: T.nn.functional.cross_entropy(T.zeros(3, 5), T.tensor([True, False, True])),
    lambda T: T.nn.functional.cross_entropy(T.zeros(3, 5, 2), T.tensor([[1., 2.], [0, 1], [2, 2]])),
    lambda T: T.nn.functional.cross_entropy(T.zeros(5), T.tensor(1.)),
    lambda T: T.nn.functional.cross_entropy(T.zeros(3), T.tensor([1, 0, 2])),  # same shape: probabilities
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1., 2.])),    # batch size checked first
    lambda T: T.nn.functional.nll_loss(T.zeros(5), T.tensor([1., 2.])),
])
def test_target_dtype_checks_as_torch(call):
    def run(T):
        try:
            return "ok", repr(call(T))
        except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
            return type(exc).__name__, str(exc)

    assert run(retrograd) == run(torch)
