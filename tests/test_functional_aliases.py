"""Top-level nn.functional aliases (torch.dropout, torch.layer_norm ...) vs torch: values,
gradients, torch's top-level signatures."""
import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


def _pair(shape, seed, low=-2.0, high=2.0, grad=True):
    a = np.random.default_rng(seed).uniform(low, high, size=shape)
    return (retrograd.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad))


def _check(ours, theirs, inputs, atol=1e-9):
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), atol=atol, rtol=1e-7)
    w = np.random.default_rng(5).uniform(0.5, 1.5, size=tuple(theirs.shape))
    (ours * retrograd.tensor(w)).sum().backward()
    (theirs * torch.tensor(w)).sum().backward()
    for r, t in inputs:
        if t.grad is None:
            assert r.grad is None
            continue
        np.testing.assert_allclose(r.grad.numpy(), t.grad.numpy(), atol=1e-8, rtol=1e-6)


CASES = {
    "selu": lambda L, x: L.selu(x),
    "celu": lambda L, x: L.celu(x, 0.7),
    "rrelu_eval": lambda L, x: L.rrelu(x, 0.1, 0.3),
    "rrelu_default": lambda L, x: L.rrelu(x),
    "threshold": lambda L, x: L.threshold(x, 0.3, -1.5),
    "hardshrink": lambda L, x: L.hardshrink(x),
    "hardshrink_l": lambda L, x: L.hardshrink(x, 1.1),
    "dropout_eval": lambda L, x: L.dropout(x, 0.4, False),
    "layer_norm": lambda L, x: L.layer_norm(x, [4]),
    "layer_norm2": lambda L, x: L.layer_norm(x, (3, 4), None, None, 1e-3, True),
    "group_norm": lambda L, x: L.group_norm(x, 1),
    "pixel_shuffle": lambda L, x: L.pixel_shuffle(x.reshape(1, 4, 3, 1), 2),
    "pdist": lambda L, x: L.pdist(x),
    "pdist1": lambda L, x: L.pdist(x, 1),
    "pdist3": lambda L, x: L.pdist(x, 3.0),
}


@pytest.mark.parametrize("name", list(CASES))
def test_unary_alias_matches_torch(name):
    r, t = _pair((2, 3, 4) if "norm" in name and "group" not in name else (3, 4), 1)
    if name == "group_norm":
        r, t = _pair((2, 4, 3), 2)
    _check(CASES[name](retrograd, r), CASES[name](torch, t), [(r, t)])


def test_layer_norm_affine_and_group_norm_affine():
    x = _pair((2, 4, 3), 3)
    w = _pair((4,), 4)
    b = _pair((4,), 5)
    _check(retrograd.group_norm(x[0], 2, w[0], b[0], 1e-5, True), torch.group_norm(x[1], 2, w[1], b[1], 1e-5, True),
           [x, w, b])
    x = _pair((2, 3), 6)
    w = _pair((3,), 7)
    b = _pair((3,), 8)
    _check(retrograd.layer_norm(x[0], [3], w[0], b[0]), torch.layer_norm(x[1], [3], w[1], b[1]), [x, w, b])


@pytest.mark.parametrize("training", [True, False])
def test_batch_norm_torch_argument_order(training):
    x = _pair((4, 3), 9)
    w = _pair((3,), 10)
    b = _pair((3,), 11)
    rm = _pair((3,), 12, grad=False)
    rv = _pair((3,), 13, 0.5, 1.5, grad=False)
    ours = retrograd.batch_norm(x[0], w[0], b[0], rm[0], rv[0], training, 0.2, 1e-5, False)
    theirs = torch.batch_norm(x[1], w[1], b[1], rm[1], rv[1], training, 0.2, 1e-5, False)
    _check(ours, theirs, [x, w, b])
    np.testing.assert_allclose(rm[0].numpy(), rm[1].numpy(), atol=1e-12)
    np.testing.assert_allclose(rv[0].numpy(), rv[1].numpy(), atol=1e-12)


