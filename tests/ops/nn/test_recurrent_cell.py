"""nn.LSTM runs each step as one fused node (_ops/nn/recurrent_cell.py): outputs, first and second
derivatives as in torch, with and without bias and projections."""
import numpy as np
import pytest

import retrograd as rg  # noqa: E402

torch = pytest.importorskip("torch")


def _run(lib, bias, proj, seed=0):
    rng = np.random.default_rng(seed)
    kw = dict(bias=bias, batch_first=True, num_layers=2)
    if proj:
        kw["proj_size"] = 3
    m = lib.nn.LSTM(4, 5, **kw).double()
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))
    x = lib.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    out, (h, c) = m(x)
    loss = (out * out).sum() + (h * h).sum() + (c * c * c).sum()
    params = [x] + list(m.parameters())
    grads = lib.autograd.grad(loss, params, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), params)
    return [t.detach().numpy() for t in (out, h, c, *grads, *second)]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("proj", [False, True])
def test_lstm_matches_torch_to_second_order(bias, proj):
    for a, b in zip(_run(rg, bias, proj), _run(torch, bias, proj)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_lstm_step_float32_first_order_matches_torch():
    res = []
    for lib in (torch, rg):
        lib.manual_seed(0)
        rng = np.random.default_rng(3)
        m = lib.nn.LSTM(8, 6)
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)).astype(np.float32) * 0.3))
        x = lib.tensor(rng.standard_normal((5, 2, 8)).astype(np.float32))
        m(x)[0].sum().backward()
        res.append([p.grad.numpy().copy() for p in m.parameters()])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=2e-5, atol=2e-6)


def _run_gru(lib, bias, seed=1, shared=False):
    rng = np.random.default_rng(seed)
    m = lib.nn.GRU(4, 5, num_layers=2, bias=bias, batch_first=True).double()
    with lib.no_grad():
        for p in m.parameters():
            p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape)) * 0.5))
    x = lib.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    out, h = m(x)
    if shared:  # one gradient Tensor reaches two GRU steps (through an addition)
        loss = (out[:, 0] + out[:, 2]).sum()
    else:
        loss = (out * out).sum() + (h * h * h).sum()
    params = [x] + list(m.parameters())
    grads = lib.autograd.grad(loss, params, create_graph=True)
    second = lib.autograd.grad(sum((g * g).sum() for g in grads), params, allow_unused=True,
                               materialize_grads=True)
    return [t.detach().numpy() for t in (out, h, *grads, *second)]


@pytest.mark.parametrize("bias", [True, False])
@pytest.mark.parametrize("shared", [False, True])
def test_gru_matches_torch_to_second_order(bias, shared):
    for a, b in zip(_run_gru(rg, bias, shared=shared), _run_gru(torch, bias, shared=shared)):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-11)


def test_shared_gradient_reaching_two_steps_first_order():
    res = []
    for lib in (torch, rg):
        rng = np.random.default_rng(5)
        m = lib.nn.GRU(3, 4).double()
        with lib.no_grad():
            for p in m.parameters():
                p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
        x = lib.tensor(rng.standard_normal((4, 1, 3)), requires_grad=True)
        out, _ = m(x)
        (out[0] + out[3]).sum().backward()  # (first order: the fused NumPy backward)
        res.append([x.grad.numpy()] + [p.grad.numpy() for p in m.parameters()])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("mode", ["GRU", "LSTM"])
def test_one_gradient_tensor_reaching_two_fused_steps(mode):
    """Two modules' final states added: gradients as in torch.  (Inside nn.GRU/LSTM a stack
    node sits between the steps and the sum, so the steps get distinct gradient Tensors;
    test_gru_steps_sharing_one_gradient_tensor feeds the steps one Tensor directly.)"""
    res = []
    for lib in (torch, rg):
        rng = np.random.default_rng(9)
        mods = [getattr(lib.nn, mode)(3, 4).double() for _ in range(2)]
        with lib.no_grad():
            for m in mods:
                for p in m.parameters():
                    p.copy_(lib.tensor(rng.standard_normal(tuple(p.shape))))
        x = lib.tensor(rng.standard_normal((1, 2, 3)), requires_grad=True)
        finals = [m(x)[1] for m in mods]
        finals = [f[0] if isinstance(f, tuple) else f for f in finals]  # LSTM: (h, c)
        (finals[0] + finals[1]).sum().backward()
        res.append([x.grad.numpy()] + [p.grad.numpy() for m in mods for p in m.parameters()])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)


def test_gru_steps_sharing_one_gradient_tensor():
    """h1 + h2 of two fused GRU steps: AddBackward hands the same gradient Tensor to both
    nodes, whose rules share one cached backward; it must be keyed per node."""
    from retrograd._ops.nn.recurrent_cell import gru_step

    rng = np.random.default_rng(11)
    w_ih, w_hh = rng.standard_normal((12, 3)), rng.standard_normal((12, 4))
    b_ih, b_hh = rng.standard_normal(12), rng.standard_normal(12)
    x1, x2, h0 = rng.standard_normal((2, 3)), rng.standard_normal((2, 3)), rng.standard_normal((2, 4))
    res = []
    for lib in (torch, rg):
        t = [lib.tensor(a, requires_grad=True) for a in (x1, x2, h0, w_ih, w_hh, b_ih, b_hh)]
        X1, X2, H, WI, WH, BI, BH = t
        if lib is torch:
            cell = lambda x: torch._VF.gru_cell(x, H, WI, WH, BI, BH)  # noqa: E731
        else:
            cell = lambda x: gru_step(rg.nn.functional.linear(x, WI, BI), H, WH, BH)  # noqa: E731
        (cell(X1) + cell(X2)).sum().backward()
        res.append([a.grad.numpy() for a in t])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-10, atol=1e-12)
