"""Fixes found by running PyTorch's optimizer / scheduler test files on retrograd.

Oracle: torch 2.13 (values, gradients, exception types).  Where retrograd follows a fix
PyTorch made after 2.13 (state isolation on ``load_state_dict``, nested composite
schedulers, zero ``factor`` / ``total_iters``), the test says so and checks the intended
behaviour directly.
"""
import pickle
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

_rng = np.random.default_rng(7)
N = 6
P0 = _rng.random(N)
G0 = _rng.random(N)
S1 = _rng.random(N)
S2 = _rng.random(N)
S3 = 1e-2 * _rng.random(N)
W = _rng.standard_normal(N)  # weights of the scalar the gradients are taken of


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


# ----------------------------------------------------------------- differentiable=True
# (optimizer, kwargs, {state key: initial value}); each state tensor requires grad
# unless its key is in NO_GRAD_KEYS, exactly like PyTorch's TestDifferentiableOptimizer.
NO_GRAD_KEYS = {"step", "eta", "mu"}
CASES = [
    ("SGD", {"lr": 0.9}, {"momentum_buffer": S1}),
    ("SGD", {"lr": 0.3, "momentum": 0.9, "nesterov": True, "weight_decay": 0.1}, {"momentum_buffer": S1}),
    ("SGD", {"lr": 0.3, "momentum": 0.5, "dampening": 0.2, "maximize": True}, {"momentum_buffer": S1}),
    ("Adam", {"lr": 0.9, "amsgrad": True}, {"step": 10.0, "exp_avg": S1, "exp_avg_sq": S2, "max_exp_avg_sq": S3}),
    ("Adam", {"lr": 0.5, "weight_decay": 0.1}, {"step": 3.0, "exp_avg": S1, "exp_avg_sq": S2}),
    ("AdamW", {"lr": 0.5, "weight_decay": 0.1, "amsgrad": True},
     {"step": 10.0, "exp_avg": S1, "exp_avg_sq": S2, "max_exp_avg_sq": S3}),
    ("RMSprop", {"lr": 0.9, "maximize": True, "momentum": 0.9, "centered": True, "weight_decay": 0.1},
     {"step": 0.0, "square_avg": S1, "momentum_buffer": S2, "grad_avg": S3}),
    ("RMSprop", {"lr": 0.1}, {"step": 0.0, "square_avg": S1}),
    ("Adadelta", {"lr": 0.9, "weight_decay": 0.1}, {"step": 10.0, "square_avg": S1, "acc_delta": S2}),
    ("Adagrad", {"lr": 0.9, "weight_decay": 0.1, "lr_decay": 0.01}, {"step": 10.0, "sum": S1}),
    ("Adamax", {"lr": 0.9, "weight_decay": 0.1}, {"step": 10.0, "exp_avg": S1, "exp_inf": S2}),
    ("ASGD", {"lr": 0.9}, {"step": 10.0, "eta": 0.9, "mu": 1.0, "ax": S1}),
    ("ASGD", {"lr": 0.9, "t0": 20.0, "weight_decay": 0.05}, {"step": 10.0, "eta": 0.9, "mu": 1.0, "ax": S1}),
    ("Rprop", {"lr": 0.9}, {"step": 10.0, "prev": S1 - 0.5, "step_size": S2}),
    ("NAdam", {"lr": 0.9}, {"step": 10.0, "exp_avg": S1, "exp_avg_sq": S2, "mu_product": 1.0}),
    ("NAdam", {"lr": 0.9, "weight_decay": 0.1, "decoupled_weight_decay": True},
     {"step": 10.0, "exp_avg": S1, "exp_avg_sq": S2, "mu_product": 1.0}),
    ("RAdam", {"lr": 0.9}, {"step": 10.0, "exp_avg": S1, "exp_avg_sq": S2}),
    ("RAdam", {"lr": 0.9, "weight_decay": 0.1, "decoupled_weight_decay": True},
     {"step": 1.0, "exp_avg": S1, "exp_avg_sq": S2}),
]


