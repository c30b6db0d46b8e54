"""Tests of retrograd.optim.swa_utils, checked against PyTorch."""

import copy
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from ._scheduler_helpers import sched_run  # noqa: E402


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ---------------------------------------------------------------- swa_utils
_mrng = np.random.default_rng(1)


MODEL_INIT = [_mrng.standard_normal(s).astype(np.float32) for s in [(4, 3), (4,), (4,), (4,), (2, 4), (2,)]]


UPDATES = [(_mrng.standard_normal((4, 3)).astype(np.float32), _mrng.standard_normal(4).astype(np.float32))
           for _ in range(6)]


BATCHES = [_mrng.standard_normal((8, 3)).astype(np.float32) for _ in range(3)]


def build(lib):
    m = lib.nn.Sequential(lib.nn.Linear(3, 4), lib.nn.BatchNorm1d(4), lib.nn.ReLU(), lib.nn.Linear(4, 2))
    with lib.no_grad():
        for p, v in zip(m.parameters(), MODEL_INIT):
            p.copy_(lib.tensor(v))
    return m


def averaged(lib, avg=None, use_buffers=False):
    m = build(lib)
    kw = {}
    if avg == "ema_multi":
        kw["multi_avg_fn"] = lib.optim.swa_utils.get_ema_multi_avg_fn(0.9)
    elif avg == "swa_multi":
        kw["multi_avg_fn"] = lib.optim.swa_utils.get_swa_multi_avg_fn()
    elif avg == "ema":
        kw["avg_fn"] = lib.optim.swa_utils.get_ema_avg_fn(0.8)
    elif avg == "swa":
        kw["avg_fn"] = lib.optim.swa_utils.get_swa_avg_fn()
    swa = lib.optim.swa_utils.AveragedModel(m, use_buffers=use_buffers, **kw)
    for w, b in UPDATES:
        with lib.no_grad():
            m[0].weight.copy_(lib.tensor(w))
            m[0].bias.copy_(lib.tensor(b))
            m[1].running_var.add_(1.0)
            m[1].num_batches_tracked.add_(3)
        swa.update_parameters(m)
    return swa, m


def _tensors(module):
    return [(n, t.detach().numpy()) for n, t in list(module.named_parameters()) + list(module.named_buffers())]


@pytest.mark.parametrize("avg", [None, "ema_multi", "swa_multi", "ema", "swa"])
@pytest.mark.parametrize("use_buffers", [False, True])
def test_averaged_model_matches_torch(avg, use_buffers):
    if avg == "swa_multi" and use_buffers:
        # torch's integer branch (num_batches_tracked) uses addcdiv, which refuses integer division
        with pytest.raises(RuntimeError) as et:
            averaged(torch, avg, use_buffers)
        with pytest.raises(RuntimeError) as er:
            averaged(rg, avg, use_buffers)
        assert str(er.value) == str(et.value)
        return
    (st, _), (sr, mr) = averaged(torch, avg, use_buffers), averaged(rg, avg, use_buffers)
    tt, tr = _tensors(st), _tensors(sr)
    assert [n for n, _ in tr] == [n for n, _ in tt]
    for (n, a), (_, b) in zip(tt, tr):
        assert a.dtype == b.dtype, n
        np.testing.assert_allclose(b, a, rtol=1e-6, atol=1e-7, err_msg=n)
    assert int(sr.n_averaged) == len(UPDATES)
    x = np.ones((2, 3), np.float32)
    sr.eval(), st.eval()
    np.testing.assert_allclose(sr(rg.tensor(x)).detach().numpy(), st(torch.tensor(x)).detach().numpy(), rtol=1e-5)
    # the averaged weights differ from the live model's (the average really is an average)
    assert not np.allclose(sr.module[0].weight.detach().numpy(), mr[0].weight.detach().numpy())


def test_update_bn_matches_torch():
    out = []
    for lib in (torch, rg):
        swa, _ = averaged(lib)
        swa.eval()
        lib.optim.swa_utils.update_bn([(lib.tensor(x), 0) for x in BATCHES[:2]] + [lib.tensor(BATCHES[2])], swa)
        assert not swa.training  # update_bn restores the mode
        bn = swa.module[1]
        assert bn.momentum == 0.1  # ... and the momentum
        out.append([bn.running_mean.numpy(), bn.running_var.numpy(), int(bn.num_batches_tracked)])
    np.testing.assert_allclose(out[1][0], out[0][0], rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose(out[1][1], out[0][1], rtol=1e-5, atol=1e-7)
    assert out[1][2] == out[0][2] == 3


def test_update_bn_without_batchnorm_is_a_no_op():
    m = rg.nn.Linear(2, 2)
    rg.optim.swa_utils.update_bn(iter([]), m)  # no BatchNorm: returns before touching the loader
    calls = []
    rg.optim.swa_utils.update_bn((calls.append(1) or rg.ones(1, 2) for _ in range(2)), m)
    assert calls == []


def test_swa_utils_errors_match_torch():
    for fn in ("get_ema_multi_avg_fn", "get_ema_avg_fn"):
        for decay in (-0.1, 1.5):
            with pytest.raises(ValueError) as et:
                getattr(torch.optim.swa_utils, fn)(decay)
            with pytest.raises(ValueError) as er:
                getattr(rg.optim.swa_utils, fn)(decay)
            assert str(er.value) == str(et.value)
    with pytest.raises(AssertionError, match="Only one of avg_fn and multi_avg_fn should be provided"):
        rg.optim.swa_utils.AveragedModel(rg.nn.Linear(1, 1), avg_fn=rg.optim.swa_utils.get_swa_avg_fn(),
                                         multi_avg_fn=rg.optim.swa_utils.get_swa_multi_avg_fn())


SWALR_CASES = [dict(swa_lr=[0.05, 0.01], anneal_epochs=4), dict(swa_lr=0.05, anneal_epochs=3, anneal_strategy="linear"),
               dict(swa_lr=0.02, anneal_epochs=0)]


@pytest.mark.parametrize("kw", SWALR_CASES)
def test_swalr_matches_torch(kw):
    def mk(m, o):
        return (torch if m is torch.optim.lr_scheduler else rg).optim.swa_utils.SWALR(o, **kw)
    a, b = sched_run(torch, mk, n=8), sched_run(rg, mk, n=8)
    assert b[0] == a[0]
    sa, sb = a[2].state_dict(), b[2].state_dict()
    assert sb == sa and "anneal_func" not in sb
    b[2].load_state_dict(copy.deepcopy(sb))
    assert b[2].anneal_func(0.5) == a[2].anneal_func(0.5)


@pytest.mark.parametrize("kw", [dict(swa_lr=0.1, anneal_strategy="x"), dict(swa_lr=0.1, anneal_epochs=-1),
                                dict(swa_lr=0.1, anneal_epochs=2.0), dict(swa_lr=[0.1, 0.2, 0.3])])
def test_swalr_errors_match_torch(kw):
    def go(lib):
        opt = lib.optim.SGD([{"params": [lib.zeros(1, requires_grad=True)]},
                             {"params": [lib.zeros(1, requires_grad=True)]}], lr=1.0)
        lib.optim.swa_utils.SWALR(opt, **kw)
    with pytest.raises(ValueError) as et:
        go(torch)
    with pytest.raises(ValueError) as er:
        go(rg)
    assert str(er.value) == str(et.value)
