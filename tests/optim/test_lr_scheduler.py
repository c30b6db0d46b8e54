"""Learning-rate schedulers against PyTorch 2.13: 25 steps give the same learning rates."""
import copy
import warnings

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from ._scheduler_helpers import sched_run  # noqa: E402


def run(lib, make, steps=25, metric=None, opt_name="SGD", okw=None):
    okw = okw or dict(lr=0.5, momentum=0.9)
    ps = [lib.zeros(2, requires_grad=True), lib.zeros(3, requires_grad=True)]
    opt = getattr(lib.optim, opt_name)([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.2}], **okw)
    sched = make(lib.optim.lr_scheduler, opt)
    lrs, moms = [list(sched.get_last_lr())], []
    for k in range(steps):
        opt.step()
        sched.step(metric(k)) if metric else sched.step()
        lrs.append(list(sched.get_last_lr()))
        moms.append([g.get("momentum", g.get("betas")) for g in opt.param_groups])
    return lrs, moms, [g["lr"] for g in opt.param_groups], sched, opt


CASES = {
    "StepLR": lambda m, o: m.StepLR(o, 3, 0.5),
    "MultiStepLR": lambda m, o: m.MultiStepLR(o, [2, 5, 5, 9], 0.3),
    "ExponentialLR": lambda m, o: m.ExponentialLR(o, 0.9),
    "CosineAnnealingLR": lambda m, o: m.CosineAnnealingLR(o, T_max=7, eta_min=0.01),
    "LambdaLR": lambda m, o: m.LambdaLR(o, [lambda e: 1 / (e + 1), lambda e: 0.9 ** e]),
    "LinearLR": lambda m, o: m.LinearLR(o, start_factor=0.25, end_factor=0.9, total_iters=6),
    "OneCycleLR": lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=25),
    "OneCycleLR-3phase-linear": lambda m, o: m.OneCycleLR(o, max_lr=1.0, total_steps=30, three_phase=True,
                                                          anneal_strategy="linear"),
    "SequentialLR": lambda m, o: m.SequentialLR(o, [m.LinearLR(o, 0.1, total_iters=4),
                                                    m.CosineAnnealingLR(o, T_max=10)], milestones=[5]),
    "SequentialLR-3": lambda m, o: m.SequentialLR(o, [m.ConstantLR(o, 0.5, total_iters=3), m.ExponentialLR(o, 0.8),
                                                      m.StepLR(o, 2)], milestones=[4, 9]),
    "ChainedScheduler": lambda m, o: m.ChainedScheduler([m.ExponentialLR(o, 0.9), m.StepLR(o, 4, 0.5)]),
    "PolynomialLR": lambda m, o: m.PolynomialLR(o, total_iters=10, power=2.0),
    "MultiplicativeLR": lambda m, o: m.MultiplicativeLR(o, lambda e: 0.95),
    "ConstantLR": lambda m, o: m.ConstantLR(o, 0.5, total_iters=4),
}


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


@pytest.mark.parametrize("name", list(CASES))
def test_learning_rates_match_torch(name):
    a, b = run(torch, CASES[name]), run(rg, CASES[name])
    assert b[0] == a[0]  # exactly the same floats: same formulas in the same order
    assert b[1] == a[1]
    assert b[2] == a[2]


@pytest.mark.parametrize("name", list(CASES))
def test_state_dict_keys_match_torch_and_round_trip(name, tmp_path):
    t = run(torch, CASES[name], steps=6)[3]
    r_lrs, _, _, r, _ = run(rg, CASES[name], steps=6)
    assert sorted(r.state_dict()) == sorted(t.state_dict())
    # resume: fresh optimizer + scheduler, load both state dicts, continue; same as never stopping
    full = run(rg, CASES[name], steps=12)[0]
    lrs, _, _, s1, o1 = run(rg, CASES[name], steps=6)
    rg.save({"opt": o1.state_dict(), "sched": s1.state_dict()}, tmp_path / "s.pt")
    ck = rg.load(tmp_path / "s.pt")
    ps = [rg.zeros(2, requires_grad=True), rg.zeros(3, requires_grad=True)]
    o2 = rg.optim.SGD([{"params": [ps[0]]}, {"params": [ps[1]], "lr": 0.2}], lr=0.5, momentum=0.9)
    s2 = CASES[name](rg.optim.lr_scheduler, o2)
    s2.load_state_dict(ck["sched"])
    o2.load_state_dict(ck["opt"])
    rest = []
    for _ in range(6):
        o2.step()
        s2.step()
        rest.append(list(s2.get_last_lr()))
    assert lrs + rest == full


