"""utils.checkpoint: identical gradients (also vs torch), less memory, RNG replay, errors."""
import functools
import gc
import tracemalloc
import warnings

import numpy as np
import pytest

import retrograd as rg
import retrograd.utils.checkpoint as rcp
from retrograd.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")

import torch.utils.checkpoint as tcp  # noqa: E402

from .._behaviour_compare import raises_like  # noqa: E402


def mlp_grads(lib, ck, mode, reentrant):
    W = [lib.tensor([[0.5, -0.2, 0.1], [0.3, 0.8, -0.5], [0.1, 0.2, 0.3]], dtype=lib.float64, requires_grad=True)
         for _ in range(3)]
    x = lib.tensor([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]], dtype=lib.float64, requires_grad=True)

    def block(h, w):
        return (h @ w).tanh() * h.sigmoid()

    h = x
    if mode == "sequential":
        layers = [lambda t, w=w: block(t, w) for w in W]
        h = ck[1](layers, 2, x, use_reentrant=reentrant)
    else:
        for w in W:
            h = ck[0](block, h, w, use_reentrant=reentrant) if ck else block(h, w)
    (h ** 2).sum().backward()
    return np.concatenate([x.grad.detach().numpy().ravel()] + [w.grad.detach().numpy().ravel() for w in W])


@pytest.mark.parametrize("mode", ["each", "sequential"])
@pytest.mark.parametrize("reentrant", [False, True])
def test_gradients_identical_and_match_torch(mode, reentrant):
    plain = mlp_grads(rg, None, mode if mode == "each" else "each", reentrant)
    ours = mlp_grads(rg, (checkpoint, checkpoint_sequential), mode, reentrant)
    theirs = mlp_grads(torch, (tcp.checkpoint, tcp.checkpoint_sequential), mode, reentrant)
    assert np.array_equal(ours, plain)
    np.testing.assert_allclose(ours, theirs, rtol=1e-12, atol=1e-12)


def test_double_backward_through_checkpoint():
    x = rg.tensor([1.0, 2.0], dtype=rg.float64, requires_grad=True)
    y = checkpoint(lambda t: (t ** 3).sum(), x, use_reentrant=False)
    (g,) = rg.autograd.grad(y, x, create_graph=True)
    (g2,) = rg.autograd.grad(g.sum(), x)
    assert g.tolist() == [3.0, 12.0] and g2.tolist() == [6.0, 12.0]


def test_retain_graph_twice_recomputes_each_time():
    calls = []
    x = rg.tensor([1.0, 2.0], dtype=rg.float64, requires_grad=True)

    def f(t):
        calls.append(1)
        return t.exp()

    y = checkpoint(f, x, use_reentrant=False)
    y.sum().backward(retain_graph=True)
    y.sum().backward()
    assert len(calls) == 3  # forward + one recomputation per backward
    np.testing.assert_allclose(x.grad.numpy(), 2 * np.exp([1.0, 2.0]))


def test_preserve_rng_state_replays_random_ops():
    x = rg.tensor([1.0, 2.0, 3.0], dtype=rg.float64, requires_grad=True)

    def noisy(t):
        return t * rg.rand(3, dtype=rg.float64)

    rg.manual_seed(3)
    y = checkpoint(noisy, x, use_reentrant=False)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), (y / x).detach().numpy())
    x.grad = None
    y = checkpoint(noisy, x, use_reentrant=False, preserve_rng_state=False)
    y.sum().backward()
    assert not np.allclose(x.grad.numpy(), (y / x).detach().numpy())


