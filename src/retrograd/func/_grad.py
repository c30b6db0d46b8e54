"""``grad``, ``grad_and_value``, ``vjp``, ``jvp`` and ``linearize`` (PyTorch's ``torch.func`` API).

All reverse mode on retrograd's tape (see ``_core``).  ``jvp`` does not use retrograd's forward-mode
AD (``autograd.forward_ad``): it takes the vector-Jacobian product ``u -> J^T u`` with a dummy cotangent ``u`` and a graph,
then differentiates that (linear) map w.r.t. ``u`` against the tangents, which gives ``J t``.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .. import _creation
from .._size import Size
from .._tensor import Tensor
from ..autograd import grad_mode
from ._core import (Scope, autograd_grad, check_argnums, replace_argnums, running_user_function, slice_argnums,
                    split_outputs, undo_tensors)
from ._pytree import pprint_spec, tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp", "jvp", "linearize"]

_GV = "grad_and_value(f)(*args)"
_JVP = "jvp(f, primals, tangents)"


def _grad_and_value_impl(func: Callable, argnums, has_aux: bool, args: tuple, kwargs: dict):
    scope = Scope()
    with grad_mode.enable_grad():
        argnums = check_argnums(argnums, len(args))
        diff_args = slice_argnums(args, argnums)
        flat_diff, spec = tree_flatten(diff_args)
        handles = [scope.make_diff(x) for x in flat_diff]
        args = replace_argnums(args, argnums, tree_unflatten(handles, spec))
        with running_user_function():
            output = func(*args, **kwargs)
        aux = None
        if has_aux:
            if not (isinstance(output, tuple) and len(output) == 2):
                raise RuntimeError(f"{_GV}: output of function f should be a tuple: (output, aux) if has_aux is True")
            output, aux = output
        if not isinstance(output, Tensor):
            raise RuntimeError(f"{_GV}: Expected f(*args) to return a Tensor, got {type(output)}")
        if output.dim() != 0:
            raise RuntimeError(f"{_GV}: Expected f(*args) to return a scalar Tensor, got tensor with {output.dim()} "
                               "dims. Maybe you wanted to use the vjp or jacrev APIs instead?")
        keep = scope.depends_on_outside((output,))
        grads = autograd_grad([output], handles, None, create_graph=keep, retain_graph=keep)
    grads = tree_unflatten([scope.finish(g) for g in grads], spec)
    value = scope.finish(output)
    if has_aux:
        return grads, (value, undo_tensors(scope, aux))
    return grads, value


def grad_and_value(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """A function returning ``(gradient, value)`` of the scalar function ``func``.

    With ``has_aux=True`` ``func`` returns ``(output, aux)`` and the result is
    ``(gradient, (value, aux))``.

    >>> import retrograd as torch
    >>> g, v = torch.func.grad_and_value(lambda x: (x ** 2).sum())(torch.tensor([1., 2.]))
    >>> g, v
    (tensor([2., 4.]), tensor(5.))
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        return _grad_and_value_impl(func, argnums, has_aux, args, kwargs)

    return wrapper


def grad(func: Callable, argnums: int | tuple[int, ...] = 0, has_aux: bool = False) -> Callable:
    """A function computing the gradient of the scalar function ``func`` w.r.t. argument(s) ``argnums``.

    The arguments may be pytrees (tuples, lists, dicts) of tensors; the gradient has their
    structure.  Transforms compose: ``grad(grad(f))`` is the second derivative.

    >>> import retrograd as torch
    >>> torch.func.grad(lambda x: x.sin().sum())(torch.tensor([0., 1.]))
    tensor([1.0000, 0.5403])
    >>> torch.func.grad(torch.func.grad(lambda x: x ** 3))(torch.tensor(2.))
    tensor(12.)
    """
    @functools.wraps(func)
    def wrapper(*args, **kwargs):
        g, value = _grad_and_value_impl(func, argnums, has_aux, args, kwargs)
        if has_aux:
            return g, value[1]
        return g

    return wrapper