def _one_step(lib, name, kwargs, state0, steps=1):
    """Leaves (p0, grad, state...), the updated parameter and state, and d(weighted sum)/d(leaves)."""
    t = lambda a, rg_=True: lib.tensor(np.asarray(a, dtype=np.float64), requires_grad=rg_)  # noqa: E731
    p0, g = t(P0), t(G0)
    state = {k: t(v, k not in NO_GRAD_KEYS) for k, v in state0.items()}
    p = p0.clone()
    p.grad = g
    opt = getattr(lib.optim, name)([p], differentiable=True, **kwargs)
    opt.state[p].update({k: v.clone() for k, v in state.items()})
    for _ in range(steps):
        opt.step()
    outs = [p] + [v for v in opt.state[p].values() if isinstance(v, lib.Tensor) and v.requires_grad]
    w = lib.tensor(W)
    total = sum((o * w[:o.numel()].reshape(o.shape)).sum() for o in outs)
    leaves = [p0, g] + [v for v in state.values() if v.requires_grad]
    grads = lib.autograd.grad(total, leaves, allow_unused=True)
    return ([o.detach().numpy() for o in outs],
            {k: v.detach().numpy() for k, v in opt.state[p].items() if isinstance(v, lib.Tensor)},
            [None if gr is None else gr.numpy() for gr in grads])


@pytest.mark.parametrize("name,kwargs,state0", CASES, ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_differentiable_step_matches_torch(name, kwargs, state0):
    outs_r, state_r, grads_r = _one_step(rg, name, kwargs, state0)
    outs_t, state_t, grads_t = _one_step(torch, name, kwargs, state0)
    assert len(outs_r) == len(outs_t)
    for a, b in zip(outs_r, outs_t):
        np.testing.assert_allclose(a, b, rtol=1e-12, atol=1e-12)
    assert state_r.keys() == state_t.keys()
    for k in state_t:
        np.testing.assert_allclose(state_r[k], state_t[k], rtol=1e-12, atol=1e-12, err_msg=k)
    for a, b in zip(grads_r, grads_t):
        if b is None:
            assert a is None or not np.any(a)
        else:
            np.testing.assert_allclose(a, b, rtol=1e-10, atol=1e-12)


def test_differentiable_asgd_averaging_saves_mu_like_torch():
    # With mu != 1 the average ``ax += (p - ax) * mu`` saves ``mu``, which the step then
    # overwrites: backward fails in PyTorch, and the same way here.
    state0 = {"step": 10.0, "eta": 0.9, "mu": 0.5, "ax": S1}
    for lib in (rg, torch):
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            _one_step(lib, "ASGD", {"lr": 0.9, "t0": 2.0}, state0)


def test_asgd_float64_state_is_rounded_like_torch():
    res = []
    for lib in (rg, torch):
        p = lib.tensor(P0, requires_grad=True)
        opt = lib.optim.ASGD([p], lr=0.3, t0=2.0)
        for _ in range(4):
            p.grad = lib.tensor(G0)
            opt.step()
        res.append([p.detach().numpy()] + [opt.state[p][k].numpy() for k in ("eta", "mu", "ax")])
    for a, b in zip(*res):
        np.testing.assert_array_equal(a, b)


def test_differentiable_step_passes_gradcheck():
    from retrograd.testing._internal.common_utils import gradcheck

    def fn(p, grad, m, v):
        p = p.clone()
        p.grad = grad
        opt = rg.optim.Adam([p], lr=0.9, differentiable=True)
        opt.state[p].update(step=rg.tensor(4.0, dtype=rg.float64), exp_avg=m.clone(), exp_avg_sq=v.clone())
        opt.step()
        return p, opt.state[p]["exp_avg"], opt.state[p]["exp_avg_sq"]

    args = [rg.tensor(a, requires_grad=True) for a in (P0, G0, S1, S2)]
    assert gradcheck(fn, args)


def _meta_grads(lib, name, hyper):
    """Two differentiable steps on an MSE loss, then d(loss)/d(tensor hyper-parameters)."""
    kw = {k: lib.tensor(v, dtype=lib.float64, requires_grad=True) for k, v in hyper.items() if k != "betas"}
    leaves = list(kw.values())
    if "betas" in hyper:
        betas = tuple(lib.tensor(b, dtype=lib.float64, requires_grad=True) for b in hyper["betas"])
        kw["betas"] = betas
        leaves += list(betas)
    params = lib.tensor(P0, requires_grad=True).clone()
    params.grad = lib.tensor(G0)
    opt = getattr(lib.optim, name)([params], differentiable=True, **kw)
    x, y = lib.tensor([1.0], dtype=lib.float64), lib.tensor([2.0], dtype=lib.float64)
    for _ in range(2):
        loss = lib.nn.functional.mse_loss(x * params.sum(), y)
        loss.backward(inputs=(params,), create_graph=True)
        opt.step()
        opt.zero_grad()
    return float(loss), [gr.numpy() for gr in lib.autograd.grad(loss, leaves)]


@pytest.mark.parametrize("name,hyper", [
    ("SGD", {"lr": 0.001}),
    ("SGD", {"lr": 0.01, "weight_decay": 0.9}),
    ("Adam", {"lr": 0.001}),
    ("Adam", {"lr": 0.001, "weight_decay": 0.999, "betas": (0.9, 0.999)}),
    ("AdamW", {"lr": 0.001, "weight_decay": 0.999, "betas": (0.9, 0.999)}),
])
def test_differentiable_hyperparameters_match_torch(name, hyper):
    loss_r, grads_r = _meta_grads(rg, name, hyper)
    loss_t, grads_t = _meta_grads(torch, name, hyper)
    assert loss_r == pytest.approx(loss_t, rel=1e-12)
    for a, b in zip(grads_r, grads_t):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-14)


