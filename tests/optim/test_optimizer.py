"""Optimizers against PyTorch 2.13: same start, same gradients, 20 steps -> same parameters and state."""
import copy
import io
import warnings

import numpy as np
import pytest

import retrograd as rg
from parity import assert_within_roundings

torch = pytest.importorskip("torch")

SHAPES = [(4, 5), (7,), (3, 2, 2)]
_rng = np.random.default_rng(0)
P0 = [_rng.standard_normal(s).astype(np.float32) for s in SHAPES]
A = [_rng.standard_normal(s).astype(np.float32) for s in SHAPES]


def grad_of(x: np.ndarray, a: np.ndarray, k: int) -> np.ndarray:
    """The gradient of a fixed non-quadratic loss at x (same NumPy code for both libraries)."""
    return (a * x + x.dtype.type(0.3) * np.sin(x.dtype.type(k % 3 + 1) * x + a)).astype(x.dtype)


def run(lib, name, kw, steps=20, dtype=np.float32):
    params = [lib.tensor(p.astype(dtype), requires_grad=True) for p in P0]
    opt = getattr(lib.optim, name)(params, **kw)
    for k in range(steps):
        for p, a in zip(params, A):
            p.grad = lib.tensor(grad_of(p.detach().numpy(), a.astype(dtype), k))
        opt.step()
    return params, opt


CONFIGS = [
    ("SGD", dict(lr=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9)),
    ("SGD", dict(lr=0.1, momentum=0.9, dampening=0.5, weight_decay=0.1)),
    ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True, maximize=True)),
    ("Adam", dict(lr=0.01)),
    ("Adam", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("Adam", dict(lr=0.01, maximize=True, betas=(0.8, 0.99), eps=1e-6)),
    ("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
    ("AdamW", dict(lr=0.01)),
    ("AdamW", dict(lr=0.01, amsgrad=True, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, centered=True, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, momentum=0.5, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.1)),
    ("Adadelta", dict()),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.01)),
    ("Adamax", dict(lr=0.01, weight_decay=0.1, betas=(0.8, 0.9))),
    ("NAdam", dict(lr=0.01)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1)),
    ("NAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True, momentum_decay=0.01)),
    ("RAdam", dict(lr=0.01)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1)),
    ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
]


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else x


def assert_state_equal(st, sr, rtol):
    assert st.keys() == sr.keys()
    for k in st:
        vt, vr = st[k], sr[k]
        if isinstance(vt, torch.Tensor):
            assert isinstance(vr, rg.Tensor), k
            assert str(vt.dtype).split(".")[1] == vr.dtype.name, k
            assert tuple(vt.shape) == tuple(vr.shape), k
            # A state buffer is a running sum whose small entries come from cancellation, so its
            # rounding error scales with the buffer's largest terms, not with each entry.
            atol = max(1e-7, rtol * float(np.abs(_np(vt)).max(initial=0.0)))
            np.testing.assert_allclose(_np(vr), _np(vt), rtol=rtol, atol=atol, err_msg=k)
        else:
            assert vt == vr, k


@pytest.mark.parametrize("name,kw", CONFIGS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)])
def test_twenty_steps_match_torch(name, kw):
    pt, ot = run(torch, name, kw)
    pr, orr = run(rg, name, kw)
    # SGD's update is product-then-sum in float32 where torch fuses a multiply-add (see
    # optim/sgd.py): a rounding apart per step, and these gradients depend on the params.
    rtol, atol = (2e-5, 1e-6) if name == "SGD" else (2e-6, 1e-7)
    for a, b in zip(pt, pr):
        assert b.dtype is rg.float32
        np.testing.assert_allclose(_np(b), _np(a), rtol=rtol, atol=atol)
    for a, b in zip(pt, pr):
        assert_state_equal(ot.state[a], orr.state[b], rtol=rtol)


@pytest.mark.parametrize("name,kw", [("Adam", dict(lr=0.01, amsgrad=True)), ("RMSprop", dict(centered=True)),
                                     ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)), ("NAdam", {}),
                                     ("RAdam", {}), ("Adadelta", {})])
def test_float64_params_match_torch(name, kw):
    pt, _ = run(torch, name, kw, dtype=np.float64)
    pr, _ = run(rg, name, kw, dtype=np.float64)
    for a, b in zip(pt, pr):
        assert b.dtype is rg.float64
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,kw", [("SGD", dict(lr=0.05, momentum=0.9)), ("Adam", dict(lr=0.05)),
                                     ("AdamW", dict(lr=0.05, weight_decay=0.1))])
