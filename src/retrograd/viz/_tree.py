"""tree(): the backward graph as an indented text tree, for terminals and logs (no dependency).

Each root is printed with its grad_fn below it and each node's inputs below that, down to
the leaves.  A node reached a second time (a shared subgraph) is not repeated: its first
appearance is tagged ``[#k]`` and later ones print ``^ [#k] <name> (shared, shown above)``.
"""
from __future__ import annotations

from typing import Any

from ._walk import build

__all__ = ["tree"]

# Past this depth lines stop moving right (a 1,000,000-node chain stays a readable, linear-size
# text); the depth is printed instead.
INDENT_CAP = 40


def tree(roots: Any, params: Any = None, show_saved: bool = False, show_grads: bool = True) -> str:
    """The graph behind ``roots`` (a tensor or a list/tuple of tensors) as indented text.

    Takes draw()'s arguments and shows the same nodes and labels, one line per node.

    >>> import retrograd as torch
    >>> x = torch.tensor(2., requires_grad=True)
    >>> y = x * x
    >>> print(torch.viz.tree(y, params={"x": x, "y": y}, show_grads=False))  # doctest: +ELLIPSIS
    y  () float32
    └─ MulBackward0  y: () float32  ...
       ├─ AccumulateGrad [#1]
       │  └─ x  () float32  requires_grad=True
       └─ ^ [#1] AccumulateGrad (shared, shown above)
    """
    m = build(roots, params, show_saved=show_saved, show_grads=show_grads)
    # A node with more than one parent is tagged at its first appearance.
    parents: dict[str, int] = {}
    for v in m.nodes.values():
        for c in v.children:
            parents[c] = parents.get(c, 0) + 1
    for r in m.roots:
        parents[r] = parents.get(r, 0) + 1
    tags: dict[str, int] = {}
    printed: set[str] = set()
    out: list[str] = []
    # (node id, prefix for this line, connector, prefix for its children, depth)
    stack = [(r, "", "", "", 0) for r in reversed(m.roots)]
    while stack:
        vid, prefix, conn, child_prefix, depth = stack.pop()
        v = m.nodes[vid]
        text = v.lines[0] if v.lines else v.kind
        deep = f"(depth {depth}) " if depth > INDENT_CAP else ""
        if vid in printed:
            out.append(f"{prefix}{conn}{deep}^ [#{tags[vid]}] {text} (shared, shown above)")
            continue
        printed.add(vid)
        if parents.get(vid, 0) > 1:
            tags[vid] = len(tags) + 1
            text += f" [#{tags[vid]}]"
        rest = v.lines[1:] + [f"!! {f}" for f in v.flags]
        out.append(f"{prefix}{conn}{deep}" + "  ".join([text] + rest))
        kids = v.children
        for i in range(len(kids) - 1, -1, -1):
            last = i == len(kids) - 1
            if depth >= INDENT_CAP:
                nxt = child_prefix  # stop indenting: the depth tag says where we are
            else:
                nxt = child_prefix + ("   " if last else "│  ")
            stack.append((kids[i], child_prefix, "└─ " if last else "├─ ", nxt, depth + 1))
    return "\n".join(out)
