"""Small behaviours client scripts meet, checked against PyTorch 2.13: the version string,
torch.tensor of lists of tensors, out= on the matrix products, legacy tensor types, the
warnings PyTorch gives, silent empty reductions, names and reprs, and torch.cpu."""
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

import retrograd as rg
import retrograd.cpu as rg_cpu
import retrograd.version as rg_version
from retrograd import _creation

torch = pytest.importorskip("torch")

ROOT = Path(__file__).resolve().parents[1]


def _outcome(fn):
    """(kind, payload) of calling fn: its value as nested lists + dtype name, or the exception."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception itself is compared)
        return ("exc", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return ("tensor", str(r.dtype).split(".")[-1], r.tolist())
    return ("value", r)


def _recorded(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category.__name__, str(x.message).split(" (Triggered internally")[0]) for x in w]


# ---------------------------------------------------------------- 1. __version__ and retrograd.version
def test_version_value_and_module_attributes():
    v = rg_version.__version__
    assert isinstance(v, str) and v == "2.13.0"
    assert str.__eq__(v, torch.__version__.split("+")[0])
    assert type(v).__name__ == "TorchVersion"
    assert rg_version.cuda is torch.version.cuda is None
    assert rg_version.hip is torch.version.hip is None
    assert rg_version.debug is torch.version.debug is False
    assert isinstance(rg_version.git_version, str)
    pyproject = (ROOT / "pyproject.toml").read_text()
    assert f'version = "{rg_version.retrograd_version}"' in pyproject
    assert hash(v) == hash("2.13.0") and v in {"2.13.0"}


VERSIONS = ["2.13.0", "2.13", "2.13.0+cpu", "2.13.0a0", "2.13.0rc1", "2.13.0.dev20250101", "2.13.0.post1",
            "2.2", "2.10", "1.13.1", "2", "3.0", "parrot", "2.13.0b2", "2.13.0rc1.dev2", "1!1.0", ""]
OTHERS = VERSIONS + [(2,), (2, 13), (2, 13, 0), (2, 13, 1), (1, 9), [2, 0]]


@pytest.mark.parametrize("left", VERSIONS)
def test_version_compares_like_torch_version(left):
    from torch.torch_version import TorchVersion

    ours, theirs = rg_version.TorchVersion(left), TorchVersion(left)
    for other in OTHERS:
        for op in ("__lt__", "__le__", "__eq__", "__ne__", "__ge__", "__gt__"):
            assert getattr(ours, op)(other) == getattr(theirs, op)(other), (left, op, other)


def test_version_typical_client_checks():
    v = rg_version.__version__
    assert v >= "2.0" and v >= (2, 0) and v < (3,) and v.split(".")[:2] == ["2", "13"]
    packaging = pytest.importorskip("packaging.version")
    assert packaging.parse(v) == packaging.parse(torch.__version__.split("+")[0])
    assert packaging.parse(v) >= packaging.Version("2.0")


# ---------------------------------------------------------------- 2. torch.tensor of lists of tensors
TENSOR_LIST_CASES = {
    "one-element 1-d": lambda T: T.tensor([T.tensor([1.]), T.tensor([2.])]),
    "0-d": lambda T: T.tensor([T.tensor(1.), T.tensor(2.)]),
    "0-d int": lambda T: T.tensor([T.tensor(1), T.tensor(2)]),
    "0-d int and float": lambda T: T.tensor([T.tensor(1), 2.5]),
    "one-element 2-d": lambda T: T.tensor([T.ones(1, 1), T.ones(1, 1)]),
    "nested": lambda T: T.tensor([[T.tensor([1.])], [T.tensor([2.])]]),
    "nested mixed": lambda T: T.tensor([[T.tensor(1.)], [2.]]),
    "float64 promotes": lambda T: T.tensor([T.tensor([1.], dtype=T.float64), T.tensor([2.])]),
    "int32 and int16": lambda T: T.tensor([T.tensor(2, dtype=T.int32), T.tensor(3, dtype=T.int16)]),
    "tuple": lambda T: T.tensor((T.tensor([1.]), T.tensor([2.]))),
    "int tensors, float dtype": lambda T: T.tensor([T.tensor([1]), T.tensor([2])], dtype=T.float32),
    "float tensors, int dtype": lambda T: T.tensor([T.tensor([1.]), T.tensor([2.])], dtype=T.int64),
    "multi-element": lambda T: T.tensor([T.tensor([1., 2.]), T.tensor([2., 3.])]),
    "multi-element 2-d": lambda T: T.tensor([T.ones(2, 2)]),
    "empty element": lambda T: T.tensor([T.ones(0)]),
    "ragged": lambda T: T.tensor([[T.tensor(1.)], [T.tensor(2.), 3.]]),
    "ndarrays": lambda T: T.tensor([np.ones(2), np.zeros(2)]),
    "ndarrays nested": lambda T: T.tensor([[np.ones(2)], [np.ones(2)]]),
    "ndarray and list": lambda T: T.tensor([np.ones(2, dtype=np.float32), [1., 2.]]),
    "0-d ndarrays": lambda T: T.tensor([np.array(1.), np.array(2.)]),
    "numpy scalars": lambda T: T.tensor([np.float64(1), np.float64(2)]),
}


@pytest.mark.parametrize("case", list(TENSOR_LIST_CASES))
def test_tensor_of_list_of_tensors_like_torch(case):
    fn = TENSOR_LIST_CASES[case]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        assert _outcome(lambda: fn(rg)) == _outcome(lambda: fn(torch))


def test_tensor_of_tensors_requiring_grad_warns_and_is_a_leaf():
    a = rg.ones(1, requires_grad=True)
    w = _recorded(lambda: rg.tensor([a, a]))
    assert w == [("UserWarning", "Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                                 "behavior.\nConsider using tensor.detach() first.")]
    t = rg.tensor([a, a])
    assert t.grad_fn is None and not t.requires_grad


# ---------------------------------------------------------------- 3. out=
def _out_cases(T):
    a, b, v = T.ones(2, 3), T.arange(6.).reshape(3, 2), T.arange(3.)
    return {
        "matmul": (T.matmul, (a, b)), "mm": (T.mm, (a, b)), "bmm": (T.bmm, (a[None], b[None])),
        "mv": (T.mv, (a, v)), "dot": (T.dot, (v, v)),
        "matmul 3d@2d": (T.matmul, (T.ones(4, 2, 3), b)), "matmul 1d@2d": (T.matmul, (v, b)),
        "matmul 1d@3d": (T.matmul, (T.ones(2), T.ones(4, 2, 3))), "matmul 1d@1d": (T.matmul, (v, v)),
    }


@pytest.mark.parametrize("name", list(_out_cases(torch)))
@pytest.mark.parametrize("out_kind", ["empty", "right", "wrong shape", "float64", "int64", "list", "arg grad",
                                      "out grad", "arg grad no_grad"])
def test_matrix_products_out_like_torch(name, out_kind):
    def run(T):
        fn, args = _out_cases(T)[name]
        expected = fn(*args)
        if out_kind in ("arg grad", "arg grad no_grad"):
            args = (args[0].clone().requires_grad_(), *args[1:])
        out = {"empty": lambda: T.empty(0), "right": lambda: T.empty(expected.shape),
               "wrong shape": lambda: T.empty(7), "float64": lambda: T.empty(0, dtype=T.float64),
               "int64": lambda: T.empty(0, dtype=T.int64), "list": lambda: [1],
               "out grad": lambda: T.empty(0, requires_grad=True)}.get(out_kind, lambda: T.empty(0))()
        warned = []

        def call():
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                if out_kind == "arg grad no_grad":
                    with T.no_grad():
                        r = fn(*args, out=out)
                else:
                    r = fn(*args, out=out)
            warned.extend(str(x.message).split(" (Triggered internally")[0] for x in w)
            assert r is out
            return r
        return _outcome(call), warned
    assert run(rg) == run(torch)


def test_matmul_out_writes_into_a_view():
    def run(T):
        base = T.zeros(3, 2)
        T.matmul(T.ones(2, 3), T.arange(6.).reshape(3, 2), out=base[:2])
        return base.tolist()
    assert run(rg) == run(torch)


@pytest.mark.parametrize("name", ["add", "cat", "stack"])
def test_other_common_out_users_accept_out(name):
    def run(T):
        a = T.arange(6.).reshape(2, 3)
        fn, args, shape = {"add": (T.add, (a, 1), (2, 3)), "cat": (T.cat, ([a, a],), (4, 3)),
                           "stack": (T.stack, ([a, a],), (2, 2, 3))}[name]
        out = T.empty(shape)
        assert fn(*args, out=out) is out
        return out.tolist()
    assert run(rg) == run(torch)


# ---------------------------------------------------------------- 4. legacy tensor types
LEGACY_CASES = {
    "names": lambda T: (T.FloatTensor.__name__, T.FloatTensor.__module__.replace("retrograd", "torch"),
                        type(T.FloatTensor).__name__, repr(T.FloatTensor).replace("retrograd", "torch")),
    "isinstance": lambda T: (isinstance(T.ones(2), T.FloatTensor), isinstance(T.ones(2, dtype=T.float64),
                             T.FloatTensor), isinstance(T.ones(2), T.DoubleTensor), isinstance(
                             T.nn.Parameter(T.ones(2)), T.FloatTensor), isinstance(1, T.FloatTensor),
                             isinstance(T.ones(1, dtype=T.int64), T.LongTensor), isinstance(T.ones(1), T.Tensor)),
    "not subclasses": lambda T: (issubclass(T.Tensor, T.FloatTensor), issubclass(T.FloatTensor, T.Tensor)),
    "attributes": lambda T: (str(T.FloatTensor.dtype).split(".")[1], T.FloatTensor.is_cuda,
                             T.FloatTensor.is_sparse),
    "sizes": lambda T: T.FloatTensor(2, 3).shape,
    "sizes type": lambda T: type(T.FloatTensor(2, 3)).__name__,
    "Size": lambda T: T.FloatTensor(T.Size([2, 3])).shape,
    "numpy int size": lambda T: T.FloatTensor(np.int64(2)).shape,
    "list": lambda T: T.FloatTensor([1, 2]),
    "tuple": lambda T: T.FloatTensor((1, 2)),
    "range": lambda T: T.FloatTensor(range(3)),
    "ndarray": lambda T: T.FloatTensor(np.ones(2)),
    "0-d ndarray": lambda T: T.FloatTensor(np.array(2.)),
    "empty": lambda T: T.FloatTensor(),
    "long from floats": lambda T: T.LongTensor([1.5, 2]),
    "int": lambda T: T.IntTensor([1]), "short": lambda T: T.ShortTensor([1]), "char": lambda T: T.CharTensor([1]),
    "byte": lambda T: T.ByteTensor([1, 2]), "bool": lambda T: T.BoolTensor([1, 0]),
    "half": lambda T: T.HalfTensor([1]), "double sizes": lambda T: (T.DoubleTensor(3).shape,
                                                                     T.DoubleTensor(3).dtype == T.float64),
    "same-dtype tensor": lambda T: T.FloatTensor(T.ones(2)),
    "tensor requiring grad": lambda T: (lambda r: (r.tolist(), type(r.grad_fn).__name__))(
        T.FloatTensor(T.ones(2, requires_grad=True))),
    "shares memory": lambda T: (lambda a: T.FloatTensor(a).data_ptr() == a.data_ptr())(T.ones(2)),
    "other-dtype tensor": lambda T: T.FloatTensor(T.ones(2, dtype=T.float64)),
    "0-d long tensor": lambda T: T.FloatTensor(T.tensor(2)),
    "float scalar": lambda T: T.FloatTensor(2.5), "bool scalar": lambda T: T.FloatTensor(True),
    "None": lambda T: T.FloatTensor(None), "str": lambda T: T.FloatTensor("a"),
    "dtype kwarg": lambda T: T.FloatTensor([1], dtype=T.float64),
    "requires_grad kwarg": lambda T: T.FloatTensor([1.], requires_grad=True),
    "device kwarg": lambda T: T.FloatTensor([1], device="cpu"),
    "negative size": lambda T: T.FloatTensor(2, -3),
    "size then list": lambda T: T.FloatTensor(2, [1]),
    "size then None": lambda T: T.FloatTensor(2, None),
    "ragged": lambda T: T.FloatTensor([[1], [2, 3]]),
    "type(FloatTensor)": lambda T: T.ones(2).type(T.FloatTensor),
    "type(DoubleTensor)": lambda T: T.ones(2).type(T.DoubleTensor),
    "type(LongTensor)": lambda T: T.ones(2).type(T.LongTensor),
    "type('torch.DoubleTensor')": lambda T: T.ones(2).type("torch.DoubleTensor"),
    "type(Tensor)": lambda T: T.ones(2, dtype=T.float64).type(T.Tensor),
    "type same is self": lambda T: (lambda x: x.type(T.FloatTensor) is x)(T.ones(2)),
    "type keeps grad": lambda T: (lambda r: (r.dtype == T.float64, type(r.grad_fn).__name__))(
        T.ones(2, requires_grad=True).type(T.DoubleTensor, non_blocking=True)),
    "type bad": lambda T: T.ones(2).type(int),
    "typename": lambda T: T.typename(T.FloatTensor([1])),
}


@pytest.mark.parametrize("case", list(LEGACY_CASES))
def test_legacy_tensor_types_like_torch(case):
    fn = LEGACY_CASES[case]
    assert _outcome(lambda: fn(rg)) == _outcome(lambda: fn(torch))


# ---------------------------------------------------------------- 5. warnings
_TORCH_WARNINGS_SCRIPT = r"""
import warnings, json, numpy as np, torch
from torch.autograd import Variable
out = {}
def rec(name, f):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        f()
    out[name] = [(x.category.__name__, str(x.message).split(" (Triggered internally")[0]) for x in w]
