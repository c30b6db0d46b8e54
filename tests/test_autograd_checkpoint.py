"""utils.checkpoint: identical gradients (also vs torch), less memory, RNG replay, errors."""
import gc
import tracemalloc
import warnings

import numpy as np
import pytest

import retrograd as rg
from retrograd.utils.checkpoint import CheckpointError, checkpoint, checkpoint_sequential

torch = pytest.importorskip("torch")
import torch.utils.checkpoint as tcp  # noqa: E402


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