def test_differentiable_step_on_a_leaf_raises_like_torch():
    for lib in (rg, torch):
        w = lib.ones(2, requires_grad=True)
        w.grad = lib.ones(2)
        opt = lib.optim.SGD([w], lr=0.1, differentiable=True)
        with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
            opt.step()


def test_differentiable_flag_keeps_user_subclass_step():
    class Halve(rg.optim.SGD):
        def step(self, closure=None):
            for p in self.param_groups[0]["params"]:
                with rg.no_grad():
                    p.mul_(0.5)

    w = rg.ones(2, requires_grad=True)
    Halve([w], lr=1.0, differentiable=True).step()
    assert w.tolist() == [0.5, 0.5]


# ----------------------------------------------------------------- schedulers
def _lrs(sched, n=6):
    out = []
    for _ in range(n):
        out.append(float(sched.get_last_lr()[0]))
        sched.optimizer.step()
        sched.step()
    return out


def _make_sequential(L, opt):
    return L.SequentialLR(opt, [L.ConstantLR(opt, factor=0.5, total_iters=2),
                                L.ConstantLR(opt, factor=0.2, total_iters=10)], milestones=[2])


def _make_chained(L, opt):
    return L.ChainedScheduler([L.ConstantLR(opt, factor=0.5, total_iters=2), L.ExponentialLR(opt, gamma=0.9)],
                              optimizer=opt)


@pytest.mark.parametrize("make", [_make_sequential, _make_chained])
def test_nested_composite_scheduler_follows_torch_2_13(make):
    # A composite nested in a SequentialLR: the learning rates torch 2.13 gives (later
    # PyTorch releases changed them; 2.13 is the reference here).
    def run(lib):
        o = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.1)
        return _lrs(lib.optim.lr_scheduler.SequentialLR(o, [make(lib.optim.lr_scheduler, o)], milestones=[]))

    np.testing.assert_allclose(run(rg), run(torch), rtol=1e-12)


def test_onecycle_legacy_state_dict_with_anneal_func():
    def run(lib):
        opt = lib.optim.SGD([lib.nn.Parameter(lib.zeros(1))], lr=0.05, momentum=0.9)
        s = lib.optim.lr_scheduler.OneCycleLR(opt, max_lr=25, final_div_factor=2, base_momentum=1,
                                              max_momentum=22, total_steps=10)
        del s._anneal_func_type
        sd = s.state_dict()
        assert "_anneal_func_type" not in sd
        sd["anneal_func"] = lib.optim.lr_scheduler.OneCycleLR._annealing_cos
        s.load_state_dict(sd)
        return _lrs(s, 9)

    np.testing.assert_allclose(run(rg), run(torch), rtol=1e-12)


