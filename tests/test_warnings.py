"""PyTorch computes inf - inf, 0 * inf silently: retrograd must not print NumPy's RuntimeWarnings,
while a user's own NumPy calls still warn (the filter is scoped to retrograd's modules)."""
import subprocess
import sys
import warnings

import numpy as np
import pytest

import retrograd as rg
from retrograd import _creation

CODE = """
import numpy as np
import retrograd as torch
a = torch.tensor([float('inf')], requires_grad=True)
y = (a - a) * 0 + a * 0
y.sum().backward()
print(y.detach().tolist(), a.grad.tolist())
np.array([np.inf]) - np.array([np.inf])
"""


def test_no_numpy_float_warnings_from_retrograd_but_users_numpy_still_warns():
    r = subprocess.run([sys.executable, "-W", "always::RuntimeWarning", "-c", CODE],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == "[nan] [0.0]"  # (what torch prints)
    warned = [line for line in r.stderr.splitlines() if "RuntimeWarning" in line]
    assert len(warned) == 1 and "<string>:8" in warned[0], r.stderr  # only the user's own line


def _recorded(fn):
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        fn()
    return [(x.category.__name__, str(x.message).split(" (Triggered internally")[0]) for x in w]


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
