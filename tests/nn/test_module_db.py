"""Differences found by running torch's ModuleInfo database (common_modules.module_db) through
retrograd: each case builds the same module in both libraries (state copied from torch), runs the
same float64 inputs, and compares outputs, grad_fn names, gradients, buffers and error messages."""
import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _rg(x):
    if isinstance(x, torch.Tensor):
        t = rg.tensor(x.detach().numpy().copy())
        return t.requires_grad_() if x.requires_grad else t
    return x


def _close(a, b, tol=1e-9):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(b.detach().numpy(), a.detach().numpy(), rtol=tol, atol=tol)


def _both(make, *inputs, training=True):
    """(torch module, rg module, torch output, rg output, torch inputs, rg inputs)."""
    torch.manual_seed(0)
    tm = make(torch).double().train(training)
    rm = make(rg).double().train(training)
    rm.load_state_dict({k: _rg(v) for k, v in tm.state_dict().items()})
    ti = [(x.double() if x.is_floating_point() else x).clone().requires_grad_(x.is_floating_point())
          for x in inputs]
    ri = [_rg(x) for x in ti]
    return tm, rm, tm(*ti), rm(*ri), ti, ri


def _grads_match(tm, rm, tout, rout, ti, ri):
    assert type(tout.grad_fn).__name__ == type(rout.grad_fn).__name__
    go = torch.randn(tout.shape, dtype=torch.float64)
    tw = [x for x in ti if x.requires_grad] + list(tm.parameters())
    rw = [x for x in ri if x.requires_grad] + list(rm.parameters())
    tg = torch.autograd.grad(tout, tw, go, allow_unused=True)
    rgr = rg.autograd.grad(rout, rw, _rg(go), allow_unused=True)
    for a, b in zip(tg, rgr):
        if a is None or b is None:
            assert (a is None or not a.any()) and (b is None or not b.any())
        else:
            _close(a, b)


# ------------------------------------------------------------------ batch norm on an empty batch
@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (0, 5)), ("BatchNorm2d", (0, 5, 2, 2)),
                                       ("BatchNorm3d", (0, 5, 2, 2, 2))])
@pytest.mark.parametrize("training", [True, False])
def test_batchnorm_zero_batch(cls, shape, training):
    # PyTorch leaves the running statistics alone and still reaches weight and bias (zero grads)
    tm, rm, tout, rout, ti, ri = _both(lambda L: getattr(L.nn, cls)(5), torch.randn(shape), training=training)
    _close(tout, rout)
    for k in ("running_mean", "running_var", "num_batches_tracked"):
        _close(tm.state_dict()[k], rm.state_dict()[k])
    _grads_match(tm, rm, tout, rout, ti, ri)


@pytest.mark.parametrize("training,eps", [(True, 0.0), (True, -1.0), (False, -1.0)])
def test_batch_norm_eps_checks(training, eps):
    msgs = []
    for L in (torch, rg):
        m = L.nn.BatchNorm1d(3, eps=eps).train(training)
        with pytest.raises(ValueError) as e:
            m(L.ones(2, 3))
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ------------------------------------------------------------------ instance norm
@pytest.mark.parametrize("kwargs", [{}, {"affine": True}, {"affine": True, "bias": False},
                                    {"track_running_stats": True}])
@pytest.mark.parametrize("training", [True, False])
def test_instance_norm_as_torch(kwargs, training):
    # a batch norm of one (N*C)-channel sample, viewed back: ViewBackward0 as in PyTorch
    tm, rm, tout, rout, ti, ri = _both(lambda L: L.nn.InstanceNorm2d(3, **kwargs), torch.randn(2, 3, 4, 5),
                                       training=training)
    assert list(tm.state_dict()) == list(rm.state_dict())
    assert repr(tm) == repr(rm)
    _close(tout, rout)
    for k, v in tm.state_dict().items():
        _close(v, rm.state_dict()[k])
    _grads_match(tm, rm, tout, rout, ti, ri)


def test_instance_norm_second_order():
    x = rg.randn(2, 3, 5, dtype=rg.float64, requires_grad=True)
    w = rg.randn(3, dtype=rg.float64, requires_grad=True)
    assert rg.autograd.gradgradcheck(lambda x, w: rg.nn.functional.instance_norm(x, weight=w), (x, w))


# ------------------------------------------------------------------ grad_fn names of PyTorch's kernels
@pytest.mark.parametrize("make,shape", [
    (lambda L: L.nn.AvgPool2d(2), (3, 4, 4)),
    (lambda L: L.nn.AvgPool3d(2), (2, 4, 4, 4)),
    (lambda L: L.nn.MaxPool2d(2), (3, 4, 4)),
    (lambda L: L.nn.MaxPool3d(2, stride=1), (2, 3, 3, 3)),
    (lambda L: L.nn.AdaptiveMaxPool2d(2), (3, 5, 5)),
    (lambda L: L.nn.AdaptiveMaxPool3d(2), (2, 3, 4, 5)),
    (lambda L: L.nn.FractionalMaxPool2d(2, output_size=3, _random_samples=L.full((1, 3, 2), 0.5,
                                                                                  dtype=L.float64)), (3, 6, 6)),
    (lambda L: L.nn.Linear(4, 3), (4,)),
    (lambda L: L.nn.RMSNorm(4, elementwise_affine=False), (2, 4)),
])
def test_unbatched_and_composite_nodes(make, shape):
    tm, rm, tout, rout, ti, ri = _both(make, torch.randn(shape))
    _close(tout, rout)
    _grads_match(tm, rm, tout, rout, ti, ri)


