"""Tests of retrograd.nn.utils.memory_format, checked against PyTorch."""

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from ..._behaviour_compare import raises_like  # noqa: E402


# ------------------------------------------------------------------ 6. conv weight memory format
def _conv_strides(lib, fn_name, fmt_name):
    lib.manual_seed(0)
    nn = lib.nn
    if fn_name.endswith("2d_weight_memory_format"):
        m = nn.Sequential(nn.Conv2d(3, 4, 3), nn.ReLU(), nn.Sequential(nn.ConvTranspose2d(4, 2, 2), nn.Conv2d(2, 5, 1)),
                          nn.Conv3d(2, 2, 1), nn.Linear(2, 2))
    else:
        m = nn.Sequential(nn.Conv3d(3, 4, 3), nn.Sequential(nn.ConvTranspose3d(4, 2, 2)), nn.Conv2d(2, 2, 3))
    out = getattr(nn.utils, fn_name)(m, getattr(lib, fmt_name))
    assert out is m
    return [(n, tuple(p.stride()), type(p).__name__, p.detach().numpy().copy()) for n, p in m.named_parameters()]


@pytest.mark.parametrize("fn_name,fmt_name", [("convert_conv2d_weight_memory_format", "channels_last"),
                                              ("convert_conv2d_weight_memory_format", "contiguous_format"),
                                              ("convert_conv3d_weight_memory_format", "channels_last_3d"),
                                              ("convert_conv3d_weight_memory_format", "contiguous_format")])
def test_convert_conv_weight_memory_format_strides(fn_name, fmt_name):
    t, r = _conv_strides(torch, fn_name, fmt_name), _conv_strides(rg, fn_name, fmt_name)
    assert [x[:3] for x in r] == [x[:3] for x in t]
    for (_, _, _, a), (_, _, _, b) in zip(t, r):
        assert a.shape == b.shape


def test_convert_conv_weight_memory_format_errors_and_training():
    raises_like(lambda: torch.nn.utils.convert_conv3d_weight_memory_format(torch.nn.Conv3d(2, 2, 1),
                                                                          torch.channels_last),
                lambda: rg.nn.utils.convert_conv3d_weight_memory_format(rg.nn.Conv3d(2, 2, 1), rg.channels_last))
    raises_like(lambda: torch.nn.utils.convert_conv2d_weight_memory_format(torch.nn.Conv2d(2, 2, 1),
                                                                          torch.preserve_format),
                lambda: rg.nn.utils.convert_conv2d_weight_memory_format(rg.nn.Conv2d(2, 2, 1), rg.preserve_format))
    # the converted weight is still the module's Parameter and trains
    m = rg.nn.utils.convert_conv2d_weight_memory_format(rg.nn.Conv2d(2, 3, 2), rg.channels_last)
    w_before = m.weight.detach().clone()
    m(rg.ones(1, 2, 3, 3)).sum().backward()
    assert m.weight.grad is not None and m.weight.grad.shape == m.weight.shape
    rg.optim.SGD(m.parameters(), lr=0.1).step()
    assert not np.allclose(m.weight.detach().numpy(), w_before.numpy())
