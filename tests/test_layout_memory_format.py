"""layout / memory_format objects, channels-last strides and the top-level constants, against torch."""
from __future__ import annotations

import pickle

import numpy as np
import pytest

import retrograd as rg
from parity import same_error

torch = pytest.importorskip("torch")


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