@pytest.mark.parametrize("use_input_stats", [True, False])
def test_instance_norm(use_input_stats):
    x = _pair((2, 3, 5), 14)
    w = _pair((3,), 15)
    b = _pair((3,), 16)
    rm = _pair((3,), 17, grad=False)
    rv = _pair((3,), 18, 0.5, 1.5, grad=False)
    ours = retrograd.instance_norm(x[0], w[0], b[0], rm[0], rv[0], use_input_stats, 0.1, 1e-5, False)
    theirs = torch.instance_norm(x[1], w[1], b[1], rm[1], rv[1], use_input_stats, 0.1, 1e-5, False)
    _check(ours, theirs, [x, w, b])
    np.testing.assert_allclose(rm[0].numpy(), rm[1].numpy(), atol=1e-12)
    np.testing.assert_allclose(rv[0].numpy(), rv[1].numpy(), atol=1e-12)


def test_instance_norm_without_stats_or_affine():
    x = _pair((2, 3, 4), 19)
    _check(retrograd.instance_norm(x[0], None, None, None, None, True, 0.1, 1e-5, False),
           torch.instance_norm(x[1], None, None, None, None, True, 0.1, 1e-5, False), [x])


def test_binary_aliases():
    a, b = _pair((3, 4), 20), _pair((3, 4), 21)
    _check(retrograd.cosine_similarity(a[0], b[0]), torch.cosine_similarity(a[1], b[1]), [a, b])
    a, b = _pair((3, 4), 22), _pair((3, 4), 23)
    _check(retrograd.cosine_similarity(a[0], b[0], 0, 1e-6), torch.cosine_similarity(a[1], b[1], 0, 1e-6), [a, b])
    a, b = _pair((3, 4), 24), _pair((3, 4), 25)
    _check(retrograd.pairwise_distance(a[0], b[0], 1.5, 1e-6, True),
           torch.pairwise_distance(a[1], b[1], 1.5, 1e-6, True), [a, b])
    x1, x2, w, bias = _pair((2, 3), 26), _pair((2, 4), 27), _pair((5, 3, 4), 28), _pair((5,), 29)
    _check(retrograd.bilinear(x1[0], x2[0], w[0], bias[0]), torch.bilinear(x1[1], x2[1], w[1], bias[1]),
           [x1, x2, w, bias])


def test_dropout_training_statistics_and_seed():
    x = retrograd.ones(20000)
    retrograd.manual_seed(0)
    y = retrograd.dropout(x, 0.25, True)
    kept = y.numpy() != 0
    assert abs(kept.mean() - 0.75) < 0.02
    np.testing.assert_allclose(y.numpy()[kept], 1 / 0.75)
    retrograd.manual_seed(0)
    assert np.array_equal(retrograd.dropout(x, 0.25, True).numpy(), y.numpy())


def test_rrelu_training_slopes_in_range():
    x = retrograd.full((1000,), -1.0, requires_grad=True)
    retrograd.manual_seed(1)
    y = retrograd.rrelu(x, 0.1, 0.3, True)
    s = -y.detach().numpy()
    assert s.min() >= 0.1 and s.max() <= 0.3 and s.std() > 0.01
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), s)
    pos = retrograd.rrelu(retrograd.ones(5), 0.1, 0.3, True)
    np.testing.assert_array_equal(pos.numpy(), np.ones(5))


def test_pdist_errors_match_torch():
    for lib in (retrograd, torch):
        with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
            lib.pdist(lib.ones(3))


@pytest.mark.parametrize("name,args", [("selu_", ()), ("celu_", (0.5,)), ("rrelu_", (0.1, 0.3)),
                                       ("threshold_", (0.2, -3.0)), ("dropout_", (0.3, False))])
def test_inplace_aliases(name, args):
    r, t = _pair((3, 4), 30, grad=False)
    ro, to = getattr(retrograd, name)(r, *args), getattr(torch, name)(t, *args)
    assert ro is r and to is t
    np.testing.assert_allclose(r.numpy(), t.numpy(), atol=1e-12)
    x = retrograd.ones(2, requires_grad=True)
    tx = torch.ones(2, requires_grad=True)
    if name != "dropout_":
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            getattr(torch, name)(tx, *args)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            getattr(retrograd, name)(x, *args)
