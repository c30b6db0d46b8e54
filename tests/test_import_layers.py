"""Layers that point one way (scripts/check_import_layers.py): the core (``_ops``, ``autograd``,
Tensor) imports no upper layer, and no import cycle appears beyond the known ones."""
from __future__ import annotations

import importlib.util
import subprocess
import sys
from pathlib import Path

import pytest

SCRIPT = Path(__file__).resolve().parent.parent / "scripts" / "check_import_layers.py"


def _load():
    spec = importlib.util.spec_from_file_location("check_import_layers", SCRIPT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


check = _load()


def test_the_core_imports_no_upper_layer():
    assert check.layer_violations() == []


def test_no_new_import_cycle():
    assert check.new_cycles() == []


def test_the_known_cycles_still_exist():
    # an allowed group that no longer cycles must leave ALLOWED_CYCLES, so that it cannot come back
    edges, _ = check.graph(False)
    found = check.cycles(edges, leave_out=(check.ROOT,))
    for ok in check.ALLOWED_CYCLES:
        assert any(c & ok for c in found), f"no longer a cycle, remove it from ALLOWED_CYCLES: {sorted(ok)}"


def test_the_script_passes_from_the_command_line():
    r = subprocess.run([sys.executable, str(SCRIPT), "--report"], capture_output=True, text=True)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "largest import cycle, load-time, root namespace left out:" in r.stdout


def _tree(tmp_path: Path, files: dict[str, str]) -> Path:
    for rel, text in files.items():
        p = tmp_path / "retrograd" / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    return tmp_path


@pytest.mark.parametrize("statement", ["from ..nn import functional", "import retrograd.optim",
                                       "from ..utils.data import DataLoader", "from .. import viz"])
def test_a_deferred_upper_layer_import_in_the_table_is_caught(tmp_path, statement):
    src = _tree(tmp_path, {"__init__.py": "", "_ops/__init__.py": "", "nn/__init__.py": "",
                           "nn/functional.py": "", "optim/__init__.py": "", "utils/__init__.py": "",
                           "utils/data/__init__.py": "", "viz.py": "",
                           "_ops/unary.py": f"def f():\n    {statement}\n"})
    found = check.layer_violations(src)
    assert len(found) == 1 and found[0].startswith("retrograd._ops.unary (line 2) imports retrograd.")


def test_a_new_load_time_cycle_is_caught_and_a_deferred_one_is_not(tmp_path):
    src = _tree(tmp_path, {"__init__.py": "from . import a\n", "a.py": "from . import b\n",
                           "b.py": "from . import c\n", "c.py": "from . import a\n",
                           "d.py": "from . import e\n", "e.py": "def f():\n    from . import d\n"})
    assert check.new_cycles(src) == [{"retrograd.a", "retrograd.b", "retrograd.c"}]
    assert check.report(src)["with imports inside functions too"] == 3
