"""``functionalize``: run a function without mutating its inputs' storage mid-way (``torch.func.functionalize``).

PyTorch rewrites in-place and ``out=`` ops into out-of-place ones at the ATen level, for graph
capture; the function computes the same values.  retrograd has no graph IR to rewrite, so
the transform keeps the semantics that user code sees: the function runs on copies of its
tensor arguments, and an argument the function mutated receives the final value afterwards
(one ``copy_``, as PyTorch writes back input mutations), so intermediate writes through
aliases of the inputs never touch the caller's tensors while ``func`` runs.
"""
from __future__ import annotations

import functools
from typing import Any, Callable

from .._tensor import Tensor
from ._pytree import tree_flatten, tree_unflatten

__all__ = ["functionalize"]

_REMOVE_MSG = ("functionalize(f, remove='mutations'): received invalid argument for remove={remove}. Valid options "
               "are:\n     remove='mutations': all inplace and out= operators will be removed from the program, and "
               "replaced with their out-of-place equivalents.\n     remove='mutations_and_views': In addition to the "
               "above, all aliasing operators {{view}} will be replaced with their non-aliasing counterparts, "
               "{{view}}_copy.\n")


def functionalize(func: Callable, *, remove: str = "mutations") -> Callable:
    """``func`` with its mutations of the inputs applied once, at the end (same values as ``func``).

    ``remove``: ``'mutations'`` or ``'mutations_and_views'`` (then no output is a view of an input).

    >>> import retrograd as torch
    >>> def f(a):
    ...     b = a + 1
    ...     b.add_(1)
    ...     a.mul_(2)
    ...     return b
    >>> x = torch.ones(2)
    >>> torch.func.functionalize(f)(x), x
    (tensor([3., 3.]), tensor([2., 2.]))
    """
    if remove not in ("mutations", "mutations_and_views"):
        raise RuntimeError(_REMOVE_MSG.format(remove=remove))
    copy_views = remove == "mutations_and_views"

    @functools.wraps(func)
    def wrapped(*args: Any, **kwargs: Any) -> Any:
        flat, spec = tree_flatten((args, kwargs))
        copies = [x.clone() if isinstance(x, Tensor) else x for x in flat]
        versions = [c._version if isinstance(c, Tensor) else None for c in copies]
        new_args, new_kwargs = tree_unflatten(copies, spec)
        out = func(*new_args, **new_kwargs)
        for orig, c, v in zip(flat, copies, versions):
            if isinstance(c, Tensor) and c._version != v:
                orig.copy_(c)
        leaves, out_spec = tree_flatten(out)
        if copy_views:
            leaves = [x.clone() if isinstance(x, Tensor) and x._base is not None else x for x in leaves]
        return tree_unflatten(leaves, out_spec)

    return wrapped
