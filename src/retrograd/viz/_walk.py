"""Walk a backward graph once (iteratively) into a plain model that draw() and tree() render.

The model is a list of nodes (kind, label lines, flags) and a list of edges in the
direction data flows (leaf -> AccumulateGrad -> ... -> grad_fn -> output), as torchviz
draws them.  No graphviz here: tree() needs nothing but this file.
"""
from __future__ import annotations

import linecache
import os
from collections.abc import Iterable
from typing import Any

import numpy as np

__all__ = ["VNode", "Model", "build", "as_roots", "param_names"]

# torchviz's colours: leaves lightblue, outputs darkolivegreen1, saved tensors orange;
# backward nodes keep graphviz's default fill for style=filled (lightgrey).
COLOURS = {"leaf": "lightblue", "output": "darkolivegreen1", "saved": "orange"}
SOURCE_CHARS = 48  # longest source-line excerpt shown in a label


class VNode:
    """One drawn node: ``kind`` is 'fn' (backward node), 'leaf', 'output' or 'saved'."""

    __slots__ = ("id", "kind", "lines", "flags", "children")

    def __init__(self, id: str, kind: str, lines: list[str]) -> None:
        self.id = id
        self.kind = kind
        self.lines = lines
        self.flags: list[str] = []  # problems worth a red border (NaN/Inf, a stale saved tensor)
        self.children: list[str] = []  # for tree(): toward the leaves


class Model:
    __slots__ = ("nodes", "edges", "roots")

    def __init__(self) -> None:
        self.nodes: dict[str, VNode] = {}
        self.edges: list[tuple[str, str, dict]] = []  # (tail, head, attrs)
        self.roots: list[str] = []


def as_roots(roots: Any) -> list:
    """A tensor, or a list/tuple (any iterable) of tensors -> list of tensors (no duplicates)."""
    from .._tensor import Tensor

    if isinstance(roots, Tensor):
        roots = [roots]
    elif not isinstance(roots, Iterable) or isinstance(roots, (str, bytes)):
        raise TypeError(f"roots must be a Tensor or a list/tuple of Tensors, got {type(roots).__name__}")
    out, seen = [], set()
    for i, t in enumerate(roots):
        if not isinstance(t, Tensor):
            raise TypeError(f"roots[{i}] must be a Tensor, got {type(t).__name__}")
        if id(t) not in seen:
            seen.add(id(t))
            out.append(t)
    return out


def param_names(params: Any) -> dict[int, tuple[str, Any]]:
    """id(tensor) -> (name, tensor) from a dict, a module (named_parameters) or (name, tensor) pairs."""
    from .._tensor import Tensor

    if params is None:
        return {}
    if hasattr(params, "named_parameters") and not isinstance(params, dict):
        params = params.named_parameters()
    items = params.items() if isinstance(params, dict) else params
    names: dict[int, tuple[str, Any]] = {}
    for name, t in items:
        if isinstance(t, Tensor) and id(t) not in names:  # first name wins
            names[id(t)] = (str(name), t)
    return names


def _fmt_shape(shape) -> str:
    return "(" + ", ".join(str(int(s)) for s in shape) + ("," if len(shape) == 1 else "") + ")"


def _fmt_meta(shape, npdtype) -> str:
    from .._dtype import from_numpy_dtype

    try:
        dt = from_numpy_dtype(np.dtype(npdtype)).name
    except Exception:  # a dtype retrograd does not name: show NumPy's
        dt = str(npdtype)
    return f"{_fmt_shape(shape)} {dt}"


def _site(node) -> str | None:
    site = getattr(node, "_site", None)
    if not site:
        return None
    file, line = site
    # The statement without its trailing comment (PEP 8 puts two spaces before an inline "#").
    text = linecache.getline(file, line).strip().split("  #")[0].rstrip()
    if len(text) > SOURCE_CHARS:
        text = text[: SOURCE_CHARS - 3] + "..."
    where = f"{os.path.basename(file)}:{line}"
    return f"{where}  {text}" if text else where


def _grad_lines(g, prefix: str = "grad") -> tuple[list[str], list[str]]:
    """'grad norm=...' and the NaN/Inf flags of a gradient tensor (None -> nothing)."""
    if g is None:
        return [], []
    data = np.asarray(g._data)
    flags = []
    if data.dtype.kind in "fc" and data.size:
        finite = np.isfinite(data)
        if not finite.all():
            if np.isnan(data).any():
                flags.append(f"NaN in {prefix}")
            if np.isinf(data).any():
                flags.append(f"Inf in {prefix}")
    norm = float(np.linalg.norm(data.astype(np.float64).ravel())) if data.size else 0.0
    return [f"{prefix} norm={norm:.4g}"], flags


