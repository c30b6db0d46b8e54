"""register_as_torch(): unmodified PyTorch code imports retrograd's modules."""
import subprocess
import sys

SCRIPT = r'''
import retrograd
retrograd.register_as_torch()
import torch
import torch.nn as nn
import torch.nn.functional as F
import torch.optim as optim
from torch.utils.data import DataLoader, TensorDataset
assert torch is retrograd and nn is retrograd.nn and F is retrograd.nn.functional
assert optim is retrograd.optim and DataLoader is retrograd.utils.data.DataLoader
model = nn.Sequential(nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 1))
assert isinstance(next(model.parameters()), nn.Parameter)
opt = optim.SGD(model.parameters(), lr=0.1)
x, y = torch.randn(8, 3), torch.randn(8, 1)
for xb, yb in DataLoader(TensorDataset(x, y), batch_size=4):
    opt.zero_grad(); F.mse_loss(model(xb), yb).backward(); opt.step()
try:
    import torch.no_such_module  # noqa: F401
except ModuleNotFoundError:
    pass
else:
    raise AssertionError("expected ModuleNotFoundError")
retrograd.unregister_as_torch()
assert "torch" not in sys.modules
print("ok")
'''


def test_register_as_torch_runs_pytorch_imports():
    p = subprocess.run([sys.executable, "-c", "import sys\n" + SCRIPT], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    assert p.stdout.strip() == "ok"


def test_refuses_when_real_torch_is_loaded():
    import pytest

    pytest.importorskip("torch")
    code = "import torch, retrograd\ntry:\n    retrograd.register_as_torch()\nexcept RuntimeError as e:\n    print(e)\n"
    p = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert "the real torch is already imported" in p.stdout


def test_alias_keeps_retrograds_own_module_specs():
    # an aliased import must not rename retrograd's modules, or their lazy relative imports
    # would warn (ImportWarning: __package__ != __spec__.parent), an error under -W error
    code = ("import retrograd; retrograd.register_as_torch()\n"
            "import torch, torch.autograd, torch.utils.checkpoint\n"
            "assert retrograd.autograd.__spec__.name == 'retrograd.autograd'\n"
            "x = torch.ones(2, requires_grad=True)\n"
            "torch.autograd.grad((x * x).sum(), x)\n"
            "torch.utils.checkpoint.checkpoint(lambda a: a * 2, x, use_reentrant=False).sum().backward()\n")
    p = subprocess.run([sys.executable, "-W", "error::ImportWarning", "-c", code], capture_output=True, text=True)
    assert p.returncode == 0, p.stderr
