"""Tests of the activation ops (src/retrograd/_ops/nn/activation.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from .._elementwise_helpers import ACTIVATIONS, LIBS, _X, _close  # noqa: E402
from .._nn_linalg_helpers import _close as _close_nn_linalg, _pair  # noqa: E402
from .._reduce_shape_helpers import _grads_match  # noqa: E402
from .._differential_helpers import assert_same_derivatives, assert_same_layout  # noqa: E402


@pytest.mark.parametrize("name", sorted(ACTIVATIONS))
def test_piecewise_linear_first_grad_has_a_graph(name):
    """torch's first gradient requires grad (its backward op takes x) and differentiates to zeros."""
    res = []
    for L in LIBS:
        x = L.tensor(_X, dtype=L.float64, requires_grad=True)
        y = ACTIVATIONS[name](L, x)
        go = L.linspace(-1, 1, len(_X), dtype=L.float64)
        g, = L.autograd.grad(y, x, go, create_graph=True)
        g2, = L.autograd.grad((g * g.detach()).sum(), x, allow_unused=True)
        res.append((y, g, g2, type(y.grad_fn).__name__, g.requires_grad))
    (yr, gr, g2r, nr, qr), (yt, gt, g2t, nt, qt) = res
    _close(yr, yt)
    _close(gr, gt)
    assert (nr, qr) == (nt, qt) and qt
    _close(g2r, g2t)
    assert not g2t.any()


def test_prelu_second_derivatives():
    res = []
    for L in LIBS:
        x = L.tensor([[-2.0, 0.5], [1.5, -0.25]], dtype=L.float64, requires_grad=True)
        w = L.tensor([0.25, -0.5], dtype=L.float64, requires_grad=True)
        y = L.nn.functional.prelu(x, w)
        gx, gw = L.autograd.grad((y * y).sum(), (x, w), create_graph=True)
        s = (gx * L.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=L.float64)).sum() + (gw * gw).sum()
        res.append((y, gx, gw, *L.autograd.grad(s, (x, w)), type(gx.grad_fn).__name__))
        # the weight not requiring grad: the input's gradient still has a graph (through x)
        w2 = w.detach()
        g1, = L.autograd.grad(L.nn.functional.prelu(x, w2).sum(), x, create_graph=True)
        res[-1] += (g1.requires_grad, L.autograd.grad(g1.sum(), x)[0])
    for a, b in zip(*res):
        if isinstance(a, (str, bool)):
            assert a == b
        else:
            _close(a, b)


def test_hardsigmoid_double_backward_raises_like_torch():
    out = []
    for L in LIBS:
        x = L.tensor([-4.0, -1.0, 0.5, 2.9, 3.5], dtype=L.float64, requires_grad=True)
        g, = L.autograd.grad(L.nn.functional.hardsigmoid(x).sum(), x, create_graph=True)
        assert g.requires_grad
        with pytest.raises(RuntimeError) as e:
            g.sum().backward()
        out.append((g.detach().tolist(), str(e.value)))
    assert out[0] == out[1]
    assert out[0][1] == "derivative for aten::hardsigmoid_backward is not implemented"


def test_relu_threshold_on_0d_create_graph():
    res = []
    for L in LIBS:
        for v in (-4.8, 1.3):
            x = L.tensor(v, dtype=L.float64, requires_grad=True)
            for y in (L.nn.functional.relu(x), L.nn.functional.threshold(x, -7.5, -0.6)):
                g, = L.autograd.grad(y, x, L.tensor(0.3, dtype=L.float64), create_graph=True)
                res.append((g.item(), g.shape == (), type(g.grad_fn).__name__))
    n = len(res) // 2
    assert res[:n] == res[n:]


def test_threshold_inplace_node_names():
    names = []
    for L in LIBS:
        x = L.tensor([1.0, -1.0], requires_grad=True)
        a = L.nn.functional.threshold(x * 1, 0.0, 5.0, inplace=True)
        b = L.threshold_(x * 1, 0.0, 5.0)
        names.append((type(a.grad_fn).__name__, type(b.grad_fn).__name__))
    assert names[0] == names[1] == ("ThresholdBackward1", "ThresholdBackward1")


def _name(t):
    return None if t is None or t.grad_fn is None else type(t.grad_fn).__name__


