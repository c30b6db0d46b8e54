"""Memory layout of results, against torch: ``*_like`` keep a dense input's strides
(channels_last included, random fills in memory order), convolution and pooling outputs follow a
channels_last input, and gathering ops (advanced indexing, index_select, topk, cummax, cross,
masked_scatter) return row-major results, so ``.view()`` works on them as in PyTorch."""
from __future__ import annotations

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _cl(T, *shape):
    T.manual_seed(0)
    return T.randn(*shape).to(memory_format=T.channels_last)


@pytest.mark.parametrize("fn", ["empty_like", "zeros_like", "ones_like", "rand_like", "randn_like"])
@pytest.mark.parametrize("fmt", [None, "contiguous_format", "channels_last", "preserve_format"])
def test_like_layouts_and_random_streams(fn, fmt):
    def run(T):
        x = _cl(T, 2, 3, 4, 5)
        kw = {} if fmt is None else {"memory_format": getattr(T, fmt)}
        r = getattr(T, fn)(x, **kw)
        r64 = getattr(T, fn)(x, dtype=T.float64, **kw)
        vals = r.contiguous().reshape(-1).tolist() if fn.startswith("rand") else None
        return r.stride(), r64.stride(), vals

    ours, theirs = run(rg), run(torch)
    assert ours[:2] == theirs[:2]
    if ours[2] is not None:
        assert ours[2] == pytest.approx(theirs[2], rel=1e-6, abs=1e-6)


def test_like_of_other_layouts():
    def run(T):
        a = T.ones(3, 4)
        x = _cl(T, 2, 3, 4, 5)
        return [T.zeros_like(a.t()).stride(), T.zeros_like(a[:, ::2]).stride(),
                T.ones_like(T.ones(2, 3).expand(4, 2, 3)).stride(), T.full_like(x, 3).stride(),
                T.full_like(x[:, :, ::2], 3).stride(), T.zeros_like(x.transpose(0, 1)).stride()]

    assert run(rg) == run(torch)
    with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
        rg.zeros_like(rg.ones(3), memory_format=rg.channels_last)


@pytest.mark.parametrize("case", ["conv", "conv_weight_cl", "conv_bias", "max_pool", "avg_pool", "adaptive_avg",
                                  "adaptive_max", "conv_transpose"])
def test_conv_and_pool_outputs_follow_channels_last(case):
    def run(T):
        F = T.nn.functional
        x = _cl(T, 2, 3, 6, 7).requires_grad_()
        w = T.randn(4, 3, 3, 3, dtype=x.dtype)
        y = {"conv": lambda: F.conv2d(x, w),
             "conv_weight_cl": lambda: F.conv2d(x.contiguous(), w.to(memory_format=T.channels_last)),
             "conv_bias": lambda: F.conv2d(x, w, T.ones(4), padding=1),
             "max_pool": lambda: F.max_pool2d(x, 2),
             "avg_pool": lambda: F.avg_pool2d(x, 2),
             "adaptive_avg": lambda: F.adaptive_avg_pool2d(x, (2, 3)),
             "adaptive_max": lambda: F.adaptive_max_pool2d(x, (2, 3)),
             "conv_transpose": lambda: F.conv_transpose2d(x, T.randn(3, 2, 3, 3))}[case]()
        y.sum().backward()
        return y.stride(), y.is_contiguous(memory_format=T.channels_last), x.grad.stride(), \
            [round(v, 4) for v in y.detach().contiguous().reshape(-1)[:6].tolist()]

    assert run(rg) == run(torch)


@pytest.mark.parametrize("case", ["adv_dim1", "adv_dim2", "adv_last", "index_select", "interp_nearest",
                                  "interp_bilinear", "topk", "kthvalue", "cummax", "cross", "masked_scatter"])
def test_gathering_results_are_row_major(case):
    def run(T):
        T.manual_seed(0)
        x = T.randn(2, 3, 4, 5)
        i = T.tensor([0, 2, 1])
        F = T.nn.functional
        y = {"adv_dim1": lambda: x[:, i],
             "adv_dim2": lambda: x[:, :, i],
             "adv_last": lambda: x[..., i],
             "index_select": lambda: T.index_select(x.transpose(0, 3), 1, i),
             "interp_nearest": lambda: F.interpolate(x, scale_factor=2),
             "interp_bilinear": lambda: F.interpolate(x, scale_factor=2, mode="bilinear"),
             "topk": lambda: T.topk(x, 2, dim=1).values,
             "kthvalue": lambda: T.kthvalue(x, 2, dim=1).indices,
             "cummax": lambda: T.cummax(x, 0).indices,
             "cross": lambda: T.linalg.cross(T.randn(5, 3), T.randn(5, 3)),
             "masked_scatter": lambda: T.ones(3, 5).t().masked_scatter(T.ones(5, 3, dtype=T.bool),
                                                                       T.arange(15.))}[case]()
        return y.shape, y.stride(), y.is_contiguous(), y.view(-1).shape

    assert run(rg) == run(torch)
