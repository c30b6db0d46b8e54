"""nn.SyncBatchNorm and convert_sync_batchnorm (src/retrograd/nn/modules/batchnorm.py), against torch."""

import numpy as np
import pytest

import retrograd as R

torch = pytest.importorskip("torch")

from ._lazy_helpers import A, same_error, tnn  # noqa: E402


# ----------------------------------------------------------------------------- SyncBatchNorm
def test_sync_batchnorm():
    t, m = tnn.SyncBatchNorm(3).double(), R.nn.SyncBatchNorm(3).double()
    assert repr(m) == repr(t)
    for shape in [(4, 3), (4, 3, 5), (2, 3, 2, 2, 2)]:
        x = np.random.default_rng(len(shape)).standard_normal(shape)
        xt, xr = torch.tensor(x, requires_grad=True), R.tensor(x, requires_grad=True)
        yt, yr = t(xt), m(xr)
        np.testing.assert_allclose(A(yr), A(yt), rtol=1e-10, atol=1e-12)
        assert type(yr.grad_fn).__name__ == type(yt.grad_fn).__name__
        yt.pow(3).sum().backward()
        yr.pow(3).sum().backward()
        np.testing.assert_allclose(A(xr.grad), A(xt.grad), rtol=1e-8, atol=1e-10)
    np.testing.assert_allclose(A(m.running_var), A(t.running_var), rtol=1e-10)
    t.eval(), m.eval()
    x = np.random.default_rng(9).standard_normal((2, 3, 4))
    np.testing.assert_allclose(A(m(R.tensor(x))), A(t(torch.tensor(x))), rtol=1e-10, atol=1e-12)
    same_error(lambda: m(R.randn(4)), lambda: t(torch.randn(4)))
    same_error(lambda: m(R.randn(4, 0)), lambda: t(torch.randn(4, 0)))


def test_convert_sync_batchnorm():
    def build(nn):
        net = nn.Sequential(nn.Conv2d(3, 4, 1), nn.BatchNorm2d(4), nn.Sequential(nn.BatchNorm1d(5, affine=False)))
        net[1].running_mean.fill_(0.5)
        net[1].eval()
        return net

    tn, rn = build(tnn), build(R.nn)
    w = rn[1].weight
    tc, rc = tnn.SyncBatchNorm.convert_sync_batchnorm(tn), R.nn.SyncBatchNorm.convert_sync_batchnorm(rn)
    assert rc is rn and repr(rc) == repr(tc)
    assert rc[1].weight is w and not rc[1].training and rc[1].running_mean.tolist() == [0.5] * 4
    assert type(rc[2][0]).__name__ == "SyncBatchNorm" and rc[2][0].bias is None
    top = R.nn.SyncBatchNorm.convert_sync_batchnorm(R.nn.BatchNorm1d(3))
    assert repr(top) == repr(tnn.SyncBatchNorm.convert_sync_batchnorm(tnn.BatchNorm1d(3)))
    assert type(R.nn.SyncBatchNorm.convert_sync_batchnorm(R.nn.InstanceNorm1d(3))).__name__ == "InstanceNorm1d"
