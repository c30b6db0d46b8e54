"""``jacrev`` (PyTorch's ``torch.func`` API); ``jacfwd`` and ``hessian`` are in ``_forward``.

The Jacobian's rows are vector-Jacobian products against one-hot cotangents, computed under
``vmap`` (one batched backward pass; the replay is differentiable, so ``jacrev(jacrev(f))``
works).

The result is a pytree: the structure of ``func``'s output, each leaf holding the structure of
the differentiated argument(s); a leaf's Jacobian has shape ``out.shape + input.shape``.
"""
from __future__ import annotations

import functools
from typing import Callable

from .. import _creation
from ..autograd import grad_mode
from ._core import (Scope, autograd_grad, check_argnums, replace_argnums, running_user_function, slice_argnums,
                    split_outputs)
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["jacrev"]

_VJP = "vjp(f, *primals)"


def _jacobian(func: Callable, args: tuple, argnums, has_aux: bool, chunk_size: int | None = None):
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
        jacs = _jacobian_rows(flat_out, handles, keep, chunk_size)
    result = tree_unflatten([tree_unflatten([scope.finish(j) for j in row], diff_spec) for row in jacs], out_spec)
    if has_aux:
        return result, aux
    return result


def _jacobian_rows(outs: list, handles: list, keep: bool, chunk_size: int | None) -> list:
    """[d o / d h for every handle h, shaped ``o.shape + h.shape``] for every output o.

    One vector-Jacobian product per output element against a one-hot cotangent, all of them
    under ``vmap`` (one batched backward pass), as PyTorch does."""
    from ._vmap import vmap

    numels = [o.numel() for o in outs]
    total = sum(numels)
    live = [i for i, o in enumerate(outs) if o.requires_grad and numels[i]]
    if not live:
        return [[_creation.zeros(tuple(o.shape) + tuple(h.shape), dtype=h.dtype) for h in handles] for o in outs]
    starts = [sum(numels[:i]) for i in range(len(outs))]
    basis = []
    for i in live:
        o, n = outs[i], numels[i]
        eye = _creation.zeros((total, n), dtype=o.dtype)
        eye._data[starts[i]:starts[i] + n] = _creation.eye(n, dtype=o.dtype)._data
        basis.append(eye.view((total,) + tuple(o.shape)))

    def row(*cts):
        return tuple(autograd_grad([outs[i] for i in live], handles, list(cts), create_graph=keep, retain_graph=True))

    rows = vmap(row, chunk_size=chunk_size)(*basis)  # per handle: (total, *h.shape)
    return [[r.narrow(0, starts[i], numels[i]).reshape(tuple(o.shape) + tuple(h.shape)) for r, h in zip(rows, handles)]
            for i, o in enumerate(outs)]


def jacrev(func: Callable, argnums: int | tuple[int, ...] = 0, *, has_aux: bool = False,
           chunk_size: int | None = None, _preallocate_and_copy: bool = False) -> Callable:
    """A function computing the Jacobian of ``func`` w.r.t. argument(s) ``argnums`` (reverse mode).

    The rows are vector-Jacobian products under ``vmap`` (one batched backward pass);
    ``chunk_size`` computes them that many at a time.

    >>> import retrograd as torch
    >>> torch.func.jacrev(lambda x: x ** 2)(torch.tensor([1., 2.]))
    tensor([[2., 0.],
            [0., 4.]])
    """
    if not (chunk_size is None or chunk_size > 0):
        raise ValueError("jacrev: `chunk_size` should be greater than 0.")

    @functools.wraps(func)
    def wrapper(*args):
        return _jacobian(func, args, argnums, has_aux, chunk_size)

    return wrapper


def _check_randomness_arg(randomness: str) -> None:
    if randomness not in ("error", "different", "same"):
        raise RuntimeError("Only allowed values for randomness are 'error', 'different', or 'same'. "
                           f"Got {randomness}")

