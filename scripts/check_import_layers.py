"""Layers that point one way: a static check of retrograd's imports (no module is imported).

Two rules, both read from the source with ``ast``:

1. **Layers.** The core (the op table ``_ops``, ``autograd`` and the Tensor class with its method
   listing) imports nothing from the layers above it: ``nn``, ``optim``, ``utils.data``, ``viz``,
   ``func``, ``distributions``; not even inside a function.
2. **No new import cycles.** Among the modules that import each other at load time (module-level
   imports; those inside functions run later and cannot cycle), every strongly connected group must
   lie within one of ``ALLOWED_CYCLES``.  The package root ``retrograd`` (the public namespace, which
   imports every layer last) is left out: upper layers are written like PyTorch's own
   (``import retrograd as torch``) and read the namespace, as client code does.

Usage: ``python scripts/check_import_layers.py`` (exit status 1 on a violation); ``--report`` also
prints the sizes of the largest cycles, with and without the root and with deferred imports.
"""
from __future__ import annotations

import ast
import functools
import sys
from pathlib import Path

SRC = Path(__file__).resolve().parent.parent / "src"
ROOT = "retrograd"
CORE = ("retrograd._ops", "retrograd.autograd", "retrograd._tensor", "retrograd._tensor_methods")
ABOVE = ("retrograd.nn", "retrograd.optim", "retrograd.utils.data", "retrograd.viz", "retrograd.func",
         "retrograd.distributions")
# Load-time cycles that exist today, each a group of modules that may import one another.  Shrink
# these; never add to them.  A few op-table subjects call each other's ops in their rules (unary's
# use binary's pow, binary's use unary's exp and log; reduction's use scan's cumprod, scan's use
# reduction's sum), and the two engines import each other.  (Helpers the subjects share live in
# _ops/_common.py and _ops/linalg/{_checks,_kernels}.py, below them, so sharing makes no cycle.)
ALLOWED_CYCLES = [
    {"retrograd._ops.binary", "retrograd._ops.unary"},
    {"retrograd._ops.reduction", "retrograd._ops.scan"},
    {"retrograd.autograd.engine", "retrograd.autograd.fast_engine"},
    # (transforms re-exports CatTransform / StackTransform, which subclass its Transform)
    {"retrograd.distributions._cat_stack_transforms", "retrograd.distributions.transforms"},
]


def _within(name: str, prefixes: tuple) -> bool:
    return any(name == p or name.startswith(p + ".") for p in prefixes)


def modules(src: Path = SRC) -> dict[str, tuple[Path, bool]]:
    """Every module under ``src/retrograd``: dotted name -> (path, is a package)."""
    out = {}
    for path in sorted((src / ROOT).rglob("*.py")):
        parts = list(path.relative_to(src).with_suffix("").parts)
        pkg = parts[-1] == "__init__"
        out[".".join(parts[:-1] if pkg else parts)] = (path, pkg)
    return out


def _imports(tree: ast.Module):
    """(node, deferred) for each import statement; ``if TYPE_CHECKING:`` blocks are skipped."""
    todo = [(n, False) for n in tree.body]
    while todo:
        node, deferred = todo.pop()
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            yield node, deferred
            continue
        if isinstance(node, ast.If) and "TYPE_CHECKING" in ast.unparse(node.test):
            continue
        inner = deferred or isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda))
        todo.extend((c, inner) for c in ast.iter_child_nodes(node))


def _targets(node, name: str, pkg: bool, mods: dict) -> list[str]:
    """The modules an import statement loads (``from pkg import sub`` loads ``pkg.sub``)."""
    if isinstance(node, ast.Import):
        names = [a.name for a in node.names]
    else:
        if node.level:
            base = name.split(".") if pkg else name.split(".")[:-1]
            base = base[:len(base) - (node.level - 1)]
            mod = ".".join(base + ([node.module] if node.module else []))
        else:
            mod = node.module or ""
        names = [f"{mod}.{a.name}" if f"{mod}.{a.name}" in mods else mod for a in node.names]
    out = []
    for t in names:
        while t and t not in mods:
            t = t.rpartition(".")[0]
        if t:
            out.append(t)
    return out


@functools.lru_cache(maxsize=None)
def _statements(src: Path) -> tuple[tuple[str, ...], tuple[tuple[str, int, str, bool], ...]]:
    mods = modules(src)
    stmts = []
    for name, (path, pkg) in mods.items():
        for node, inner in _imports(ast.parse(path.read_text(), str(path))):
            stmts.extend((name, node.lineno, t, inner) for t in _targets(node, name, pkg, mods))
    return tuple(mods), tuple(stmts)


def graph(deferred: bool = False, src: Path = SRC) -> tuple[dict[str, set[str]], list[tuple[str, int, str]]]:
    """The import graph among retrograd's modules (``deferred``: also imports inside functions), and
    every import statement as (importer, line, imported module)."""
    mods, stmts = _statements(src)
    edges: dict[str, set[str]] = {m: set() for m in mods}
    for name, _, t, inner in stmts:
        if t != name and (deferred or not inner):
            edges[name].add(t)
    return edges, [s[:3] for s in stmts]


def cycles(edges: dict[str, set[str]], leave_out: tuple = ()) -> list[set[str]]:
    """The strongly connected groups of more than one module (Tarjan, iterative), largest first."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    found = []
    for root in edges:
        if root in index or root in leave_out:
            continue
        work = [(root, iter(sorted(edges[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            for w in it:
                if w in leave_out:
                    continue
                if w not in index:
                    index[w] = low[w] = len(index)
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(edges[w]))))
                    break
                if w in on:
                    low[v] = min(low[v], index[w])
            else:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[v])
                if low[v] == index[v]:
                    group = set()
                    while True:
                        w = stack.pop()
                        on.discard(w)
                        group.add(w)
                        if w == v:
                            break
                    if len(group) > 1:
                        found.append(group)
    return sorted(found, key=len, reverse=True)


def layer_violations(src: Path = SRC) -> list[str]:
    """Core modules importing an upper layer (at any depth, deferred imports included)."""
    _, stmts = graph(True, src)
    return [f"{m} (line {line}) imports {t}" for m, line, t in stmts if _within(m, CORE) and _within(t, ABOVE)]


def new_cycles(src: Path = SRC) -> list[set[str]]:
    """Load-time cycles (the root namespace left out) that no ``ALLOWED_CYCLES`` group contains."""
    edges, _ = graph(False, src)
    return [c for c in cycles(edges, leave_out=(ROOT,)) if not any(c <= ok for ok in ALLOWED_CYCLES)]


def report(src: Path = SRC) -> dict[str, int]:
    """Sizes of the largest cycle: load time without and with the root namespace, and with deferred imports."""
    top, _ = graph(False, src)
    every, _ = graph(True, src)
    size = lambda cs: len(cs[0]) if cs else 0  # noqa: E731
    return {"load-time, root namespace left out": size(cycles(top, leave_out=(ROOT,))),
            "load-time, with the root namespace": size(cycles(top)),
            "with imports inside functions too": size(cycles(every))}


def main(argv: list[str]) -> int:
    bad = [f"layer: {v}" for v in layer_violations()]
    bad += [f"new import cycle ({len(c)} modules): {' -> '.join(sorted(c))}" for c in new_cycles()]
    if "--report" in argv:
        for what, n in report().items():
            print(f"largest import cycle, {what}: {n} modules")
    for line in bad:
        print(line)
    if bad:
        print("the rules: scripts/check_import_layers.py and docs/CONVENTIONS.md (Style)")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
