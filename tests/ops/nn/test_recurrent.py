"""The recurrent ops (src/retrograd/_ops/nn/recurrent.py): fused LSTM/GRU steps and layers, first and
second derivatives, saved-input checks, and the functional lstm, against torch."""
import numpy as np
import pytest

import retrograd
import retrograd as rg  # noqa: E402

torch = pytest.importorskip("torch")

from ..._error_compare import _np  # noqa: E402


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
    from retrograd._ops.nn_rnn_cell import gru_step

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


def _names(fn):
    return [None if n is None else type(n).__name__ for n, _ in fn.next_functions]


def _layer_node(fn):
    """The last layer's node: down the first edges past Transpose/Cat nodes."""
    while type(fn).__name__ != "MkldnnRnnLayerBackward0":
        fn = fn.next_functions[0][0]
    return fn


def _pair(seed=0, **kw):
    torch.manual_seed(seed)
    tm = torch.nn.LSTM(3, 5, **kw)
    rm = rg.nn.LSTM(3, 5, **kw)
    rm.load_state_dict({k: rg.tensor(v.detach().numpy()) for k, v in tm.state_dict().items()})
    return tm, rm


CONFIGS = [dict(), dict(num_layers=2, batch_first=True), dict(bidirectional=True), dict(bias=False),
           dict(num_layers=2, bidirectional=True, batch_first=True)]


@pytest.mark.parametrize("kw", CONFIGS, ids=lambda kw: "-".join(f"{k}={v}" for k, v in kw.items()) or "plain")
@pytest.mark.parametrize("with_state", [False, True])
def test_fused_layer_matches_torch(kw, with_state):
    tm, rm = _pair(**kw)
    rng = np.random.default_rng(1)
    layers = kw.get("num_layers", 1) * (2 if kw.get("bidirectional") else 1)
    x = rng.standard_normal((2, 6, 3) if kw.get("batch_first") else (6, 2, 3)).astype(np.float32)
    tx, rx = torch.tensor(x, requires_grad=True), rg.tensor(x, requires_grad=True)
    targs, rargs = (tx,), (rx,)
    if with_state:
        h0, c0 = (rng.standard_normal((layers, 2, 5)).astype(np.float32) for _ in range(2))
        th, tc = torch.tensor(h0, requires_grad=True), torch.tensor(c0, requires_grad=True)
        rh, rc = rg.tensor(h0, requires_grad=True), rg.tensor(c0, requires_grad=True)
        targs, rargs = (tx, (th, tc)), (rx, (rh, rc))
    to, (thn, tcn) = tm(*targs)
    ro, (rhn, rcn) = rm(*rargs)
    assert type(ro.grad_fn).__name__ == type(to.grad_fn).__name__
    assert _names(ro.grad_fn) == _names(to.grad_fn)
    assert _names(rhn.grad_fn) == _names(thn.grad_fn) and _names(rcn.grad_fn) == _names(tcn.grad_fn)
    layer, tlayer = _layer_node(ro.grad_fn), _layer_node(to.grad_fn)
    assert type(layer).__name__ == "MkldnnRnnLayerBackward0" and _names(layer) == _names(tlayer)
    gs = [rng.standard_normal(tuple(t.shape)).astype(np.float32) for t in (to, thn, tcn)]
    torch.autograd.backward([to, thn, tcn], [torch.tensor(g) for g in gs])
    rg.autograd.backward([ro, rhn, rcn], [rg.tensor(g) for g in gs])
    for r, t in [(ro, to), (rhn, thn), (rcn, tcn), (rx.grad, tx.grad)]:
        np.testing.assert_allclose(r.detach().numpy(), t.detach().numpy(), rtol=1e-5, atol=2e-6)
    if with_state:
        np.testing.assert_allclose(rh.grad.numpy(), th.grad.numpy(), rtol=1e-5, atol=2e-6)
        np.testing.assert_allclose(rc.grad.numpy(), tc.grad.numpy(), rtol=1e-5, atol=2e-6)
    tp = dict(tm.named_parameters())
    for name, p in rm.named_parameters():
        np.testing.assert_allclose(p.grad.numpy(), tp[name].grad.numpy(), rtol=1e-5, atol=2e-6, err_msg=name)


def test_double_backward_through_the_fused_layer_equals_the_float64_step_path():
    """float32 takes the fused layer, float64 the per-step path: their second derivatives agree."""
    rg.manual_seed(0)
    m32 = rg.nn.LSTM(3, 4, num_layers=2, bidirectional=True)
    m64 = rg.nn.LSTM(3, 4, num_layers=2, bidirectional=True).double()
    m64.load_state_dict({k: v.double() for k, v in m32.state_dict().items()})
    x = np.random.default_rng(2).standard_normal((5, 2, 3))
    res = []
    for m, dt in ((m32, rg.float32), (m64, rg.float64)):
        xt = rg.tensor(x, dtype=dt, requires_grad=True)
        out, (h, c) = m(xt)
        loss = (out * out).sum() + (c * h).sum()
        params = [xt] + list(m.parameters())
        grads = rg.autograd.grad(loss, params, create_graph=True)
        second = rg.autograd.grad(sum((g * g).sum() for g in grads), params)
        res.append([t.detach().double().numpy() for t in (*grads, *second)])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=2e-4, atol=2e-5)


def test_fused_layer_checks_saved_inputs_and_frees_them():
    _, rm = _pair()
    x = rg.randn(4, 2, 3, requires_grad=True)
    y = x * 1  # a non-leaf input the layer saves
    out, _ = rm(y)
    with rg.no_grad():
        y.mul_(2)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        out.sum().backward()
    out, _ = rm(x)
    out.sum().backward()
    with pytest.raises(RuntimeError, match="Trying to backward through the graph a second time"):
        out.sum().backward()


def test_functional_lstm_matches_module_with_projection():
    torch.manual_seed(0)
    m = torch.nn.LSTM(3, 4, proj_size=2, num_layers=2, bidirectional=True).double()
    x = torch.randn(5, 2, 3, dtype=torch.float64)
    h0 = torch.randn(4, 2, 2, dtype=torch.float64)
    c0 = torch.randn(4, 2, 4, dtype=torch.float64)
    want = torch.lstm(x, [h0, c0], list(m._flat_weights), True, 2, 0.0, False, True, False)
    R = retrograd
    params = [R.tensor(p.detach().numpy()) for p in m._flat_weights]
    got = R.lstm(R.tensor(x.numpy()), [R.tensor(h0.numpy()), R.tensor(c0.numpy())], params, True, 2, 0.0, False,
                 True, False)
    for a, b in zip(got, want):
        np.testing.assert_allclose(_np(a), _np(b), rtol=1e-10, atol=1e-12)
