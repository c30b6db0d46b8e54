"""``torch.autograd.graph.memory_report(root)``: what a graph keeps alive for backward.

retrograd's own addition.  Walks the graph below ``root`` and lists, per node, the tensors
it saved for backward (shape, dtype, bytes, the line that made each), grouped by the line
of user code that created the node and, when module tracking was on during the forward
(``set_module_tracking(True)``), by the module path (``encoder.layers.0.attn``), with the
total.  An array saved by several nodes is counted once in the totals.
"""
from __future__ import annotations

import weakref

from ._sites import line_of, node_line

__all__ = ["memory_report", "MemoryReport", "set_module_tracking", "is_module_tracking"]

# The modules whose forward is running (innermost last), pushed by nn.Module.__call__ while
# tracking is on; each node recorded then remembers the innermost one (weakly).
module_stack: list = []
_tracking = [False]


def set_module_tracking(mode: bool) -> None:
    """Record, for each node made during a forward, the ``nn.Module`` whose forward made it.

    Off by default (it takes the per-op slow path); ``memory_report`` and the graph
    pictures then group nodes by module path.

    >>> import retrograd as torch
    >>> torch.autograd.graph.set_module_tracking(True); torch.autograd.graph.set_module_tracking(False)
    """
    from .._ops import _registry

    _tracking[0] = bool(mode)
    if not mode:
        module_stack.clear()
    _registry._set_module_tracking(bool(mode))


def is_module_tracking() -> bool:
    """Whether ``set_module_tracking(True)`` is in effect."""
    return _tracking[0]


def note_module(node) -> None:
    """(Registry, tracking on) ``node`` was made inside the innermost module now running."""
    if module_stack:
        node.__dict__["_module"] = weakref.ref(module_stack[-1])


class MemoryReport:
    """The result of ``memory_report``: ``str(report)`` is the text, ``report.as_dict()`` the data."""

    def __init__(self, nodes: list, total: int) -> None:
        self.nodes = nodes
        self.total_bytes = total

    def by(self, key: str) -> dict:
        """{line or module path: bytes} (each array counted once per group), largest first."""
        groups: dict = {}
        seen: dict = {}
        for n in self.nodes:
            k = n[key] or ("<outside any module>" if key == "module" else "<line not recorded>")
            for s in n["saved"]:
                if (k, s["id"]) in seen:
                    continue
                seen[(k, s["id"])] = True
                groups[k] = groups.get(k, 0) + s["bytes"]
        return dict(sorted(groups.items(), key=lambda kv: (-kv[1], kv[0])))

    def as_dict(self) -> dict:
        nodes = [{k: v for k, v in n.items()} | {"saved": [{k: v for k, v in s.items() if k != "id"}
                                                          for s in n["saved"]]} for n in self.nodes]
        return {"total_bytes": self.total_bytes, "nodes": nodes, "by_line": self.by("line"),
                "by_module": self.by("module")}

    def __str__(self) -> str:
        out = [f"Saved for backward: {_size(self.total_bytes)} in {sum(len(n['saved']) for n in self.nodes)} "
               f"tensors, held by {len(self.nodes)} nodes."]
        out.append("By line:")
        out += [f"  {_size(b):>10}  {k}" for k, b in self.by("line").items()]
        mods = self.by("module")
        if any(not k.startswith("<") for k in mods):
            out.append("By module:")
            out += [f"  {_size(b):>10}  {k}" for k, b in mods.items()]
        out.append("Per node:")
        for n in self.nodes:
            out.append(f"  {n['node']} ({n['line'] or '<line not recorded>'}"
                       + (f", {n['module']}" if n["module"] else "") + f"): {_size(n['bytes'])}")
            for s in n["saved"]:
                out.append(f"    {s['name']}: {s['dtype']} {list(s['shape'])}, {_size(s['bytes'])}, made at "
                           f"{s['made_at'] or '<line not recorded>'}")
        return "\n".join(out)

    __repr__ = __str__


