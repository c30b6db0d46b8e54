"""Regressions found by running PyTorch's test/nn/test_convolution.py on retrograd, each checked
against torch: geometry-argument errors, ``torch.nn.grad``, ``F.conv_tbc``, zero-size batches and
channels in convolutions and adaptive pooling, and gradgradcheck's forward-over-reverse mode."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _pair(shape, seed=0, dtype=np.float64):
    a = np.random.default_rng(seed).standard_normal(shape).astype(dtype)
    return rg.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)


def _close(a, b, tol=1e-10):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=tol, atol=tol)


def _err(fn, lib):
    try:
        fn(lib)
    except Exception as e:  # noqa: BLE001 - the type and text are what is compared
        return type(e).__name__, str(e)
    return None


@pytest.mark.parametrize("kw", [dict(stride=0), dict(stride=(1, -1)), dict(padding=-1), dict(dilation=0),
                                dict(dilation=-1), dict(stride=0, padding=-1), dict(padding=-1, dilation=0)])
@pytest.mark.parametrize("transposed", [False, True])
def test_conv_geometry_errors_match_torch(kw, transposed):
    def run(lib):
        x = lib.randn(1, 3, 8, 8)
        w = lib.randn(3, 4, 3, 3) if transposed else lib.randn(4, 3, 3, 3)
        f = lib.nn.functional.conv_transpose2d if transposed else lib.nn.functional.conv2d
        f(x, w, **kw)
    got, want = _err(run, rg), _err(run, torch)
    assert want is not None and got == want


@pytest.mark.parametrize("nd", [1, 3])
def test_negative_stride_module_error(nd):
    def run(lib):
        m = getattr(lib.nn, f"Conv{nd}d")(3, 6, 3, stride=-1)
        m(lib.randn(1, 3, *([4] * nd)))
    assert _err(run, rg) == _err(run, torch) == ("RuntimeError", "non-positive stride is not supported")


@pytest.mark.parametrize("nd", [1, 2, 3])
@pytest.mark.parametrize("groups", [1, 2])
def test_nn_grad_conv_input_and_weight(nd, groups):
    (xr, xt), (wr, wt) = _pair((2, 4) + (7,) * nd, 1), _pair((6, 4 // groups) + (3,) * nd, 2)
    kw = dict(stride=2, padding=1, dilation=2 if nd < 3 else 1, groups=groups)
    out_t = getattr(torch.nn.functional, f"conv{nd}d")(xt, wt, **kw)
    gr, gt = _pair(tuple(out_t.shape), 3)
    gi_t, gw_t = torch.autograd.grad(out_t, (xt, wt), gt)
    gi = getattr(rg.nn.grad, f"conv{nd}d_input")(xr.shape, wr, gr, **kw)
    gw = getattr(rg.nn.grad, f"conv{nd}d_weight")(xr, wr.shape, gr, **kw)
    _close(gi, gi_t)
    _close(gw, gw_t)
    _close(gi, getattr(torch.nn.grad, f"conv{nd}d_input")(xt.shape, wt, gt, **kw))
    # the results are differentiable (double backward through them)
    (gg,) = rg.autograd.grad(gw.sum(), gr)
    (gg_t,) = torch.autograd.grad(getattr(torch.nn.grad, f"conv{nd}d_weight")(xt, wt.shape, gt, **kw).sum(), gt)
    _close(gg, gg_t)


def test_conv_tbc_matches_torch():
    (xr, xt), (wr, wt), (br, bt) = _pair((9, 4, 5), 1), _pair((3, 5, 6), 2), _pair((6,), 3)
    out_r, out_t = rg.nn.functional.conv_tbc(xr, wr, br, 2), torch.conv_tbc(xt, wt, bt, 2)
    _close(out_r, out_t)
    gr, gt = _pair(tuple(out_t.shape), 4)
    for a, b in zip(rg.autograd.grad(out_r, (xr, wr, br), gr), torch.autograd.grad(out_t, (xt, wt, bt), gt)):
        _close(a, b)
    assert rg.autograd.gradcheck(lambda i, w, b: rg.nn.functional.conv_tbc(i, w, b, 1), (xr, wr, br))


def test_gradgradcheck_forward_over_reverse():
    (xr, _), (yr, _) = _pair((1, 1, 1, 3, 7), 1), _pair((1, 1, 1, 2, 3), 2)
    f = lambda x, y: rg.nn.functional.conv3d(x, y, padding="same", dilation=2)  # noqa: E731
    assert rg.autograd.gradgradcheck(f, (xr, yr), check_fwd_over_rev=True)
    assert rg.autograd.gradcheck(f, (xr, yr), check_forward_ad=True)


@pytest.mark.parametrize("groups", [1, 4])
def test_empty_batch_conv_transpose(groups):
    res = []
    for lib in (rg, torch):
        lib.manual_seed(0)
        m = lib.nn.ConvTranspose2d(4, 4, stride=2, kernel_size=3, padding=1, groups=groups).double()
        x = lib.zeros(0, 4, 4, 4, dtype=lib.float64, requires_grad=True)
        out = m(x)
        out.backward(lib.ones_like(out))
        res.append((tuple(out.shape), tuple(x.grad.shape), m.weight.grad.abs().sum().item(),
                    m.bias.grad.abs().sum().item(), type(out.grad_fn).__name__))
    assert res[0] == res[1]


@pytest.mark.parametrize("nd", [1, 2, 3])
def test_zero_channel_conv_gives_zero_channel_output(nd):
    res = []
    for lib in (rg, torch):
        x = lib.zeros(2, 0, *([6] * nd), dtype=lib.float64, requires_grad=True)
        w = lib.ones(5, 0, *([3] * nd), dtype=lib.float64, requires_grad=True)
        b = lib.ones(5, dtype=lib.float64, requires_grad=True)
        out = getattr(lib.nn.functional, f"conv{nd}d")(x, w, b, stride=2)
        out.sum().backward()
        res.append((tuple(out.shape), type(out.grad_fn).__name__, b.grad.tolist(), tuple(w.grad.shape),
                    tuple(x.grad.shape)))
    assert res[0] == res[1]


@pytest.mark.parametrize("name,shape,size", [("AdaptiveMaxPool1d", (0, 4, 9), 3),
                                             ("AdaptiveMaxPool2d", (0, 4, 9, 9), (3, 2)),
                                             ("AdaptiveMaxPool3d", (0, 4, 5, 5, 5), 2),
                                             ("AdaptiveAvgPool1d", (0, 4, 9), 3),
                                             ("AdaptiveAvgPool2d", (0, 4, 9, 9), 3),
                                             ("AdaptiveAvgPool3d", (0, 4, 5, 5, 5), 2)])
def test_adaptive_pool_zero_batch(name, shape, size):
    res = []
    for lib in (rg, torch):
        x = lib.zeros(*shape, dtype=lib.float64, requires_grad=True)
        out = getattr(lib.nn, name)(size)(x)
        out.sum().backward()
        res.append((tuple(out.shape), tuple(x.grad.shape), type(out.grad_fn).__name__))
    assert res[0] == res[1]


def test_empty_channel_error_message():
    def run(lib):
        lib.nn.Conv2d(0, 3, 3)(lib.randn(2, 1, 40, 0))
    got, want = _err(run, rg), _err(run, torch)
    assert want is not None and got == want


@pytest.mark.parametrize("nd", [1, 3])
@pytest.mark.parametrize("transposed", [False, True])
def test_zero_dilation_message_per_dimensionality(nd, transposed):
    def run(lib):
        w = lib.randn(3, 2, *([3] * nd)) if transposed else lib.randn(2, 3, *([3] * nd))
        name = f"conv_transpose{nd}d" if transposed else f"conv{nd}d"
        getattr(lib.nn.functional, name)(lib.randn(1, 3, *([6] * nd)), w, dilation=0)
    got, want = _err(run, rg), _err(run, torch)
    assert want is not None and got == want
