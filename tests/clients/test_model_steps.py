"""The shortcuts of the model-benchmark paths agree with the general ones (h12).

``shape.reshape_to`` (what linear on 3-d inputs and multi-head attention use) must give the
same nodes, views, values, gradients and errors as ``reshape``; batch norm's forward now
reuses its centred input, and must still match torch; a transformer layer's gradients stay
torch's.
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
from retrograd._ops.shape import reshape, reshape_to

torch = pytest.importorskip("torch")


def _pair(shape, seed=0, transpose=False):
    data = np.random.default_rng(seed).standard_normal(shape)
    a = retrograd.tensor(data, requires_grad=True)
    b = retrograd.tensor(data, requires_grad=True)
    if transpose:  # a non-contiguous input: reshape copies (UnsafeViewBackward0)
        return a, b, a.transpose(0, 1), b.transpose(0, 1)
    return a, b, a * 1, b * 1


@pytest.mark.parametrize("transpose", [False, True])
@pytest.mark.parametrize("shape,new", [((4, 6), (3, 8)), ((2, 3, 4), (6, 4)), ((2, 3, 4), (2, 12)),
                                       ((0, 3), (3, 0))])
def test_reshape_to_matches_reshape(shape, new, transpose):
    a, b, x, y = _pair(shape, transpose=transpose)
    fast, slow = reshape_to(x, new), reshape(y, new)
    assert fast.shape == slow.shape
    assert type(fast.grad_fn).__name__ == type(slow.grad_fn).__name__
    assert (fast._base is None) == (slow._base is None)
    assert fast.is_contiguous() == slow.is_contiguous()
    np.testing.assert_array_equal(fast.detach().numpy(), slow.detach().numpy())
    g = np.random.default_rng(1).standard_normal(new)
    fast.backward(retrograd.tensor(g))
    slow.backward(retrograd.tensor(g))
    np.testing.assert_array_equal(a.grad.numpy(), b.grad.numpy())


def test_reshape_to_view_shares_version_and_data():
    x = retrograd.zeros(2, 6)
    v = reshape_to(x, (3, 4))
    assert v._base is x
    v.add_(1)
    assert x._version == v._version == 1
    assert float(x.sum()) == 12.0


@pytest.mark.parametrize("new", [(5, 5), (-1, 5), (2, -3)])
def test_reshape_to_errors_are_reshapes(new):
    x = retrograd.ones(4, 6)
    with pytest.raises(RuntimeError) as fast:
        reshape_to(x, new)
    with pytest.raises(RuntimeError) as slow:
        reshape(x, new)
    assert str(fast.value) == str(slow.value)
    with pytest.raises(RuntimeError) as ref:
        torch.ones(4, 6).reshape(new)
    assert str(fast.value) == str(ref.value)


def test_reshape_to_infers_like_reshape():
    x = retrograd.ones(4, 6, requires_grad=True) * 1
    assert reshape_to(x, (-1, 4)).shape == reshape(x, (-1, 4)).shape == (6, 4)


@pytest.mark.parametrize("shape", [(2, 5, 3), (4, 3), (2, 2, 2, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_nd_against_torch(shape, bias):
    rng = np.random.default_rng(2)
    x, w, b = rng.standard_normal(shape), rng.standard_normal((4, 3)), rng.standard_normal(4)
    rx, rw, rb = (retrograd.tensor(a, requires_grad=True) for a in (x, w, b))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (x, w, b))
    ry = retrograd.nn.functional.linear(rx, rw, rb if bias else None)
    ty = torch.nn.functional.linear(tx, tw, tb if bias else None)
    # (with a bias ViewBackward0 over addmm; without, UnsafeViewBackward0 over mm, as torch's matmul)
    assert type(ry.grad_fn).__name__ == type(ty.grad_fn).__name__
    assert [type(n).__name__ for n, _ in ry.grad_fn.next_functions][:1] == \
        [type(n).__name__ for n, _ in ty.grad_fn.next_functions][:1]
    np.testing.assert_allclose(ry.detach().numpy(), ty.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(ty.shape)
    ry.backward(retrograd.tensor(g))
    ty.backward(torch.tensor(g))
    for r, t in [(rx, tx), (rw, tw)] + ([(rb, tb)] if bias else []):
        np.testing.assert_allclose(r.grad.numpy(), t.grad.numpy(), rtol=1e-12, atol=1e-12)


def _names(y) -> list:
    """Node names of y's graph, depth first in edge order."""
    out, stack = [], [y.grad_fn]
    while stack:
        n = stack.pop()
        if n is not None:
            out.append(type(n).__name__)
            stack.extend(f for f, _ in reversed(n.next_functions))
    return out


