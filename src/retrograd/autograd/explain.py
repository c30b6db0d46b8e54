"""``explain(tensor, wrt=None)``: why ``tensor.grad`` is None or zero, in plain words.

retrograd's own addition (PyTorch has no such function).  It reads what the forward pass
recorded cheaply (``_sites``): each node's creation line, where a leaf was made to
require grad, where a tensor was cut from the graph (``detach()``, ``.data``,
``torch.tensor(t)``, a ``no_grad`` / ``inference_mode`` block, ``.item()`` /
``.numpy()`` / ``.tolist()``), ``zero_grad()`` calls and hooks that zeroed a gradient;
with ``wrt`` it walks ``wrt``'s graph to see whether and how ``tensor`` is reached.
"""
from __future__ import annotations

from . import _sites
from ._sites import line_of, node_line

__all__ = ["explain", "why_no_grad_fn"]

_TO_COPY = {"ToCopyBackward0": ".to() / .float() / .double() / .half() / .cuda() / .cpu() / .type()"}


def explain(tensor, wrt=None) -> str:
    """A plain-language report: why ``tensor.grad`` is None or zero, or why ``wrt`` does not depend on ``tensor``.

    ``wrt`` is the tensor you call ``backward()`` on (the loss); without it, the report says
    what can be told from ``tensor`` alone.  The report names the lines of your program
    where the reason was made (``torch.autograd.set_record_sites(False)`` turns recording off).

    >>> import retrograd as torch
    >>> w = torch.randn(3, requires_grad=True).double()   # the leaf is before .double()
    >>> (w * 2).sum().backward()
    >>> print(torch.autograd.explain(w).split(" (from")[0])   # (the report goes on: the line, the fix)
    .grad is None: this tensor is not a leaf: it was made by ToCopyBackward0
    """
    from .._tensor import Tensor

    if not isinstance(tensor, Tensor):
        raise TypeError(f"explain() expects a Tensor, got {type(tensor).__name__}")
    if wrt is not None and not isinstance(wrt, Tensor):
        raise TypeError(f"explain(): wrt must be a Tensor, got {type(wrt).__name__}")
    lines: list[str] = []
    g = tensor._grad
    if wrt is not None:
        lines += _explain_wrt(tensor, wrt)
    elif g is not None and g._data.any():
        lines.append(".grad holds a gradient (not zero): nothing to explain.")
    elif g is not None:
        lines += _why_zero(tensor)
    else:
        lines += _why_none(tensor)
    return "\n".join(lines)


# ---- .grad is None ----------------------------------------------------------------------------
def _why_none(t) -> list[str]:
    if t._data.dtype.kind not in "fc":
        return [f".grad is None: it has an integer dtype ({t._data.dtype}), and only floating point (and "
                "complex) tensors can require gradients.",
                "Fix: make it a float tensor before requiring grad: torch.tensor(..., dtype=torch.float32, "
                "requires_grad=True), or x.float().requires_grad_()."]
    gf = t._grad_fn
    if gf is not None:
        return _non_leaf(t, gf)
    if not t._requires_grad:
        return [".grad is None: it does not require grad, so no backward pass writes to it."] + why_no_grad_fn(t)
    reset = t.__dict__.get("_reset")
    out = []
    if reset is not None and reset[2]:
        site, runs_then, _ = reset
        from ._pass_state import _run_ids

        since = _run_ids.__reduce__()[1][0] - runs_then
        out.append(f".grad is None: zero_grad() at {line_of(site) or '<line not recorded>'} set it to None, and "
                   + ("no backward pass has run since." if since == 0 else
                      f"none of the {since} backward pass(es) since then reached it."))
    else:
        out.append(".grad is None: it is a leaf that requires grad, but no backward pass has reached it yet.")
    if reset is not None and reset[2] and out[0].endswith("has run since."):
        pass  # (the reset says it all)
    elif t._accum_node() is None:
        born = t.__dict__.get("_born")
        out.append("No graph alive now was computed from it (it was made to require grad"
                   + (f" at {line_of(born)}" if born else "") + "): the results computed from it were made "
                   "without a graph, or are gone. Pass wrt=<your loss> to see how the loss was computed.")
    else:
        out.append("Pass wrt=<your loss> to see whether the loss's graph reaches it.")
    return out


