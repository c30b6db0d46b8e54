"""nn.Module semantics vs torch: registration, iteration, state_dict, hooks, repr, containers."""
from __future__ import annotations

import copy
import pickle
import warnings
from collections import OrderedDict

import numpy as np
import pytest

import retrograd
import retrograd as rg
import retrograd.nn as rnn

torch = pytest.importorskip("torch")

from ._module_helpers import _both, _outcome  # noqa: E402
tnn = torch.nn


def R(s: str) -> str:
    return s


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001
        return type(e), str(e)
    raise AssertionError("no error raised")


def _same_error(tf, rf):
    tt, tm = _err(tf)
    rt, rm = _err(rf)
    assert rt is tt, (rt, tt, rm)
    # PyTorch's text; names of retrograd objects (Size, dtype) print as retrograd.*
    assert rm in (tm, R(tm)), (rm, tm)


class _Net:
    """The same small network class for both libraries."""

    @staticmethod
    def make(nn):
        class Net(nn.Module):
            def __init__(self):
                super().__init__()
                self.conv = nn.Conv2d(1, 2, 3)
                self.block = nn.Sequential(nn.Linear(4, 3), nn.ReLU(), nn.Linear(3, 2, bias=False))
                self.register_buffer("steps", (torch if nn is tnn else retrograd).zeros(2))
                self.register_buffer("scratch", (torch if nn is tnn else retrograd).ones(1), persistent=False)
                self.scale = nn.Parameter((torch if nn is tnn else retrograd).ones(3))

            def forward(self, x):
                return self.block(x) * 2

        return Net()


# ------------------------------------------------------------------------------ registration
def test_attribute_registration_and_iteration_match_torch():
    t, r = _Net.make(tnn), _Net.make(rnn)
    assert [n for n, _ in r.named_parameters()] == [n for n, _ in t.named_parameters()]
    assert [n for n, _ in r.named_buffers()] == [n for n, _ in t.named_buffers()]
    assert [n for n, _ in r.named_children()] == [n for n, _ in t.named_children()]
    assert [n for n, _ in r.named_modules()] == [n for n, _ in t.named_modules()]
    assert [type(m).__name__ for m in r.modules()] == [type(m).__name__ for m in t.modules()]
    assert len(list(r.parameters())) == len(list(t.parameters()))
    assert len(list(r.parameters(recurse=False))) == 1
    assert [n for n, _ in r.named_parameters(prefix="net")] == [n for n, _ in t.named_parameters(prefix="net")]
    assert isinstance(r.scale, rnn.Parameter) and isinstance(r.scale, retrograd.Tensor)
    assert list(r.state_dict().keys()) == list(t.state_dict().keys())


def test_shared_parameters_and_modules_are_deduplicated():
    for nn in (tnn, rnn):
        lin = nn.Linear(2, 2)
        seq = nn.Sequential(lin, lin)
        assert len(list(seq.parameters())) == 2
        assert [n for n, _ in seq.named_modules()] == ["", "0"]
        assert len(list(seq.named_modules(remove_duplicate=False))) == 3


def test_setattr_delattr_getattr_errors():
    t, r = tnn.Linear(2, 2), rnn.Linear(2, 2)
    _same_error(lambda: setattr(t, "weight", torch.ones(2, 2)), lambda: setattr(r, "weight", retrograd.ones(2, 2)))
    _same_error(lambda: t.nothing, lambda: r.nothing)
    _same_error(lambda: t.register_parameter("a.b", None), lambda: r.register_parameter("a.b", None))
    _same_error(lambda: t.register_parameter("", None), lambda: r.register_parameter("", None))
    _same_error(lambda: t.register_parameter("training", None), lambda: r.register_parameter("training", None))
    _same_error(lambda: t.register_parameter("w", torch.ones(1)), lambda: r.register_parameter("w", retrograd.ones(1)))
    _same_error(lambda: t.register_buffer("weight", torch.ones(1)),
                lambda: r.register_buffer("weight", retrograd.ones(1)))
    _same_error(lambda: t.register_buffer("b", 3), lambda: r.register_buffer("b", 3))
    _same_error(lambda: t.add_module("m", 3), lambda: r.add_module("m", 3))
    _same_error(lambda: t.add_module("a.b", tnn.ReLU()), lambda: r.add_module("a.b", rnn.ReLU()))
    t.sub = tnn.ReLU()
    r.sub = rnn.ReLU()
    _same_error(lambda: setattr(t, "sub", 3), lambda: setattr(r, "sub", 3))
    # a Parameter made from a non-leaf is a new leaf
    p = rnn.Parameter(retrograd.ones(2, requires_grad=True) * 2)
    assert p.is_leaf and p.grad_fn is None and p.requires_grad

    class Early(rnn.Module):
        def __init__(self):
            self.w = rnn.Parameter(retrograd.ones(1))

    class EarlyT(tnn.Module):
        def __init__(self):
            self.w = tnn.Parameter(torch.ones(1))

    _same_error(EarlyT, Early)
    # reassigning and deleting move names between the dicts
    r.extra = rnn.Parameter(retrograd.zeros(1))
    assert "extra" in r._parameters
    r.extra = None
    assert r._parameters["extra"] is None
    del r.extra
    assert "extra" not in r._parameters
    r.register_buffer("buf", retrograd.zeros(1))
    r.buf = retrograd.ones(1)
    assert r._buffers["buf"].item() == 1
    del r.buf
    assert "buf" not in r._buffers
    del r.sub
    assert "sub" not in r._modules
    r.plain = 3
    assert r.plain == 3 and "plain" in r.__dict__


