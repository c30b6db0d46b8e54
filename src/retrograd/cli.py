"""Command line: ``python -m retrograd demo``, ``python -m retrograd draw SCRIPT.py:EXPR`` and
``python -m retrograd where OP``."""
from __future__ import annotations

import argparse
import os
import runpy
import sys
from pathlib import Path

DRAW_HELP = """\
Run SCRIPT.py (as __main__, with retrograd importable), evaluate EXPR in the namespace it
leaves, and draw the backward graph of the resulting tensor (or list/tuple of tensors).
Every tensor and module the script left in its namespace names the nodes (x, model.0.weight).

examples:
  python -m retrograd draw train.py:loss
  python -m retrograd draw seed.py:"[y, grad_x[0]]" --out graph.png --saved
  python -m retrograd draw train.py:loss --tree          # text only, no graphviz needed
"""

DEMO_HELP = """\
Walk through every example of the seed document (its code, what it prints, its graph),
train a small MLP on scikit-learn's digits, and write OUT/index.html showing all of it.
Needs the demo extras: pip install 'retrograd[demo]' (graphviz, matplotlib, scikit-learn,
tqdm); graph pictures also need graphviz's `dot` program (apt-get install graphviz).
"""

WHERE_HELP = """\
Print the file and line of an op's declaration in the op table, of its NumPy forward and of
each input's backward rule (read from the table, so it is what runs).

examples:
  python -m retrograd where exp
  python -m retrograd where mul cat    # a variadic family lists each arity made so far
"""


def _where(names: list[str]) -> int:
    import retrograd  # (fills the table)
    from ._ops._where import where

    status = 0
    for name in names:
        public = getattr(retrograd, name, None) or getattr(retrograd.nn.functional, name, None)
        try:
            print("\n".join(where(name, public)))
        except KeyError:
            print(f"error: {name!r} is neither an op-table entry nor a public function", file=sys.stderr)
            status = 1
    return status


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m retrograd",
                                     description="retrograd: PyTorch's autograd on NumPy. Commands:")
    sub = parser.add_subparsers(dest="cmd", required=True, metavar="{demo,draw,where}")
    demo = sub.add_parser("demo", help="walk through the seed examples, train an MLP, write index.html",
                          description=DEMO_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    demo.add_argument("--out", default="demo-out", metavar="DIR", help="output folder (default: demo-out)")
    demo.add_argument("--quick", action="store_true", help="train fewer epochs: finishes in under 30 s (for CI)")
    draw = sub.add_parser("draw", help="draw the graph of a tensor that a script computes",
                          description=DRAW_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    draw.add_argument("target", metavar="SCRIPT.py:EXPR", help="the script to run and the expression to draw")
    draw.add_argument("--out", metavar="FILE",
                      help="picture to write; its suffix picks the format: .svg (default), .png, .pdf, .dot "
                           "(default: SCRIPT_graph.svg in the current directory)")
    draw.add_argument("--saved", action="store_true", help="also draw the tensors saved for backward")
    draw.add_argument("--no-grads", action="store_true", help="leave out gradient norms")
    draw.add_argument("--tree", action="store_true", help="print the graph as a text tree instead of drawing it")
    where = sub.add_parser("where", help="print where an op's forward and backward rules are defined",
                           description=WHERE_HELP, formatter_class=argparse.RawDescriptionHelpFormatter)
    where.add_argument("op", nargs="+", metavar="OP", help="a table entry (exp, mul, cat) or a public function")
    args = parser.parse_args(argv)
    if args.cmd == "where":
        return _where(args.op)
    if args.cmd == "demo":
        from .demo.run import run_demo

        return run_demo(out=args.out, quick=args.quick)
    return _draw(parser, args)


def _split_target(target: str) -> tuple[str, str]:
    script, sep, expr = target.partition(".py:")
    if not sep or not expr.strip():
        raise ValueError(f"expected SCRIPT.py:EXPR, got {target!r}")
    return script + ".py", expr


def _names(ns: dict) -> dict:
    """Every tensor in the script's namespace by its name, and each module's parameters."""
    from ._tensor import Tensor

    names: dict = {}
    for k, v in ns.items():
        if k.startswith("__"):
            continue
        if isinstance(v, Tensor):
            names.setdefault(k, v)
        elif hasattr(v, "named_parameters") and not isinstance(v, type):
            try:
                pairs = list(v.named_parameters())
            except TypeError:  # named_parameters that is not a module's
                continue
            for pn, p in pairs:
                if isinstance(p, Tensor):
                    names.setdefault(f"{k}.{pn}", p)
    return names


def _draw(parser: argparse.ArgumentParser, args) -> int:
    from . import viz

    try:
        script, expr = _split_target(args.target)
    except ValueError as exc:
        parser.error(str(exc))
    if not os.path.isfile(script):
        parser.error(f"no such script: {script}")
    old_argv, old_path = sys.argv, list(sys.path)
    sys.argv = [script]
    sys.path.insert(0, os.path.dirname(os.path.abspath(script)))
    try:
        ns = runpy.run_path(script, run_name="__main__")
    finally:
        sys.argv, sys.path[:] = old_argv, old_path
    try:
        roots = eval(expr, ns)  # the user's own expression, on the user's own script
    except Exception as exc:
        print(f"error: evaluating {expr!r} in {script}: {type(exc).__name__}: {exc}", file=sys.stderr)
        return 2
    params = _names(ns)
    show = dict(params=params, show_saved=args.saved, show_grads=not args.no_grads)
    try:
        if args.tree:
            print(viz.tree(roots, **show))
            return 0
        graph = viz.draw(roots, **show)
    except TypeError as exc:
        print(f"error: {expr!r} is not a tensor or a list/tuple of tensors: {exc}", file=sys.stderr)
        return 2
    except ImportError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    out = Path(args.out) if args.out else Path(Path(script).stem + "_graph.svg")
    try:
        written = viz.save(graph, out)
    except viz.GraphvizNotFound as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 1
    print(f"wrote {', '.join(map(str, written))}")
    return 0
