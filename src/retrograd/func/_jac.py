"""``jacrev`` (PyTorch's ``torch.func`` API); ``jacfwd`` and ``hessian`` are in ``_forward``.

The Jacobian is built row by row with reverse mode: one vector-Jacobian product per output
element against a one-hot cotangent, the rows stacked (``stack`` is differentiable, so
``jacrev(jacrev(f))`` works).

The result is a pytree: the structure of ``func``'s output, each leaf holding the structure of
the differentiated argument(s); a leaf's Jacobian has shape ``out.shape + input.shape``.
"""
from __future__ import annotations

import functools
from typing import Callable

from .. import _creation
from .._tensor import Tensor
from .._ops import stack
from ..autograd import grad_mode
from ._core import (Scope, autograd_grad, check_argnums, replace_argnums, running_user_function, slice_argnums,
                    split_outputs)
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["jacrev"]

_VJP = "vjp(f, *primals)"


def _jacobian(func: Callable, args: tuple, argnums, has_aux: bool):
    api = _VJP
    scope = Scope()
    with grad_mode.enable_grad():
        argnums = check_argnums(argnums, len(args))
        diff = slice_argnums(args, argnums)
        flat_diff, diff_spec = tree_flatten(diff)
        handles = [scope.make_diff(x) for x in flat_diff]
        with running_user_function():
            out = func(*replace_argnums(args, argnums, tree_unflatten(handles, diff_spec)))
        flat_out, out_spec, aux = split_outputs(api, out, has_aux, scope)
        for o in flat_out:
            if not (o.is_floating_point() or o.is_complex()):
                raise RuntimeError("vjp(f, ...): All outputs of f must be floating-point or complex Tensors, got "
                                   f"Tensor with dtype {o.dtype}")
        keep = scope.keep_graph(flat_out)
        jacs = [_jacobian_of_output(o, handles, keep) for o in flat_out]
    result = tree_unflatten([tree_unflatten([scope.finish(j) for j in row], diff_spec) for row in jacs], out_spec)
    if has_aux:
        return result, aux
    return result


def _jacobian_of_output(o: Tensor, handles: list, keep: bool) -> list:
    """d o / d h for every handle h, shaped ``o.shape + h.shape``."""
    n = o.numel()
    shapes = [tuple(o.shape) + tuple(h.shape) for h in handles]
    if n == 0 or not o.requires_grad:
        return [_creation.zeros(s, dtype=h.dtype) for s, h in zip(shapes, handles)]
    eye = _creation.eye(n, dtype=o.dtype)
    rows: list[list] = [[] for _ in handles]
    for j in range(n):
        gs = autograd_grad([o], handles, [eye[j].reshape(o.shape)], create_graph=keep, retain_graph=True)
        for r, g in zip(rows, gs):
            r.append(g)
    return [stack(r).reshape(s) for r, s in zip(rows, shapes)]


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable:
    """A function computing the Jacobian of ``func`` w.r.t. argument(s) ``argnums`` (reverse mode).

    ``chunk_size`` is accepted for compatibility (rows are always computed one at a time).

    >>> import retrograd as torch
    >>> torch.func.jacrev(lambda x: x ** 2)(torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian(func, args, argnums, has_aux, )

    return wrapper


def _check_randomness_arg(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")