def _non_leaf(t, gf) -> list[str]:
    name = gf.name()
    where = node_line(gf) or "<line not recorded>"
    how = _TO_COPY.get(name)
    out = [f".grad is None: this tensor is not a leaf: it was made by {name}"
           + (f" (from {how})" if how else "") + f" at {where}."]
    leafy = [c for c in gf._next if c is not None and type(c).__name__ == "AccumulateGrad"]
    if how and leafy:
        out.append("requires_grad=True was set on the tensor before that conversion, so the leaf that receives "
                   "the gradient is the tensor before it; this one is a result computed from it.")
        out.append("Fix: convert first and then require grad (torch.randn(3, dtype=torch.float64, "
                   "requires_grad=True), or x = x.double().detach().requires_grad_()), or read the gradient "
                   "from the original tensor.")
    else:
        out.append("PyTorch keeps .grad only for leaves (tensors you created with requires_grad=True, and "
                   "parameters). Fix: call .retain_grad() on it before backward(), or use "
                   "torch.autograd.grad(loss, this_tensor).")
    return out


def why_no_grad_fn(t) -> list[str]:
    """Why ``t`` neither requires grad nor has a grad_fn, as far as was recorded (lines of a report)."""
    cut = t.__dict__.get("_cut")
    if t.__dict__.get("_inference") and (cut is None or "inference" not in cut[0]):
        return ["It is an inference tensor (made inside torch.inference_mode()): inference tensors never "
                "record a graph. Fix: compute it outside inference_mode (or clone() it outside)."]
    if cut is not None:
        how, site, op = cut
        at = line_of(site) or "<line not recorded>"
        if op is not None:
            return [f"It was computed (by {op}) from tensors that require grad, but inside the {how} block "
                    f"entered at {at}, so no graph was recorded.",
                    "Fix: compute it outside that block, or inside torch.enable_grad()."]
        if how == "autograd result":
            return [f"It is a gradient computed at {at} without create_graph=True, so it has no graph of its own.",
                    "Fix: pass create_graph=True to that backward() / autograd.grad call to differentiate it "
                    "again."]
        return [f"It was cut from the graph by {how} at {at}: the result shares the values but not the history.",
                f"Fix: use the tensor itself instead of its {how} where gradients must flow."]
    return ["It was computed only from tensors that do not require grad (or created without "
            "requires_grad=True)."]


# ---- .grad is zero ----------------------------------------------------------------------------
def _why_zero(t) -> list[str]:
    out = []
    reset = t.__dict__.get("_reset")
    if reset is not None and not reset[2]:
        site, runs_then, _ = reset
        from ._pass_state import _run_ids

        since = _run_ids.__reduce__()[1][0] - runs_then
        out.append(f".grad is zero: zero_grad(set_to_none=False) at {line_of(site) or '<line not recorded>'} "
                   "filled it with zeros" + (", and no backward pass has run since." if since == 0 else
                                             f"; {since} backward pass(es) ran since then."))
    hooks = []
    node = t._grad_fn if t._grad_fn is not None else t._accum_node()
    for d in (getattr(node, "_tensor_pre_hooks", None) or {}).values():
        hooks += list(d.values())
    for h in hooks:
        if h in _sites.zeroing_hooks:
            code = getattr(h, "__code__", None)
            where = f" (defined at {code.co_filename}:{code.co_firstlineno})" if code is not None else ""
            out.append(f"A hook registered on it, {getattr(h, '__name__', type(h).__name__)}{where}, returned "
                       "zeros in place of a non-zero gradient.")
    if not out:
        out.append(".grad is zero: the gradients that reached it were zero (for example an inactive ReLU, a "
                   "masked or clamped value, or a loss that does not change with it here).")
    return out


