"""layout / memory_format objects, channels-last strides and the top-level constants, against torch."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from parity import same_error  # noqa: E402


def test_constants_and_reprs():
    for name in ("pi", "e", "inf"):
        assert getattr(rg, name) == getattr(torch, name)
    assert np.isnan(rg.nan) and rg.newaxis is None
    for name in ("strided", "sparse_coo", "contiguous_format", "channels_last", "channels_last_3d",
                 "preserve_format"):
        assert repr(getattr(rg, name)) == repr(getattr(torch, name))
    assert rg.ones(2).layout is rg.strided and rg.ones(2).layout == rg.strided
    assert isinstance(rg.channels_last, rg.memory_format) and isinstance(rg.strided, rg.layout)
    assert pickle.loads(pickle.dumps(rg.channels_last)) is rg.channels_last
    with pytest.raises(TypeError, match="cannot create 'retrograd.layout' instances"):
        rg.layout()


@pytest.mark.parametrize("make", [
    lambda T: T.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=T.channels_last),
    lambda T: T.arange(120.).reshape(2, 3, 4, 5).to(memory_format=T.channels_last),
    lambda T: T.arange(720.).reshape(2, 3, 4, 5, 6).contiguous(memory_format=T.channels_last_3d),
    lambda T: T.arange(120.).reshape(2, 3, 4, 5).transpose(0, 1).contiguous(memory_format=T.contiguous_format),
    lambda T: T.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=T.channels_last).clone(),
    lambda T: T.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=T.channels_last)
    .clone(memory_format=T.contiguous_format),
    lambda T: T.arange(6.).reshape(2, 3).t().clone(),
    lambda T: T.arange(3.).reshape(3, 1).expand(3, 2).clone(),  # overlapping: made contiguous
    lambda T: T.arange(24.).reshape(4, 6)[:, ::2].clone(),  # not dense: made contiguous
    lambda T: T.arange(24.).reshape(2, 3, 4).permute(2, 0, 1).clone(),  # dense: strides kept
    # size-1 dimensions: torch's formula strides for a fresh channels-last tensor, kept by clone()
    lambda T: T.arange(10.).reshape(5, 2, 1, 1).clone(memory_format=T.channels_last),
    lambda T: T.arange(10.).reshape(5, 2, 1, 1).to(memory_format=T.channels_last),
    lambda T: T.arange(10.).reshape(5, 2, 1, 1).contiguous(memory_format=T.channels_last),  # already is
    lambda T: T.arange(18.).reshape(2, 1, 3, 3).to(memory_format=T.channels_last).clone(),
    lambda T: T.arange(18.).reshape(2, 1, 3, 3).to(memory_format=T.channels_last).to(memory_format=T.channels_last),
    lambda T: T.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=T.channels_last).to(T.float64),
    lambda T: T.arange(120.).reshape(2, 3, 4, 5).contiguous(memory_format=T.channels_last) * 2,
])
def test_strides_and_contiguity_as_torch(make):
    a, b = make(rg), make(torch)
    assert a.stride() == b.stride()
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    for fmt in ("contiguous_format", "channels_last", "channels_last_3d", "preserve_format"):
        assert a.is_contiguous(memory_format=getattr(rg, fmt)) == b.is_contiguous(memory_format=getattr(torch, fmt))
    assert a.is_contiguous() == b.is_contiguous()


def test_channels_last_is_a_recorded_copy_with_identity_gradient():
    def run(T):
        x = T.arange(24.).reshape(1, 2, 3, 4).requires_grad_()
        y = x.contiguous(memory_format=T.channels_last)
        assert y.contiguous(memory_format=T.channels_last) is y  # already in that layout
        (y * T.arange(24.).reshape(1, 2, 3, 4)).sum().backward()
        return type(y.grad_fn).__name__, x.grad.numpy()

    (na, ga), (nb, gb) = run(rg), run(torch)
    assert na == nb == "CloneBackward0"
    np.testing.assert_array_equal(ga, gb)


@pytest.mark.parametrize("f", [
    lambda T: T.ones(2, 3).contiguous(memory_format=T.channels_last),
    lambda T: T.ones(2, 3, 4, 5).to(memory_format=T.channels_last_3d),
    lambda T: T.ones(2, 3, 4, 5).transpose(0, 1).contiguous(memory_format=T.preserve_format),
    lambda T: T.ones(2, 3, 4, 5).is_contiguous(memory_format=1),
    lambda T: T.ones(2, 3, 4, 5).contiguous(memory_format="channels_last"),
])
def test_errors_as_torch(f):
    same_error(f)


def test_module_to_channels_last_changes_only_4d_tensors():
    def run(T):
        T.manual_seed(0)
        m = T.nn.Sequential(T.nn.Conv2d(3, 4, 3), T.nn.Linear(4, 2)).to(memory_format=T.channels_last)
        return m[0].weight.stride(), m[0].bias.stride(), m[1].weight.stride()

    assert run(rg) == run(torch)


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


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("view", [lambda x: x.permute(2, 1, 0)[:1], lambda x: x.permute(1, 0, 2)[:, :, ::2],
                                  lambda x: x.t()[::2] if x.dim() == 2 else x[0].t()[::2],
                                  lambda x: x[:, :1].expand(2, 3, 4)])
def test_clone_of_a_non_dense_view_keeps_its_dimension_order(view):
    # torch's empty_like(preserve_format) infers dense strides in the order of the view's own
    r = view(rg.arange(24.0).reshape(2, 3, 4)).clone()
    t = view(torch.arange(24.0).reshape(2, 3, 4)).clone()
    assert r.tolist() == t.tolist()
    assert [s for s, n in zip(r.stride(), r.shape) if n > 1] == [s for s, n in zip(t.stride(), t.shape) if n > 1]
