"""float32 nn.LSTM runs each layer and direction as one node (_ops/nn/recurrent_layer.py), the way
PyTorch's oneDNN path records it (MkldnnRnnLayerBackward0): the same graph shape, outputs and
gradients as torch; double backward through the public-op recomputation."""
import numpy as np
import pytest

import retrograd as rg  # noqa: E402

torch = pytest.importorskip("torch")


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
