"""Differential checks of nn.Module / containers / Parameter / nn.utils against PyTorch (the oracle)."""
import copy
from collections import OrderedDict

import pytest

import retrograd

torch = pytest.importorskip("torch")

LIBS = [torch, retrograd]


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - compared between libraries
        return (type(e).__name__, str(e).replace("retrograd", "torch"))


def _both(fn):
    return [_outcome(lambda T=T: fn(T)) for T in LIBS]


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


@pytest.mark.parametrize("expr", ["2 * s", "s * 2", "s.__imul__(2)", "s * 0", "s * 1.5", "s.__imul__(0)"])
def test_sequential_mul(expr):
    def run(T):
        s = T.nn.Sequential(T.nn.Linear(1, 1), T.nn.ReLU())
        out = eval(expr, {"s": s})
        return repr(out), out is s, [n for n, _ in out.named_modules(remove_duplicate=False)]
    a, b = _both(run)
    assert a == b


def test_module_to_int_device_and_bfloat16_method():
    a, b = _both(lambda T: T.nn.Linear(1, 1).to(3))
    assert a == b
    m = retrograd.nn.Linear(1, 1)
    assert m.bfloat16() is m
    assert m.to_empty(device="cpu") is m and m.weight.shape == (1, 1)


@pytest.mark.parametrize("data", ["list", "int", "int_tensor", "int_tensor_nograd"])
def test_parameter_construction_errors(data):
    def run(T):
        d = {"list": [1.0], "int": 3, "int_tensor": T.tensor([1, 2]),
             "int_tensor_nograd": T.tensor([1, 2])}[data]
        p = T.nn.Parameter(d, requires_grad=data != "int_tensor_nograd")
        return repr(p)
    a, b = _both(run)
    assert a == b


def test_parameter_deepcopy_drops_grad():
    for T in LIBS:
        p = T.nn.Parameter(T.ones(2))
        p.grad = T.ones(2)
        q = copy.deepcopy(p)
        assert type(q).__name__ == "Parameter" and q.grad is None and q.requires_grad
        m = T.nn.Linear(1, 1)
        m(T.ones(1, 1)).sum().backward()
        assert copy.deepcopy(m).weight.grad is None


@pytest.mark.parametrize("case", ["trailing_mismatch", "trailing_broadcast", "lengths_len", "empty"])
def test_rnn_utils_errors(case):
    def run(T):
        R = T.nn.utils.rnn
        if case == "trailing_mismatch":
            return R.pad_sequence([T.ones(2, 3), T.ones(1, 4)]).tolist()
        if case == "trailing_broadcast":
            return R.pad_sequence([T.ones(2, 3), T.full((1, 1), 2.0)], batch_first=True).tolist()
        if case == "lengths_len":
            return R.pack_padded_sequence(T.ones(3, 4), [3, 2], batch_first=True).data.tolist()
        return R.pack_padded_sequence(T.ones(0, 2), [], batch_first=True).data.tolist()
    a, b = _both(run)
    assert a == b


def test_fuse_linear_bn_message():
    a, b = _both(lambda T: T.nn.utils.fuse_linear_bn_eval(T.nn.Linear(2, 3).eval(), T.nn.BatchNorm1d(4).eval()))
    assert a[0] == "AssertionError" and a == b


@pytest.mark.parametrize("norm_type", [2.0, 1, 3.5, float("inf"), "inf", 0.5])
@pytest.mark.parametrize("foreach", [None, True])
def test_clip_grad_norm(norm_type, foreach):
    res = []
    for T in LIBS:
        ps = []
        for i, shp in enumerate([(3,), (2, 2), (1,)]):
            n = 1
            for s in shp:
                n *= s
            p = T.nn.Parameter(T.arange(n, dtype=T.float32).reshape(shp))
            p.grad = (T.arange(n, dtype=T.float32).reshape(shp) - 2.0) * (i + 1)
            ps.append(p)
        tot = T.nn.utils.clip_grad_norm_(ps, 1.0, norm_type=norm_type, foreach=foreach)
        res.append((tot.item(), [x for p in ps for x in p.grad.reshape(-1).tolist()]))
    assert res[0][0] == pytest.approx(res[1][0], rel=1e-5)
    assert res[0][1] == pytest.approx(res[1][1], rel=1e-5, abs=1e-6)


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