def test_unbatched_pool_second_order():
    x = rg.randn(2, 4, 4, dtype=rg.float64, requires_grad=True)
    for f in (lambda x: rg.nn.functional.avg_pool2d(x, 2, 1), lambda x: rg.nn.functional.max_pool2d(x, 2, 1),
              lambda x: rg.nn.functional.adaptive_max_pool2d(x, 3)):
        assert rg.autograd.gradgradcheck(f, (x,))


def test_bilinear_bias_last():
    x = torch.randn(2, 4)
    tm, rm, tout, rout, ti, ri = _both(lambda L: L.nn.Bilinear(4, 4, 3), x, x.clone())
    _close(tout, rout)
    _grads_match(tm, rm, tout, rout, ti, ri)


def test_cross_entropy_prob_target_mean_node():
    x, t = torch.randn(3, 4), torch.rand(3, 4)
    tm, rm, tout, rout, ti, ri = _both(lambda L: L.nn.CrossEntropyLoss(), x, t)
    assert type(rout.grad_fn).__name__ == "DivBackward1"
    _close(tout, rout)
    _grads_match(tm, rm, tout, rout, ti, ri)


def test_gelu_zero_dim():
    tm, rm, tout, rout, ti, ri = _both(lambda L: L.nn.GELU(), torch.tensor(0.7))
    _close(tout, rout)
    _grads_match(tm, rm, tout, rout, ti, ri)


# ------------------------------------------------------------------ argument checks (module_error_inputs)
def _same_error(f):
    got = []
    for L in (torch, rg):
        with pytest.raises(Exception) as e:
            f(L)
        got.append((type(e.value).__name__, str(e.value)))
    assert got[0] == got[1]


@pytest.mark.parametrize("f", [
    lambda L: L.nn.HuberLoss(delta=1 + 0j),
    lambda L: L.nn.MultiMarginLoss()(L.randn(5, 10), L.zeros(3, dtype=L.int64)),
    lambda L: L.nn.MultiMarginLoss()(L.randn(5, 10), L.zeros(5, 1, dtype=L.int64)),
    lambda L: L.nn.NLLLoss(weight=L.tensor([], dtype=L.float16))(L.randn(0, 0), L.zeros(0, dtype=L.int64)),
    lambda L: L.nn.NLLLoss(weight=L.ones(3, dtype=L.float64))(L.randn(2, 3), L.tensor([0, 1])),
    lambda L: L.nn.NLLLoss(weight=L.ones(2))(L.randn(2, 3), L.tensor([0, 1])),
    lambda L: L.nn.NLLLoss(weight=L.ones(2))(L.randn(2, 3, 4), L.zeros(2, 4, dtype=L.int64)),
    lambda L: L.nn.NLLLoss()(L.randn(2, 3), L.zeros(2, 1, dtype=L.int64)),
    lambda L: L.nn.NLLLoss()(L.randn(2, 3, 5, 6), L.zeros(2, 4, 6, dtype=L.int64)),
    lambda L: L.nn.NLLLoss()(L.randn(2, 3, 5, 6), L.zeros(2, 5, dtype=L.int64)),
    lambda L: L.nn.NLLLoss()(L.randn(2, 3, 5, 6, 2), L.zeros(2, 4, 6, 2, dtype=L.int64)),
    lambda L: L.nn.CrossEntropyLoss(weight=L.ones(2))(L.randn(2, 3), L.tensor([0, 1])),
    lambda L: L.nn.CrossEntropyLoss(weight=L.ones(2))(L.randn(2, 3), L.rand(2, 3)),
    lambda L: L.nn.CrossEntropyLoss(ignore_index=1)(L.randn(2, 3), L.rand(2, 3)),
    lambda L: L.nn.CrossEntropyLoss()(L.randn(2, 3, 5), L.zeros(2, 4, dtype=L.int64)),
    lambda L: L.nn.LSTMCell(3, 4)(L.randn(2, 3), (L.randn(2, 1, 1, 4), L.randn(2, 4))),
    lambda L: L.nn.LSTMCell(3, 4)(L.randn(2, 3), (L.randn(2, 4), L.randn(2, 4, 1))),
    lambda L: L.nn.functional.instance_norm(L.randn(2, 3, 4), use_input_stats=False),
])
def test_error_messages(f):
    _same_error(f)
