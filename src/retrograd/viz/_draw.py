"""draw(): the backward graph as a graphviz drawing, in torchviz's style with more on each node.

``graphviz`` (the Python package) is optional and imported only when draw() runs.  Its
``dot`` program renders SVG/PNG; without it, ``.source`` (DOT text) still works and save()
writes the ``.dot`` file and says how to install graphviz.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

from ._walk import COLOURS, build

if TYPE_CHECKING:
    from pathlib import Path

__all__ = ["draw", "save", "dot_available", "GraphvizNotFound", "INSTALL_DOT", "INSTALL_PY"]

INSTALL_PY = ("retrograd.viz.draw needs the 'graphviz' Python package: pip install graphviz "
              "(or pip install 'retrograd[demo]')")
INSTALL_DOT = ("Graphviz's 'dot' program is not on PATH, so the graph cannot be rendered to SVG/PNG "
               "(its DOT source is still available as .source). Install it: "
               "apt-get install graphviz (Debian/Ubuntu), brew install graphviz (macOS), "
               "conda install graphviz, or see https://graphviz.org/download/")

# torchviz's node style: filled boxes in a small monospace font.
NODE_ATTR = dict(style="filled", shape="box", fontsize="10", height="0.2", fontname="monospace")
GRAPH_ATTR = dict(size="12,12")
FLAG_ATTR = dict(color="red", penwidth="3")  # NaN/Inf in a gradient, a saved tensor modified in place


class GraphvizNotFound(RuntimeError):
    """Raised by save() when graphviz's ``dot`` program is missing (the .dot file is still written)."""


def dot_available() -> bool:
    """True when graphviz's ``dot`` program is on PATH (needed for SVG/PNG, not for DOT text)."""
    import shutil

    return shutil.which("dot") is not None


_drawing_cls = None


def _graphviz():
    try:
        import graphviz
    except ImportError as exc:
        raise ImportError(INSTALL_PY) from exc
    return graphviz


def _drawing_class():
    """graphviz.Digraph, plus a Jupyter display that explains a missing ``dot`` instead of failing."""
    global _drawing_cls
    if _drawing_cls is None:
        graphviz = _graphviz()

        class Drawing(graphviz.Digraph):
            """A graphviz.Digraph of a backward graph (shown inline by Jupyter)."""

            def _repr_mimebundle_(self, include=None, exclude=None, **kwargs):
                if not dot_available():
                    return {"text/plain": INSTALL_DOT + "\n\n" + self.source}
                return super()._repr_mimebundle_(include, exclude, **kwargs)

            def _repr_svg_(self) -> str:  # older front ends ask for this one
                return self.pipe(format="svg", encoding="utf-8")

        _drawing_cls = Drawing
    return _drawing_cls


def draw(roots: Any, params: Any = None, show_saved: bool = False, show_grads: bool = True):
    """Draw the backward graph that produced ``roots`` (a tensor or a list/tuple of tensors).

    Nodes: every backward node (PyTorch's name, its output's shape and dtype, and the source
    line that created it), every leaf (its name from ``params``, shape, requires_grad), with
    ``show_saved`` the tensors saved for backward (shape, dtype, version), and, once backward
    has run (``show_grads``), each leaf's and retained tensor's gradient norm, flagged in red
    when it holds NaN or Inf.  ``params``: a dict name -> tensor, a module (its
    ``named_parameters()``) or (name, tensor) pairs; any tensor in it, leaf or not, is named.

    Returns a ``graphviz.Digraph``: ``.source`` is the DOT text, Jupyter shows it inline, and
    ``retrograd.viz.save(g, "graph.svg")`` renders it.  (The example is not run as a doctest:
    it needs the optional ``graphviz`` package, ``pip install 'retrograd[demo]'``.)

    >>> import retrograd as torch
    >>> x = torch.tensor(2., requires_grad=True)
    >>> y = torch.mul(torch.add(x, 1), torch.add(x, 2))
    >>> g = torch.viz.draw(y, params={"x": x, "y": y})   # doctest: +SKIP
    >>> print(g.source.count("AddBackward0"))             # doctest: +SKIP
    2
    """
    Drawing = _drawing_class()
    from graphviz import nohtml

    model = build(roots, params, show_saved=show_saved, show_grads=show_grads)
    g = Drawing(node_attr=NODE_ATTR, graph_attr=GRAPH_ATTR)
    for v in model.nodes.values():
        attrs = {}
        colour = COLOURS.get(v.kind)
        if colour:
            attrs["fillcolor"] = colour
        lines = list(v.lines)
        if v.flags:
            attrs.update(FLAG_ATTR)
            lines += [f"!! {f}" for f in v.flags]
        g.node(v.id, nohtml("\\n".join(_escape(line) for line in lines)), **attrs)
    for tail, head, attrs in model.edges:
        g.edge(tail, head, **attrs)
    return g


def _escape(label: str) -> str:
    # DOT reads backslash sequences (\n, \l) in labels; show user text (paths, code) literally.
    return label.replace("\\", "\\\\")


def save(graph, path: str | Path, formats: tuple[str, ...] | None = None) -> list[Path]:
    """Write ``graph`` (from draw()) to ``path``; the suffix (or ``formats``) picks svg/png/pdf/dot.

    The DOT source is always written beside the picture (``.dot``).  When ``dot`` is missing it
    raises GraphvizNotFound, whose message says how to install graphviz, after writing the .dot.
    (The example is not run as a doctest: it needs graphviz's ``dot`` program and writes files.)

    >>> import retrograd as torch
    >>> x = torch.tensor([1., 2.], requires_grad=True)
    >>> torch.viz.save(torch.viz.draw((x * x).sum()), "/tmp/graph.svg")   # doctest: +SKIP
    [PosixPath('/tmp/graph.dot'), PosixPath('/tmp/graph.svg')]
    """
    from pathlib import Path

    path = Path(path)
    if formats is None:
        formats = (path.suffix.lstrip(".").lower() or "svg",)
    stem = path.with_suffix("") if path.suffix else path
    stem.parent.mkdir(parents=True, exist_ok=True)
    dot_path = stem.with_suffix(".dot")
    dot_path.write_text(graph.source, encoding="utf-8")
    written = [dot_path]
    wanted = [f for f in formats if f != "dot"]
    if not wanted:
        return written
    if not dot_available():
        raise GraphvizNotFound(f"{INSTALL_DOT}\nWrote the DOT source to {dot_path} "
                               f"(render it later with: dot -T{wanted[0]} {dot_path} -o {stem}.{wanted[0]}).")
    for fmt in wanted:
        out = stem.with_suffix("." + fmt)
        out.write_bytes(graph.pipe(format=fmt))
        written.append(out)
    return written
