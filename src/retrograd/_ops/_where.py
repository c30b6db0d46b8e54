"""Where an op and its derivative are defined: ``python -m retrograd where OP``.

Read from the table: the declaration site that ``primitive()`` recorded, and the source lines of
the registered forward and rules (``inspect``).  A primitive's name is written literally at its
declaration (``_unary("exp", ...)``), so ``grep -rn '"exp"' src/retrograd/_ops`` finds the same line.
"""
from __future__ import annotations

import inspect
import linecache
import os
import re

from ._registry import DECLARED_AT, OPS, OpDef

# variadic families hold one entry per arity: ``cat_3`` (declared as ``_variadic("cat", ...)``),
# ``keep_graph_2_AddBackward0`` (``f"keep_graph_{n}_{node}"``)
_FAMILY = re.compile(r"^(?P<family>[a-z_]+?)_\d+(_\w+)?$")


def literals(name: str) -> tuple[str, ...]:
    """The literal texts that declare ``name``: ``"name"``, and for a family member its family's name."""
    m = _FAMILY.match(name)
    if m is None:
        return (f'"{name}"',)
    fam = m.group("family")
    return (f'"{name}"', f'"{fam}"', f'f"{fam}_{{')


def declaration(name: str) -> tuple[str, int]:
    """(file, line) of the call that declares primitive ``name``: the innermost recorded caller whose
    statement (its first three lines) writes the name literally; the direct caller otherwise."""
    sites = DECLARED_AT[name]
    texts = literals(name)
    for file, line in sites:
        src = "".join(linecache.getline(file, line + k) for k in range(3))
        if any(t in src for t in texts):
            return file, line
    return sites[0]


def source_line(fn) -> tuple[str, int] | None:
    """(file, first line) of a Python function's source; None for a builtin (a NumPy ufunc)."""
    fn = inspect.unwrap(fn)
    code = getattr(fn, "__code__", None)
    if code is None:
        return None
    return code.co_filename, code.co_firstlineno


def _fmt(site) -> str:
    if site is None:
        return "(builtin: no Python source)"
    file = os.path.relpath(site[0]) if site[0].startswith(os.getcwd() + os.sep) else site[0]
    return f"{file}:{site[1]}"


def describe(op: OpDef) -> list[str]:
    """The lines ``where`` prints for one table entry."""
    lines = [f"{op.name}  (backward node {op.node_name})",
             f"  declared  {_fmt(declaration(op.name))}",
             f"  forward   {_fmt(source_line(op.forward))}"]
    for inp, rule in zip(op.inputs, op.rules):
        lines.append(f"  rule {inp:<4} {_fmt(source_line(rule)) if rule is not None else '(not differentiable)'}")
    return lines


def find(query: str) -> list[OpDef]:
    """Table entries for ``query``: the op of that name, else the members of that variadic family."""
    if query in OPS:
        return [OPS[query]]
    return [op for n, op in OPS.items() if (m := _FAMILY.match(n)) and m.group("family") == query]


def where(query: str, public=None) -> list[str]:
    """What ``python -m retrograd where QUERY`` prints (raises KeyError for an unknown name).

    ``public``: the function of that name in the public namespace (the command line looks it up:
    the table sits below the namespace), described when ``query`` is not a table entry."""
    ops = find(query)
    if ops:
        return [line for op in ops for line in describe(op)]
    if callable(public) and source_line(public) is not None:
        used = getattr(public, "op", None)
        head = [f"{query}: not a table entry; retrograd.{query} is defined at {_fmt(source_line(public))}"]
        if isinstance(used, OpDef):
            return head + [f"  it applies {used.name}:"] + describe(used)
        return head + ["  (no table entry of its own: its derivative is that of the ops it applies; a variadic "
                       "family such as cat lists its arities once they are made)"]
    raise KeyError(query)