def test_gradients_from_autograd(name, kw):
    """A real training loop: the gradient comes from each library's own backward pass."""
    c = np.linspace(-1, 1, 6).astype(np.float32)
    out = []
    for lib in (torch, rg):
        w = lib.tensor(P0[1][:6].copy(), requires_grad=True)
        target = lib.tensor(c)
        opt = getattr(lib.optim, name)([w], **kw)
        for _ in range(20):
            opt.zero_grad()
            loss = ((w - target) ** 2).sum()
            loss.backward()
            opt.step()
        out.append(_np(w).copy())
    np.testing.assert_allclose(out[1], out[0], rtol=1e-5, atol=1e-6)


def test_param_groups_each_use_their_hyperparameters():
    res = []
    for lib in (torch, rg):
        a, b = lib.tensor(P0[1].copy(), requires_grad=True), lib.tensor(P0[0].copy(), requires_grad=True)
        opt = lib.optim.SGD([{"params": [a]}, {"params": b, "lr": 0.01, "momentum": 0.5}], lr=0.1)
        for k in range(5):
            a.grad = lib.tensor(grad_of(_np(a), A[1], k))
            if k % 2 == 0:  # b has no grad on odd steps: it must be skipped
                b.grad = lib.tensor(grad_of(_np(b), A[0], k))
            else:
                b.grad = None
            opt.step()
        res.append((_np(a).copy(), _np(b).copy()))
    for x, y in zip(res[0], res[1]):  # (SGD: float32 rounding apart, see test_twenty_steps_match_torch)
        np.testing.assert_allclose(y, x, rtol=2e-6, atol=1e-7)


def test_updates_in_place_and_bump_version():
    w = rg.tensor([1.0, 2.0], requires_grad=True)
    buf = w._data
    v0 = w._version
    opt = rg.optim.Adam([w], lr=0.1)
    (w * w).sum().backward()
    opt.step()
    assert w._data is buf and w._version > v0
    assert w.requires_grad and w.grad_fn is None


def test_step_runs_under_no_grad_and_closure_under_grad():
    w = rg.tensor([1.0, 2.0], requires_grad=True)
    opt = rg.optim.SGD([w], lr=0.1)
    seen = []

    def closure():
        seen.append(rg.is_grad_enabled())
        opt.zero_grad()
        loss = (w * w).sum()
        loss.backward()
        return loss

    with rg.no_grad():
        loss = opt.step(closure)
    assert seen == [True] and loss.item() == 5.0
    np.testing.assert_allclose(_np(w), [0.8, 1.6], rtol=1e-6)


def test_zero_grad():
    w = rg.tensor([1.0, 2.0], requires_grad=True)
    opt = rg.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    g = w.grad
    opt.zero_grad(set_to_none=False)
    assert w.grad is g and _np(g).tolist() == [0.0, 0.0]
    opt.zero_grad()
    assert w.grad is None


def test_state_dict_layout_matches_torch():
    pt, ot = run(torch, "Adam", dict(lr=0.01, amsgrad=True), steps=3)
    pr, orr = run(rg, "Adam", dict(lr=0.01, amsgrad=True), steps=3)
    sdt, sdr = ot.state_dict(), orr.state_dict()
    assert sdt["param_groups"] == sdr["param_groups"]
    assert list(sdt["state"]) == list(sdr["state"]) == [0, 1, 2]
    for i in sdt["state"]:
        assert_state_equal(sdt["state"][i], sdr["state"][i], rtol=2e-6)
    step = sdr["state"][0]["step"]
    assert step.dtype is rg.float32 and step.shape == () and step.item() == 3.0


@pytest.mark.parametrize("name,kw", [c for c in CONFIGS if c[0] in ("SGD", "Adam", "RMSprop", "Adagrad", "NAdam")][::2])
def test_state_dict_round_trip_resumes_exactly(name, kw, tmp_path):
    straight, _ = run(rg, name, kw, steps=20)
    params, opt = run(rg, name, kw, steps=10)
    rg.save({"opt": opt.state_dict(), "params": [p.detach() for p in params]}, tmp_path / "ckpt.pt")
    ck = rg.load(tmp_path / "ckpt.pt")
    resumed = [rg.tensor(_np(p).copy(), requires_grad=True) for p in ck["params"]]
    opt2 = getattr(rg.optim, name)(resumed, **kw)
    opt2.load_state_dict(ck["opt"])
    for k in range(10, 20):
        for p, a in zip(resumed, A):
            p.grad = rg.tensor(grad_of(_np(p), a, k))
        opt2.step()
    for a, b in zip(straight, resumed):
        np.testing.assert_array_equal(_np(b), _np(a))