# ------------------------------------------------------- first grads kept in the graph
# (f(lib, *inputs) -> output; the shapes of the inputs that require grad)
KEEP = {
    "leaky_relu": (lambda L, x: L.nn.functional.leaky_relu(x, 0.2), [(4, 5)]),
    "max_pool1d": (lambda L, x: L.nn.functional.max_pool1d(x, 2), [(2, 3, 6)]),
    "max_pool2d": (lambda L, x: L.nn.functional.max_pool2d(x, 2, 1), [(1, 2, 4, 5)]),
    "max_pool3d": (lambda L, x: L.nn.functional.max_pool3d(x, 2), [(1, 2, 4, 4, 4)]),
    "avg_pool1d": (lambda L, x: L.nn.functional.avg_pool1d(x, 3, 2, 1), [(2, 3, 7)]),
    "avg_pool2d": (lambda L, x: L.nn.functional.avg_pool2d(x, 2), [(1, 3, 4, 4)]),
    "avg_pool3d": (lambda L, x: L.nn.functional.avg_pool3d(x, 2, 1), [(1, 2, 3, 3, 3)]),
    "adaptive_avg_pool2d": (lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (2, 3)), [(1, 2, 5, 7)]),
    "adaptive_avg_pool3d": (lambda L, x: L.nn.functional.adaptive_avg_pool3d(x, 2), [(2, 3, 4, 5)]),
    "adaptive_max_pool2d": (lambda L, x: L.nn.functional.adaptive_max_pool2d(x, 2), [(1, 2, 5, 5)]),
    "adaptive_max_pool3d": (lambda L, x: L.nn.functional.adaptive_max_pool3d(x, 2), [(1, 1, 3, 4, 5)]),
    "interpolate_area": (lambda L, x: L.nn.functional.interpolate(x, size=3, mode="area"), [(2, 3, 7)]),
    "pad_reflect1d": (lambda L, x: L.nn.functional.pad(x, (2, 1), mode="reflect"), [(2, 5)]),
    "pad_reflect2d": (lambda L, x: L.nn.functional.pad(x, (1, 1, 2, 0), mode="reflect"), [(1, 3, 4)]),
    "pad_reflect3d": (lambda L, x: L.nn.functional.pad(x, (1,) * 6, mode="reflect"), [(1, 1, 3, 3, 3)]),
    "pad_replicate1d": (lambda L, x: L.nn.functional.pad(x, (-1, 3), mode="replicate"), [(2, 5)]),
    "pad_replicate2d": (lambda L, x: L.nn.functional.pad(x, (2, 1, 0, 3), mode="replicate"), [(2, 2, 3)]),
    "pad_replicate3d": (lambda L, x: L.nn.functional.pad(x, (1, 0, 0, 1, 1, 1), mode="replicate"),
                        [(1, 2, 2, 3, 2)]),
    "conv2d": (lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    "conv_transpose1d": (lambda L, x, w, b: L.nn.functional.conv_transpose1d(x, w, b, stride=2),
                         [(2, 3, 5), (3, 2, 3), (2,)]),
    "layer_norm": (lambda L, x, w, b: L.nn.functional.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    "group_norm": (lambda L, x, w, b: L.nn.functional.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    "group_norm_empty": (lambda L, x, w, b: L.nn.functional.group_norm(x, 1, w, b), [(0, 2), (2,), (2,)]),
    "batch_norm_train": (lambda L, x, w, b: L.nn.functional.batch_norm(x, None, None, w, b, training=True),
                         [(4, 3, 2), (3,), (3,)]),
    "batch_norm_eval": (lambda L, x, w, b: L.nn.functional.batch_norm(
        x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), w, b), [(4, 3), (3,), (3,)]),
    "nll_loss": (lambda L, x: L.nn.functional.nll_loss(x, L.tensor([0, 2, 1])), [(3, 4)]),
    "nll_loss_weight": (lambda L, x: L.nn.functional.nll_loss(
        x, L.tensor([0, 2, 1]), weight=L.tensor([1., 2., 3., 4.], dtype=L.float64), reduction="none"), [(3, 4)]),
    "nll_loss2d": (lambda L, x: L.nn.functional.nll_loss(x, L.tensor([[0, 2], [1, 1]])), [(2, 3, 2)]),
}


@pytest.mark.parametrize("name", sorted(KEEP))
def test_first_grads_stay_in_graph(name):
    f, shapes = KEEP[name]
    pairs = [_pair(s, i + 7) for i, s in enumerate(shapes)]
    results = []
    for k, lib in enumerate((torch, rg)):
        ins = [p[k] for p in pairs]
        out = f(lib, *ins)
        go = lib.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
        grads = lib.autograd.grad(out, ins, go, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), ins, allow_unused=True)
        results.append((grads, second))
    (gt, st), (gr, sr) = results
    for a, b in zip(gt, gr):
        _close_nn_linalg(a, b)
        assert b.requires_grad == a.requires_grad
        if name != "group_norm_empty":  # (torch: a View of its composite formula)
            assert _name(b) == _name(a)
    for a, b in zip(st, sr):
        if a is None and b is None:
            continue
        if a is None or b is None:  # (unused in one library: the other's must be all zeros)
            assert float((a if a is not None else b).abs().sum()) == 0
        else:
            _close_nn_linalg(a, b, 1e-8)


