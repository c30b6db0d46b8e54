"""ASGD, Rprop, Adafactor, SparseAdam, CosineAnnealingWarmRestarts, CyclicLR and swa_utils against PyTorch 2.13."""
import copy
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

SHAPES = [(4, 5), (7,), (3, 2, 2)]
_rng = np.random.default_rng(0)
P0 = [_rng.standard_normal(s).astype(np.float32) for s in SHAPES]
A = [_rng.standard_normal(s).astype(np.float32) for s in SHAPES]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def grad_of(x: np.ndarray, a: np.ndarray, k: int) -> np.ndarray:
    """The gradient of a fixed non-quadratic loss at x (same NumPy code for both libraries)."""
    return (a * x + x.dtype.type(0.3) * np.sin(x.dtype.type(k % 3 + 1) * x + a)).astype(x.dtype)


def make(lib, name, kw, dtype=np.float32):
    params = [lib.tensor(p.astype(dtype), requires_grad=True) for p in P0]
    return params, getattr(lib.optim, name)(params, **kw)


def steps(lib, params, opt, k0, k1, dtype=np.float32):
    for k in range(k0, k1):
        for p, a in zip(params, A):
            p.grad = lib.tensor(grad_of(p.detach().numpy(), a.astype(dtype), k))
        opt.step()


def run(lib, name, kw, n=20, dtype=np.float32):
    params, opt = make(lib, name, kw, dtype)
    steps(lib, params, opt, 0, n, dtype)
    return params, opt


CONFIGS = [
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=5, lambd=0.01, alpha=0.5, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=3, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True)),
    ("Adafactor", dict(lr=0.01)),
    ("Adafactor", dict(lr=0.01, weight_decay=0.1, d=1.5, eps=(1e-20, 1e-3), beta2_decay=-0.5)),
    ("Adafactor", dict(lr=0.05, maximize=True)),
]
# Adafactor reduces (norms, means); NumPy sums in another order than torch, so allow float32 rounding noise.
RTOL = {"ASGD": 1e-6, "Rprop": 1e-6, "Adafactor": 2e-5}


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def assert_state_equal(st, sr, rtol):
    assert list(st) == list(sr)
    for k in st:
        vt, vr = st[k], sr[k]
        if isinstance(vt, torch.Tensor):
            assert isinstance(vr, rg.Tensor), k
            assert str(vt.dtype).split(".")[1] == vr.dtype.name, k
            assert tuple(vt.shape) == tuple(vr.shape), k
            np.testing.assert_allclose(_np(vr), _np(vt), rtol=rtol, atol=1e-7, err_msg=k)
        else:
            assert vt == vr, k


IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_params_and_state_match_torch(name, kw):
    pt, ot = run(torch, name, kw)
    pr, orr = run(rg, name, kw)
    for a, b, p0 in zip(pt, pr, P0):
        np.testing.assert_allclose(_np(b), _np(a), rtol=RTOL[name], atol=1e-7)
        assert not np.allclose(_np(b), p0)  # the optimizer really moved the parameters
    st, sr = ot.state_dict(), orr.state_dict()
    assert st["param_groups"] == sr["param_groups"]
    for i in st["state"]:
        assert_state_equal(st["state"][i], sr["state"][i], RTOL[name])


@pytest.mark.parametrize("name,kw", CONFIGS[::2], ids=IDS[::2])
def test_float64_matches_torch(name, kw):
    pt, _ = run(torch, name, kw, n=8, dtype=np.float64)
    pr, _ = run(rg, name, kw, n=8, dtype=np.float64)
    for a, b in zip(pt, pr):
        assert _np(b).dtype == np.float64
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_state_dict_round_trip_resumes_exactly(name, kw):
    straight, _ = run(rg, name, kw)
    params, opt = make(rg, name, kw)
    steps(rg, params, opt, 0, 10)
    saved = copy.deepcopy(opt.state_dict())
    params2 = [p.detach().clone().requires_grad_(True) for p in params]
    opt2 = getattr(rg.optim, name)(params2, **kw)
    opt2.load_state_dict(saved)
    steps(rg, params2, opt2, 10, 20)
    for a, b in zip(straight, params2):
        np.testing.assert_array_equal(_np(b), _np(a))


