"""Part (a) of the demo: run every seed example and draw the graph behind its result."""
from __future__ import annotations

import contextlib
import io
import linecache
import traceback
from dataclasses import dataclass, field

from .seed_blocks import BLOCKS

# The tensor a block is about, by the names the seed document uses for results.
PRIMARY = ("z", "y", "loss")


@dataclass
class SeedResult:
    index: int
    title: str
    code: str
    output: str
    filename: str  # the name the block ran under: node labels show "seed_01.py:6"
    roots: list = field(default_factory=list)
    params: dict = field(default_factory=dict)


def run_block(index: int, title: str, code: str) -> SeedResult:
    """Run one block with ``import retrograd as torch``; keep what it printed and its tensors."""
    import warnings

    import retrograd

    filename = f"seed_{index:02d}.py"
    # Registered so node labels can quote the block's source lines.
    linecache.cache[filename] = (len(code), None, code.splitlines(True), filename)
    ns: dict = {"torch": retrograd, "__name__": "__seed__"}
    buf = io.StringIO()
    with contextlib.redirect_stdout(buf), warnings.catch_warnings():
        warnings.simplefilter("ignore")  # e.g. reading a non-leaf's .grad, as the document does
        try:
            exec(compile(code, filename, "exec"), ns)  # noqa: S102 - our own blocks
        except Exception as exc:  # the document shows some blocks failing: show the error, as Python would
            print("".join(traceback.format_exception_only(type(exc), exc)).strip())
    res = SeedResult(index, title, code, buf.getvalue(), filename)
    res.roots, res.params = pick_roots(ns)
    return res


def pick_roots(ns: dict) -> tuple[list, dict]:
    """The block's result tensor (z, y, ...) plus any gradient that has a graph (create_graph=True).

    ``params`` names every tensor the block left in its namespace: ``x``, ``grad_x[0]``, ``x.grad``.
    """
    from retrograd import Tensor

    names: dict = {}
    grads: list = []  # gradients with a graph of their own: drawn too
    for k, v in ns.items():
        if k.startswith("__"):
            continue
        if isinstance(v, Tensor):
            names[k] = v
        elif isinstance(v, tuple) and v and all(isinstance(e, Tensor) for e in v):
            for i, e in enumerate(v):
                names[f"{k}[{i}]"] = e
                if e.grad_fn is not None:
                    grads.append(e)
    for k, v in list(names.items()):
        g = v._grad if v.grad_fn is None else None
        if isinstance(g, Tensor):
            names[f"{k}.grad"] = g
            if g.grad_fn is not None:
                grads.append(g)
    primary = next((names[k] for k in PRIMARY if k in names and names[k].grad_fn is not None), None)
    if primary is None:  # no result with a graph: the last tensor that takes part in autograd
        cands = [t for t in names.values() if t.requires_grad] or list(names.values())
        primary = cands[-1] if cands else None
    roots = [] if primary is None else [primary]
    roots += [g for g in grads if all(g is not r for r in roots)]
    return roots, names


def run_all() -> list[SeedResult]:
    return [run_block(i, title, code) for i, (title, code) in enumerate(BLOCKS, 1)]