# ----------------------------------------------------------------- swa_utils / batchnorm
def test_batchnorm_module_path_and_update_bn_match_torch():
    import retrograd.nn.modules.batchnorm as bn_mod
    assert bn_mod._BatchNorm is rg.nn.BatchNorm1d.__mro__[1]
    assert set(bn_mod.__all__) == set(torch.nn.modules.batchnorm.__all__)
    x = _rng.random((20, 3, 4, 4)).astype(np.float32)
    stats = []
    for lib in (rg, torch):
        lib.manual_seed(0)
        net = lib.nn.Sequential(lib.nn.Conv2d(3, 5, 3, padding=1), lib.nn.BatchNorm2d(5, momentum=0.3))
        conv = net[0]
        with lib.no_grad():
            conv.weight.copy_(lib.tensor(np.linspace(-1, 1, conv.weight.numel()).reshape(conv.weight.shape)))
            conv.bias.zero_()
        assert isinstance(net[1], lib.nn.modules.batchnorm._BatchNorm)
        loader = lib.utils.data.DataLoader(lib.utils.data.TensorDataset(lib.tensor(x)), batch_size=5)
        net.eval()
        lib.optim.swa_utils.update_bn(loader, net)
        assert not net.training and net[1].momentum == 0.3
        stats.append((net[1].running_mean.numpy(), net[1].running_var.numpy()))
    np.testing.assert_allclose(stats[0][0], stats[1][0], rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(stats[0][1], stats[1][1], rtol=1e-5, atol=1e-6)


def test_averaged_model_with_batchnorm_pickles():
    net = rg.nn.Sequential(rg.nn.Conv2d(1, 5, 3), rg.nn.BatchNorm2d(5), rg.nn.Linear(5, 5))
    avg = rg.optim.swa_utils.AveragedModel(net)
    assert isinstance(pickle.loads(pickle.dumps(avg)), rg.optim.swa_utils.AveragedModel)


def test_hardware_classification_names():
    from retrograd.testing._internal.common_utils import HardwareClassification
    assert [m.name for m in HardwareClassification] == ["GENERIC", "ACCELERATOR", "CPU", "CUDA", "MPS", "XPU"]


# (name, kwargs, steps): one step where PyTorch's own multi-step backward fails because the
# update overwrites a tensor it saved (Adamax, Rprop; also AdamW with amsgrad and centered
# RMSprop, left out), several elsewhere.
FRESH = [("SGD", {"lr": 0.1, "momentum": 0.9}, 3), ("Adam", {"lr": 0.1}, 3), ("AdamW", {"lr": 0.1}, 3),
         ("RMSprop", {"lr": 0.01, "momentum": 0.5}, 3), ("Adadelta", {}, 3), ("Adagrad", {"lr": 0.1}, 3),
         ("Adamax", {"lr": 0.1}, 1), ("ASGD", {"lr": 0.1}, 3), ("Rprop", {"lr": 0.1}, 1), ("NAdam", {"lr": 0.1}, 3),
         ("RAdam", {"lr": 0.1}, 3)]


@pytest.mark.parametrize("name,kwargs,steps", FRESH, ids=[c[0] for c in FRESH])
def test_differentiable_steps_from_fresh_state_match_torch(name, kwargs, steps):
    # The optimizer creates its own state (a float32 'step' as in PyTorch).
    res = []
    for lib in (rg, torch):
        p0 = lib.tensor(P0, requires_grad=True)
        g = lib.tensor(G0, requires_grad=True)
        p = p0.clone()
        opt = getattr(lib.optim, name)([p], differentiable=True, **kwargs)
        for k in range(steps):
            p.grad = g * (k + 1) - p * 0.5
            opt.step()
        total = (p * lib.tensor(W)).sum()
        res.append([p.detach().numpy()] + [t.numpy() for t in lib.autograd.grad(total, [p0, g])])
    for a, b in zip(*res):
        np.testing.assert_allclose(a, b, rtol=1e-9, atol=1e-12)
