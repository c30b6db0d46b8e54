"""Batched vmap (func/_batching.py) against torch.vmap: in_dims / out_dims (None, negative,
nested), nested vmap, chunk_size, randomness, PyTorch's refusals (.item(), bool(), in-place
writes into unbatched tensors), the per-element fallback's warning, and per-sample gradients
that stay batched end to end (the function runs once per call, no op falls back).

Tolerances: float64 data; a batched NumPy call and torch's batched kernels differ only by
roundings in reductions/matmuls (rtol 1e-10); float32 models use rtol 1e-4 (<= 800-term sums).
"""
import warnings

import numpy as np
import pytest

import retrograd
import retrograd.func as rfunc

torch = pytest.importorskip("torch")

import torch.func as tfunc  # noqa: E402

from tests.func.test_func import assert_tree_close, pair, same_error  # noqa: E402


class Counted:
    """``fn`` with a count of its calls (to see that vmap ran it once, not once per element)."""

    def __init__(self, fn):
        self.fn, self.calls = fn, 0

    def __call__(self, *a, **k):
        self.calls += 1
        return self.fn(*a, **k)


def batched_once(fn, *args, **vmap_kwargs):
    """vmap(fn)(*args) run twice: the second call must run fn once and warn about nothing."""
    c = Counted(fn)
    v = rfunc.vmap(c, **vmap_kwargs)
    v(*args)
    c.calls = 0
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = v(*args)
    assert c.calls == 1, f"func ran {c.calls} times: not batched"
    return out


def test_elementwise_reductions_views_against_torch():
    (rx, tx), (ry, ty), (rw, tw) = pair((4, 3, 5)), pair((4, 5)), pair((5,))
    cases = [
        (lambda L, x, y: (x.sin() * y.unsqueeze(0) + 2) ** 2, (0, 0)),
        (lambda L, x, y: L.where(x > 0, x, y.exp().unsqueeze(0)), (0, 0)),
        (lambda L, x, y: x.sum(-1) + x.mean(0).sum() + x.amax(dim=(0, 1)).sum(), (0, None)),
        (lambda L, x, y: (x.softmax(-1).cumsum(0), x.log_softmax(0)), (1, None)),
        (lambda L, x, y: x.transpose(0, 1).reshape(5, -1).t().permute(1, 0).flatten(), (0, None)),
        (lambda L, x, y: (x[1:, ::2].select(1, 0).unsqueeze(-1).squeeze(), x.view(-1)[:3]), (2, None)),
        (lambda L, x, y: (x @ y, x @ x.t(), x.t().matmul(x), L.mv(x, y), L.dot(y, y), y @ y), (0, 0)),
        (lambda L, x, y: (x @ y[0], L.mm(x, y[0].unsqueeze(1)), L.mv(x, y[1])), (0, None)),
        (lambda L, x, y: (x @ y, L.mv(x[0], y), L.dot(y, x[0, 0])), (None, 0)),
        (lambda L, x, y: L.cat([x, x * 2], -1).unbind(1)[0] + L.stack([y, y], 0).sum(0)[0, 0], (0, None)),
        (lambda L, x, y: L.cat([x, y.unsqueeze(0)], 0).split(2, 0)[1], (0, 0)),
        (lambda L, x, y: x.var(1) + x.std(dim=0, keepdim=True).sum() + x.logsumexp(-1), (0, None)),
        (lambda L, x, y: x.expand(2, 3, 5).clamp(-0.5, 0.5).flip(0).diagonal(0, 1, 2), (0, None)),
        (lambda L, x, y: L.nn.functional.pad(x, (1, 2)) * 3, (-1, None)),
    ]
    for f, in_dims in cases:
        r = batched_once(lambda x, y: f(retrograd, x, y), rx, ry, in_dims=in_dims)
        t = torch.vmap(lambda x, y: f(torch, x, y), in_dims=in_dims)(tx, ty)
        assert_tree_close(r, t, rtol=1e-10, atol=1e-12)
    # unbatched operands of every rank against batched ones
    assert_tree_close(batched_once(lambda w, x: x * w + w.sum(), rw, rx, in_dims=(None, 1)),
                      torch.vmap(lambda w, x: x * w + w.sum(), in_dims=(None, 1))(tw, tx))


