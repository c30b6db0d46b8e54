"""The lines retrograd adds after PyTorch's error messages: where it happened, why, the fix.

PyTorch's message stays exactly as PyTorch words it (code catches it, people search for
it); each added line follows it as "\\n  <line>".  The reference engine, the fast engine
and the graph's nodes raise through the functions here, so both engines say the same.
The lines come from what was recorded cheaply during the forward pass: each node's
creation site, the sites of in-place writes (``_sites``), the backward call that freed a
graph (``_pass_state._Run.freed``).
"""
from __future__ import annotations

from ._sites import line_of, node_line, write_site

__all__ = ["inplace_details", "freed_details", "tensor_summary", "root_error", "unused_error",
           "input_not_requiring_grad_error"]


def _lines(lines: list) -> str:
    return "".join("\n  " + ln for ln in lines)


def inplace_details(node, vc, saved_version: int) -> str:
    """The lines added to "one of the variables needed for gradient computation has been modified ..."."""
    lines = []
    made = None
    if node is not None:
        made = node_line(node)
        lines.append(f"It was saved for backward by {node.name()}, created at {made or '<line not recorded>'}.")
    hit = write_site(vc, saved_version)
    wrote = None
    if hit is not None:
        site, ver = hit
        wrote = line_of(site) or "<line not recorded>"
        which = "first" if ver == saved_version + 1 else "last"
        lines.append(f"It was modified in place afterwards at {wrote} (the {which} write recorded, "
                     f"version {ver - 1} -> {ver}).")
    else:
        lines.append("The line of the in-place write was not recorded (a write outside retrograd's ops, "
                     "or recording is off: torch.autograd.set_record_sites).")
    lines.append(f"Fix: make the write{' at ' + wrote if wrote else ''} out of place (x = x + 1 instead of "
                 "x += 1 or x.add_(1); inplace=False for nn layers), or give the op"
                 f"{' at ' + made if made else ''} a .clone() of the tensor.")
    return _lines(lines)


def freed_details(node) -> str:
    """The lines added to "Trying to backward through the graph a second time ...".

    Which node had its saved tensors freed, by which backward call; and when this pass's
    graph was built after that call (so it reaches into an older graph through a tensor
    computed before it: a hidden state carried across loop iterations, a generator's
    output reused after the discriminator's backward), where it crosses over and the fix
    (``detach()``) before the fallback (``retain_graph=True``).
    """
    from ._pass_state import _local
    from .graph import AccumulateGrad

    marker = getattr(node, "saved", None)
    if marker is None or not hasattr(marker, "seq"):
        marker = getattr(node, "_released", None)
    made = node_line(node)
    lines = [f"The saved tensors of {node.name()} (created at {made or '<line not recorded>'}) were freed"
             + (f" by the backward call at {line_of(marker.site)}." if getattr(marker, "site", None) else
                " by an earlier backward call.")]
    run = _local.stack[-1] if _local.stack else None
    seq = getattr(marker, "seq", None)
    crossing = None
    if run is not None and seq is not None:
        roots = [n for n, _ in run.root_edges if n is not None and type(n) is not AccumulateGrad]
        if roots and all(n._seq >= seq for n in roots):
            crossing = _crossing(roots, seq)
    if crossing is not None:
        new, old, new_lines = crossing
        old_line = node_line(old)
        why = ("so in an earlier iteration of the loop: a state carried over from one iteration to the next"
               if old_line is not None and old_line in new_lines else
               "for example a hidden state carried over from an earlier iteration of a loop, or a model's "
               "output reused after another loss's backward")
        lines.append(f"This backward's graph was built after that call, but {new.name()} (created at "
                     f"{node_line(new) or '<line not recorded>'}) uses a tensor computed before it by "
                     f"{old.name()} (created at {old_line or '<line not recorded>'}), {why}.")
        lines.append("Fix: detach() that tensor where it is carried over (h = h.detach() at the start of each "
                     "iteration), so that each backward stops there. retain_graph=True on the earlier backward "
                     "would instead backpropagate through every earlier iteration again, in ever more time and "
                     "memory.")
    else:
        lines.append("Fix: call backward() once, on the sum of the losses (or autograd.grad for several "
                     "outputs at once); if you do need a second pass through the same graph, pass "
                     "retain_graph=True to every backward call but the last.")
    return _lines(lines)


def _crossing(roots: list, seq: int, limit: int = 100000):
    """(new node, old node, the lines of the new nodes walked): the first edge from a node created at or after ``seq`` to an op node
    created before it, walking back from ``roots`` (newest first); None if there is none."""
    from .graph import AccumulateGrad

    seen = set()
    stack = list(roots)
    while stack and len(seen) < limit:
        n = stack.pop()
        if n in seen:
            continue
        seen.add(n)
        for child in n._next:
            if child is None or type(child) is AccumulateGrad:
                continue
            if child._seq < seq:
                return n, child, {node_line(m) for m in seen}
            if child not in seen:
                stack.append(child)
    return None


def tensor_summary(t) -> str:
    """"shape [2, 3], float32, made by MulBackward0 at file:line" for a message naming a tensor."""
    shape = "[" + ", ".join(map(str, t._data.shape)) + "]"
    out = f"shape {shape}, {t._data.dtype}"
    gf = t._grad_fn
    if gf is not None:
        out += f", made by {gf.name()} at {node_line(gf) or '<line not recorded>'}"
    else:
        born = t.__dict__.get("_born")
        if born is not None and t._requires_grad:
            out += f", a leaf made to require grad at {line_of(born)}"
        elif t._requires_grad:
            out += ", a leaf"
    return out


def root_error(i: int, t) -> RuntimeError:
    """PyTorch's "element i of tensors does not require grad and does not have a grad_fn", and why."""
    from .explain import why_no_grad_fn

    return RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn"
                        + _lines([f"Element {i}: {tensor_summary(t)}."] + why_no_grad_fn(t)))


def input_not_requiring_grad_error(i: int, t) -> RuntimeError:
    """PyTorch's "One of the differentiated Tensors does not require grad", naming the input."""
    from .explain import why_no_grad_fn

    return RuntimeError("One of the differentiated Tensors does not require grad"
                        + _lines([f"The input at index {i}: {tensor_summary(t)}."] + why_no_grad_fn(t)))


def unused_error(i: int, t) -> RuntimeError:
    """PyTorch's "The differentiated Tensor at index i appears to not have been used in the graph", and which."""
    from .explain import _cuts_from

    msg = (f"The differentiated Tensor at index {i} appears to not have been used in the graph. "
           "Set allow_unused=True if this is the desired behavior.")
    if not hasattr(t, "_data"):  # (a GradientEdge given as an input)
        return RuntimeError(msg)
    target = t._grad_fn if t._grad_fn is not None else t._accum_node()
    lines = [f"The input at index {i}: {tensor_summary(t)}.",
             "The outputs' graph does not reach it: no output was computed from it through recorded ops."]
    lines += _cuts_from(target, t)
    lines.append("torch.autograd.explain(input, wrt=output) says more.")
    return RuntimeError(msg + _lines(lines))