@pytest.mark.parametrize("kw", [dict(patience=2), dict(mode="max", patience=1, threshold_mode="abs", cooldown=2,
                                                       min_lr=[0.01, 0.05]),
                                dict(patience=0, factor=0.5, eps=0.1), dict(threshold=0.5, cooldown=1)])
def test_reduce_lr_on_plateau_matches_torch(kw):
    metrics = [5, 4, 4, 4, 4, 3.9999, 4, 4, 4, 4, 2, 2, 2, 2, 2, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2]
    mk = lambda m, o: m.ReduceLROnPlateau(o, **kw)  # noqa: E731
    a = run(torch, mk, metric=lambda k: metrics[k])
    b = run(rg, mk, metric=lambda k: metrics[k])
    assert b[0] == a[0]
    assert sorted(b[3].state_dict()) == sorted(a[3].state_dict())
    assert b[3].state_dict()["best"] == a[3].state_dict()["best"]


def test_one_cycle_cycles_adam_betas():
    mk = CASES["OneCycleLR"]
    a = run(torch, mk, opt_name="Adam", okw=dict(lr=0.1))
    b = run(rg, mk, opt_name="Adam", okw=dict(lr=0.1))
    assert b[0] == a[0] and b[1] == a[1]


def test_one_cycle_errors():
    opt = rg.optim.SGD([rg.zeros(1, requires_grad=True)], lr=0.1, momentum=0.9)
    with pytest.raises(ValueError, match="You must define either total_steps OR"):
        rg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0)
    s = rg.optim.lr_scheduler.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    opt.step()
    s.step()
    s.step()
    with pytest.raises(ValueError, match="Tried to step 3 times. The specified number of total steps is 2"):
        s.step()


def test_warns_when_scheduler_steps_before_optimizer():
    opt = rg.optim.SGD([rg.zeros(1, requires_grad=True)], lr=0.1)
    s = rg.optim.lr_scheduler.StepLR(opt, 1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        s.step()
    assert any("Detected call of `lr_scheduler.step()` before `optimizer.step()`" in str(x.message) for x in w)
    opt2 = rg.optim.SGD([rg.zeros(1, requires_grad=True)], lr=0.1)
    s2 = rg.optim.lr_scheduler.StepLR(opt2, 1)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        opt2.step()
        s2.step()
    assert not w


def test_get_last_lr_and_initial_lr():
    opt = rg.optim.SGD([rg.zeros(1, requires_grad=True)], lr=0.1)
    s = rg.optim.lr_scheduler.ExponentialLR(opt, 0.5)
    assert opt.param_groups[0]["initial_lr"] == 0.1 and s.get_last_lr() == [0.1] and s.base_lrs == [0.1]
    with pytest.raises(KeyError, match="param 'initial_lr' is not specified in param_groups\\[0\\]"):
        rg.optim.lr_scheduler.StepLR(rg.optim.SGD([rg.zeros(1, requires_grad=True)], lr=0.1), 1, last_epoch=3)
    with pytest.raises(TypeError, match="list is not an Optimizer"):
        rg.optim.lr_scheduler.StepLR([], 1)


def test_sequential_lr_validation():
    opt = rg.optim.SGD([rg.zeros(1, requires_grad=True)], lr=0.1)
    m = rg.optim.lr_scheduler
    with pytest.raises(ValueError, match="Sequential Schedulers expects number of schedulers provided to be one more"):
        m.SequentialLR(opt, [m.StepLR(opt, 1), m.StepLR(opt, 1)], milestones=[])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        m.SequentialLR(opt, [m.ReduceLROnPlateau(opt)], milestones=[])


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