def test_load_state_dict_from_torch_checkpoint_then_continue():
    """Train 10 steps in torch, torch.save the state, continue in retrograd: same as torch continuing."""
    pt, ot = run(torch, "Adam", dict(lr=0.01, weight_decay=0.1), steps=10)
    buf = io.BytesIO()
    torch.save({"opt": ot.state_dict(), "params": [p.detach() for p in pt]}, buf)
    buf.seek(0)
    ck = rg.load(buf)
    pr = [rg.tensor(_np(p).copy(), requires_grad=True) for p in ck["params"]]
    orr = rg.optim.Adam(pr, lr=0.5)
    orr.load_state_dict(ck["opt"])
    assert orr.param_groups[0]["lr"] == 0.01
    for k in range(10, 20):
        for lib, ps, o in ((torch, pt, ot), (rg, pr, orr)):
            for p, a in zip(ps, A):
                p.grad = lib.tensor(grad_of(_np(p), a, k))
            o.step()
    for a, b in zip(pt, pr):
        np.testing.assert_allclose(_np(b), _np(a), rtol=2e-6, atol=1e-7)


def test_load_state_dict_casts_state_but_not_step():
    w = rg.tensor([1.0, 2.0], dtype=rg.float64, requires_grad=True)
    opt = rg.optim.Adam([w])
    sd = {"state": {0: {"step": rg.tensor(4.0), "exp_avg": rg.zeros(2), "exp_avg_sq": rg.zeros(2)}},
          "param_groups": [dict(opt.state_dict()["param_groups"][0])]}
    opt.load_state_dict(sd)
    st = opt.state[w]
    assert st["exp_avg"].dtype is rg.float64 and st["step"].dtype is rg.float32


def test_load_state_dict_errors_match_torch():
    w = rg.zeros(2, requires_grad=True)
    opt = rg.optim.SGD([w], lr=0.1)
    bad = {"state": {}, "param_groups": [{"params": [0, 1], "lr": 0.1}]}
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(bad)
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict({"state": {}, "param_groups": []})


def test_repr_matches_torch():
    for name, kw in [("SGD", dict(lr=0.1, momentum=0.9)), ("Adam", {}), ("LBFGS", {}), ("RMSprop", {}),
                     ("Adagrad", {}), ("NAdam", {}), ("RAdam", {}), ("Adadelta", {}), ("Adamax", {}), ("AdamW", {})]:
        rt = repr(getattr(torch.optim, name)([torch.zeros(1, requires_grad=True)], **kw))
        rr = repr(getattr(rg.optim, name)([rg.zeros(1, requires_grad=True)], **kw))
        assert rr == rt


@pytest.mark.parametrize("call,exc,msg", [
    (lambda o: o.SGD([rg.zeros(1, requires_grad=True)], lr=-1), ValueError, "Invalid learning rate: -1"),
    (lambda o: o.SGD([rg.zeros(1, requires_grad=True)], nesterov=True), ValueError,
     "Nesterov momentum requires a momentum and zero dampening"),
    (lambda o: o.Adam([rg.zeros(1, requires_grad=True)], betas=(1.0, 0.9)), ValueError,
     "Invalid beta parameter at index 0: 1.0"),
    (lambda o: o.SGD([], lr=0.1), ValueError, "optimizer got an empty parameter list"),
    (lambda o: o.SGD(rg.zeros(1, requires_grad=True)), TypeError,
     "params argument given to the optimizer should be an iterable of Tensors or dicts, but got torch.FloatTensor"),
    (lambda o: o.SGD([(rg.zeros(1) * 1).requires_grad_()], lr=0.1), None, None),
    (lambda o: o.LBFGS([{"params": [rg.zeros(1, requires_grad=True)]}, {"params": [rg.zeros(1, requires_grad=True)]}]),
     ValueError, "LBFGS doesn't support per-parameter options"),
])
def test_constructor_errors(call, exc, msg):
    if exc is None:
        call(rg.optim)
        return
    with pytest.raises(exc, match=msg.replace("(", r"\(").replace(")", r"\)")):
        call(rg.optim)


