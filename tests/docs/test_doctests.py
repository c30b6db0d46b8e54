"""The docstring examples (``>>>``) of every module in ``src/retrograd`` run as doctests.

One test per module that holds examples: doctest's own finder collects them from the imported
module (functions, classes, methods, properties, the module docstring), and they run in the
module's namespace with ``ELLIPSIS`` (``<MulBackward0 object at 0x...>``).  An example that
cannot run here (it needs ``mpiexec`` and several processes, graphviz's ``dot``, wall-clock
timings) carries ``# doctest: +SKIP``, and its docstring (or its module's) says why:
``test_skips_say_why``.
``test_every_example_is_collected`` fails for an example the finder cannot reach (a method
rebound at import, a module built at run time), so no docstring rots unseen.
"""
from __future__ import annotations

import ast
import doctest
import functools
import importlib
import inspect
import pkgutil
import re
import subprocess
import sys
import warnings
from pathlib import Path

import pytest

import retrograd

SRC = Path(retrograd.__file__).resolve().parent
FLAGS = doctest.ELLIPSIS


def _module_names() -> list[str]:
    names = ["retrograd"] + [m.name for m in pkgutil.walk_packages(retrograd.__path__, "retrograd.")]
    return sorted(n for n in names if not n.endswith("__main__"))  # (__main__ runs the CLI on import)


def _runtime_modules() -> list[str]:
    """Modules retrograd builds at import (``retrograd.cpu.amp``): not files, so walk_packages misses them."""
    files = set(_module_names())
    for n in files:
        importlib.import_module(n)
    return sorted(k for k, m in list(sys.modules.items())
                  if k.startswith("retrograd.") and k not in files and getattr(m, "__file__", None) is None)


def _doctests(name: str) -> list[doctest.DocTest]:
    mod = importlib.import_module(name)
    return [t for t in doctest.DocTestFinder(exclude_empty=True).find(mod, name) if t.examples]


# the modules doctest finds examples in (an object's examples belong to the module that defines it)
MODULES = [n for n in _module_names() + _runtime_modules() if _doctests(n)]


@pytest.fixture
def restored_state():
    """Examples seed the generator and switch engines; put the process back as it was."""
    rng = retrograd.get_rng_state()
    engine = retrograd.autograd.get_backward_engine()
    dtype = retrograd.get_default_dtype()
    yield
    retrograd.set_rng_state(rng)
    retrograd.autograd.set_backward_engine(engine)
    retrograd.set_default_dtype(dtype)


def _run(name: str) -> None:
    tests = _doctests(name)
    runner = doctest.DocTestRunner(optionflags=FLAGS)
    report: list[str] = []
    with warnings.catch_warnings():  # (deprecated API's examples warn, as torch does; doctest shows no warnings)
        warnings.simplefilter("ignore")
        failed = sum(runner.run(t, out=report.append).failed for t in tests)
    assert failed == 0, "".join(report)


# modules whose examples need a process where the real torch was never imported
FRESH_PROCESS = {"retrograd._torch_alias": "register_as_torch() refuses once the real torch is imported"}


@pytest.mark.parametrize("name", MODULES)
def test_module_examples(name, restored_state):
    if name in FRESH_PROCESS and "torch" in sys.modules:  # (another test imported torch: run them apart)
        p = subprocess.run([sys.executable, "-c", f"from tests.docs.test_doctests import _run; _run({name!r})"],
                           cwd=Path(__file__).resolve().parents[2], capture_output=True, text=True, timeout=300)
        assert p.returncode == 0, p.stderr[-5000:]
    else:
        _run(name)


@functools.cache
def _source_docstrings() -> tuple[tuple[Path, int, str], ...]:
    """(file, line, docstring) of every docstring in src/retrograd that holds an example."""
    found = []
    for path in sorted(SRC.rglob("*.py")):
        text = path.read_text()
        if ">>>" not in text:
            continue
        for node in ast.walk(ast.parse(text)):
            if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
                doc = ast.get_docstring(node)
                if doc and ">>>" in doc:
                    found.append((path.relative_to(SRC), getattr(node, "lineno", 1), doc))
    return tuple(found)


def test_every_example_is_collected():
    found = {inspect.cleandoc(t.docstring) for n in _module_names() + _runtime_modules() for t in _doctests(n)}
    lost = [f"{p}:{line}" for p, line, doc in _source_docstrings() if inspect.cleandoc(doc) not in found]
    assert not lost, f"examples doctest cannot reach (rebound or shadowed definitions): {lost}"


def test_skips_say_why():
    """A skipped example's docstring, or its module's, says why ("not run as a doctest: <reason>")."""
    why = re.compile(r"not run as (a )?doctests?[:,]?\s+\S", re.I)
    def module_says_why(rel: Path) -> bool:
        return bool(why.search(ast.get_docstring(ast.parse((SRC / rel).read_text())) or ""))

    unexplained = [f"{p}:{line}" for p, line, doc in _source_docstrings()
                   if "+SKIP" in doc and not why.search(doc) and not module_says_why(p)]
    assert not unexplained, unexplained


def test_examples_are_many():
    """The finder reaches the examples at all (a broken walk would pass every test above vacuously)."""
    examples = sum(len(t.examples) for n in MODULES for t in _doctests(n))
    lines = sum(doc.count(">>>") for _, _, doc in _source_docstrings())
    assert examples >= lines > 2000
