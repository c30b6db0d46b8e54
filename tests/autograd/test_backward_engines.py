"""The two backward engines: the reference (autograd/engine.py) and the fast one (autograd/fast_engine.py).

Choosing one (``set_backward_engine``, ``RETROGRAD_ENGINE``), their agreement on hooks and
gradients, and the reference engine's size budget.  The engine semantics tests
(tests/autograd/test_engine.py) run against both; CI runs the op suite's derivative tests against
the reference engine too (.ci/run).
"""
from __future__ import annotations

import os
import pathlib
import subprocess
import sys

import pytest

import retrograd as R

def test_engine_switch():
    assert R.autograd.get_backward_engine() in ("fast", "reference")
    with pytest.raises(ValueError, match="backward engine must be 'fast' or 'reference', not 'quick'"):
        R.autograd.set_backward_engine("quick")


def test_engine_env_var_chooses_at_import():
    code = "import retrograd; print(retrograd.autograd.get_backward_engine())"
    for name in ("reference", "fast"):
        env = dict(os.environ, RETROGRAD_ENGINE=name)
        out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
        assert out.stdout.strip() == name


def test_both_engines_same_hook_order_and_grads():
    """A graph with every kind of hook: both engines call them in the same order with the same values."""
    def trace(engine):
        R.autograd.set_backward_engine(engine)
        log = []
        x = R.tensor([1., 2.], requires_grad=True)
        w = R.tensor([3., -1.], requires_grad=True)
        a = x * w
        a.retain_grad()
        a.register_hook(lambda g: log.append(("a", g.tolist())))
        b = a.sin() + a * x
        b.grad_fn.register_prehook(lambda gs: log.append(("pre", gs[0].tolist())))
        b.grad_fn.register_hook(lambda gi, go: log.append(("post", [g.tolist() for g in gi])))
        x.register_post_accumulate_grad_hook(lambda t: log.append(("x acc", t.grad.tolist())))
        b.sum().backward()
        return log, x.grad.tolist(), w.grad.tolist(), a.grad.tolist()

    assert trace("reference") == trace("fast")


def test_reference_engine_fits_its_budget():
    """engine.py stays readable in one sitting: at most 250 code lines (scripts/check_size.py)."""
    root = pathlib.Path(__file__).resolve().parents[2]
    sys.path.insert(0, str(root / "scripts"))
    try:
        from check_size import code_lines
    finally:
        sys.path.pop(0)
    n = code_lines((root / "src/retrograd/autograd/engine.py").read_text())
    assert n <= 250, f"engine.py has {n} code lines (budget 250): move inlined optimizations to fast_engine.py"