def test_buffer_class_registers_buffers():
    r = rnn.Module()
    r.stat = rnn.Buffer(retrograd.zeros(2))
    r.tmp = rnn.Buffer(retrograd.zeros(2), persistent=False)
    assert list(dict(r.named_buffers())) == ["stat", "tmp"]
    assert list(r.state_dict()) == ["stat"]


def test_dir_lists_members():
    r = _Net.make(rnn)
    d = dir(r)
    for name in ("conv", "block", "steps", "scale", "forward", "training"):
        assert name in d
    assert d == sorted(d)
    assert "0" not in dir(r.block)


def test_forward_missing_and_call():
    _same_error(lambda: tnn.Module()(1), lambda: rnn.Module()(1))


# ------------------------------------------------------------------------------ modes, grads, apply
def test_train_eval_requires_grad_zero_grad_apply():
    r = _Net.make(rnn)
    assert r.training and r.block[1].training
    assert r.eval() is r
    assert not r.training and not r.block[1].training
    r.train()
    assert r.block[1].training
    with pytest.raises(ValueError, match="training mode is expected to be boolean"):
        r.train(1)
    r.requires_grad_(False)
    assert not any(p.requires_grad for p in r.parameters())
    r.requires_grad_()
    out = r(retrograd.ones(2, 4)).sum()
    out.backward()
    assert r.block[0].weight.grad is not None
    r.zero_grad(set_to_none=False)
    assert float(r.block[0].weight.grad.abs().sum()) == 0.0
    r.zero_grad()
    assert r.block[0].weight.grad is None
    seen = []
    assert r.apply(lambda m: seen.append(type(m).__name__)) is r
    assert seen == ["Conv2d", "Linear", "ReLU", "Linear", "Sequential", "Net"]


def test_to_double_float_cpu_keep_parameter_identity():
    r = _Net.make(rnn)
    w = r.block[0].weight
    r.block[0].weight.grad = retrograd.zeros(3, 4)
    assert r.double() is r
    assert r.block[0].weight is w and w.dtype is retrograd.float64
    assert w.grad.dtype is retrograd.float64
    assert r.steps.dtype is retrograd.float64
    r.to(retrograd.float32)
    assert w.dtype is retrograd.float32
    r.to("cpu")
    r.to(retrograd.device("cpu"), dtype=retrograd.float64)
    assert w.dtype is retrograd.float64
    r.float()
    assert r.cpu() is r and w.dtype is retrograd.float32
    _same_error(lambda: tnn.Linear(1, 1).to(torch.int64), lambda: rnn.Linear(1, 1).to(retrograd.int64))
    bn = rnn.BatchNorm1d(2).double()
    assert bn.num_batches_tracked.dtype is retrograd.int64