def _node_name(fn) -> str:
    try:
        name = fn.name()
    except Exception:  # a node type without name(): its class name, as torchviz shows
        name = type(fn).__name__
    return name.removeprefix("torch::autograd::")


def build(roots: Any, params: Any = None, show_saved: bool = False, show_grads: bool = True) -> Model:
    """The model of the graph behind ``roots`` (see the module docstring)."""
    from ..autograd.graph import SavedTensor

    roots = as_roots(roots)
    names = param_names(params)
    # (id(node), output_nr) -> name of a named non-leaf tensor, so backward nodes say what they made.
    made: dict[tuple[int, int], str] = {}
    for name, t in names.values():
        if t._grad_fn is not None:
            made.setdefault((id(t._grad_fn), t._output_nr), name)
    root_ids = {id(t) for t in roots}

    m = Model()
    counter = [0]
    keep: list = []  # keeps walked objects alive so their id()s stay unique during the walk

    def new_id() -> str:
        counter[0] += 1
        return f"n{counter[0] - 1}"

    fn_vid: dict[int, str] = {}
    fns: list = []  # backward nodes in discovery order
    out_meta: dict[int, dict[int, tuple]] = {}  # id(fn) -> {output_nr: (shape, np dtype)}
    leaf_vid: dict[int, str] = {}
    inputs: dict[int, list] = {}  # id(fn) -> [(input index, producer node, its output_nr)]
    consumers: dict[int, int] = {}  # id(fn) -> how many edges use its outputs

    def see_fn(fn) -> tuple[str, bool]:
        vid = fn_vid.get(id(fn))
        if vid is not None:
            return vid, False
        vid = fn_vid[id(fn)] = new_id()
        keep.append(fn)
        fns.append(fn)
        m.nodes[vid] = VNode(vid, "fn", [])
        return vid, True

    # 1. structure: roots, then every backward node reachable from them (explicit stack).
    stack: list = []
    for t in roots:
        rid = new_id()
        m.nodes[rid] = VNode(rid, "output", [])
        m.roots.append(rid)
        keep.append(t)
        fn = t._grad_fn
        if fn is not None:
            out_meta.setdefault(id(fn), {})[t._output_nr] = (t._data.shape, t._data.dtype)
            fvid, new = see_fn(fn)
            m.edges.append((fvid, rid, {}))
            m.nodes[rid].children.append(fvid)
            if new:
                stack.append(fn)
        _label_tensor(m.nodes[rid], t, names, show_grads, root=True)
        while stack:
            fn = stack.pop()
            vid = fn_vid[id(fn)]
            pending = []
            for i, (u, nr) in enumerate(_edges(fn)):
                if u is None:
                    continue
                inputs.setdefault(id(fn), []).append((i, u, nr))
                consumers[id(u)] = consumers.get(id(u), 0) + 1
                uvid, new = see_fn(u)
                m.edges.append((uvid, vid, {}))
                m.nodes[vid].children.append(uvid)
                if new:
                    pending.append(u)
            stack.extend(reversed(pending))  # first input is walked first: a stable, readable order

    _propagate_meta(fns, inputs, consumers, out_meta)

    # 2. labels: every backward node knows its output metadata now.
    for fn in fns:
        vid = fn_vid[id(fn)]
        v = m.nodes[vid]
        v.lines.append(_node_name(fn))
        var = getattr(fn, "variable", None)
        if var is not None:  # AccumulateGrad: draw its leaf beside it, as torchviz does
            lvid = leaf_vid.get(id(var))
            if lvid is None:
                lvid = leaf_vid[id(var)] = new_id()
                leaf = m.nodes[lvid] = VNode(lvid, "leaf", [])
                _label_tensor(leaf, var, names, show_grads, root=False)
            m.edges.append((lvid, vid, {}))
            v.children.append(lvid)
            continue
        metas = out_meta.get(id(fn), {})
        multi = getattr(fn, "out_meta", None)
        if multi:  # multi-output op: every output's metadata is known
            metas = {i: (shape, getattr(dt, "np", dt)) for i, (shape, dt) in enumerate(multi)}
        for nr in sorted(metas):
            shape, npd = metas[nr]
            name = made.get((id(fn), nr))
            tag = f"{name}: " if name else (f"out{nr}: " if len(metas) > 1 else "")
            v.lines.append(tag + _fmt_meta(shape, npd))
        site = _site(fn)
        if site:
            v.lines.append(site)
        if show_grads:
            _retained_grads(v, fn, root_ids)
        if show_saved:
            _saved_nodes(m, v, fn, names, new_id, SavedTensor)
    return m