ro = np.ones(3); ro.flags.writeable = False
rec("from_numpy read-only twice", lambda: (torch.from_numpy(ro), torch.from_numpy(ro), torch.as_tensor(ro)))
rec("list of ndarrays twice", lambda: (torch.tensor([np.ones(2), np.zeros(2)]), torch.tensor([np.ones(2)])))
m = torch.nn.Linear(1, 1)
rec("state_dict positional", lambda: (m.state_dict({}, "p."), m.state_dict({}), m.state_dict(destination={})))
rec("Variable volatile", lambda: (Variable(torch.ones(1), volatile=True), Variable(torch.ones(1), False, True),
                                  Variable(torch.ones(1), volatile=False)))
def double(x):
    return x * 2
rec("jit script", lambda: torch.jit.script(double))
rec("jit trace function", lambda: torch.jit.trace(double, torch.ones(1)))
rec("jit trace function unchecked", lambda: torch.jit.trace(double, torch.ones(1), check_trace=False))
rec("jit trace module unchecked", lambda: torch.jit.trace(torch.nn.Linear(1, 1), torch.ones(1, 1),
                                                          check_trace=False))
rec("jit trace_module unchecked", lambda: torch.jit.trace_module(torch.nn.Linear(1, 1),
                                                                 {"forward": torch.ones(1, 1)}, check_trace=False))