@pytest.mark.parametrize("name,kw", CONFIGS + [("SparseAdam", dict(lr=0.01, betas=(0.8, 0.9)))],
                         ids=IDS + ["SparseAdam"])
def test_repr_matches_torch(name, kw):
    _, ot = make(torch, name, kw)
    _, orr = make(rg, name, kw)
    assert repr(orr) == repr(ot)


ERRORS = [
    ("ASGD", dict(lr=-1.0)),
    ("ASGD", dict(weight_decay=-0.1)),
    ("Rprop", dict(lr=-0.5)),
    ("Rprop", dict(etas=(1.5, 1.2))),
    ("Rprop", dict(etas=(0.5, 0.9))),
    ("Adafactor", dict(lr=-1.0)),
    ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))),
    ("Adafactor", dict(eps=(None, -1e-3))),
    ("Adafactor", dict(d=0.5)),
    ("Adafactor", dict(weight_decay=-1.0)),
    ("SparseAdam", dict(lr=0.0)),
    ("SparseAdam", dict(eps=0.0)),
    ("SparseAdam", dict(betas=(1.0, 0.9))),
    ("SparseAdam", dict(betas=(0.9, -0.1))),
]


@pytest.mark.parametrize("name,kw", ERRORS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ERRORS)])
def test_constructor_errors_match_torch(name, kw):
    with pytest.raises(Exception) as et:
        make(torch, name, kw)
    with pytest.raises(type(et.value)) as er:
        make(rg, name, kw)
    assert str(er.value) == str(et.value)


def test_sparse_adam_rejects_dense_gradients_like_torch():
    results = []
    for lib in (torch, rg):
        w = lib.zeros(3, requires_grad=True)
        opt = lib.optim.SparseAdam([w], lr=0.1)
        assert opt.step(lambda: 1.5) == 1.5  # no gradients yet: only the closure runs
        w.grad = lib.ones(3)
        with pytest.raises(RuntimeError) as e:
            opt.step()
        results.append((str(e.value), opt.state_dict(), _np(w).tolist()))
    assert results[1] == results[0]
    assert results[0][0] == "SparseAdam does not support dense gradients, please consider Adam instead"


def test_asgd_tensor_lr_and_bad_tensor_lr():
    pt, _ = run(torch, "ASGD", dict(lr=torch.tensor(0.05)), n=5)
    pr, _ = run(rg, "ASGD", dict(lr=rg.tensor(0.05)), n=5)
    for a, b in zip(pt, pr):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-6)
    for name in ("ASGD", "Rprop", "Adafactor", "SparseAdam"):
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            make(rg, name, dict(lr=rg.tensor([0.1, 0.2])))


def test_optimizers_exported():
    for name in ("ASGD", "Rprop", "Adafactor", "SparseAdam", "swa_utils"):
        assert name in rg.optim.__all__ and hasattr(rg.optim, name)


# ---------------------------------------------------------------- schedulers
def sched_run(lib, make_sched, n=25, opt_name="SGD", okw=None, epochs=None):
    okw = okw or dict(lr=0.5, momentum=0.9)
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    opt = getattr(lib.optim, opt_name)([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.2}], **okw)
    sched = make_sched(lib.optim.lr_scheduler, opt)
    lrs, moms = [list(sched.get_last_lr())], []
    for k in range(n):
        opt.step()
        sched.step(epochs[k]) if epochs else sched.step()
        lrs.append(list(sched.get_last_lr()))
        moms.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, moms, sched, opt


class Scale:
    """A picklable custom scale function (its __dict__ goes into CyclicLR.state_dict)."""

    def __init__(self, base):
        self.base = base

    def __call__(self, x):
        return self.base ** x