def test_add_param_group_rules():
    a, b = rg.zeros(1, requires_grad=True), rg.zeros(1, requires_grad=True)
    opt = rg.optim.SGD([a], lr=0.1)
    with pytest.raises(ValueError, match="some parameters appear in more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="ordering of tensors in sets"):
        opt.add_param_group({"params": {b}})
    opt.add_param_group({"params": b, "lr": 0.5})
    assert opt.param_groups[1]["lr"] == 0.5 and opt.param_groups[1]["momentum"] == 0
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        opt.add_param_group({"params": [a * 2]})
    named = rg.optim.SGD([("w", rg.zeros(1, requires_grad=True))], lr=0.1)
    assert named.param_groups[0]["param_names"] == ["w"]
    assert named.state_dict()["param_groups"][0]["param_names"] == ["w"]


def test_step_hooks():
    w = rg.zeros(1, requires_grad=True)
    opt = rg.optim.SGD([w], lr=0.1)
    calls = []
    h1 = opt.register_step_pre_hook(lambda o, args, kwargs: calls.append("pre"))
    opt.register_step_post_hook(lambda o, args, kwargs: calls.append("post"))
    hg = rg.optim.optimizer.register_optimizer_step_pre_hook(lambda o, a, k: calls.append("global"))
    opt.step()
    h1.remove()
    hg.remove()
    opt.step()
    assert calls == ["global", "pre", "post", "post"]


def test_differentiable_step_is_recorded():
    # (values and gradients against torch: tests/pytorch/test_pt_optim.py)
    w = rg.ones(2, requires_grad=True).clone()
    w.grad = rg.ones(2)
    rg.optim.Adam([w], differentiable=True).step()
    assert w.grad_fn is not None


def test_adagrad_initialises_state_eagerly_like_torch():
    opt = rg.optim.Adagrad([rg.zeros(2, requires_grad=True)], initial_accumulator_value=0.5)
    st = next(iter(opt.state.values()))
    assert st["step"].item() == 0.0 and _np(st["sum"]).tolist() == [0.5, 0.5]


def test_deepcopy_optimizer_state():
    _, opt = run(rg, "Adam", dict(lr=0.01), steps=2)
    sd = copy.deepcopy(opt.state_dict())
    assert sd["state"][0]["exp_avg"] is not opt.state_dict()["state"][0]["exp_avg"]


# ---------------------------------------------------------------------------------------- LBFGS
def _rosenbrock_run(lib, kw, dtype, steps=4):
    x = lib.tensor(np.array([-1.5, 2.0, -0.5, 1.2], dtype=dtype), requires_grad=True)
    opt = lib.optim.LBFGS([x], **kw)

    def closure():
        opt.zero_grad()
        a, b = x[:-1], x[1:]
        loss = (100 * (b - a * a) ** 2 + (1 - a) ** 2).sum()
        loss.backward()
        return loss

    trace = []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for _ in range(steps):
            opt.step(closure)
            trace.append(_np(x).copy())
    st = opt.state[x]
    return np.array(trace), st["func_evals"], st["n_iter"]


@pytest.mark.parametrize("kw", [dict(max_iter=5), dict(line_search_fn="strong_wolfe", max_iter=5),
                                dict(lr=0.5, history_size=3, max_iter=7, line_search_fn="strong_wolfe")])
def test_lbfgs_matches_torch(kw):
    a = _rosenbrock_run(torch, kw, np.float64)
    b = _rosenbrock_run(rg, kw, np.float64)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-9, atol=1e-11)
    assert b[1:] == a[1:]


def test_lbfgs_float32_and_state_dict():
    a = _rosenbrock_run(torch, dict(line_search_fn="strong_wolfe", max_iter=5), np.float32, steps=2)
    b = _rosenbrock_run(rg, dict(line_search_fn="strong_wolfe", max_iter=5), np.float32, steps=2)
    np.testing.assert_allclose(b[0], a[0], rtol=1e-4, atol=1e-5)
    x = rg.tensor([3.0], requires_grad=True)
    opt = rg.optim.LBFGS([x])

    def closure():
        opt.zero_grad()
        loss = ((x - 1) ** 2).sum()
        loss.backward()
        return loss

    opt.step(closure)
    sd = opt.state_dict()
    assert set(sd["state"][0]) >= {"func_evals", "n_iter", "d", "t", "old_dirs", "old_stps", "ro", "H_diag",
                                   "prev_flat_grad", "prev_loss"}
    assert isinstance(sd["state"][0]["d"], rg.Tensor)
    assert abs(x.item() - 1.0) < 1e-5