def test_in_dims_out_dims_structures():
    (rx, tx), (ry, ty) = pair((3, 4)), pair((4, 3))

    def f(lib, d, s):
        return {"a": d["x"] * s, "b": (d["y"].sum(), d["x"][0])}

    for in_dims, out_dims in [(({"x": 0, "y": 1}, None), 0), (({"x": 1, "y": 0}, None), {"a": 1, "b": (0, -1)}),
                              (({"x": -1, "y": -2}, None), (-1,) and {"a": -1, "b": 0})]:
        r = batched_once(lambda d, s: f(retrograd, d, s), {"x": rx, "y": ry}, 2.0, in_dims=in_dims,
                         out_dims=out_dims)
        t = torch.vmap(lambda d, s: f(torch, d, s), in_dims=in_dims, out_dims=out_dims)({"x": tx, "y": ty}, 2.0)
        assert_tree_close(r, t)
    # an unbatched output with an int out_dim is expanded; out_dims=None returns it as is
    assert_tree_close(rfunc.vmap(lambda x: (x * 2, retrograd.ones(2, dtype=retrograd.float64)), out_dims=(1, 0))(rx),
                      torch.vmap(lambda x: (x * 2, torch.ones(2, dtype=torch.float64)), out_dims=(1, 0))(tx))
    assert_tree_close(rfunc.vmap(lambda x: (x * 2, retrograd.ones(2)), out_dims=(0, None))(rx),
                      torch.vmap(lambda x: (x * 2, torch.ones(2)), out_dims=(0, None))(tx))
    same_error(lambda L, F: F.vmap(lambda x: x * 2, out_dims=None)(L.ones(3, 2)))
    same_error(lambda L, F: F.vmap(lambda x: (x, 3), out_dims=0)(L.ones(3, 2)))
    same_error(lambda L, F: F.vmap(lambda x: x, out_dims=2)(L.ones(3, 2)))


def test_nested_vmap_and_grad_of_vmap():
    (rx, tx), (ry, ty) = pair((3, 4, 5)), pair((4, 5))
    def f(L):
        return (lambda a, b: (a * b).sum(-1) + a.exp().mean())
    r = batched_once(rfunc.vmap(f(retrograd), in_dims=(0, None)), rx, ry, in_dims=(1, 0))
    t = torch.vmap(torch.vmap(f(torch), in_dims=(0, None)), in_dims=(1, 0))(tx, ty)
    assert_tree_close(r, t)
    r = rfunc.vmap(rfunc.vmap(rfunc.vmap(lambda a: a.sin() * a.sum())))(rx)
    t = torch.vmap(torch.vmap(torch.vmap(lambda a: a.sin() * a.sum())))(tx)
    assert_tree_close(r, t)
    # the replay is differentiable: grad through vmap, and vmap inputs that require grad
    rw, tw = pair((5,), requires_grad=True)
    r = retrograd.autograd.grad(rfunc.vmap(lambda a, w: (a * w).tanh().sum(), in_dims=(0, None))(rx[0], rw).sum(), rw)
    t = torch.autograd.grad(torch.vmap(lambda a, w: (a * w).tanh().sum(), in_dims=(0, None))(tx[0], tw).sum(), tw)
    assert_tree_close(r, t)


def test_chunk_size():
    (rx, tx) = pair((7, 3))
    def f(L):
        return (lambda a: (a.softmax(0) * a).sum())
    for chunk in (1, 2, 3, 7, 100):
        assert_tree_close(rfunc.vmap(f(retrograd), chunk_size=chunk)(rx), torch.vmap(f(torch), chunk_size=chunk)(tx))
    same_error(lambda L, F: F.vmap(L.sin, chunk_size=0)(L.ones(2)))


def test_refusals_as_torch():
    same_error(lambda L, F: F.vmap(lambda x: x.sum().item())(L.ones(3, 2)))
    same_error(lambda L, F: F.vmap(lambda x: float(x.sum()))(L.ones(3, 2)))
    same_error(lambda L, F: F.vmap(lambda x: x * 2 if x.sum() > 0 else x)(L.ones(3, 2)))
    same_error(lambda L, F: F.vmap(lambda x: L.zeros(2).add_(x))(L.ones(3, 2)))
    same_error(lambda L, F: F.vmap(lambda x: x + L.rand(2))(L.ones(3, 2)))
    # control flow on unbatched values and shapes is fine
    r = rfunc.vmap(lambda x, s: x * 2 if s.item() > 0 and x.shape[0] == 2 else x, in_dims=(0, None))(
        retrograd.ones(3, 2), retrograd.tensor(1.0))
    assert np.array_equal(r.numpy(), np.full((3, 2), 2.0))


def test_randomness_modes():
    x = retrograd.ones(4, 3)
    retrograd.manual_seed(0)
    same = batched_once(lambda a: retrograd.nn.functional.dropout(a, 0.5), x, randomness="same")
    assert all(np.array_equal(same[0].numpy(), s.numpy()) for s in same)
    diff = rfunc.vmap(lambda a: a * retrograd.rand(3), randomness="different")(x)
    assert not np.array_equal(diff[0].numpy(), diff[1].numpy())


