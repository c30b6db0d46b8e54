"""Tests of the adaptive pooling ops (src/retrograd/_ops/nn/adaptive_pooling.py), checked against PyTorch."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from ...nn._layer_helpers import _flat, _np, check_error  # noqa: E402


@pytest.mark.parametrize("nd,shape,kw", [
    (2, (2, 3, 7, 6), dict(output_size=(4, 3), return_indices=True)),
    (2, (2, 3, 7, 6), dict(output_ratio=(0.6, 0.4))),
    (2, (2, 3, 7, 6), dict(output_size=(6, 5))),
    (3, (2, 3, 5, 6, 7), dict(output_ratio=0.5, return_indices=True)),
])
def test_fractional_max_pool_matches_torch(nd, shape, kw):
    samples = np.random.RandomState(1).rand(shape[0], shape[1], nd)
    x = np.random.RandomState(0).randn(*shape)
    res = []
    for L in (torch, rg):
        m = getattr(L.nn, f"FractionalMaxPool{nd}d")(2, _random_samples=L.tensor(samples), **kw)
        assert list(m.state_dict()) == ["_random_samples"]
        t = L.tensor(x, requires_grad=True)
        out = _flat(m(t))
        (out[0] * L.tensor(np.random.RandomState(2).randn(*out[0].shape))).sum().backward()
        res.append([_np(o) for o in out] + [_np(t.grad), repr(m), type(out[0].grad_fn).__name__])
    for a, b in zip(res[0], res[1]):
        if isinstance(a, str):
            assert b == a
        else:
            np.testing.assert_array_equal(b, a)


@pytest.mark.parametrize("fn", [
    lambda L: L.nn.FractionalMaxPool2d(2),
    lambda L: L.nn.FractionalMaxPool3d(2, 3, 0.5),
    lambda L: L.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda L: L.nn.FractionalMaxPool2d(2, output_size=7)(L.zeros(2, 3, 7, 6)),
    lambda L: L.nn.FractionalMaxPool2d(2, output_size=2)(L.zeros(2, 2, 3, 4, 5)),
    lambda L: L.nn.FractionalMaxPool3d(2, output_size=2)(L.zeros(2, 3, 4, 5)),
    lambda L: L.nn.FractionalMaxPool2d(2, output_size=3)(L.zeros(2, 0, 7, 6)),
    lambda L: L.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=L.zeros(2, 3, 3))(L.zeros(2, 3, 7, 6)),
])
def test_fractional_max_pool_errors(fn):
    check_error(fn)


def test_fractional_max_pool_random_samples_shape():
    y = rg.nn.FractionalMaxPool2d(3, output_ratio=0.5)(rg.randn(4, 3, 10, 10))
    assert tuple(y.shape) == (4, 3, 5, 5)


def test_fractional_max_pool_functional_forms_like_torch():
    res = []
    for T in (rg, torch):
        x = T.tensor(np.arange(50.0).reshape(1, 2, 5, 5), requires_grad=True)
        s = T.tensor([[[0.3, 0.7], [0.1, 0.9]]], dtype=T.float64)
        o, i = T.nn.functional.fractional_max_pool2d_with_indices(x, 2, output_size=3, _random_samples=s)
        o.sum().backward()
        with pytest.raises(RuntimeError) as e:
            T.nn.functional.fractional_max_pool2d(x, 2, output_size=3, _random_samples=s.float())
        res.append((o.detach().numpy().tolist(), i.numpy().tolist(), x.grad.numpy().tolist(),
                    type(o.grad_fn).__name__, str(e.value)))
    assert res[0] == res[1]