def test_keep_graph_is_free_in_plain_backward():
    # without create_graph no extra node: the gradient is the rule's own result
    x = rg.tensor([1.0, -2.0], requires_grad=True)
    (gx,) = rg.autograd.grad(rg.nn.functional.leaky_relu(x).sum(), x)
    assert gx.grad_fn is None and not gx.requires_grad
    (gx,) = rg.autograd.grad(rg.nn.functional.leaky_relu(x).sum(), x, create_graph=True)
    assert [type(n).__name__ if n else None for n, _ in gx.grad_fn.next_functions] == [None, "AccumulateGrad"]


# ------------------------------------------------------- empty inputs
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape,dim", [((5, 0, 0), -1), ((5, 0, 3), 1), ((5, 0, 3), 2)])
def test_softmax_family_empty(fn, shape, dim):
    res = []
    for lib in (torch, rg):
        x = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
        y = getattr(lib.nn.functional, fn)(x, dim)
        y.sum().backward()
        res.append((tuple(y.shape), type(y.grad_fn).__name__, tuple(x.grad.shape)))
    assert res[0] == res[1]


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_of_empty_tensors(fn):
    for shape, dim in [((5, 0, 0), -1), ((0, 3), 1), ((2, 0), 0)]:
        _grads_match(lambda lib, x: getattr(lib, fn)(x, dim), np.zeros(shape))


@pytest.mark.parametrize("fn", ["softmax", "log_softmax"])
def test_softmax_0d_grad_fn_and_grads(fn):
    res = []
    for lib in (torch, retrograd):
        x = lib.tensor(1.5, dtype=lib.float64, requires_grad=True)
        y = getattr(lib, fn)(x * 2, 0)
        g, = lib.autograd.grad(y, x, create_graph=True)
        g2, = lib.autograd.grad(g, x, allow_unused=True)
        res.append((type(y.grad_fn).__name__, y.item(), g.item(), None if g2 is None else g2.item()))
    assert res[0] == res[1]


# ---------------------------------------------------------------- 10. values
@pytest.mark.parametrize("form", ["function", "method", "functional"])
def test_hardshrink_nan_grad_fn_and_grads(form):
    res = []
    for lib in (torch, retrograd):
        x = lib.tensor([float("nan"), 1., 0.3, -2., 0.5], dtype=lib.float64, requires_grad=True)
        y = {"function": lambda: lib.hardshrink(x, 0.5), "method": lambda: x.hardshrink(0.5),
             "functional": lambda: lib.nn.functional.hardshrink(x, 0.5)}[form]()
        g, = lib.autograd.grad((y * y.detach().nan_to_num()).sum(), x)
        res.append((type(y.grad_fn).__name__, y.detach().numpy().tolist(), g.numpy().tolist()))
    assert str(res[0]) == str(res[1])


# ---- found by the differential fuzzer (tests/fuzz): second derivatives at kinks and special points
_SPECIAL = [-float("inf"), -3.0, -1.0, -0.0, 0.0, 0.5, 1.0, 3.0, float("inf"), float("nan")]


@pytest.mark.parametrize("f", [
    lambda L, x: L.nn.functional.logsigmoid(x), lambda L, x: L.nn.functional.elu(x),
    lambda L, x: L.nn.functional.elu(x, 0.5), lambda L, x: L.nn.functional.selu(x),
    lambda L, x: L.nn.functional.celu(x, 2.0), lambda L, x: L.nn.functional.softplus(x),
    lambda L, x: L.nn.functional.softplus(x, 2.0, 1.0), lambda L, x: L.nn.functional.mish(x)],
    ids=["logsigmoid", "elu", "elu_alpha", "selu", "celu", "softplus", "softplus_threshold", "mish"])
def test_second_derivative_at_special_points(f):
    # logsigmoid''(0) = -1/4 (not -0 from |x|'s kink), elu''(0) = 0 (PyTorch's elu_double_backward
    # masks x < 0), softplus'' = 0 where x * beta equals the threshold
    assert_same_derivatives(f, _SPECIAL)
    # float32: the derivative formulas (exp, log1p, tanh of softplus ...) agree to a few ulps, and
    # second derivatives subtract terms of similar size (mish''), which loses up to ~2^7 of them
    assert_same_derivatives(f, _SPECIAL, dtype="float32", rtol=1e-4)


@pytest.mark.parametrize("op", [lambda L, x: x.softmax(0), lambda L, x: x.softmax(-1),
                                lambda L, x: x.log_softmax(1), lambda L, x: L.nn.functional.logsigmoid(x)])
def test_softmax_family_results_are_contiguous(op):
    assert_same_layout(op)
