"""PyTorch computes inf - inf, 0 * inf silently: retrograd must not print NumPy's RuntimeWarnings,
while a user's own NumPy calls still warn (the filter is scoped to retrograd's modules)."""
import subprocess
import sys

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