# ------------------------------------------------------------------------------ state dict
def test_state_dict_values_detached_and_round_trip():
    t, r = _Net.make(tnn), _Net.make(rnn)
    sd = r.state_dict()
    assert all(not v.requires_grad for v in sd.values())
    assert list(r.state_dict(keep_vars=True)["scale"].__class__.__mro__)[0] is rnn.Parameter
    res = r.load_state_dict({k: retrograd.tensor(v.numpy()) for k, v in t.state_dict().items()})
    assert repr(res) == repr(t.load_state_dict(t.state_dict())) == "<All keys matched successfully>"
    for k, v in t.state_dict().items():
        np.testing.assert_array_equal(r.state_dict()[k].numpy(), v.numpy())
    # state_dict tensors share memory with the parameters
    r.state_dict()["scale"].mul_(0)
    assert float(r.scale.detach().sum()) == 0.0


def test_load_state_dict_error_messages_identical():
    t, r = _Net.make(tnn), _Net.make(rnn)
    tsd = t.state_dict()
    rsd = r.state_dict()

    def both(mutate):
        a, b = dict(tsd), dict(rsd)
        mutate(a, torch)
        mutate(b, retrograd)
        _same_error(lambda: t.load_state_dict(a), lambda: r.load_state_dict(b))

    def missing(d, lib):
        del d["block.0.bias"], d["steps"]

    def unexpected(d, lib):
        d["block.5.weight"] = lib.zeros(1)
        d["extra"] = lib.zeros(1)

    def mismatch(d, lib):
        d["block.0.weight"] = lib.zeros(2, 4)

    def everything(d, lib):
        missing(d, lib)
        unexpected(d, lib)
        mismatch(d, lib)

    def not_tensor(d, lib):
        d["scale"] = 3

    for m in (missing, unexpected, mismatch, everything, not_tensor):
        both(m)
    # strict=False reports, does not raise
    a = dict(rsd)
    del a["scale"]
    a["zzz"] = retrograd.zeros(1)
    res = r.load_state_dict(a, strict=False)
    b = dict(tsd)
    del b["scale"]
    b["zzz"] = torch.zeros(1)
    tres = t.load_state_dict(b, strict=False)
    assert res == tres == (["scale"], ["zzz"])
    assert repr(res) == repr(tres)
    with pytest.raises(TypeError, match="Expected state_dict to be dict-like"):
        r.load_state_dict([1])


def test_load_state_dict_assign_and_batchnorm_old_checkpoints():
    r = rnn.Linear(2, 2)
    new_w = retrograd.ones(2, 2)
    r.load_state_dict({"weight": new_w, "bias": retrograd.zeros(2)}, assign=True)
    assert isinstance(r.weight, rnn.Parameter) and r.weight.requires_grad
    # a plain dict without num_batches_tracked loads (PyTorch treats it as a version-1 checkpoint)
    bn = rnn.BatchNorm1d(3)
    bn.load_state_dict({"weight": retrograd.ones(3), "bias": retrograd.zeros(3),
                        "running_mean": retrograd.zeros(3), "running_var": retrograd.ones(3)})


# ------------------------------------------------------------------------------ hooks
def _hook_run(nn, lib, x_np):
    log = []
    torch_like = lib
    m = nn.Linear(3, 2).double()
    with torch_like.no_grad():
        m.weight.copy_(torch_like.tensor(np.arange(6.).reshape(2, 3) / 7))
        m.bias.copy_(torch_like.tensor([0.5, -0.5]))
    h1 = m.register_forward_pre_hook(lambda mod, args: log.append(("pre", tuple(args[0].shape))))
    m.register_forward_pre_hook(lambda mod, args: (args[0] * 2,))
    m.register_forward_hook(lambda mod, args, out: log.append(("fwd", round(float(out.detach().sum()), 6))))
    m.register_forward_hook(lambda mod, args, out: out + 1)
    m.register_forward_pre_hook(lambda mod, args, kwargs: log.append(("kw", sorted(kwargs))), with_kwargs=True)

    def bw(mod, gin, gout):
        log.append(("bw", [None if g is None else np.round(g.detach().numpy(), 6).tolist() for g in gin],
                    [np.round(g.detach().numpy(), 6).tolist() for g in gout]))
        return (gin[0] * 10,)

    def bw_pre(mod, gout):
        log.append(("bwpre", [np.round(g.detach().numpy(), 6).tolist() for g in gout]))
        return (gout[0] * 3,)

    m.register_full_backward_hook(bw)
    m.register_full_backward_pre_hook(bw_pre)
    x = torch_like.tensor(x_np, requires_grad=True)
    out = m(x)
    out.sum().backward()
    log.append(("xgrad", np.round(x.grad.numpy(), 6).tolist()))
    log.append(("wgrad", np.round(m.weight.grad.numpy(), 6).tolist()))
    h1.remove()
    m(x)
    return log