def _vjp_impl(func: Callable, primals: tuple, has_aux: bool, argnums=None):
    """(outputs, vjp_fn[, aux]); vjp_fn returns the products for ``argnums`` (all primals when None)."""
    scope = Scope()
    with grad_mode.enable_grad():
        if argnums is None:
            diff = primals
        else:
            argnums = check_argnums(argnums, len(primals))
            diff = slice_argnums(primals, argnums)
        flat_diff, diff_spec = tree_flatten(diff)
        handles = [scope.make_diff(x) for x in flat_diff]
        new = tree_unflatten(handles, diff_spec)
        args = new if argnums is None else replace_argnums(primals, argnums, new)
        with running_user_function():
            out = func(*args)
        flat_out, out_spec, aux = split_outputs("vjp(f, *primals)", out, has_aux, scope)
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")

    def vjp_fn(cotangents, retain_graph: bool = True, create_graph: bool | None = None):
        flat_ct, ct_spec = tree_flatten(cotangents)
        if ct_spec != out_spec:
            raise RuntimeError("Expected pytree structure of cotangents to be the same as pytree structure of "
                               f"outputs to the function. cotangents: {pprint_spec(ct_spec)}, primal output: "
                               f"{pprint_spec(out_spec)}")
        for i, (c, o) in enumerate(zip(flat_ct, flat_out)):
            if not isinstance(c, Tensor):
                raise TypeError(f"gradients can be either Tensors or None, but got {type(c).__name__}")
            if c.shape != o.shape:
                raise RuntimeError(f"Mismatch in shape: grad_output[{i}] has a shape of {Size(c.shape)} and "
                                   f"output[{i}] has a shape of {Size(o.shape)}.")
        keep = grad_mode.is_grad_enabled() and (
            scope.depends_on_outside(flat_out) or any(c.requires_grad for c in flat_ct))
        if create_graph is not None:
            keep = keep and create_graph
        with grad_mode.enable_grad():
            # (a cotangent of another float dtype is cast to its output's, as grad_outputs are)
            res = autograd_grad(flat_out, handles, list(flat_ct), create_graph=keep,
                                retain_graph=retain_graph or keep)
        return tree_unflatten([scope.finish(g) for g in res], diff_spec)

    outputs = tree_unflatten([scope.finish(o) for o in flat_out], out_spec)
    if has_aux:
        return outputs, vjp_fn, aux
    return outputs, vjp_fn


def vjp(func: Callable, *primals, has_aux: bool = False):
    """``(func(*primals), vjp_fn)``: ``vjp_fn(cotangents)`` returns the vector-Jacobian products,
    a tuple with one entry per primal (each with that primal's pytree structure).

    ``vjp_fn`` can be called many times.  With ``has_aux=True`` ``func`` returns ``(output, aux)``
    and ``vjp`` returns ``(output, vjp_fn, aux)``.

    >>> import retrograd as torch
    >>> out, vjp_fn = torch.func.vjp(lambda x: x ** 2, torch.tensor([1., 2.]))
    >>> vjp_fn(torch.ones(2))
    (tensor([2., 4.]),)
    """
    return _vjp_impl(func, primals, has_aux)


def _check_tensor_list(flat: list, argname: str) -> None:
    if len(flat) == 0:
        raise RuntimeError(f"{_JVP}: Expected {argname} to contain at least one Tensor.")
    for x in flat:
        if not isinstance(x, Tensor):
            raise RuntimeError(f"{_JVP}: Expected {argname} to only contain Tensors, got {type(x)}")


def _jvp_impl(func: Callable, primals, tangents, has_aux: bool, argnums=None, strict: bool = False):
    if not isinstance(primals, tuple):
        raise RuntimeError(f"{_JVP}: Expected primals to be a tuple. E.g. it should be valid to call f(*primals).")
    if argnums is not None:
        argnums = check_argnums(argnums, len(primals))
        diff = (primals[argnums],) if isinstance(argnums, int) else slice_argnums(primals, argnums)
    else:
        diff = primals
    flat_p, p_spec = tree_flatten(diff)
    flat_t, t_spec = tree_flatten(tangents)
    if p_spec != t_spec:
        raise RuntimeError(f"{_JVP}: Expected primals and tangents to have the same python structure. For example, "
                           "if primals is a tuple of 3 tensors, tangents also must be. Got primals with structure "
                           f"{p_spec!r} and tangents with structure {t_spec!r}")
    _check_tensor_list(flat_p, "primals")
    _check_tensor_list(flat_t, "tangents")
    for p, t in zip(flat_p, flat_t):
        if not (p.is_floating_point() or p.is_complex()):
            raise ValueError(f"Expected primal to be floating point or complex, but got: {p.dtype}")
        if p.shape != t.shape:
            raise RuntimeError("Trying to set a forward gradient that has a different size than that of the "
                               f"original Tensor, this is not supported. Tensor is of size {list(p.shape)} while "
                               f"the given forward gradient is of size {list(t.shape)}.")
    scope = Scope()
    with grad_mode.enable_grad():
        handles = [scope.make_diff(x) for x in flat_p]
        new = tree_unflatten(handles, p_spec)
        if argnums is None:
            args = new
        else:
            args = replace_argnums(primals, argnums, new[0] if isinstance(argnums, int) else new)
        with running_user_function():
            out = func(*args)
        flat_out, out_spec, aux = split_outputs(_JVP, out, has_aux, scope)
        if strict:
            _check_strict(flat_out, handles)
        keep = scope.depends_on_outside(flat_out) or (scope.outer_enabled and any(t.requires_grad for t in flat_t))
        tangents_out = _jvp_through_vjp(scope, flat_out, handles, flat_t, keep)
    primals_out = tree_unflatten([scope.finish(o) for o in flat_out], out_spec)
    tangents_out = tree_unflatten([scope.finish(t) for t in tangents_out], out_spec)
    if has_aux:
        return primals_out, tangents_out, aux
    return primals_out, tangents_out