def test_warnings_and_errors_match_torch():
    for lib, ck in ((rg, checkpoint), (torch, tcp.checkpoint)):
        x = lib.tensor([1.0, 2.0], requires_grad=True)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ck(lambda t: t * 2, x)
        assert any("the use_reentrant parameter should be passed explicitly" in str(m.message) for m in w)
        with pytest.raises(ValueError, match="Unexpected keyword arguments: foo"):
            ck(lambda t: t * 2, x, use_reentrant=True, foo=1)
        y = ck(lambda t: (t * 2).sum(), x, use_reentrant=True)
        with pytest.raises(RuntimeError, match="When use_reentrant=True, torch.utils.checkpoint is incompatible"):
            lib.autograd.grad(y, x)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ck(lambda t: t * 2, lib.tensor([1.0]), use_reentrant=True)
        assert any("None of the inputs have requires_grad=True" in str(m.message) for m in w)


def test_non_reentrant_kwargs_and_nesting():
    x = rg.tensor([1.0, 2.0], dtype=rg.float64, requires_grad=True)

    def inner(t, scale=1.0):
        return (t * scale).sin()

    def outer(t):
        return checkpoint(inner, t, use_reentrant=False, scale=2.0).exp()

    y = checkpoint(outer, x, use_reentrant=False)
    y.sum().backward()
    expected = np.exp(np.sin(2 * np.array([1.0, 2.0]))) * np.cos(2 * np.array([1.0, 2.0])) * 2
    np.testing.assert_allclose(x.grad.numpy(), expected)


def test_recomputation_mismatch_raises_checkpoint_error():
    state = {"n": 0}
    x = rg.tensor([1.0, 2.0], dtype=rg.float64, requires_grad=True)

    def f(t):
        state["n"] += 1
        # (fewer saves in the recomputation: with early stop, more saves would not be an error, as in torch)
        return t.sin().cos() if state["n"] == 1 else t.sin()

    y = checkpoint(f, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="A different number of tensors was saved"):
        y.sum().backward()


def _peak(fn) -> int:
    gc.collect()
    tracemalloc.start()
    tracemalloc.reset_peak()
    fn()
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    return peak


def test_memory_is_saved():
    rng = np.random.default_rng(0)
    params = [(rg.tensor(rng.standard_normal((32, 32)).astype(np.float32) / 6, requires_grad=True),
               rg.tensor(np.zeros(32, np.float32), requires_grad=True)) for _ in range(16)]
    x = rg.tensor(rng.standard_normal((1024, 32)).astype(np.float32))

    def layers():
        def mk(w, b):
            def f(h):
                z = h @ w + b
                return z * (z * 1.702).sigmoid()
            return f
        return [mk(w, b) for w, b in params]

    def plain():
        h = x
        for f in layers():
            h = f(h)
        (h * h).mean().backward()

    def ckpt():
        (checkpoint_sequential(layers(), 4, x, use_reentrant=False) ** 2).mean().backward()

    p_plain = _peak(plain)
    grads = [p.grad.numpy().copy() for wb in params for p in wb]
    for wb in params:
        for p in wb:
            p.grad = None
    p_ck = _peak(ckpt)
    assert all(np.array_equal(a, p.grad.numpy()) for a, p in zip(grads, [p for wb in params for p in wb]))
    assert p_ck < 0.5 * p_plain, (p_ck, p_plain)


# ------------------------------------------------------------------ 3. utils.checkpoint
def _sac_grads(lib, cp, context_fn):
    rng = np.random.default_rng(0)
    x = lib.tensor(rng.standard_normal((4, 4)), requires_grad=True)
    y = lib.tensor(rng.standard_normal((4, 4)), requires_grad=True)

    def fn(a, b):
        return lib.sigmoid(lib.matmul(lib.matmul(a, b), b)) * b

    out = cp.checkpoint(fn, x, y, use_reentrant=False, context_fn=context_fn)
    # (torch refuses a second backward through a selective-checkpoint region, so first order only)
    gx, gy = lib.autograd.grad((out * out).sum(), (x, y))
    return [t.detach().numpy() for t in (out, gx, gy)]