# ---- with wrt: does wrt depend on tensor? -------------------------------------------------------
def _explain_wrt(t, wrt) -> list[str]:
    target = t._grad_fn if t._grad_fn is not None else t._accum_node()
    root = wrt._grad_fn if wrt._grad_fn is not None else (wrt._accum_node() if wrt._requires_grad else None)
    if root is None:
        out = ["wrt does not depend on this tensor: wrt does not require grad and has no grad_fn, so it has no "
               "graph at all."]
        cuts = _cuts_from(target, t)
        if wrt.__dict__.get("_cut") is not None or wrt.__dict__.get("_inference") or not cuts:
            out += why_no_grad_fn(wrt)
        return out + cuts
    if t is wrt:
        return ["wrt is this tensor itself: its gradient with respect to itself is 1."]
    if t._data.dtype.kind not in "fc":
        return [f"wrt does not depend on this tensor in a differentiable way: it has an integer dtype "
                f"({t._data.dtype}); integer tensors cannot require grad."]
    if target is None:
        if not t._requires_grad:
            return ["wrt does not depend on this tensor through the graph: it does not require grad."] \
                + why_no_grad_fn(t) + ["Fix: create it with requires_grad=True (or x.requires_grad_()) before "
                                       "computing wrt from it."]
        born = t.__dict__.get("_born")
        return ["wrt does not depend on this tensor: no recorded op has used it since it was made to require "
                "grad" + (f" (at {line_of(born)})" if born else "") + "."] + _cuts_from(target, t)
    path = _path(root, target)
    if path is not None:
        path = [n for n in reversed(path) if type(n).__name__ != "AccumulateGrad"]
        steps = " -> ".join(f"{n.name()} ({node_line(n) or '?'})" for n in path[:6])
        more = f" -> ... ({len(path) - 6} more)" if len(path) > 6 else ""
        out = ["wrt depends on this tensor" + (f", through {steps}{more}." if steps else ".")]
        if t._grad_fn is not None and not t._retains_grad:
            out += _non_leaf(t, t._grad_fn)[:1] + ["Its gradient is computed in backward but not kept in .grad: "
                                                   "call .retain_grad() on it first."]
        elif t._grad is not None and not t._grad._data.any():
            out += _why_zero(t)
        return out
    out = ["wrt does not depend on this tensor: it is not reachable from wrt's graph."]
    cuts = _cuts_from(target, t)
    if not cuts:
        out.append("It was not used in computing wrt (or the results computed from it were replaced "
                   "before wrt was computed).")
    return out + cuts


def _path(root, target, limit: int = 1_000_000):
    """The chain of nodes from ``root`` down to ``target`` (both included), or None."""
    parent = {root: None}
    stack = [root]
    while stack and len(parent) < limit:
        n = stack.pop()
        if n is target:
            path = []
            while n is not None:
                path.append(n)
                n = parent[n]
            return path
        for c in n._next:
            if c is not None and c not in parent:
                parent[c] = n
                stack.append(c)
    return None


def _reaches(node, target, limit: int = 100_000) -> bool:
    if node is target:
        return True
    if node is None or not hasattr(node, "_next"):
        return False
    seen = {node}
    stack = [node]
    while stack and len(seen) < limit:
        for c in stack.pop()._next:
            if c is target:
                return True
            if c is not None and c not in seen:
                seen.add(c)
                stack.append(c)
    return False


def _cuts_from(target, t) -> list[str]:
    """Lines naming the recorded cuts whose source is ``t`` or was computed from it."""
    out = []
    seen = set()
    for ref, how, site, leaves in reversed(_sites._cuts):
        src = ref()
        if src is not None:
            hit = src is t or (target is not None and _reaches(src, target))
        else:
            hit = any(r() is t for r in leaves)
        key = (how, site)
        if hit and key not in seen:
            seen.add(key)
            at = line_of(site) or "<line not recorded>"
            if how in ("torch.no_grad()", "torch.inference_mode()", "@torch.no_grad()"):
                out.append(f"A value computed from it was made without a graph inside the {how} block entered "
                           f"at {at}.")
            elif how in (".item()", ".tolist()", ".numpy()", "float()", "int()", "complex()"):
                out.append(f"A value computed from it left the graph as a Python number or NumPy array by "
                           f"{how} at {at}: arithmetic on that value is not recorded (use tensor ops instead).")
            else:
                out.append(f"A value computed from it was cut from the graph by {how} at {at}.")
        if len(out) >= 5:
            break
    return out