def _size(b: int) -> str:
    for unit in ("B", "KiB", "MiB", "GiB"):
        if b < 1024 or unit == "GiB":
            return f"{b} {unit}" if unit == "B" else f"{b:.1f} {unit}"
        b /= 1024
    return f"{b} B"


def memory_report(root, model=None) -> MemoryReport:
    """What the graph below ``root`` (a tensor or a node) keeps alive for backward.

    ``model``: an ``nn.Module`` whose ``named_modules()`` names the module paths (needs
    ``set_module_tracking(True)`` during the forward; otherwise nodes are grouped by line only).

    >>> import retrograd as torch
    >>> x = torch.ones(1000, requires_grad=True)
    >>> y = (x * 2).sin()              # sin saves its input: 4,000 bytes
    >>> r = torch.autograd.graph.memory_report(y)
    >>> r.total_bytes
    4000
    >>> print(str(r).splitlines()[0])
    Saved for backward: 3.9 KiB in 1 tensors, held by 1 nodes.
    """
    start = root._grad_fn if hasattr(root, "_grad_fn") else root
    names = {id(m): name or type(m).__name__ for name, m in model.named_modules()} if model is not None else {}
    nodes, seen_nodes, counted, total = [], set(), set(), 0
    stack = [start] if start is not None else []
    while stack:
        n = stack.pop()
        if n in seen_nodes:
            continue
        seen_nodes.add(n)
        stack += [c for c in getattr(n, "_next", ()) if c is not None and c not in seen_nodes]
        saved = list(_saved_of(n))
        if not saved:
            continue
        ref = n.__dict__.get("_module")
        mod = ref() if ref is not None else None
        entry = {"node": n.name(), "line": node_line(n),
                 "module": None if mod is None else names.get(id(mod), type(mod).__name__), "saved": [], "bytes": 0}
        for name, arr, made in saved:
            entry["saved"].append({"name": name, "shape": tuple(arr.shape), "dtype": str(arr.dtype),
                                   "bytes": int(arr.nbytes), "made_at": made, "id": id(arr)})
            entry["bytes"] += int(arr.nbytes)
            if id(arr) not in counted:
                counted.add(id(arr))
                total += int(arr.nbytes)
        nodes.append(entry)
    return MemoryReport(nodes, total)


def _made_at(t, node) -> str | None:
    if t is None:
        return node_line(node)
    if t._grad_fn is not None:
        return node_line(t._grad_fn)
    born = t.__dict__.get("_born")
    return line_of(born) if born else None


def _saved_of(node):
    """(name, array, line that made it) for each tensor ``node`` holds for backward."""
    from .graph import SavedTensor

    op = getattr(node, "op", None)
    saved = getattr(node, "saved", None)
    if op is not None and saved:
        inputs = op.inputs
        alias = {"out": "result"}  # (PyTorch's names, as grad_fn._saved_<name> uses them)
        if inputs:
            alias[inputs[0]] = "self"
        if len(inputs) > 1:
            alias[inputs[1]] = "other"
        for k, name in enumerate(op.saved_names):
            name = alias.get(name, name)
            v = saved[2 * k]
            for item in (v if isinstance(v, list) else [v]):
                if item is None:
                    continue
                t = item.tensor if isinstance(item, SavedTensor) else item if hasattr(item, "_data") else None
                arr = t._data if t is not None else getattr(item, "arr", None)
                if arr is None:
                    continue
                if t is not None and arr.ndim == 0 and not arr.flags.writeable and not t._requires_grad:
                    continue  # (a Python number the op wrapped: PyTorch saves a Scalar, not a tensor)
                yield name, arr, _made_at(t, node)
        return
    for i, s in enumerate(getattr(node, "_saved", None) or ()):  # a custom Function's ctx.save_for_backward
        if isinstance(s, SavedTensor):
            arr = s.tensor._data if s.tensor is not None else s.arr
            if arr is not None:
                yield f"saved_tensors[{i}]", arr, _made_at(s.tensor, node)
