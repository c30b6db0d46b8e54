"""F.batch_norm is one fused op (NativeBatchNormBackward0): values, running statistics,
first and second derivatives and node names as in torch, train and eval, with and without
affine parameters, for 2-d, 3-d and 4-d inputs."""
import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

SHAPES = {1: (6, 3), 3: (4, 3, 5), 2: (4, 3, 5, 6)}  # BatchNorm1d on (N, C) and (N, C, L); 2d


def _run(lib, shape, train, dtype, affine, seed):
    rng = np.random.default_rng(seed)
    x0 = rng.standard_normal(shape)
    cls = lib.nn.BatchNorm2d if len(shape) == 4 else lib.nn.BatchNorm1d
    bn = cls(3, affine=affine).to(getattr(lib, dtype))
    with lib.no_grad():
        bn.running_mean.copy_(lib.tensor(rng.standard_normal(3)))
        bn.running_var.copy_(lib.tensor(rng.uniform(0.5, 2, 3)))
        if affine:
            bn.weight.copy_(lib.tensor(rng.standard_normal(3)))
            bn.bias.copy_(lib.tensor(rng.standard_normal(3)))
    bn.train(train)
    x = lib.tensor(x0, dtype=getattr(lib, dtype), requires_grad=True)
    y = bn(x)
    g = lib.tensor(rng.standard_normal(tuple(y.shape)), dtype=getattr(lib, dtype))
    params = [x] + ([bn.weight, bn.bias] if affine else [])
    grads = lib.autograd.grad(y, params, g, create_graph=True)
    second = lib.autograd.grad(sum((gr * gr).sum() for gr in grads), params, allow_unused=True,
                               materialize_grads=True)
    arrays = [y, *grads, *second, bn.running_mean, bn.running_var]
    names = (type(y.grad_fn).__name__, type(grads[0].grad_fn).__name__)
    return [a.detach().numpy() for a in arrays], names


@pytest.mark.parametrize("dims", sorted(SHAPES))
@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
@pytest.mark.parametrize("affine", [True, False], ids=["affine", "plain"])
@pytest.mark.parametrize("dtype", ["float64", "float32"])
def test_batch_norm_matches_torch(dims, train, affine, dtype):
    t, t_names = _run(torch, SHAPES[dims], train, dtype, affine, seed=dims)
    r, r_names = _run(rg, SHAPES[dims], train, dtype, affine, seed=dims)
    assert r_names[0] == t_names[0] == "NativeBatchNormBackward0"
    if not train:  # (in training the graph of the backward is built from public ops)
        assert r_names[1] == t_names[1] == "NativeBatchNormBackwardBackward0"
    tol = 1e-10 if dtype == "float64" else 3e-4
    for a, b in zip(r, t):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)


@pytest.mark.parametrize("train", [True, False], ids=["train", "eval"])
def test_batch_norm_gradient_penalty_matches_torch(train):
    """Double backward where the gradient reaching the BN node itself depends on x."""
    res = []
    for lib in (torch, rg):
        rng = np.random.default_rng(7)
        bn = lib.nn.BatchNorm2d(3).double()
        with lib.no_grad():
            bn.weight.copy_(lib.tensor(rng.standard_normal(3)))
            bn.bias.copy_(lib.tensor(rng.standard_normal(3)))
        bn.train(train)
        x = lib.tensor(rng.standard_normal((4, 3, 2, 2)), requires_grad=True)
        y = bn(x)
        loss = (y.tanh() * y).sum()
        (gx,) = lib.autograd.grad(loss, x, create_graph=True)
        penalty = (gx * gx).sum()
        gw, gxx = lib.autograd.grad(penalty, [bn.weight, x])
        res.append([gx.detach().numpy(), gw.numpy(), gxx.numpy()])
    for a, b in zip(*res):
        np.testing.assert_allclose(b, a, rtol=1e-9, atol=1e-11)


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (0, 3, 2)])
def test_batch_norm_empty_input(shape):
    res = []
    for lib in (torch, rg):
        c = shape[1] if len(shape) > 1 else 1
        x = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
        w = lib.full((max(c, 1),), 2.0, dtype=lib.float64, requires_grad=True) if c else None
        b = lib.full((max(c, 1),), 0.5, dtype=lib.float64) if c else None
        rm, rv = lib.ones(4, dtype=lib.float64), lib.ones(4, dtype=lib.float64)  # sizes unchecked when empty
        y = lib.nn.functional.batch_norm(x, rm, rv, w, b, training=True)
        y.sum().backward()
        res.append((tuple(y.shape), type(y.grad_fn).__name__, rm.tolist(), None if w is None else w.grad.tolist()))
    assert res[0] == res[1]
