"""Shared machinery of the reverse-mode transforms (private).

retrograd has one tape, not PyTorch's per-level wrappers, so a transform works like this:

* each differentiated input gets a fresh handle: a new leaf that requires grad when the input
  does not, or a view of it when it does (so an enclosing ``grad``/``autograd`` still sees
  the path back to it);
* ``func`` runs under ``enable_grad``; the gradients are taken with ``create_graph`` only when
  the outputs hang on something *outside* this transform (an input that required grad, a closed
  over parameter, an enclosing transform's handle); that is what lets ``grad(grad(f))`` work;
* every result is detached unless it still depends on something outside, so
  ``grad(f)(x)`` of a plain ``x`` does not require grad, as in PyTorch.

"Outside" is decided by walking the graph down to its leaves and asking whether any leaf that
requires grad is not one of this transform's own handles.
"""
from __future__ import annotations

from typing import Any

from .. import autograd as _autograd
from .._ops import _registry as _reg
from .._tensor import Tensor
from ..autograd import forward_ad as _forward_ad
from ..autograd import function as _function
from ..autograd import grad_mode
from ..autograd.graph import AccumulateGrad
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["Scope", "check_argnums", "slice_argnums", "replace_argnums", "undo_tensors"]


def _fw_tangent(x):
    """``x``'s forward-mode tangent at the open dual level, or None."""
    return _forward_ad._get(x) if _forward_ad._level.active else None


class Scope:
    """One transform's handles, and whether its results may keep a graph to the outside."""

    def __init__(self) -> None:
        self.outer_enabled = grad_mode.is_grad_enabled()  # (PyTorch: outer no_grad cuts the outer graph)
        self.own: set[int] = set()
        self.dual = False  # a handle carries a forward-mode tangent (forward-over-reverse)

    def make_diff(self, x) -> Tensor:
        """A handle on ``x`` that this transform differentiates with respect to.

        A dual ``x`` (inside ``jvp``/``jacfwd``) gives a dual handle: the reverse pass then runs
        on dual numbers and the gradients carry tangents (``hessian`` is forward-over-reverse)."""
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
        tangent = _fw_tangent(x)
        if tangent is not None:
            self.dual = True
        if x.requires_grad and self.outer_enabled:
            return x.view_as(x)  # (a view op: the tangent follows)
        if not (x.is_floating_point() or x.is_complex()):
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        h = x.detach()
        if tangent is not None:
            h = _forward_ad.make_dual(h, tangent)
        h.requires_grad_(True)
        self.own.add(id(h))
        if _reg._batching is not None:
            _reg._batching.internal(h)
        return h

    def own_leaf(self, t: Tensor) -> Tensor:
        """Register a leaf made by the transform itself (e.g. the dummy cotangent of the jvp trick)."""
        self.own.add(id(t))
        if _reg._batching is not None:
            _reg._batching.internal(t)
        return t

    def depends_on_outside(self, tensors) -> bool:
        """Whether any of ``tensors`` reaches, through its graph, a leaf that is not ours."""
        if not self.outer_enabled:
            return False
        own = self.own
        stack: list = []
        for t in tensors:
            if isinstance(t, Tensor) and t.requires_grad:
                if t._grad_fn is None:
                    if id(t) not in own:
                        return True
                else:
                    stack.append(t._grad_fn)
        seen: set[int] = set()
        while stack:
            node = stack.pop()
            if id(node) in seen:
                continue
            seen.add(id(node))
            if isinstance(node, AccumulateGrad):
                if id(node.variable) not in own:
                    return True
                continue
            for nxt in node._next:
                if nxt is not None and id(nxt) not in seen:
                    stack.append(nxt)
        return False

    def keep_graph(self, tensors) -> bool:
        """Whether gradients of ``tensors`` must be taken with ``create_graph``: they hang on the
        outside, or tangents flow through them (the rules must run as ops to carry tangents)."""
        return self.dual or self.depends_on_outside(tensors)

    def finish(self, t):
        """``t`` as a transform result: detached unless it depends on the outside (keeping its tangent)."""
        if isinstance(t, Tensor) and t.requires_grad and not self.depends_on_outside((t,)):
            tangent = _fw_tangent(t) if self.dual else None
            t = t.detach()
            if tangent is not None:
                t = _forward_ad.make_dual(t, tangent.detach() if tangent.requires_grad else tangent)
        return t

    def finish_tree(self, tree):
        leaves, spec = tree_flatten(tree)
        return tree_unflatten([self.finish(x) for x in leaves], spec)


