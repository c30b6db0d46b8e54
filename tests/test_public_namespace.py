"""The public namespace is torch's plus retrograd's documented additions (docs/compatibility.md,
"Names retrograd adds to PyTorch's"), and Tensor's methods come from one listing
(src/retrograd/_tensor_methods.py)."""
from __future__ import annotations

import ast
import importlib
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import retrograd
from retrograd import _tensor_methods

torch = pytest.importorskip("torch")

SRC = Path(retrograd.__file__).parent
DOCS = SRC.parent.parent / "docs" / "compatibility.md"

# retrograd's own names, each documented in docs/compatibility.md
OWN_TOP_LEVEL = {"viz", "register_as_torch", "unregister_as_torch", "get_printoptions"}
OWN_TENSOR: set[str] = set()
OWN_FUNCTIONAL: set[str] = set()


_EXTRA = """
import json, retrograd, retrograd.nn.functional, torch, torch.nn.functional
def extra(ours, theirs):
    return sorted(n for n in dir(ours) if not n.startswith("_") and not hasattr(theirs, n))
print(json.dumps([extra(retrograd, torch), extra(retrograd.Tensor, torch.Tensor),
                  extra(retrograd.nn.functional, torch.nn.functional)]))
"""


@pytest.fixture(scope="module")
def extras() -> list[set[str]]:
    """Public names retrograd has and torch lacks, right after ``import`` (in a fresh interpreter: a
    submodule another test imported, such as ``retrograd.cli``, would show up as an attribute)."""
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(p for p in (str(SRC.parent), os.environ.get("PYTHONPATH")) if p))
    out = subprocess.run([sys.executable, "-c", _EXTRA], capture_output=True, text=True, env=env, check=True).stdout
    return [set(names) for names in json.loads(out)]


def test_top_level_names_are_torchs_plus_the_documented_additions(extras):
    assert extras[0] == OWN_TOP_LEVEL


def test_tensor_names_are_torchs(extras):
    assert extras[1] == OWN_TENSOR


def test_functional_names_are_torchs(extras):
    assert extras[2] == OWN_FUNCTIONAL


def test_the_table_machinery_is_private():
    for name in ("OPS", "primitive", "apply", "apply_inplace", "add_", "view", "expand", "sum_to"):
        assert not hasattr(retrograd, name), name
        assert hasattr(retrograd._ops, name), name  # (still there for the library's own modules)


def test_the_additions_are_documented():
    text = DOCS.read_text()
    for name in OWN_TOP_LEVEL:
        assert f"`retrograd.{name}" in text, name


def test_torch_tensor_methods_that_retrograd_binds_are_callables_or_properties():
    # the listing binds functions; a name bound to something else is a mistake in the listing
    for module, names in _tensor_methods.METHODS:
        for name in names:
            assert callable(getattr(retrograd.Tensor, name)), name
            assert hasattr(torch.Tensor, name), f"Tensor.{name} is not a torch method"


def test_each_listed_method_is_its_modules_function():
    for module, names in _tensor_methods.METHODS:
        ns = importlib.import_module(f"retrograd._ops.{module}") if module else retrograd._ops
        for name in names:
            fn = getattr(ns, name)
            assert retrograd.Tensor.__dict__[name] is getattr(fn, "method_form", fn), (module, name)


def test_a_name_is_listed_once():
    names = [n for _, names in _tensor_methods.METHODS for n in names]
    assert len(names) == len(set(names))


def _sets_tensor_attributes(path: Path) -> list[int]:
    """Lines that assign an attribute of ``Tensor`` or call ``setattr(Tensor, ...)``."""
    lines = []
    for node in ast.walk(ast.parse(path.read_text())):
        if isinstance(node, ast.Assign):
            for t in node.targets:
                if isinstance(t, ast.Attribute) and isinstance(t.value, ast.Name) and t.value.id == "Tensor":
                    lines.append(node.lineno)
        elif isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id == "setattr" \
                and node.args and isinstance(node.args[0], ast.Name) and node.args[0].id == "Tensor":
            lines.append(node.lineno)
    return lines


def test_no_module_but_the_listing_binds_tensor_methods():
    found = {}
    for path in SRC.rglob("*.py"):
        if path.name in ("_tensor_methods.py", "_tensor.py"):
            continue
        lines = _sets_tensor_attributes(path)
        if lines:
            found[str(path.relative_to(SRC))] = lines
    assert found == {}


def test_no_op_module_keeps_a_methods_list():
    for path in (SRC / "_ops").rglob("*.py"):
        tree = ast.parse(path.read_text())
        names = {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
        assert "METHODS" not in names, f"{path}: Tensor methods are listed in _tensor_methods.py"
