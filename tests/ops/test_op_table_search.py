"""One search finds a derivative: every primitive's name is written literally where it is
declared, and ``python -m retrograd where OP`` prints the declaration, forward and rule lines.

The documented search (docs/CONVENTIONS.md, "The op table") is ``grep -rn '"NAME"' src/retrograd/_ops``;
a variadic family's members (``cat_3``, ``keep_graph_2_MulBackward0``) are found by their family's
name (``"cat"``, ``f"keep_graph_{``).
"""
from __future__ import annotations

import contextlib
import inspect
import io
import linecache
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

import retrograd as torch
from retrograd._ops import _where
from retrograd._ops._registry import DECLARED_AT, OPS
from retrograd.cli import main

OPS_DIR = Path(torch.__file__).parent / "_ops"


def _make_lazy_entries() -> None:
    """Declare the entries made on first use (variadic families, normal with tensor arguments)."""
    a = torch.ones(3, requires_grad=True)
    torch.autograd.grad(torch.cat([a, a]).sum(), a, create_graph=True)
    torch.stack([a, a, a])
    a.split(1)
    a.split([1, 2])
    a.unbind()
    torch.block_diag(a[None], a[None])
    torch.normal(a, 1.0)
    torch.normal(0.0, a.abs() + 1)
    torch.normal(a, a.abs() + 1)


def _found(literals, file: str, lines) -> bool:
    """Whether the documented grep for any of ``literals`` (a line under _ops/ containing it) prints one
    of ``lines`` of ``file``."""
    return any(lit in linecache.getline(file, k) for lit in literals for k in lines)


def _family_in_file(name: str, file: str) -> bool:
    """A variadic family's member whose family is named (literally) in the declaring file: the split
    families' names are picked from a table of literals (``_SPLIT_KINDS``) in joining.py."""
    m = _where._FAMILY.match(name)
    return m is not None and f'"{m.group("family")}"' in Path(file).read_text()


def _statement_lines(file: str, line: int) -> range:
    """The lines of the call starting at ``line`` (a frame's line is the start of a multi-line call)."""
    depth, end = 0, line
    while True:
        text = linecache.getline(file, end)
        if not text:
            return range(line, end)
        depth += text.count("(") - text.count(")")
        if depth <= 0:
            return range(line, end + 1)
        end += 1


def test_every_entry_is_declared_in_the_op_table_with_its_name_written_literally():
    _make_lazy_entries()
    assert len(OPS) > 400
    unfound = []
    for name in OPS:
        file, line = _where.declaration(name)
        assert Path(file).is_relative_to(OPS_DIR), f"{name} is declared outside _ops/: {file}:{line}"
        # the documented search for the name (or a family member's family) lands on its declaration
        if not _found(_where.literals(name), file, _statement_lines(file, line)) and not _family_in_file(name, file):
            unfound.append(f"{name} ({file}:{line})")
    assert not unfound, f"not found by the literal search: {unfound}"


def test_family_names_are_only_variadic_members():
    # the family fallback must not hide an ordinary op whose name is built from a string
    members = [n for n in OPS if re.match(_where._FAMILY, n)
               and not _found([f'"{n}"'], _where.declaration(n)[0], _statement_lines(*_where.declaration(n)))]
    families = {re.match(_where._FAMILY, n).group("family") for n in members}
    assert families <= {"cat", "stack", "unbind", "block_diag", "keep_graph", "backward_hook_function",
                        "split", "split_one", "split_unsafe", "split_one_unsafe", "split_sizes", "split_sizes_one",
                        "split_sizes_unsafe", "split_sizes_one_unsafe"}, families


def _run_where(*names: str) -> tuple[int, str]:
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf):
        rc = main(["where", *names])
    return rc, buf.getvalue()


def _site(text: str) -> tuple[str, int]:
    file, _, line = text.strip().rpartition(":")
    return os.path.abspath(file), int(line)


