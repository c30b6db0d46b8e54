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


def stack_module_state(models) -> tuple[dict, dict]:
    """``(params, buffers)``: each model's parameters and buffers stacked along a new dim 0, by name.

    The models (``M`` of one class, all in training or all in eval mode) become one ensemble
    for ``vmap(..., in_dims=(0, 0, None))`` over ``functional_call``.  Stacked parameters are
    new leaves (they require grad when the models' do), unrelated to the models' own.

    >>> import retrograd as torch
    >>> models = [torch.nn.Linear(3, 2) for _ in range(4)]
    >>> params, buffers = torch.func.stack_module_state(models)
    >>> params["weight"].shape, buffers
    (torch.Size([4, 2, 3]), {})
    """
    if len(models) == 0:
        raise RuntimeError("stack_module_state: Expected at least one model, got 0.")
    if not (all(m.training for m in models) or all(not m.training for m in models)):
        raise RuntimeError("stack_module_state: Expected all models to have the same training/eval mode.")
    if not all(type(m) is type(models[0]) for m in models):
        raise RuntimeError("stack_module_state: Expected all models to be of the same class.")
    all_params = [dict(m.named_parameters()) for m in models]
    all_buffers = [dict(m.named_buffers()) for m in models]
    params = {k: _stacked_leaf(tuple(p[k] for p in all_params), k) for k in all_params[0]}
    buffers = {k: _stacked_leaf(tuple(b[k] for b in all_buffers), k) for k in all_buffers[0]}
    return params, buffers


def _stacked_leaf(tensors: tuple, name: str):
    from .._ops import stack

    all_rg = all(t.requires_grad for t in tensors)
    if not all_rg and any(t.requires_grad for t in tensors):
        raise RuntimeError(f"Expected {name} from each model to have the same .requires_grad")
    result = stack(tensors)
    if all_rg:
        result = result.detach().requires_grad_()
    return result