def _propagate_meta(fns: list, inputs: dict, consumers: dict, out_meta: dict) -> None:
    """Each node's output shape/dtype, from its consumers, consumers first (Kahn's order).

    A node records its inputs' metadata in ``_in_meta``, or leaves it empty when every input
    has the node's own output shape and dtype (the op table's fast path): then the metadata
    flows down from the consumer's own output.
    """
    left = dict(consumers)
    ready = [fn for fn in fns if not left.get(id(fn))]
    while ready:
        fn = ready.pop()
        in_meta = getattr(fn, "_in_meta", ()) or ()
        mine = out_meta.get(id(fn), {})
        same = mine.get(0) if len(mine) == 1 and not getattr(fn, "out_meta", None) else None
        for i, u, nr in inputs.get(id(fn), ()):
            meta = in_meta[i] if i < len(in_meta) else same
            if meta is not None:
                out_meta.setdefault(id(u), {}).setdefault(nr, meta)
            left[id(u)] -= 1
            if not left[id(u)]:
                ready.append(u)


def _edges(fn) -> tuple:
    """Every input edge of ``fn``, one per op input (``in_meta`` is indexed the same way).

    ``next_functions`` leaves out the inputs torch never differentiates (a loss's target, a
    ``where`` condition); the walk needs the positions, so it reads the node's own edge lists.
    """
    nxt = getattr(fn, "_next", None)
    if nxt is not None:
        return tuple(zip(nxt, fn._next_nr))
    return getattr(fn, "next_functions", ()) or ()


def _label_tensor(v: VNode, t, names: dict, show_grads: bool, root: bool) -> None:
    named = names.get(id(t))
    if named:
        v.lines.append(named[0])
    elif root:
        v.lines.append("output")
    v.lines.append(_fmt_meta(t._data.shape, t._data.dtype))
    if not root:
        v.lines.append(f"requires_grad={t._requires_grad}")
    elif t._grad_fn is None:
        v.lines.append(f"leaf, requires_grad={t._requires_grad}")
    if show_grads and (t._grad_fn is None or t._retains_grad):
        lines, flags = _grad_lines(t._grad)
        v.lines += lines
        v.flags += flags


def _retained_grads(v: VNode, fn, root_ids: set) -> None:
    retains = getattr(fn, "_retains", None) or {}
    for nr in sorted(retains):
        t = retains[nr]()
        if t is None or id(t) in root_ids:  # a retained root shows its grad on its own node
            continue
        lines, flags = _grad_lines(t._grad, "grad" if nr == 0 else f"grad[{nr}]")
        v.lines += lines
        v.flags += flags


def _saved_nodes(m: Model, v: VNode, fn, names: dict, new_id, SavedTensor) -> None:
    if getattr(fn, "released", False):
        v.lines.append("saved tensors: freed by backward")
        return
    items = fn.saved_items() if hasattr(fn, "saved_items") else []
    for key, s in items:
        entries = [(key, s)] if type(s) is SavedTensor else (
            [(f"{key}[{i}]", e) for i, e in enumerate(s)] if isinstance(s, list) else [])
        for label, st in entries:
            if type(st) is not SavedTensor:
                continue
            sid = new_id()
            node = m.nodes[sid] = VNode(sid, "saved", [])
            t = st.tensor
            named = names.get(id(t)) if t is not None else None
            node.lines.append(f"saved {label}" + (f" = {named[0]}" if named and named[0] != label else ""))
            if st.packed is not None:
                node.lines.append(f"packed by hooks: {type(st.packed).__name__}")
            else:
                data = t._data if t is not None else st.arr  # (a saved output: its array, labelled as inputs are)
                node.lines.append(_fmt_meta(data.shape, data.dtype))
            node.lines.append(f"version {st.version}")
            now = st.vc[0]
            if now != st.version:
                node.lines.append(f"now version {now}: modified in place")
                node.flags.append("saved tensor modified in place")
            m.edges.append((v.id, sid, {"dir": "none"}))
            v.children.append(sid)