# ---------------------------------------------------------------------------------------- kernels
@pytest.mark.parametrize("weight", [0.1, 0.001, 0.6, 0.999])
def test_kernels_match_torch_cpu_kernels_to_their_roundings(weight):
    """The float32 update kernels compute torch's formulas.  Whether torch's CPU kernel fuses a
    multiply-add (one rounding) or not depends on its SIMD path (AVX2/AVX-512 vectorized loop
    or the scalar loop), so each result is compared to within the roundings its formula does:
    ``a + w*b`` 2, ``a + w*b*c`` and ``a + w*b/c`` 3 (of the terms' magnitudes), ``lerp`` 3 (of
    ``|a| + |b|``: torch takes ``a + w*(b-a)`` or ``b - (b-a)*(1-w)``), quotients 2."""
    from retrograd.optim import _kernels as K

    r = np.random.default_rng(1)
    a, b, c = (r.standard_normal(13).astype(np.float32) for _ in range(3))
    c = np.abs(c) + np.float32(0.5)
    ta, tb, tc = (torch.from_numpy(x) for x in (a, b, c))
    a64, b64, c64, w = (x.astype(np.float64) for x in (a, b, c, np.float32(weight)))
    assert_within_roundings(K.add(a, b, weight), ta.add(tb, alpha=weight).numpy(), abs(a64) + abs(w * b64), 2)
    assert_within_roundings(K.addcmul(a, b, c, weight), ta.addcmul(tb, tc, value=weight).numpy(),
                            abs(a64) + abs(w * b64 * c64), 3)
    assert_within_roundings(K.addcdiv(a, b, c, -weight), ta.addcdiv(tb, tc, value=-weight).numpy(),
                            abs(a64) + abs(w * b64 / c64), 3)
    assert_within_roundings(K.lerp(a, b, weight), ta.lerp(tb, weight).numpy(), 2 * (abs(a64) + abs(b64)), 3)
    assert_within_roundings(K.div(a, weight), (ta / weight).numpy(), abs(a64 / w), 2)
    assert_within_roundings(K.rdiv(weight, c), (weight / tc).numpy(), abs(w / c64), 2)
    out = a.copy()
    assert K.add(out, b, weight, out=out) is out


def test_user_defined_optimizer_subclass():
    """PyTorch-style custom optimizers (tensor ops on p under no_grad) work on the base class."""

    class PlainSGD(rg.optim.Optimizer):
        def __init__(self, params, lr):
            super().__init__(params, dict(lr=lr))

        @rg.no_grad()
        def step(self, closure=None):
            for group in self.param_groups:
                for p in group["params"]:
                    if p.grad is not None:
                        self.state[p]["n"] = self.state[p].get("n", 0) + 1
                        p.add_(p.grad, alpha=-group["lr"])

    w = rg.tensor([1.0, 2.0], requires_grad=True)
    opt = PlainSGD([w], lr=0.25)
    seen = []
    opt.register_step_post_hook(lambda o, a, k: seen.append(1))
    (w * w).sum().backward()
    opt.step()
    assert _np(w).tolist() == [0.5, 1.0] and seen == [1] and opt.state_dict()["state"] == {0: {"n": 1}}


def test_sgd_updates_parameters_whose_data_is_not_contiguous():
    # plain SGD's flat-view fast path must not write into a copy (small and chunked sizes)
    for shape in ((3, 4), (300, 400)):
        ws = []
        for T in (rg, torch):
            w = T.ones(*shape, requires_grad=True)
            w.data = T.arange(float(shape[0] * shape[1])).reshape(shape[1], shape[0]).t()
            (w * T.linspace(-1, 1, shape[0] * shape[1]).reshape(shape)).sum().backward()
            T.optim.SGD([w], lr=0.1).step()
            ws.append(w.detach().numpy())
        np.testing.assert_allclose(ws[0], ws[1], rtol=1e-6, atol=1e-6)


CASES = [("SGD", {}), ("SGD", {"momentum": 0.9, "nesterov": True}), ("SGD", {"weight_decay": 0.1}),
         ("Adam", {}), ("Adam", {"weight_decay": 0.1}), ("Adam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
         ("AdamW", {}), ("AdamW", {"weight_decay": 0}), ("AdamW", {"amsgrad": True}),
         ("NAdam", {}), ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
         ("RAdam", {}), ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
         ("RMSprop", {"momentum": 0.9, "centered": True}), ("Adagrad", {"weight_decay": 0.1}),
         ("Adadelta", {"weight_decay": 0.1}), ("Adamax", {"weight_decay": 0.1}), ("ASGD", {}), ("Rprop", {})]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{'-'.join(k)}" for n, k in CASES])
def test_version_after_steps_matches_torch(name, kw):
    def run(T):
        p = T.nn.Parameter(T.ones(3))
        opt = getattr(T.optim, name)([p], lr=0.1, **kw)
        for _ in range(2):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        return p._version

    assert run(rg) == run(torch)
