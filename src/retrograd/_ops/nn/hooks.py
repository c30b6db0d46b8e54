"""The multi-output identity primitive (node ``BackwardHookFunctionBackward``) that module backward
hooks attach to."""
from __future__ import annotations

from .._registry import apply, primitive

__all__ = []


# ====================================================================== helpers for nn
_identity_ops: dict = {}


def _identity_n(n: int):
    """A multi-output identity primitive for ``n`` tensors (node BackwardHookFunctionBackward).

    Module backward hooks attach to this node: it sees the gradients of all module inputs
    (or outputs) at once, as PyTorch's BackwardHookFunction does.
    """
    op = _identity_ops.get(n)
    if op is not None:
        return op
    import inspect

    names = [f"t{i}" for i in range(n)]

    def fw(*arrays):
        return arrays[0].view() if n == 1 else tuple(a.view() for a in arrays)

    fw.__signature__ = inspect.Signature(
        [inspect.Parameter(nm, inspect.Parameter.POSITIONAL_OR_KEYWORD) for nm in names])
    if n == 1:
        rules = {"t0": lambda g: g}
    else:
        rules = {nm: (lambda i: (lambda g: g[i]))(i) for i, nm in enumerate(names)}
    op = primitive(f"backward_hook_function_{n}", fw, node="BackwardHookFunctionBackward", n_out=n, **rules)
    _identity_ops[n] = op
    return op


def _identity_apply(tensors: tuple) -> tuple:
    out = apply(_identity_n(len(tensors)), tuple(tensors))
    return (out,) if len(tensors) == 1 else out
