"""``grad``, ``grad_and_value`` and ``vjp`` (PyTorch's ``torch.func`` API): reverse mode on
retrograd's tape (see ``_core``).  The forward-mode transforms live in ``_forward``.
"""
from __future__ import annotations

import functools
from typing import Callable

from .._size import Size
from .._tensor import Tensor
from ..autograd import grad_mode
from ._core import (Scope, autograd_grad, check_argnums, replace_argnums, running_user_function, slice_argnums,
                    split_outputs, undo_tensors)
from ._pytree import pprint_spec, tree_flatten, tree_unflatten

__all__ = ["grad", "grad_and_value", "vjp"]

_GV = "grad_and_value(f)(*args)"


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
        keep = scope.keep_graph((output,))
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
        keep = scope.dual or grad_mode.is_grad_enabled() and (
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