SCHEDULES = {
    "CAWR": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=0.01),
    "CAWR-1": lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=4),
    "Cyclic": lambda m, o: m.CyclicLR(o, 0.01, [0.5, 0.3], step_size_up=3, step_size_down=5),
    "Cyclic-tri2": lambda m, o: m.CyclicLR(o, 0.01, 0.5, step_size_up=2, mode="triangular2"),
    "Cyclic-exp": lambda m, o: m.CyclicLR(o, [0.01, 0.02], 0.5, step_size_up=4, mode="exp_range", gamma=0.9,
                                          base_momentum=[0.7, 0.75]),
    "Cyclic-fn": lambda m, o: m.CyclicLR(o, 0.01, 0.5, step_size_up=4, scale_fn=lambda x: 0.5 ** x,
                                         scale_mode="iterations"),
    "Cyclic-obj": lambda m, o: m.CyclicLR(o, 0.01, 0.5, step_size_up=3, scale_fn=Scale(0.8)),
    "Cyclic-nomom": lambda m, o: m.CyclicLR(o, 0.01, 0.5, step_size_up=3, cycle_momentum=False),
}


@pytest.mark.parametrize("name", list(SCHEDULES))
def test_scheduler_lrs_momenta_and_state_match_torch(name):
    a, b = sched_run(torch, SCHEDULES[name]), sched_run(rg, SCHEDULES[name])
    assert b[0] == a[0]  # exactly the same floats: same formulas in the same order
    assert b[1] == a[1]
    assert b[2].state_dict() == a[2].state_dict()


def test_cyclic_lr_cycles_adam_beta1_like_torch():
    mk = SCHEDULES["Cyclic-exp"]
    a = sched_run(torch, mk, opt_name="Adam", okw=dict(lr=0.1))
    b = sched_run(rg, mk, opt_name="Adam", okw=dict(lr=0.1))
    assert b[0] == a[0] and b[1] == a[1]


def test_warm_restarts_with_explicit_fractional_epochs():
    epochs = [0.5, 1.0, 2.7, 3.0, 6.2, 9.0, 10.5, 21.0, 1.25, 45.0]
    for T_mult in (1, 2, 3):
        def mk(m, o, T_mult=T_mult):
            return m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=T_mult, eta_min=0.05)
        a = sched_run(torch, mk, n=len(epochs), epochs=epochs)
        b = sched_run(rg, mk, n=len(epochs), epochs=epochs)
        assert b[0] == a[0]
        assert b[2].state_dict() == a[2].state_dict()


@pytest.mark.parametrize("name", ["CAWR", "Cyclic-exp", "Cyclic-obj"])
def test_scheduler_state_dict_round_trip(name):
    straight = sched_run(rg, SCHEDULES[name], n=12)[0]
    lrs, _, sched, opt = sched_run(rg, SCHEDULES[name], n=5)
    sd = copy.deepcopy(sched.state_dict())
    sched2 = SCHEDULES[name](rg.optim.lr_scheduler, opt)
    sched2.load_state_dict(sd)
    for _ in range(7):
        opt.step()
        sched2.step()
        lrs.append(list(sched2.get_last_lr()))
    assert lrs == straight


SCHED_ERRORS = [
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2.0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, T_mult=0),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2, eta_min="0"),
    lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=2).step(-1),
    lambda m, o: m.CyclicLR(o, 0.1, 1.0, mode="bogus"),
    lambda m, o: m.CyclicLR(o, [0.1], 1.0),
    lambda m, o: m.CyclicLR(o, 0.1, [1.0, 2.0, 3.0]),
    lambda m, o: m.CyclicLR(o.param_groups, 0.1, 1.0),
]


@pytest.mark.parametrize("i", range(len(SCHED_ERRORS)))
def test_scheduler_errors_match_torch(i):
    def go(lib):
        ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
        return SCHED_ERRORS[i](lib.optim.lr_scheduler, lib.optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]]}],
                                                                     lr=0.1, momentum=0.9))
    with pytest.raises(Exception) as et:
        go(torch)
    with pytest.raises(type(et.value)) as er:
        go(rg)
    assert str(er.value).replace("torch.optim", "retrograd.optim") == str(et.value)


def test_cyclic_lr_needs_momentum_when_cycling():
    for lib in (torch, rg):
        opt = lib.optim.Adagrad([lib.zeros(2, requires_grad=True)], lr=0.1)
        with pytest.raises(ValueError, match="optimizer must support momentum or beta1 with `cycle_momentum`"):
            lib.optim.lr_scheduler.CyclicLR(opt, 0.1, 1.0)


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
