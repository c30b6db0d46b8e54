"""nn.LSTM runs each step as one fused node (_ops/nn_rnn_cell.py): outputs, first and second
derivatives as in torch, with and without bias and projections."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import retrograd as rg  # noqa: E402


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