class I:
    def f(self, x: int) -> int:
        pass
rec("jit interface", lambda: torch.jit.interface(I))
print(json.dumps(out))
"""


@pytest.fixture(scope="module")
def torch_warnings(tmp_path_factory):
    # A fresh process: PyTorch gives some of these once per process (and TorchScript wants
    # the source of what it compiles, so the script is a file).
    import json

    script = tmp_path_factory.mktemp("polish") / "torch_warnings.py"
    script.write_text(_TORCH_WARNINGS_SCRIPT)
    p = subprocess.run([sys.executable, str(script)], capture_output=True, text=True, check=True)
    return {k: [tuple(x) for x in v if x[0] != "TracerWarning"] for k, v in json.loads(p.stdout).items()}


def _rg_warnings(name):
    from retrograd.autograd import Variable

    ro = np.ones(3)
    ro.flags.writeable = False
    m = rg.nn.Linear(1, 1)

    class I:
        def f(self, x: int) -> int:
            pass

    def double(x):
        return x * 2

    calls = {
        "from_numpy read-only twice": lambda: (rg.from_numpy(ro), rg.from_numpy(ro), rg.as_tensor(ro)),
        "list of ndarrays twice": lambda: (rg.tensor([np.ones(2), np.zeros(2)]), rg.tensor([np.ones(2)])),
        "state_dict positional": lambda: (m.state_dict({}, "p."), m.state_dict({}), m.state_dict(destination={})),
        "Variable volatile": lambda: (Variable(rg.ones(1), volatile=True), Variable(rg.ones(1), False, True),
                                      Variable(rg.ones(1), volatile=False)),
        "jit script": lambda: rg.jit.script(double),
        "jit trace function": lambda: rg.jit.trace(double, rg.ones(1)),
        "jit trace function unchecked": lambda: rg.jit.trace(double, rg.ones(1), check_trace=False),
        "jit trace module unchecked": lambda: rg.jit.trace(rg.nn.Linear(1, 1), rg.ones(1, 1), check_trace=False),
        "jit trace_module unchecked": lambda: rg.jit.trace_module(rg.nn.Linear(1, 1), {"forward": rg.ones(1, 1)},
                                                                  check_trace=False),
        "jit interface": lambda: rg.jit.interface(I),
    }
    _creation._WARNED_ONCE.clear()  # (as in a fresh process)
    return _recorded(calls[name])


@pytest.mark.parametrize("name", ["from_numpy read-only twice", "list of ndarrays twice", "state_dict positional",
                                  "Variable volatile", "jit script", "jit trace function",
                                  "jit trace function unchecked", "jit trace module unchecked",
                                  "jit trace_module unchecked", "jit interface"])
def test_warnings_like_torch(torch_warnings, name):
    assert _rg_warnings(name) == torch_warnings[name]
    assert torch_warnings[name]  # (each case does warn in torch)


def test_state_dict_positional_args_still_work():
    m = rg.nn.Linear(1, 1)
    with pytest.warns(FutureWarning):
        sd = m.state_dict(None, "p.", True)
    assert list(sd) == ["p.weight", "p.bias"] and sd["p.weight"] is m.weight


def test_jit_warnings_are_attributed_to_retrograd_so_hidden_by_default():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rg.jit.script(lambda x: x)
    assert w[0].filename.endswith("jit.py")


# ---------------------------------------------------------------- 6. empty reductions are silent
EMPTY_REDUCTIONS = {
    "mean all": lambda T: T.tensor([]).mean(),
    "mean dim 0": lambda T: T.zeros(0, 3).mean(0),
    "mean dim 1": lambda T: T.zeros(0, 3).mean(1),
    "mean keepdim f64": lambda T: T.zeros(0, 3, dtype=T.float64).mean(0, keepdim=True),
    "var": lambda T: T.tensor([]).var(),
    "std": lambda T: T.tensor([]).std(),
    "var dim": lambda T: T.zeros(0, 3).var(0),
    "std dim 1": lambda T: T.zeros(0, 3).std(1),
    "var_mean": lambda T: T.var_mean(T.tensor([]))[1],
    "std_mean dim": lambda T: T.std_mean(T.zeros(0, 2), 0)[1],
    "mean grad": lambda T: (lambda x: (x.mean(0).sum().backward(), x.grad)[1])(T.zeros(0, 3, requires_grad=True)),
}


@pytest.mark.parametrize("case", list(EMPTY_REDUCTIONS))
def test_empty_reductions_are_nan_without_numpy_warnings(case):
    fn = EMPTY_REDUCTIONS[case]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        ours = _outcome(lambda: fn(rg))
    assert [str(x.message) for x in w if x.category is RuntimeWarning] == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = _outcome(lambda: fn(torch))
    assert str(ours).replace("nan", "NaN") == str(theirs).replace("nan", "NaN")


# ---------------------------------------------------------------- 7. names, reprs, storage, operators
def test_size_and_device_classes_print_as_public_names():
    assert repr(type(rg.ones(2, 3).shape)) == repr(type(torch.ones(2, 3).shape)).replace("torch", "retrograd")
    assert repr(type(rg.device("cpu"))) == "<class 'retrograd.device'>"
    import pickle

    assert pickle.loads(pickle.dumps(rg.ones(2, 3).shape)) == (2, 3)


def test_linalg_error_class_name_like_torch():
    def run(T):
        try:
            T.linalg.inv(T.zeros(2, 2))
        except T.linalg.LinAlgError as e:
            return type(e).__name__, isinstance(e, RuntimeError), repr(T.linalg.LinAlgError("x"))
    assert run(rg) == run(torch)


def test_tensor_subclass_repr_uses_the_class_name():
    def run(T):
        My = type("My", (T.Tensor,), {})
        x = T.ones(3, 4).as_subclass(My)
        return repr(x), repr(T.nn.Parameter(T.ones(2))), repr(T.ones(2, 2)), str(x)
    assert run(rg) == run(torch)


STORAGE_CASES = {
    "share_memory_ returns self": lambda T: (lambda a: a.share_memory_() is a)(T.ones(2)),
    "is_shared": lambda T: (lambda a: (a.is_shared(), a.share_memory_().is_shared(), a[1:].is_shared(),
                                       a.view(2, 2).is_shared(), (a + 1).is_shared(), a.detach().is_shared()))(
        T.ones(4)),
    "view shares base": lambda T: (lambda c: (c[1:].share_memory_(), c.is_shared())[1])(T.ones(3)),
    "is_set_to": lambda T: (lambda a: (a.is_set_to(a), a.is_set_to(a[:]), a.is_set_to(a.view(4)),
                                       a.is_set_to(a.view(2, 2)), a.is_set_to(a.detach()), a.is_set_to(a.clone()),
                                       a[1:].is_set_to(a[1:]), a[1:].is_set_to(a[:3])))(T.ones(4)),
    "is_set_to empty": lambda T: (lambda e: (e.is_set_to(e), e.is_set_to(T.empty(0))))(T.empty(0)),
    "is_set_to list": lambda T: T.ones(1).is_set_to([1]),
}


@pytest.mark.parametrize("case", list(STORAGE_CASES))
def test_storage_queries_like_torch(case):
    fn = STORAGE_CASES[case]
    assert _outcome(lambda: fn(rg)) == _outcome(lambda: fn(torch))


MATMUL_OPERANDS = {"list": [1., 1.], "tuple": (1., 1.), "None": None, "str": "ab", "int": 2, "float": 2.0,
                   "numpy float": np.float64(2.), "bool": True, "object": object()}


@pytest.mark.parametrize("operand", list(MATMUL_OPERANDS))
def test_matmul_operator_with_non_tensors_like_torch(operand):
    def run(T):
        other = MATMUL_OPERANDS[operand]
        m = T.ones(2, 2)
        return _outcome(lambda: m @ other), _outcome(lambda: other @ m)
    ours, theirs = run(rg), run(torch)
    assert ours == theirs
    assert ours[0][:2] == ("exc", "TypeError") and "unsupported operand type(s) for @" in ours[0][2]


def test_matmul_operator_with_tensors_and_ndarrays_like_torch():
    def run(T):
        m = T.arange(4.).reshape(2, 2)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = m @ np.ones(2)
        return (m @ m).tolist(), type(r).__name__, str(r.dtype).split(".")[-1], r.tolist()
    assert run(rg) == run(torch)
    with pytest.raises(TypeError, match="must be Tensor, not list"):
        rg.ones(2, 2).matmul([1., 1.])


# ---------------------------------------------------------------- 8. torch.cpu
def test_cpu_namespace_like_torch():
    def run(C):
        s = C.Stream()
        with C.stream(s):
            inside = C.current_stream() is s
        return (C.is_available(), C.device_count(), C.current_device(), C.synchronize(), C.is_initialized(),
                C.set_device("cpu"), inside, C.current_stream() is s, C.Event().query(),
                "architecture" in C.get_capabilities())
    assert run(rg_cpu) == run(torch.cpu)


def test_cpu_amp_deprecated_aliases_like_torch():
    def run(C, T, get_autocast_dtype):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            ac = C.amp.autocast()
            with ac:
                enabled = T.is_autocast_enabled("cpu")
            scaler = C.amp.GradScaler()
            with C.amp.autocast(enabled=False):
                disabled = T.is_autocast_enabled("cpu")
        deprecations = [str(x.message) for x in w if x.category is FutureWarning]
        return (deprecations, enabled, disabled, str(ac.fast_dtype).split(".")[-1], type(ac).__name__,
                isinstance(ac, T.amp.autocast), isinstance(scaler, T.amp.GradScaler), scaler.get_scale(),
                str(get_autocast_dtype("cpu")).split(".")[-1], str(get_autocast_dtype("cuda")).split(".")[-1])
    # (torch.get_autocast_dtype is top-level in PyTorch; retrograd's lives in retrograd.amp)
    assert run(rg_cpu, rg, rg.amp.get_autocast_dtype) == run(torch.cpu, torch, torch.get_autocast_dtype)


def test_cpu_amp_imports_as_a_module():
    from retrograd.cpu.amp import GradScaler, autocast  # noqa: F401

    import retrograd.cpu.amp

    assert retrograd.cpu.amp.autocast is rg_cpu.amp.autocast