def test_forward_and_full_backward_hooks_match_torch():
    x = np.array([[1.0, 2.0, 3.0], [0.5, -1.0, 2.0]])
    assert _hook_run(rnn, retrograd, x) == _hook_run(tnn, torch, x)


def test_full_backward_hook_when_input_needs_no_grad():
    logs = []
    for nn, lib in ((tnn, torch), (rnn, retrograd)):
        log = []
        m = nn.Linear(2, 1)
        m.register_full_backward_hook(lambda mod, gin, gout: log.append((gin, tuple(g.shape for g in gout))))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            m(lib.ones(3, 2)).sum().backward()
        logs.append(log)
    assert logs[0] == [((None,), ((3, 1),))]
    assert logs[1] == [((None,), ((3, 1),))]


def test_hook_handles_and_grad_fn_of_wrapped_outputs():
    m = rnn.Linear(2, 2)
    h = m.register_full_backward_hook(lambda *a: None)
    y = m(retrograd.ones(1, 2, requires_grad=True))
    assert type(y.grad_fn).__name__ == "BackwardHookFunctionBackward"
    h.remove()
    assert type(m(retrograd.ones(1, 2, requires_grad=True)).grad_fn).__name__ != "BackwardHookFunctionBackward"


# ------------------------------------------------------------------------------ repr
def test_reprs_identical():
    t, r = _Net.make(tnn), _Net.make(rnn)
    assert repr(r) == R(repr(t))

    def build(nn):
        return nn.Sequential(
            nn.Conv2d(3, 8, 3, stride=2, padding=1, bias=False), nn.BatchNorm2d(8), nn.ReLU(inplace=True),
            nn.MaxPool2d(2), nn.Conv1d(2, 2, 3, dilation=2, groups=2, padding_mode="reflect", padding=1),
            nn.ConvTranspose2d(8, 4, 3, stride=2, output_padding=1), nn.AvgPool2d(2), nn.AvgPool1d(3),
            nn.AdaptiveAvgPool2d((5, 7)), nn.AdaptiveMaxPool2d(1), nn.Flatten(), nn.Unflatten(1, (2, 4)),
            nn.Dropout(0.2), nn.Linear(4, 2), nn.Bilinear(2, 3, 4), nn.LayerNorm([4, 2]), nn.GroupNorm(2, 4),
            nn.Embedding(10, 3, padding_idx=0, max_norm=1.0), nn.LeakyReLU(0.2), nn.ELU(), nn.GELU("tanh"),
            nn.SiLU(), nn.Mish(), nn.Softplus(2.0), nn.Tanh(), nn.Sigmoid(), nn.Softmax(dim=1), nn.LogSoftmax(1),
            nn.Hardtanh(-2.0, 2.0), nn.ReLU6(), nn.Identity(), nn.RNN(3, 4, 2, nonlinearity="relu"),
            nn.LSTM(3, 4, batch_first=True, bidirectional=True, proj_size=2), nn.GRU(3, 4, dropout=0.5,
                                                                                      num_layers=2),
            nn.MultiheadAttention(8, 2, batch_first=True), nn.TransformerEncoderLayer(8, 2, 16),
            nn.TransformerEncoderLayer(8, 2, 16, activation=nn.GELU()),
            nn.MSELoss(), nn.L1Loss(), nn.SmoothL1Loss(), nn.HuberLoss(), nn.CrossEntropyLoss(label_smoothing=0.1),
            nn.NLLLoss(), nn.BCELoss(), nn.BCEWithLogitsLoss(), nn.KLDivLoss(), nn.BatchNorm1d(3, affine=False),
            nn.ModuleList([nn.Linear(2, 2), nn.Linear(2, 2), nn.Linear(2, 2), nn.ReLU(), nn.Linear(2, 2)]),
            nn.ModuleDict({"a": nn.ReLU(), "b": nn.Sequential(nn.Tanh())}), nn.ModuleList(),
            nn.Sequential(nn.Sequential(nn.Linear(1, 1))),
        )

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        torch.manual_seed(0)
        tt, rr = build(tnn), build(rnn)
    assert repr(rr) == R(repr(tt))
    assert list(rr.state_dict()) == list(tt.state_dict())


