"""``functional_call``: call a module with parameters and buffers taken from dict(s)."""
from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..nn.utils.stateless import _functional_call

__all__ = ["functional_call"]


def functional_call(module, parameter_and_buffer_dicts: dict | Sequence[dict], args: Any = None,
                    kwargs: dict | None = None, *, tie_weights: bool = True, strict: bool = False):
    """``module(*args, **kwargs)`` with its parameters/buffers replaced by the given tensors.

    ``parameter_and_buffer_dicts`` maps dotted names (``"0.weight"``) to tensors; a tuple/list of
    such dicts is merged (a key may appear in only one).  Names not given keep the module's own
    tensors (``strict=True`` makes that an error).  The module is restored afterwards, even when
    the call raises.  With ``tie_weights`` a value given for one name of a tied tensor is used
    for all its names.  ``args`` that is not a tuple is passed as the single positional argument.

    This is what makes a module a function of its parameters, e.g. for per-sample gradients:
    ``vmap(grad(loss), in_dims=(None, 0, 0))(params, x, y)``.

    >>> import retrograd as torch
    >>> m = torch.nn.Linear(2, 1)
    >>> params = {"weight": torch.ones(1, 2), "bias": torch.zeros(1)}
    >>> torch.func.functional_call(m, params, torch.tensor([[1., 2.]]))
    tensor([[3.]])
    """
    if isinstance(parameter_and_buffer_dicts, dict):
        merged = parameter_and_buffer_dicts
    elif isinstance(parameter_and_buffer_dicts, Sequence):
        if not all(isinstance(d, dict) for d in parameter_and_buffer_dicts):
            raise ValueError("Expected all elements of parameter_and_buffer_dicts to be dictionaries")
        counts: dict = {}
        for d in parameter_and_buffer_dicts:
            for k in d:
                counts[k] = counts.get(k, 0) + 1
        repeated = [k for k, n in counts.items() if n > 1]
        if repeated:
            raise ValueError(f"{repeated} appeared in multiple dictionaries; behavior of functional call is ambiguous")
        merged = {k: v for d in parameter_and_buffer_dicts for k, v in d.items()}
    else:
        raise ValueError("Expected parameter_and_buffer_dicts to be a dict, or a list/tuple of dicts, but got "
                         f"{type(parameter_and_buffer_dicts)}")
    return _functional_call(module, merged, args, kwargs, tie_weights=tie_weights, strict=strict)
