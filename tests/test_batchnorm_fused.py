"""F.batch_norm is one fused op (NativeBatchNormBackward0): values, running statistics,
first and second derivatives and node names as in torch, train and eval, with and without
affine parameters, for 2-d, 3-d and 4-d inputs."""
import numpy as np
import pytest

torch = pytest.importorskip("torch")
import retrograd as rg  # noqa: E402

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
    assert r_names == t_names == ("NativeBatchNormBackward0", "NativeBatchNormBackwardBackward0")
    tol = 1e-10 if dtype == "float64" else 3e-4
    for a, b in zip(r, t):
        np.testing.assert_allclose(a, b, rtol=tol, atol=tol)