def _code_line(fn) -> tuple[str, int] | None:
    code = getattr(inspect.unwrap(fn), "__code__", None)
    return None if code is None else (os.path.abspath(code.co_filename), code.co_firstlineno)


def test_where_prints_the_declaration_forward_and_rule_lines_of_every_entry():
    _make_lazy_entries()
    for name, op in list(OPS.items()):
        rc, text = _run_where(name)
        assert rc == 0
        lines = text.splitlines()
        assert lines[0] == f"{name}  (backward node {op.node_name})"
        assert lines[1].startswith("  declared  ")
        file, line = _site(lines[1].removeprefix("  declared  "))
        assert _found(_where.literals(name), file, _statement_lines(file, line)) or _family_in_file(name, file), \
            (name, lines[1])
        assert lines[2].startswith("  forward   ")
        fw = _code_line(op.forward)
        shown = lines[2].removeprefix("  forward   ")
        assert (shown == "(builtin: no Python source)") if fw is None else _site(shown) == fw, (name, shown, fw)
        rules = lines[3:]
        assert len(rules) == len(op.inputs)
        for text_line, inp, rule in zip(rules, op.inputs, op.rules):
            word, shown_inp, shown = text_line.split(None, 2)
            assert (word, shown_inp) == ("rule", inp), (name, text_line)
            if rule is None:
                assert shown == "(not differentiable)"
            else:
                assert _site(shown) == _code_line(rule), (name, inp, shown)
                src = linecache.getline(*_code_line(rule))
                assert "lambda" in src or "def " in src, (name, inp, src)


def test_where_exp_points_at_the_unary_stanza():
    rc, text = _run_where("exp")
    assert rc == 0
    file, line = _site(text.splitlines()[1].removeprefix("  declared  "))
    assert linecache.getline(file, line).startswith('exp = _unary("exp", lambda a: np.exp(a), lambda g, out: g * out')
    # forward and rule are the two lambdas on that same line
    assert text.splitlines()[2].endswith(f"unary.py:{line}") and text.splitlines()[3].endswith(f"unary.py:{line}")


def test_where_mul_lists_one_rule_per_input():
    rc, text = _run_where("mul")
    assert rc == 0
    lines = text.splitlines()
    assert lines[0] == "mul  (backward node MulBackward0)"
    for row, inp in zip(lines[3:], ("a", "b")):
        file, line = _site(row.split(None, 2)[2])
        assert re.match(rf"\s*{inp}=", linecache.getline(file, line)), row


def test_where_a_variadic_family_and_a_composite():
    _make_lazy_entries()
    rc, text = _run_where("cat")
    assert rc == 0
    assert "cat_2  (backward node CatBackward0)" in text
    rc, text = _run_where("square")
    assert rc == 0 and text.startswith("square: not a table entry; retrograd.square is defined at ")


def test_where_unknown_name_fails():
    err = io.StringIO()
    with contextlib.redirect_stderr(err):
        rc, _ = _run_where("no_such_op")
    assert rc == 1 and "'no_such_op' is neither" in err.getvalue()


def test_where_from_the_command_line():
    src = str(OPS_DIR.parent.parent)
    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    out = subprocess.run([sys.executable, "-m", "retrograd", "where", "sin"], capture_output=True, text=True,
                         env=env, check=True).stdout
    lines = out.splitlines()
    assert lines[0] == "sin  (backward node SinBackward0)"
    file, line = _site(lines[1].removeprefix("  declared  "))
    assert linecache.getline(file, line).startswith('sin = _unary("sin"')


@pytest.mark.parametrize("name", ["exp", "eq", "asinh_", "special_hermite_polynomial_h", "uniform_fill",
                                  "max_pool2d_unbatched", "reflection_pad2d_backward"])
def test_once_built_from_strings_now_literal(name):
    # these were built from a string list or a prefix ("special_" + name, name + "_") before
    file, line = _where.declaration(name)
    assert _found([f'"{name}"'], file, _statement_lines(file, line))
    assert DECLARED_AT[name]