def test_linear_nd_noncontiguous_input():
    # (retrograd fuses linear into one node, so its graph is not torch's here: the input's
    # reshape must still be the copying one, and values and gradients torch's)
    data = np.random.default_rng(5).standard_normal((3, 2, 5))
    res = []
    for lib in (retrograd, torch):
        leaf = lib.tensor(data, requires_grad=True)
        y = lib.nn.functional.linear(leaf.transpose(0, 1), lib.ones(4, 5, dtype=lib.float64), lib.ones(4, dtype=lib.float64))
        (y * y).sum().backward()
        res.append((y.detach().numpy(), leaf.grad.numpy(), _names(y)))
    np.testing.assert_allclose(res[0][0], res[1][0], rtol=1e-12)
    np.testing.assert_allclose(res[0][1], res[1][1], rtol=1e-12)
    assert res[0][2][0] == "ViewBackward0"
    assert "UnsafeViewBackward0" in res[0][2]


def test_batch_norm_train_against_torch():
    rng = np.random.default_rng(3)
    x, w, b = rng.standard_normal((4, 3, 5, 5)), rng.standard_normal(3), rng.standard_normal(3)
    outs, grads = [], []
    for lib in (retrograd, torch):
        xs, ws, bs = (lib.tensor(a, requires_grad=True) for a in (x, w, b))
        rm, rv = lib.zeros(3, dtype=lib.float64), lib.ones(3, dtype=lib.float64)
        y = lib.nn.functional.batch_norm(xs, rm, rv, ws, bs, training=True)
        (y * y.detach().sin()).sum().backward()
        outs.append((y.detach().numpy(), rm.numpy(), rv.numpy(), type(y.grad_fn).__name__))
        grads.append([t.grad.numpy() for t in (xs, ws, bs)])
    for r, t in zip(outs[0][:3], outs[1][:3]):
        np.testing.assert_allclose(r, t, rtol=1e-10, atol=1e-12)
    assert outs[0][3] == outs[1][3] == "NativeBatchNormBackward0"
    for r, t in zip(grads[0], grads[1]):
        np.testing.assert_allclose(r, t, rtol=1e-9, atol=1e-11)


def test_batch_norm_forward_keeps_input():
    x = retrograd.randn(4, 3, 2, 2)
    before = x.numpy().copy()
    retrograd.nn.functional.batch_norm(x, None, None, training=True)
    np.testing.assert_array_equal(x.numpy(), before)


@pytest.mark.parametrize("batch_first", [True, False])
def test_transformer_layer_grads_against_torch(batch_first):
    retrograd.manual_seed(0)
    torch.manual_seed(0)
    rl = retrograd.nn.TransformerEncoderLayer(8, 2, 16, batch_first=batch_first, dropout=0.0, dtype=retrograd.float64)
    tl = torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=batch_first, dropout=0.0, dtype=torch.float64)
    tl.load_state_dict({k: torch.tensor(v.detach().numpy()) for k, v in rl.state_dict().items()})
    x = np.random.default_rng(4).standard_normal((3, 5, 8))
    rx, tx = retrograd.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    ry, ty = rl(rx), tl(tx)
    np.testing.assert_allclose(ry.detach().numpy(), ty.detach().numpy(), rtol=1e-10, atol=1e-10)
    ry.pow(2).mean().backward()
    ty.pow(2).mean().backward()
    np.testing.assert_allclose(rx.grad.numpy(), tx.grad.numpy(), rtol=1e-9, atol=1e-10)
    for (name, rp), (_, tp) in zip(rl.named_parameters(), tl.named_parameters()):
        np.testing.assert_allclose(rp.grad.numpy(), tp.grad.numpy(), rtol=1e-9, atol=1e-10, err_msg=name)