def test_inplace_on_batched_values():
    (rx, tx) = pair((3, 4))

    def f(L, x):
        y = x.clone()
        y.mul_(2)
        y.add_(x)
        y[0] = 0.0
        return y

    assert_tree_close(batched_once(lambda x: f(retrograd, x), rx), torch.vmap(lambda x: f(torch, x))(tx))


def test_fallback_warns_once_naming_the_op():
    (rx, tx) = pair((3, 5))
    with pytest.warns(UserWarning, match="batching rule for median"):
        r = rfunc.vmap(lambda x: x.median() * x)(rx)
    assert_tree_close(r, torch.vmap(lambda x: x.median() * x)(tx))


def _per_sample_setup(lib, model, loss_fn):
    F = lib.nn.functional
    func = lib.func

    def loss(params, x, y):
        out = func.functional_call(model, params, (x.unsqueeze(0),))
        return getattr(F, loss_fn)(out, y.unsqueeze(0))

    return loss


@pytest.mark.parametrize("arch,loss_fn", [("mlp_relu", "cross_entropy"), ("mlp_tanh", "mse_loss"),
                                          ("cnn", "cross_entropy")])
def test_per_sample_gradients_are_batched_end_to_end(arch, loss_fn):
    def build(lib):
        nn = lib.nn
        if arch == "cnn":
            return nn.Sequential(nn.Conv2d(1, 4, 3), nn.ReLU(), nn.MaxPool2d(2), nn.Conv2d(4, 6, 3, padding=1),
                                 nn.ReLU(), nn.Flatten(), nn.Linear(6 * 3 * 3, 5))
        act = nn.ReLU() if arch == "mlp_relu" else nn.Tanh()
        return nn.Sequential(nn.Linear(6, 8), act, nn.Linear(8, 5))

    t_model = build(torch)
    r_model = build(retrograd)
    r_model.load_state_dict({k: retrograd.tensor(v.detach().numpy()) for k, v in t_model.state_dict().items()})
    rng = np.random.default_rng(0)
    x = rng.standard_normal((7, 1, 8, 8) if arch == "cnn" else (7, 6)).astype(np.float32)
    y = rng.integers(0, 5, 7) if loss_fn == "cross_entropy" else rng.standard_normal((7, 5)).astype(np.float32)
    r_params = {k: v.detach() for k, v in r_model.named_parameters()}
    t_params = {k: v.detach() for k, v in t_model.named_parameters()}
    r = batched_once(rfunc.grad(_per_sample_setup(retrograd, r_model, loss_fn)), r_params, retrograd.tensor(x),
                     retrograd.tensor(y), in_dims=(None, 0, 0))
    t = tfunc.vmap(tfunc.grad(_per_sample_setup(torch, t_model, loss_fn)), in_dims=(None, 0, 0))(
        t_params, torch.tensor(x), torch.tensor(y))
    assert_tree_close(r, t, rtol=1e-4, atol=1e-6)


def test_model_ensembling_with_batched_weights():
    models_t = [torch.nn.Sequential(torch.nn.Linear(4, 6), torch.nn.Tanh(), torch.nn.Linear(6, 2)) for _ in range(3)]
    models_r = []
    for m in models_t:
        r = retrograd.nn.Sequential(retrograd.nn.Linear(4, 6), retrograd.nn.Tanh(), retrograd.nn.Linear(6, 2))
        r.load_state_dict({k: retrograd.tensor(v.detach().numpy()) for k, v in m.state_dict().items()})
        models_r.append(r)
    x = np.random.default_rng(0).standard_normal((5, 4)).astype(np.float32)
    rp, rb = rfunc.stack_module_state(models_r)
    tp, tb = tfunc.stack_module_state(models_t)
    r = batched_once(lambda p, b, x: rfunc.functional_call(models_r[0], (p, b), (x,)), rp, rb,
                     retrograd.tensor(x), in_dims=(0, 0, None))
    t = tfunc.vmap(lambda p, b, x: tfunc.functional_call(models_t[0], (p, b), (x,)), in_dims=(0, 0, None))(
        tp, tb, torch.tensor(x))
    assert_tree_close(r.detach(), t.detach(), rtol=1e-5, atol=1e-6)


def test_jacobians_are_batched():
    (rx, tx), (rw, tw) = pair((6,)), pair((6, 6))
    for name in ("jacfwd", "jacrev"):
        r = batched_once(lambda v: getattr(rfunc, name)(lambda u: (rw @ u).tanh())(v), rx.unsqueeze(0).expand(2, 6))
        t = torch.vmap(lambda v: getattr(tfunc, name)(lambda u: (tw @ u).tanh())(v))(tx.unsqueeze(0).expand(2, 6))
        assert_tree_close(r, t)
