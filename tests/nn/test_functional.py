"""nn.functional vs torch: values, gradients (incl. second order), grad_fn names, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
import retrograd.nn.functional as RF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

rng = np.random.default_rng(0)


def _lib_args(lib, args):
    out = []
    for a in args:
        if isinstance(a, np.ndarray):
            out.append(lib.tensor(a, requires_grad=a.dtype.kind == "f"))
        else:
            out.append(a)
    return out


def check(fn_name, *args, kwargs=None, rtol=1e-9, atol=1e-11, node=True, gradgrad=False, call=None):
    """Run F.<fn_name> in both libraries on float64 NumPy args; compare outputs, grads (and grad_fn)."""
    kwargs = kwargs or {}
    ra, ta = _lib_args(retrograd, args), _lib_args(torch, args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if call is None:
            ro = getattr(RF, fn_name)(*ra, **kwargs)
            to = getattr(TF, fn_name)(*ta, **kwargs)
        else:
            ro, to = call(RF, *ra, **kwargs), call(TF, *ta, **kwargs)
    ro_l = list(ro) if isinstance(ro, tuple) else [ro]
    to_l = list(to) if isinstance(to, tuple) else [to]
    for a, b in zip(ro_l, to_l):
        assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
        assert a.dtype.name == str(b.dtype).split(".")[-1]
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)
    r0, t0 = ro_l[0], to_l[0]
    if not t0.requires_grad:
        return
    if node:
        assert type(r0.grad_fn).__name__ == type(t0.grad_fn).__name__
    w = rng.standard_normal(tuple(t0.shape))
    rleaves = [a for a in ra if isinstance(a, retrograd.Tensor) and a.requires_grad]
    tleaves = [a for a in ta if isinstance(a, torch.Tensor) and a.requires_grad]
    rg = retrograd.autograd.grad((r0 * retrograd.tensor(w)).sum(), rleaves, create_graph=gradgrad, allow_unused=True)
    tg = torch.autograd.grad((t0 * torch.tensor(w)).sum(), tleaves, create_graph=gradgrad, allow_unused=True)
    for a, b in zip(rg, tg):
        if b is None:
            assert a is None or np.allclose(a.detach().numpy(), 0)
            continue
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol * 10, atol=atol * 10)
    if gradgrad:
        rs = sum((g * g).sum() for g in rg if g is not None and g.requires_grad)
        ts = sum((g * g).sum() for g in tg if g is not None and g.requires_grad)
        if isinstance(ts, int):
            return
        r2 = retrograd.autograd.grad(rs, rleaves, allow_unused=True)
        t2 = torch.autograd.grad(ts, tleaves, allow_unused=True)
        for a, b in zip(r2, t2):
            if b is None or a is None:
                continue
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-7, atol=1e-9)


X = rng.standard_normal((4, 5))
IMG = rng.standard_normal((2, 3, 7, 6))
T4 = np.array([1, 0, 4, 2])


# ------------------------------------------------------------------------------ activations
@pytest.mark.parametrize("name,kwargs", [
    ("relu", {}), ("relu6", {}), ("leaky_relu", {"negative_slope": 0.3}), ("elu", {"alpha": 0.5}),
    ("selu", {}), ("celu", {"alpha": 2.0}), ("gelu", {}), ("gelu", {"approximate": "tanh"}), ("silu", {}),
    ("mish", {}), ("softplus", {"beta": 2, "threshold": 1}), ("hardtanh", {"min_val": -0.5, "max_val": 0.7}),
    ("tanh", {}), ("sigmoid", {}), ("logsigmoid", {}), ("hardswish", {}), ("hardsigmoid", {}),
    ("softsign", {}), ("tanhshrink", {}), ("glu", {"dim": 0}),
])
def test_activations(name, kwargs):
    node = name not in ("relu6", "selu", "celu", "logsigmoid", "hardswish", "hardsigmoid", "softsign",
                        "tanhshrink", "glu")
    # torch's hardsigmoid backward multiplies by a float32 1/6
    tol = {"rtol": 1e-6} if name == "hardsigmoid" else {}
    check(name, X * 3, kwargs=kwargs, node=node, gradgrad=name in ("gelu", "silu", "mish", "softplus", "elu"), **tol)


def test_inplace_activations():
    for lib, F in ((retrograd, RF), (torch, TF)):
        x = lib.tensor([-1.0, 2.0])
        F.relu(x, inplace=True)
        assert x.tolist() == [0.0, 2.0]
        y = lib.tensor([-1.0, 2.0])
        F.leaky_relu_(y, 0.5)
        assert y.tolist() == [-0.5, 2.0]


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_family(name):
    check(name, IMG, kwargs={"dim": 1}, node=name != "softmin", gradgrad=True)
    check(name, X, kwargs={"dim": -1})
    with pytest.warns(UserWarning, match=f"Implicit dimension choice for {name} has been deprecated"):
        out = getattr(RF, name)(retrograd.ones(2, 3))
    assert out.shape == (2, 3)


def test_softmax_extremes_and_dtype_argument():
    x = np.array([[1000.0, 0.0, -1000.0], [-np.inf, 0.0, 1.0]])
    check("softmax", x, kwargs={"dim": 1})
    check("log_softmax", x, kwargs={"dim": 1})
    r = RF.softmax(retrograd.tensor([1.0, 2.0]), 0, dtype=retrograd.float64)
    assert r.dtype is retrograd.float64
    assert retrograd.tensor([1.0, 2.0]).softmax(0).shape == (2,)
    assert retrograd.softmax(retrograd.tensor([0.0, 0.0]), 0).tolist() == [0.5, 0.5]


# ------------------------------------------------------------------------------ linear / conv / pool
def test_linear_bilinear_conv_pool_functional():
    w = rng.standard_normal((3, 5))
    check("linear", X, w, rng.standard_normal(3))  # AddmmBackward0, as in PyTorch
    check("linear", rng.standard_normal((2, 4, 5)), w, node=False)
    check("bilinear", X, rng.standard_normal((4, 2)), rng.standard_normal((3, 5, 2)), rng.standard_normal(3),
          node=False)
    check("conv2d", IMG, rng.standard_normal((4, 3, 3, 3)), rng.standard_normal(4),
          kwargs={"stride": 2, "padding": 1}, gradgrad=True)
    check("conv1d", IMG[0], rng.standard_normal((2, 7, 2)), kwargs={"padding": "same"})
    check("conv_transpose2d", IMG, rng.standard_normal((3, 2, 3, 3)), kwargs={"stride": 2, "output_padding": 1},
          gradgrad=True)
    check("max_pool2d", IMG, kwargs={"kernel_size": 3, "stride": 2, "padding": 1})
    check("max_pool2d", IMG, kwargs={"kernel_size": 2, "return_indices": True})
    check("avg_pool2d", IMG, kwargs={"kernel_size": 3, "stride": 2, "padding": 1, "ceil_mode": True})
    check("adaptive_avg_pool2d", IMG, kwargs={"output_size": (3, 4)})
    check("adaptive_max_pool2d", IMG, kwargs={"output_size": (3, 4), "return_indices": True})
    check("adaptive_avg_pool1d", IMG[0], kwargs={"output_size": 4}, node=False)
    check("adaptive_max_pool1d", IMG[0], kwargs={"output_size": 4}, node=False)
    check("max_pool1d", IMG[0], kwargs={"kernel_size": 2})
    check("avg_pool1d", IMG[0], kwargs={"kernel_size": 2})


def test_unfold_fold():
    check("unfold", IMG, kwargs={"kernel_size": (2, 3), "dilation": (1, 2), "padding": 1, "stride": 2},
          gradgrad=True)
    cols = rng.standard_normal((2, 12, 16))
    check("fold", cols, kwargs={"output_size": (7, 6), "kernel_size": 2, "stride": 2, "padding": 1})
    with pytest.raises(RuntimeError) as er:
        RF.fold(retrograd.tensor(cols[..., :12]), (7, 6), 2, stride=2, padding=1)
    with pytest.raises(RuntimeError) as et:
        TF.fold(torch.tensor(cols[..., :12]), (7, 6), 2, stride=2, padding=1)
    assert str(er.value) == str(et.value)


# ------------------------------------------------------------------------------ norm / dropout / embedding
def test_norm_functionals():
    c = 3
    rm, rv = rng.standard_normal(c), rng.random(c) + 0.5
    check("batch_norm", IMG, rng.standard_normal(c), rng.standard_normal(c), node=False,
          call=lambda F, x, w, b: F.batch_norm(x, (retrograd if F is RF else torch).tensor(rm),
                                              (retrograd if F is RF else torch).tensor(rv), w, b, training=False))
    check("layer_norm", IMG, (7, 6), rng.standard_normal((7, 6)), rng.standard_normal((7, 6)), node=False)
    check("group_norm", IMG, 3, rng.standard_normal(c), rng.standard_normal(c), node=False)
    check("rms_norm", IMG, (6,), rng.standard_normal(6), kwargs={"eps": 1e-6}, node=False)
    # training batch_norm updates the running buffers in place
    r_m, r_v = retrograd.zeros(3, dtype=retrograd.float64), retrograd.ones(3, dtype=retrograd.float64)
    t_m, t_v = torch.zeros(3, dtype=torch.float64), torch.ones(3, dtype=torch.float64)
    RF.batch_norm(retrograd.tensor(IMG), r_m, r_v, training=True, momentum=0.2)
    TF.batch_norm(torch.tensor(IMG), t_m, t_v, training=True, momentum=0.2)
    np.testing.assert_allclose(r_m.numpy(), t_m.numpy(), rtol=1e-12)
    np.testing.assert_allclose(r_v.numpy(), t_v.numpy(), rtol=1e-12)
    with pytest.raises(RuntimeError, match=r"Given normalized_shape=\[4\], expected input with shape \[\*, 4\], "
                                           r"but got input of size\[4, 5\]"):
        RF.layer_norm(retrograd.tensor(X), (4,))


def test_embedding_one_hot_dropout():
    w = rng.standard_normal((6, 3))
    check("embedding", np.array([[0, 5], [2, 2]]), w, kwargs={"padding_idx": 2})
    assert RF.one_hot(retrograd.tensor([0, 2, 1])).tolist() == TF.one_hot(torch.tensor([0, 2, 1])).tolist()
    assert RF.one_hot(retrograd.tensor([[1], [0]]), 4).tolist() == TF.one_hot(torch.tensor([[1], [0]]), 4).tolist()
    assert RF.one_hot(retrograd.tensor([1])).dtype is retrograd.int64
    for bad, kw in (([3], {"num_classes": 2}), ([-1], {})):
        with pytest.raises(RuntimeError) as er:
            RF.one_hot(retrograd.tensor(bad), **kw)
        with pytest.raises(RuntimeError) as et:
            TF.one_hot(torch.tensor(bad), **kw)
        assert str(er.value) == str(et.value)
    x = retrograd.ones(1000)
    retrograd.manual_seed(1)
    y = RF.dropout(x, 0.3)
    assert abs((y.numpy() == 0).mean() - 0.3) < 0.06
    assert RF.dropout(x, 0.3, training=False) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got -0.1"):
        RF.dropout(x, -0.1)


# ------------------------------------------------------------------------------ pad / interpolate / distances
@pytest.mark.parametrize("mode", ["constant", "reflect", "replicate", "circular"])
def test_pad_modes(mode):
    kw = {"mode": mode}
    if mode == "constant":
        kw["value"] = 0.5
    check("pad", IMG, (1, 2, 2, 1), kwargs=kw, node=mode == "constant")
    check("pad", IMG[0], (2, 0), kwargs=kw, node=mode == "constant")
    if mode == "constant":
        check("pad", IMG, (-1, 2, 0, -2), kwargs=kw, gradgrad=True)


@pytest.mark.parametrize("kwargs", [
    {"scale_factor": 2, "mode": "nearest"}, {"size": (5, 9), "mode": "nearest"},
    {"scale_factor": 1.7, "mode": "nearest"}, {"size": (10, 4), "mode": "nearest-exact"},
    {"scale_factor": 2, "mode": "bilinear"}, {"size": (5, 9), "mode": "bilinear", "align_corners": True},
    {"scale_factor": 0.6, "mode": "bilinear"}, {"size": (3, 11), "mode": "bilinear"},
])
def test_interpolate(kwargs):
    check("interpolate", IMG, kwargs=kwargs, node=False)


def test_interpolate_1d_linear():
    check("interpolate", IMG[0], kwargs={"size": 9, "mode": "linear"}, node=False)
    check("interpolate", IMG[0], kwargs={"scale_factor": 3, "mode": "nearest"}, node=False)


def test_normalize_cosine_pairwise():
    check("normalize", X, node=False, gradgrad=True)
    check("normalize", X, kwargs={"p": 1.0, "dim": 0}, node=False)
    z = X.copy()
    z[1] = 0
    check("normalize", z, kwargs={"dim": 1}, node=False)
    check("cosine_similarity", X, rng.standard_normal((4, 5)), node=False)
    check("cosine_similarity", X, rng.standard_normal((1, 5)), kwargs={"dim": -1}, node=False)
    check("pairwise_distance", X, rng.standard_normal((4, 5)), node=False)


# ------------------------------------------------------------------------------ attention
def test_scaled_dot_product_attention():
    q, k, v = (rng.standard_normal((2, 3, 5, 4)) for _ in range(3))
    check("scaled_dot_product_attention", q, k, v, node=False)
    check("scaled_dot_product_attention", q, k, v, kwargs={"is_causal": True}, node=False)
    check("scaled_dot_product_attention", q, k, v, kwargs={"scale": 0.3}, node=False)
    check("scaled_dot_product_attention", q, k, v, rng.standard_normal((5, 5)), node=False)
    mask = rng.random((5, 5)) > 0.4
    mask[2] = False  # a fully masked row: zeros, as in PyTorch
    ra = [retrograd.tensor(a, requires_grad=True) for a in (q, k, v)]
    ta = [torch.tensor(a, requires_grad=True) for a in (q, k, v)]
    ro = RF.scaled_dot_product_attention(*ra, attn_mask=retrograd.tensor(mask))
    to = TF.scaled_dot_product_attention(*ta, attn_mask=torch.tensor(mask))
    np.testing.assert_allclose(ro.detach().numpy(), to.detach().numpy(), rtol=1e-9, atol=1e-12)
    ro.sum().backward()
    to.sum().backward()
    for a, b in zip(ra, ta):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-8, atol=1e-10)


# ------------------------------------------------------------------------------ losses
REDUCTIONS = ["mean", "sum", "none"]


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_regression_losses(reduction):
    a, b = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    kw = {"reduction": reduction}
    check("mse_loss", a, b, kwargs=kw, gradgrad=True)
    check("l1_loss", a, b, kwargs=kw, node=reduction == "none" and False)
    check("smooth_l1_loss", a * 2, b, kwargs=dict(kw, beta=0.7), node=False)
    check("smooth_l1_loss", a * 2, b, kwargs=dict(kw, beta=0.0), node=False)
    check("huber_loss", a * 2, b, kwargs=dict(kw, delta=0.8), node=False)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_classification_losses(reduction):
    logits = rng.standard_normal((4, 5))
    rng.random(5)  # (a draw kept so the data below stays as it was; weighted losses: _weighted_pair)
    t = np.array([1, 0, 4, 2])
    kw = {"reduction": reduction}
    check("cross_entropy", logits, t, kwargs=kw, gradgrad=True)
    check("cross_entropy", logits, t, kwargs=dict(kw, ignore_index=4), node=True)
    check("cross_entropy", logits, t, kwargs=dict(kw, label_smoothing=0.2), node=False)
    probs = rng.random((4, 5))
    probs /= probs.sum(1, keepdims=True)
    check("cross_entropy", logits, probs, kwargs=dict(kw, label_smoothing=0.1), node=False)
    img_logits, img_t = rng.standard_normal((2, 5, 3, 2)), rng.integers(0, 5, (2, 3, 2))
    check("cross_entropy", img_logits, img_t, kwargs=kw)
    check("cross_entropy", logits[0], np.array(3), kwargs=kw)
    check("cross_entropy", rng.standard_normal((2, 5, 3)), rng.integers(0, 5, (2, 3)), kwargs=kw)
    check("nll_loss", rng.standard_normal((2, 5, 3, 2, 2)), rng.integers(0, 5, (2, 3, 2, 2)), kwargs=kw)
    logp = np.log(probs)
    check("nll_loss", logp, t, kwargs=dict(kw, ignore_index=0))
    sig = 1 / (1 + np.exp(-logits))
    check("binary_cross_entropy", sig, probs, kwargs=kw, node=False)
    check("binary_cross_entropy_with_logits", logits * 10, probs, kwargs=kw, node=False)
    check("kl_div", logp, probs, kwargs={"reduction": reduction}, node=False)
    check("kl_div", logp, np.log(probs), kwargs={"reduction": reduction, "log_target": True}, node=False)


def _weighted_pair(name, *arrays, weight_kw, **kw):
    """Run a loss with a weight-like keyword tensor that does not require grad."""
    ra = [retrograd.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a for a in arrays]
    ta = [torch.tensor(a, requires_grad=a.dtype.kind == "f") if isinstance(a, np.ndarray) else a for a in arrays]
    rk = {k: retrograd.tensor(v) for k, v in weight_kw.items()}
    tk = {k: torch.tensor(v) for k, v in weight_kw.items()}
    ro = getattr(RF, name)(*ra, **rk, **kw)
    to = getattr(TF, name)(*ta, **tk, **kw)
    np.testing.assert_allclose(ro.detach().numpy(), to.detach().numpy(), rtol=1e-10, atol=1e-12)
    ro.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(ra[0].grad.numpy(), ta[0].grad.numpy(), rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_weighted_losses(reduction):
    logits = rng.standard_normal((4, 5))
    w = rng.random(5) + 0.5
    t = np.array([1, 0, 4, 4])
    _weighted_pair("cross_entropy", logits, t, weight_kw={"weight": w}, reduction=reduction)
    _weighted_pair("cross_entropy", logits, t, weight_kw={"weight": w}, reduction=reduction, label_smoothing=0.3,
                   ignore_index=0)
    probs = rng.random((4, 5))
    probs /= probs.sum(1, keepdims=True)
    _weighted_pair("cross_entropy", logits, probs, weight_kw={"weight": w}, reduction=reduction)
    _weighted_pair("nll_loss", logits, t, weight_kw={"weight": w}, reduction=reduction, ignore_index=1)
    sig = 1 / (1 + np.exp(-logits))
    _weighted_pair("binary_cross_entropy", sig, probs, weight_kw={"weight": rng.random((4, 5))}, reduction=reduction)
    _weighted_pair("binary_cross_entropy_with_logits", logits, probs,
                   weight_kw={"weight": rng.random(5), "pos_weight": rng.random(5) * 3}, reduction=reduction)


def test_loss_modules_and_grad_fn_names():
    nn = retrograd.nn
    x = retrograd.tensor(rng.standard_normal((4, 5)), requires_grad=True)
    t = retrograd.tensor(T4)
    assert type(nn.CrossEntropyLoss()(x, t).grad_fn).__name__ == "NllLossBackward0"
    assert type(nn.MSELoss()(x, x.detach() * 2).grad_fn).__name__ == "MseLossBackward0"
    for mod, tmod in ((nn.KLDivLoss(reduction="batchmean"), torch.nn.KLDivLoss(reduction="batchmean")),
                      (nn.HuberLoss(delta=0.5), torch.nn.HuberLoss(delta=0.5)),
                      (nn.SmoothL1Loss(beta=0.5), torch.nn.SmoothL1Loss(beta=0.5)),
                      (nn.L1Loss(reduction="sum"), torch.nn.L1Loss(reduction="sum"))):
        a, b = rng.standard_normal((3, 4)), rng.random((3, 4))
        np.testing.assert_allclose(mod(retrograd.tensor(a), retrograd.tensor(b)).item(),
                                   tmod(torch.tensor(a), torch.tensor(b)).item(), rtol=1e-10)
    ce = nn.CrossEntropyLoss(weight=retrograd.ones(5))
    assert list(ce.state_dict()) == list(torch.nn.CrossEntropyLoss(weight=torch.ones(5)).state_dict()) == ["weight"]
    with pytest.warns(UserWarning, match="size_average and reduce args will be deprecated, please use "
                                         "reduction='sum' instead."):
        assert nn.MSELoss(size_average=False).reduction == "sum"


def test_loss_errors_match_torch():
    cases = [
        (lambda F, lib: F.cross_entropy(lib.zeros(3, 4), lib.tensor([0, 1])), ValueError),
        (lambda F, lib: F.nll_loss(lib.zeros(2, 4), lib.tensor([0, 7])), IndexError),
        (lambda F, lib: F.mse_loss(lib.zeros(2), lib.zeros(2), reduction="avg"), ValueError),
        (lambda F, lib: F.binary_cross_entropy(lib.zeros(2), lib.zeros(3)), ValueError),
        (lambda F, lib: F.binary_cross_entropy_with_logits(lib.zeros(2), lib.zeros(3)), ValueError),
    ]
    for fn, exc in cases:
        with pytest.raises(exc) as er:
            fn(RF, retrograd)
        with pytest.raises(exc) as et:
            fn(TF, torch)
        assert str(er.value) == str(et.value)
    with pytest.warns(UserWarning, match="Using a target size"):
        RF.mse_loss(retrograd.zeros(2, 1), retrograd.zeros(2))


def test_op_errors_match_torch():
    calls = [
        lambda lib: lib.conv2d(lib.ones(1, 1, 2, 2), lib.ones(1, 1, 3, 3)),
        lambda lib: lib.conv2d(lib.ones(1, 2, 4, 4), lib.ones(1, 1, 3, 3)),
        lambda lib: lib.conv2d(lib.ones(1, 1, 4, 4), lib.ones(1, 1, 3, 3), padding="full"),
        lambda lib: lib.max_pool2d(lib.ones(1, 2, 4, 4), 2, padding=2),
        lambda lib: lib.nn.functional.avg_pool2d(lib.ones(1, 2, 4, 4), 2, padding=2),
        lambda lib: lib.softmax(lib.ones(2, dtype=lib.int64), 0),
        lambda lib: lib.log_softmax(lib.ones(2, 3), 2),
        lambda lib: lib.nn.functional.embedding(lib.ones(2), lib.ones(3, 2)),
        lambda lib: lib.nn.functional.embedding(lib.tensor([3]), lib.ones(3, 2)),
        lambda lib: lib.nn.functional.group_norm(lib.ones(2, 6, 4), 4),
        lambda lib: lib.nn.functional.gelu(lib.ones(2), approximate="fast"),
        lambda lib: lib.constant_pad_nd(lib.ones(2, 2), (1, 2, 3)),
    ]
    for fn in calls:
        with pytest.raises(Exception) as et:
            fn(torch)
        with pytest.raises(Exception) as er:
            fn(retrograd)
        assert er.type is et.type, (er.value, et.value)
        assert str(er.value) == str(et.value)