def test_selective_checkpoint_results_and_grads_match_torch():
    def t_policy(ctx, op, *args, **kwargs):
        return tcp.CheckpointPolicy.MUST_SAVE if op == torch.ops.aten.mm.default else \
            tcp.CheckpointPolicy.PREFER_RECOMPUTE

    def r_policy(ctx, op, *args, **kwargs):
        return rcp.CheckpointPolicy.MUST_SAVE if op is rg.mm else rcp.CheckpointPolicy.PREFER_RECOMPUTE

    cases = [(functools.partial(tcp.create_selective_checkpoint_contexts, t_policy),
              functools.partial(rcp.create_selective_checkpoint_contexts, r_policy)),
             (functools.partial(tcp.create_selective_checkpoint_contexts, [torch.ops.aten.mm.default]),
              functools.partial(rcp.create_selective_checkpoint_contexts, [rg.mm, "mm"]))]
    for tctx, rctx in cases:
        for a, b in zip(_sac_grads(torch, tcp, tctx), _sac_grads(rg, rcp, rctx)):
            np.testing.assert_allclose(b, a, rtol=1e-12, atol=1e-12)


def test_checkpoint_policy_and_sac_errors():
    assert [(p.name, p.value) for p in rcp.CheckpointPolicy] == [(p.name, p.value) for p in tcp.CheckpointPolicy]
    raises_like(lambda: tcp.create_selective_checkpoint_contexts(3), lambda: rcp.create_selective_checkpoint_contexts(3))
    with pytest.raises(ValueError, match="Expected op in `op_list` to be an OpOverload but got: 3"):
        rcp.create_selective_checkpoint_contexts([3])
    fwd, rec = rcp.create_selective_checkpoint_contexts(lambda *a, **k: rcp.CheckpointPolicy.MUST_SAVE)
    with fwd, rec:
        pass
    assert rcp.SelectiveCheckpointContext(is_recompute=False, op_output=1).op_output == 1


def test_checkpoint_settings_and_device_states():
    x = rg.ones(3, requires_grad=True)
    with rcp.set_checkpoint_early_stop(False):
        assert rcp._enable_checkpoint_early_stop is False
        out = rcp.checkpoint(lambda t: (t.exp() * t).sum(), x, use_reentrant=False)
    assert rcp._enable_checkpoint_early_stop is None
    out.backward()
    tx = torch.ones(3, requires_grad=True)
    tcp.checkpoint(lambda t: (t.exp() * t).sum(), tx, use_reentrant=False).backward()
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
    with rcp.set_checkpoint_debug_enabled(True):
        assert rcp._checkpoint_debug_enabled is True
        with rcp.set_checkpoint_debug_enabled(None):
            assert rcp._checkpoint_debug_enabled is None
        assert rcp._checkpoint_debug_enabled is True
    assert rcp._checkpoint_debug_enabled is None
    assert rcp.get_device_states(rg.ones(2), 3) == tcp.get_device_states(torch.ones(2), 3) == ([], [])
    rcp.set_device_states([], [])
    assert rcp.DefaultDeviceType.get_device_type() == tcp.DefaultDeviceType.get_device_type() == "cpu"
    with rcp.GraphExecGroup():
        with pytest.raises(RuntimeError, match="GraphExecGroup contexts cannot be nested"):
            rcp.GraphExecGroup().__enter__()


def test_checkpoint_function_name():
    tx, rx = torch.ones(2, requires_grad=True), rg.ones(2, requires_grad=True)
    ty = tcp.CheckpointFunction.apply(lambda t: t.exp(), True, tx)
    ry = rcp.CheckpointFunction.apply(lambda t: t.exp(), True, rx)
    assert type(ry.grad_fn).__name__ == type(ty.grad_fn).__name__ == "CheckpointFunctionBackward"
    assert type(rcp.checkpoint(lambda t: t.exp(), rx, use_reentrant=True).grad_fn).__name__ == \
        "CheckpointFunctionBackward"
    ty.sum().backward()
    ry.sum().backward()
    np.testing.assert_allclose(rx.grad.numpy(), tx.grad.numpy(), rtol=1e-6)
