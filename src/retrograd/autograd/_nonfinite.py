"""NaN and inf provenance: where a non-finite value first appeared, forward and backward.

``torch.autograd.set_detect_nan(True)`` (retrograd's own) watches every op:

* forward: an op whose output has NaN or inf although its inputs are finite is the
  *origin*: a warning names it and its line, and its node is marked, so that a later
  backward error can name it;
* backward: the first node that returns a non-finite gradient for an input raises, with
  the node, its line, which input, how many elements, and the forward origin feeding it.
  When the gradient coming into that node is 0 exactly where its result is non-finite,
  this is the masking pattern (``torch.where(x > 0, x.sqrt(), 0)``: the branch that was not
  selected gets gradient 0, and 0 times its infinite derivative is NaN): the message says so
  and gives the usual fix.

Anomaly mode (``set_detect_anomaly(True)``) keeps PyTorch's NaN check and message and gets
the same added lines.
"""
from __future__ import annotations

import warnings

import numpy as np

from ._sites import here_line, line_of, node_line

__all__ = ["set_detect_nan", "is_detect_nan_enabled", "check_gradients", "check_forward"]


def set_detect_nan(mode: bool) -> None:
    """Trace NaN and inf to their origin: the first forward op and backward node that made them.

    While on, a forward op that turns finite inputs into NaN or inf warns with its line, and
    backward raises at the first node that returns a non-finite gradient, saying which input,
    which forward op first produced a non-finite value in its graph, and recognizing the
    masking pattern (``torch.where(x > 0, x.sqrt(), 0)``).  Costs a check of every op's values.

    >>> import retrograd as torch, warnings
    >>> torch.autograd.set_detect_nan(True)
    >>> x = torch.tensor([4., -1.], requires_grad=True)
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     y = torch.where(x > 0, x.sqrt(), 0.)
    >>> try:
    ...     y.sum().backward()
    ... except RuntimeError as e:
    ...     print(str(e).splitlines()[0])
    Function 'SqrtBackward0' returned nan values in its 0th output.
    >>> torch.autograd.set_detect_nan(False)
    """
    from .._ops import _registry
    from .anomaly_mode import anomaly_state

    anomaly_state.detect_nan = bool(mode)
    _registry._set_nan_watch(bool(mode))


def is_detect_nan_enabled() -> bool:
    """Whether ``set_detect_nan(True)`` is in effect (in this thread)."""
    from .anomaly_mode import anomaly_state

    return anomaly_state.detect_nan


def _nonfinite(a) -> str | None:
    """"nan", "inf" or None for an array (non-float arrays are always finite)."""
    if a.dtype.kind not in "fc" or a.size == 0:
        return None
    if np.isnan(a).any():
        return "nan"
    if np.isinf(a).any():
        return "inf"
    return None


def check_forward(op, tensors, out) -> None:
    """After an op ran: mark it as an origin if it made NaN/inf from finite inputs."""
    from ._pass_state import _local

    if _local.stack:
        return  # (a backward pass's own ops: its check_gradients speaks for them)
    outs = out if isinstance(out, tuple) else (out,)
    kinds = [_nonfinite(o._data) for o in outs if hasattr(o, "_data")]
    kind = next((k for k in kinds if k), None)
    if kind is None:
        return
    if any(hasattr(t, "_data") and _nonfinite(t._data) for t in tensors):
        return  # (propagated, not made here)
    site = here_line(3)
    for o in outs:
        gf = getattr(o, "_grad_fn", None)
        if gf is not None:
            gf.__dict__["_nonfinite"] = kind
            break
    msg = (f"{op.name} produced {kind} values from finite inputs at {line_of(site) or '<unknown line>'} "
           "(torch.autograd.set_detect_nan)")
    if site is None:
        warnings.warn(msg, UserWarning, stacklevel=2)
    else:  # (reported at the user's line, once per line by the default warning filter)
        warnings.warn_explicit(msg, UserWarning, site[0], site[1])


def check_gradients(node, gbuf: list, grads_in: list) -> None:
    """After a node's backward: anomaly mode's NaN check, and set_detect_nan's non-finite check."""
    from .anomaly_mode import anomaly_state

    nan_only = anomaly_state.enabled and anomaly_state.check_nan and not anomaly_state.detect_nan
    if not (anomaly_state.detect_nan or nan_only):
        return
    for i, g in enumerate(grads_in):
        if g is None:
            continue
        kind = _nonfinite(g._data)
        if kind is None or (nan_only and kind != "nan"):
            continue
        if anomaly_state.detect_nan and any(b is not None and _nonfinite(b._data) for b in gbuf):
            return  # (a non-finite gradient came in: the node that made it raised already, or the caller passed it)
        raise RuntimeError(f"Function '{node.name()}' returned {kind} values in its {i}th output."
                           + "".join("\n  " + ln for ln in details(node, i, g, gbuf, kind)))


def details(node, i: int, g, gbuf: list, kind: str) -> list[str]:
    """The lines that follow the message: where, which input, the forward origin, the masking pattern."""
    gd = g._data
    bad = ~np.isfinite(gd)
    finite_in = not any(b is not None and _nonfinite(b._data) for b in gbuf)
    lines = [f"{node.name()} was created at {node_line(node) or '<line not recorded>'}; its gradient for input {i} "
             f"has {int(bad.sum())} non-finite of {gd.size} elements"
             + (", although the gradient coming in is finite." if finite_in else
                ", and the gradient coming in was already non-finite.")]
    origin = _origin(node)
    if origin is node:
        lines.append(f"Its forward result was already non-finite ({node.__dict__['_nonfinite']} from finite "
                     "inputs): the first such op in its graph.")
    elif origin is not None:
        lines.append(f"The first op in its forward graph that made a non-finite value from finite inputs: "
                     f"{origin.name()} at {node_line(origin) or '<line not recorded>'} "
                     f"({origin.__dict__['_nonfinite']}).")
    g0 = gbuf[0] if len(gbuf) == 1 else None
    if g0 is not None and g0._data.shape == gd.shape and not g0._data[bad].any():
        lines.append(f"The gradient coming into {node.name()} is 0 at exactly those elements: its result was not "
                     "used there (masked, e.g. by torch.where(cond, x.sqrt(), 0)), but its local derivative is "
                     "infinite or NaN there, and 0 * inf = nan.")
        lines.append("Fix: keep the branch that is not selected finite as well, e.g. "
                     "torch.where(x > 0, torch.where(x > 0, x, 1).sqrt(), 0), or x.clamp(min=eps) before the op.")
    return lines


def _origin(node, limit: int = 100_000):
    """The earliest-made node marked as a non-finite origin in ``node``'s graph (itself included)."""
    best = None
    seen = {node}
    stack = [node]
    while stack and len(seen) < limit:
        n = stack.pop()
        if getattr(n, "__dict__", {}).get("_nonfinite") and (best is None or n._seq < best._seq):
            best = n
        for c in getattr(n, "_next", ()):
            if c is not None and c not in seen:
                seen.add(c)
                stack.append(c)
    return best
