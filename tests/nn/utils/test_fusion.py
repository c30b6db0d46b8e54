"""Tests of retrograd.nn.utils.fusion, checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


from .._module_helpers import _both  # noqa: E402
from ._helpers import _n, _pair  # noqa: E402


def test_fuse_linear_bn_message():
    a, b = _both(lambda T: T.nn.utils.fuse_linear_bn_eval(T.nn.Linear(2, 3).eval(), T.nn.BatchNorm1d(4).eval()))
    assert a[0] == "AssertionError" and a == b


rng = np.random.default_rng(0)


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn(transpose):
    conv = (lambda nn: nn.ConvTranspose2d(2, 3, 2)) if transpose else (lambda nn: nn.Conv2d(2, 3, 2, bias=False))
    tm, rm = _pair(lambda nn: nn.Sequential(conv(nn), nn.BatchNorm2d(3)))
    x = rng.standard_normal((2, 2, 4, 4))
    tm.train(), rm.train()
    tm(torch.tensor(x)), rm(retrograd.tensor(x))  # non-trivial running stats
    tm.eval(), rm.eval()
    tf = torch.nn.utils.fuse_conv_bn_eval(tm[0], tm[1], transpose=transpose)
    rf = retrograd.nn.utils.fuse_conv_bn_eval(rm[0], rm[1], transpose=transpose)
    np.testing.assert_allclose(_n(rf.weight), _n(tf.weight), rtol=1e-10)
    np.testing.assert_allclose(_n(rf.bias), _n(tf.bias), rtol=1e-10)
    np.testing.assert_allclose(_n(rf(retrograd.tensor(x))), _n(rm(retrograd.tensor(x))), rtol=1e-9, atol=1e-12)
    assert isinstance(rf.weight, retrograd.nn.Parameter) and rf is not rm[0]


def test_fuse_linear_bn():
    tm, rm = _pair(lambda nn: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)))
    x = rng.standard_normal((5, 3))
    tm(torch.tensor(x)), rm(retrograd.tensor(x))
    tm.eval(), rm.eval()
    tf = torch.nn.utils.fuse_linear_bn_eval(tm[0], tm[1])
    rf = retrograd.nn.utils.fuse_linear_bn_eval(rm[0], rm[1])
    np.testing.assert_allclose(_n(rf.weight), _n(tf.weight), rtol=1e-10)
    np.testing.assert_allclose(_n(rf.bias), _n(tf.bias), rtol=1e-10)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        retrograd.nn.utils.fuse_linear_bn_eval(rm[0].train(), rm[1])