def _check_strict(outs: list, handles: list) -> None:
    """strict=True: every output must depend on some primal (forward mode: carry a tangent)."""
    from .. import autograd

    for o in outs:
        dep = o.requires_grad and any(
            g is not None for g in autograd.grad(o, handles, _creation.zeros_like(o), retain_graph=True,
                                                 allow_unused=True))
        if not dep:
            raise RuntimeError("jvp(f, primals, tangents, strict=True): The output of f is independent of the "
                               "inputs. This is not allowed with strict=True.")


def _jvp_through_vjp(scope: Scope, outs: list, handles: list, tangents: list, keep: bool) -> list:
    """J t for every output: differentiate ``u -> J^T u`` (linear in ``u``) w.r.t. ``u`` against ``t``."""
    res: list = [None] * len(outs)
    live = [i for i, o in enumerate(outs) if o.requires_grad and (o.is_floating_point() or o.is_complex())]
    if live:
        # u^T J is linear in u, so any u gives the same derivative; zeros keep inf/nan out.
        us = [scope.own_leaf(_creation.zeros_like(outs[i]).requires_grad_(True)) for i in live]
        vj = autograd_grad([outs[i] for i in live], handles, us, create_graph=True)
        jt = autograd_grad(vj, us, list(tangents), create_graph=keep, retain_graph=keep)
        for i, g in zip(live, jt):
            res[i] = g
    return [_creation.zeros_like(o) if r is None else r for o, r in zip(outs, res)]


def jvp(func: Callable, primals: tuple, tangents: tuple, *, strict: bool = False, has_aux: bool = False):
    """``(func(*primals), J @ tangents)``: the Jacobian-vector product.

    ``primals`` must be a tuple (``func(*primals)`` is called) and ``tangents`` must have the
    same structure.  Computed by reverse mode twice (the double-vjp trick), not with
    ``autograd.forward_ad``.

    >>> import retrograd as torch
    >>> torch.func.jvp(lambda x: x ** 2, (torch.tensor([1., 2.]),), (torch.ones(2),))
    (tensor([1., 4.]), tensor([2., 4.]))
    """
    return _jvp_impl(func, primals, tangents, has_aux, strict=strict)


def linearize(func: Callable, *primals) -> tuple[Any, Callable]:
    """``(func(*primals), jvp_fn)`` where ``jvp_fn(*tangents)`` is the Jacobian-vector product at ``primals``.

    (retrograd re-runs ``func`` on each ``jvp_fn`` call; PyTorch traces it once.)

    >>> import retrograd as torch
    >>> out, jvp_fn = torch.func.linearize(torch.sin, torch.tensor(0.))
    >>> jvp_fn(torch.tensor(2.))
    tensor(2.)
    """
    flat_p, p_spec = tree_flatten(primals)
    for x in flat_p:
        if not isinstance(x, Tensor):
            raise ValueError(f"Thing passed to transform API must be Tensor, got {type(x)}")
    with grad_mode.no_grad():
        with running_user_function():
            out = func(*primals)
    leaves, spec = tree_flatten(out)
    out = tree_unflatten([o.detach() if isinstance(o, Tensor) else o for o in leaves], spec)

    def jvp_fn(*tangents):
        flat_t, t_spec = tree_flatten(tangents)
        if t_spec != p_spec:
            raise RuntimeError(f"Expected the tangents {t_spec!r} to have the same argspec as the primals "
                               f"{p_spec!r}")
        for idx, (t, p) in enumerate(zip(flat_t, flat_p)):
            if not isinstance(t, Tensor) or t.shape != p.shape:
                shape = t.shape if isinstance(t, Tensor) else type(t)
                raise RuntimeError(f"tangent:{idx} with shape {shape} in flattened pytree doesn't match the shape "
                                   f"{p.shape} of the corresponding primal.")
            if t.dtype != p.dtype:
                raise RuntimeError(f"tangent:{idx} with dtype {t.dtype} in flattened pytree doesn't match the dtype "
                                   f"{p.dtype} of the corresponding primal.")
        return _jvp_impl(func, tuple(primals), tuple(tangents), False)[1]

    return out, jvp_fn