def test_parameter_repr_and_parameter_containers():
    t, r = tnn.Parameter(torch.tensor([1.0, 2.0])), rnn.Parameter(retrograd.tensor([1.0, 2.0]))
    assert repr(r) == R(repr(t))
    assert repr(rnn.Parameter(retrograd.tensor([1.0]), requires_grad=False)) == \
        R(repr(tnn.Parameter(torch.tensor([1.0]), requires_grad=False)))
    assert type(r * 2) is retrograd.Tensor and type(r + r) is retrograd.Tensor
    assert type(r.detach()) is retrograd.Tensor and type(r.data) is retrograd.Tensor
    assert r.is_leaf and r.requires_grad
    c = copy.deepcopy(r)
    assert type(c) is rnn.Parameter and c.requires_grad and c is not r
    p = pickle.loads(pickle.dumps(r))
    assert type(p) is rnn.Parameter and p.tolist() == [1.0, 2.0]
    tl = tnn.ParameterList([tnn.Parameter(torch.ones(2, 3)), torch.zeros(4)])
    rl = rnn.ParameterList([rnn.Parameter(retrograd.ones(2, 3)), retrograd.zeros(4)])
    assert repr(rl) == R(repr(tl))
    assert isinstance(rl[1], rnn.Parameter) and len(rl) == 2
    rl.append(retrograd.ones(1))
    assert [n for n, _ in rl.named_parameters()] == ["0", "1", "2"]
    td = tnn.ParameterDict({"b": tnn.Parameter(torch.ones(2)), "a": torch.zeros(3, 1)})
    rd = rnn.ParameterDict({"b": rnn.Parameter(retrograd.ones(2)), "a": retrograd.zeros(3, 1)})
    assert repr(rd) == R(repr(td))
    assert list(rd.keys()) == list(td.keys())
    with pytest.raises(RuntimeError, match="ParameterList should not be called."):
        rl()


# ------------------------------------------------------------------------------ containers
def test_sequential_indexing_slicing_append():
    layers = [rnn.Linear(2, 3), rnn.ReLU(), rnn.Linear(3, 1)]
    s = rnn.Sequential(*layers)
    assert len(s) == 3 and s[0] is layers[0] and s[-1] is layers[2]
    sl = s[1:]
    assert isinstance(sl, rnn.Sequential) and list(sl) == layers[1:]
    assert [n for n, _ in sl.named_children()] == ["1", "2"]
    with pytest.raises(IndexError, match="index 3 is out of range"):
        s[3]
    s.append(rnn.Sigmoid())
    assert len(s) == 4 and isinstance(s[3], rnn.Sigmoid)
    s[1] = rnn.Tanh()
    assert isinstance(s[1], rnn.Tanh)
    del s[1]
    assert [n for n, _ in s.named_children()] == ["0", "1", "2"]
    s.insert(1, rnn.ReLU())
    assert isinstance(s[1], rnn.ReLU) and len(s) == 4
    from collections import OrderedDict

    named = rnn.Sequential(OrderedDict([("fc", rnn.Linear(2, 2)), ("act", rnn.ReLU())]))
    assert named.fc is named[0]
    out = named(retrograd.ones(1, 2))
    assert out.shape == (1, 2)
    assert len(s + named) == 6


def test_module_list_and_dict():
    ml = rnn.ModuleList([rnn.Linear(1, 1) for _ in range(3)])
    ml.append(rnn.ReLU())
    ml.extend([rnn.Tanh()])
    ml.insert(0, rnn.Sigmoid())
    assert [type(m).__name__ for m in ml] == ["Sigmoid", "Linear", "Linear", "Linear", "ReLU", "Tanh"]
    assert len(list(ml.parameters())) == 6
    assert isinstance(ml[1:3], rnn.ModuleList) and len(ml[1:3]) == 2
    del ml[0]
    assert type(ml[0]).__name__ == "Linear"
    with pytest.raises(IndexError, match="index 10 is out of range"):
        ml[10]
    md = rnn.ModuleDict({"lin": rnn.Linear(1, 1)})
    md["act"] = rnn.ReLU()
    assert list(md.keys()) == ["lin", "act"] and "act" in md and len(md) == 2
    assert md.pop("act").__class__ is rnn.ReLU
    assert list(md) == ["lin"]


def _net(T):
    class Net(T.nn.Module):
        def __init__(self):
            super().__init__()
            self.fc = T.nn.Linear(2, 3)
            self.seq = T.nn.Sequential(T.nn.Linear(3, 3), T.nn.ReLU())
    return Net()