def undo_tensors(scope: Scope, tree):
    """Aux outputs: every leaf must be a tensor (PyTorch's message otherwise)."""
    leaves, spec = tree_flatten(tree)
    for x in leaves:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"Expected tensors, got unsupported type {type(x)}")
    return tree_unflatten([scope.finish(x) for x in leaves], spec)


def autograd_grad(outputs: list, inputs: list, grad_outputs: list | None, create_graph: bool,
                  retain_graph: bool = True) -> list:
    """Gradients of ``outputs`` w.r.t. ``inputs``; outputs that do not require grad are
    skipped, and an input nothing reaches gets zeros (PyTorch's transforms never return None)."""
    from .. import _creation
    from ._batching import tracing

    if tracing():
        # (vmap traces: every gradient must come from table ops the trace sees, not from the
        # engine's NumPy shortcuts of a plain backward)
        create_graph = retain_graph = True
    if grad_outputs is None:
        grad_outputs = [None] * len(outputs)
    outs, gos = [], []
    for o, g in zip(outputs, grad_outputs):
        if isinstance(o, Tensor) and o.requires_grad:
            outs.append(o)
            gos.append(g)
    if outs:
        res = _autograd.grad(tuple(outs), tuple(inputs), tuple(gos), retain_graph=retain_graph,
                             create_graph=create_graph, allow_unused=True)
    else:
        res = (None,) * len(inputs)
    return [_creation.zeros_like(x) if g is None else g for g, x in zip(res, inputs)]


# ------------------------------------------------------------------ argnums
def check_argnums(argnums, num_args: int):
    """``argnums`` validated and made non-negative (PyTorch's messages and order of checks)."""
    if not isinstance(argnums, (int, tuple)):
        raise RuntimeError(f"argnums must be int or Tuple[int, ...], got: {type(argnums)}")

    def one(a):
        if not isinstance(a, int):
            raise RuntimeError(f"argnum must be int, got: {type(a)}")
        if 0 <= a < num_args:
            return a
        if -num_args <= a < 0:
            return a + num_args
        raise RuntimeError(f"Got argnum={a}, but only {num_args} positional inputs")

    if isinstance(argnums, int):
        return one(argnums)
    res = tuple(one(a) for a in argnums)
    if len(res) == 0:
        raise RuntimeError("argnums must be non-empty")
    if len(set(res)) != len(res):
        raise RuntimeError(f"argnums elements must be unique, got {res}")
    return res


def slice_argnums(args: tuple, argnums) -> Any:
    """The differentiated arguments: one pytree for an int argnums, a tuple for a tuple."""
    return args[argnums] if isinstance(argnums, int) else tuple(args[i] for i in argnums)


def replace_argnums(args: tuple, argnums, new) -> tuple:
    if isinstance(argnums, int):
        return tuple(new if i == argnums else a for i, a in enumerate(args))
    pos = {a: k for k, a in enumerate(argnums)}
    return tuple(new[pos[i]] if i in pos else a for i, a in enumerate(args))


class running_user_function:
    """Context around a transform's call of the user's function (see autograd.function._func_transforms)."""

    def __enter__(self):
        _function._func_transforms[0] += 1
        return self

    def __exit__(self, *exc) -> None:
        _function._func_transforms[0] -= 1


def split_outputs(api: str, out, has_aux: bool, scope: Scope) -> tuple[list, Any, Any]:
    """``(flat outputs, their spec, aux)`` of a transformed function's result, checked as torch
    checks them for vjp / jvp / jacrev / jacfwd (``api`` names the caller in the messages)."""
    aux = None
    if has_aux:
        if not (isinstance(out, tuple) and len(out) == 2):
            raise RuntimeError(f"{api}: output of function f should be a tuple: (output, aux) if has_aux is True")
        out, aux = out
        aux = undo_tensors(scope, aux)
    flat_out, out_spec = tree_flatten(out)
    if (len(flat_out) == 1 and flat_out[0] is None) or len(flat_out) < 1:
        raise RuntimeError(f"{api}: Expected f to be a function that has non-empty output (got output = {flat_out})")
    for o in flat_out:
        if not isinstance(o, Tensor):
            raise RuntimeError(f"{api}: expected f(*primals) to return only tensors, got unsupported type {type(o)}")
    return flat_out, out_spec, aux