def test_load_state_dict_post_hooks_run_after_subtree_with_full_keys():
    def run(T):
        m = _net(T)
        log = []

        def post(mod, inc):
            log.append((type(mod).__name__, list(inc.missing_keys), list(inc.unexpected_keys)))
        m.register_load_state_dict_post_hook(post)
        m.seq.register_load_state_dict_post_hook(post)
        sd = m.state_dict()
        del sd["fc.weight"]
        sd["zz"] = T.ones(1)
        res = m.load_state_dict(sd, strict=False)
        m.register_load_state_dict_post_hook(lambda mod, inc: (inc.missing_keys.clear(), inc.unexpected_keys.clear())
                                             and None)
        return log, repr(res), repr(m.load_state_dict(sd))
    a, b = _both(run)
    assert a == b


@pytest.mark.parametrize("case", ["empty", "not_module", "new", "strict_missing", "not_module_target", "replace"])
def test_set_submodule(case):
    def run(T):
        m = _net(T)
        m.x = 3
        if case == "empty":
            m.set_submodule("", T.nn.ReLU())
        elif case == "not_module":
            m.set_submodule("fc", 3)
        elif case == "new":
            m.set_submodule("seq.extra", T.nn.ReLU())
        elif case == "strict_missing":
            m.set_submodule("seq.extra", T.nn.ReLU(), strict=True)
        elif case == "not_module_target":
            m.set_submodule("x", T.nn.ReLU())
        else:
            m.set_submodule("seq.0", T.nn.Tanh(), strict=True)
        return repr(m)
    a, b = _both(run)
    assert a == b


def test_module_to_int_device_and_bfloat16_method():
    a, b = _both(lambda T: T.nn.Linear(1, 1).to(3))
    assert a == b
    m = retrograd.nn.Linear(1, 1)
    assert m.bfloat16() is m
    assert m.to_empty(device="cpu") is m and m.weight.shape == (1, 1)


@pytest.mark.parametrize("case", ["reg_empty", "reg_dot", "reg_exists", "param_tensor", "mod_before_init",
                                  "buffer_dot", "module_dot", "param_not_param"])
def test_registration_errors(case):
    def run(T):
        m = T.nn.Linear(1, 1)
        m.foo = 1
        if case == "reg_empty":
            m.register_buffer("", None)
        elif case == "reg_dot":
            m.register_parameter("a.b", None)
        elif case == "reg_exists":
            m.register_buffer("foo", None)
        elif case == "param_tensor":
            m.weight = T.zeros(1, 1)
        elif case == "mod_before_init":
            class A(T.nn.Module):
                def __init__(self):
                    self.l = T.nn.Linear(1, 1)
            A()
        elif case == "buffer_dot":
            m.register_buffer("a.b", T.ones(1))
        elif case == "module_dot":
            m.add_module("a.b", T.nn.ReLU())
        else:
            m.register_parameter("y", T.ones(1))
    a, b = _both(run)
    assert a[0] != "ok" and a == b


def test_state_dict_and_load_messages():
    def run(T):
        m = _net(T)
        sd = m.state_dict()
        out = [list(sd), dict(sd._metadata), repr(m.load_state_dict(sd))]
        sd2 = OrderedDict(sd)
        del sd2["fc.bias"]
        sd2["extra"] = T.zeros(1)
        sd2["seq.9.x"] = T.zeros(1)
        out.append(repr(m.load_state_dict(sd2, strict=False)))
        out.append(_outcome(lambda: m.load_state_dict(sd2)))
        return out
    a, b = _both(run)
    assert a == b


def test_load_state_dict_assign_keeps_the_modules_requires_grad():
    def run(T):
        m = T.nn.Linear(2, 2)
        p = T.nn.Parameter(T.ones(2, 2), requires_grad=False)
        m.load_state_dict({"weight": p, "bias": T.zeros(2)}, assign=True)
        return m.weight is p, m.weight.requires_grad

    assert run(rg) == run(torch)


def test_state_dict_positional_args_still_work():
    m = rg.nn.Linear(1, 1)
    with pytest.warns(FutureWarning):
        sd = m.state_dict(None, "p.", True)
    assert list(sd) == ["p.weight", "p.bias"] and sd["p.weight"] is m.weight
