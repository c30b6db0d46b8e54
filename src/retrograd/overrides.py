"""``torch.overrides``: the helpers PyTorch code uses to support ``__torch_function__``.

retrograd's own ops do not dispatch ``__torch_function__``; these helpers let library code
written against torch's protocol (``if has_torch_function(args): return
handle_torch_function(...)``) run, and dispatch to the overriding types it finds.

>>> import retrograd as torch
>>> from retrograd.overrides import has_torch_function, is_tensor_like
>>> has_torch_function((torch.ones(1),)), is_tensor_like(torch.ones(1))
(False, True)
"""
from __future__ import annotations

from typing import Any, Callable, Iterable

from ._tensor import Tensor

__all__ = ["has_torch_function", "has_torch_function_unary", "has_torch_function_variadic",
           "handle_torch_function", "is_tensor_like", "get_ignored_functions"]


def _overrides(obj) -> bool:
    # a plain retrograd Tensor never overrides; anything else with the hook does
    return type(obj) is not Tensor and getattr(type(obj), "__torch_function__", None) is not None


def has_torch_function(relevant_args: Iterable) -> bool:
    """Whether any of ``relevant_args`` defines ``__torch_function__``."""
    return any(_overrides(a) for a in relevant_args)


def has_torch_function_unary(obj) -> bool:
    """``has_torch_function((obj,))``."""
    return _overrides(obj)


def has_torch_function_variadic(*args) -> bool:
    """``has_torch_function(args)``."""
    return has_torch_function(args)


def _overloaded_args(relevant_args: Iterable) -> list:
    # one argument per type, subclasses ahead of their bases (torch's dispatch order)
    found: list = []
    types: list = []
    for arg in relevant_args:
        t = type(arg)
        if t in types or not _overrides(arg):
            continue
        pos = len(found)
        for i, other in enumerate(found):
            if issubclass(t, type(other)):
                pos = i
                break
        found.insert(pos, arg)
        types.append(t)
    return found


def handle_torch_function(public_api: Callable, relevant_args: Iterable, *args, **kwargs) -> Any:
    """Call the first ``__torch_function__`` among ``relevant_args`` that does not return
    ``NotImplemented``; raise TypeError when all of them do."""
    overloaded = _overloaded_args(relevant_args)
    types = tuple(type(a) for a in overloaded)
    for arg in overloaded:
        result = type(arg).__torch_function__(public_api, types, args, kwargs)
        if result is not NotImplemented:
            return result
    name = getattr(public_api, "__module__", "") + "." + getattr(public_api, "__name__", str(public_api))
    raise TypeError(f"no implementation found for '{name}' on types that implement __torch_function__: "
                    f"{[type(a) for a in overloaded]}")


def is_tensor_like(inp) -> bool:
    """True for a Tensor, or anything whose type defines ``__torch_function__``."""
    return type(inp) is Tensor or isinstance(inp, Tensor) or hasattr(type(inp), "__torch_function__")


def get_ignored_functions() -> set:
    """Public functions that never dispatch ``__torch_function__`` (those taking no tensors)."""
    import retrograd as R

    names = ("typename", "is_tensor", "is_storage", "set_default_tensor_type", "set_default_dtype",
             "get_default_dtype", "manual_seed", "seed", "initial_seed", "set_rng_state", "get_rng_state",
             "set_printoptions", "set_grad_enabled", "is_grad_enabled", "no_grad", "enable_grad", "zeros", "ones",
             "empty", "full", "arange", "range", "linspace", "logspace", "eye", "rand", "randn", "randint",
             "randperm", "tensor", "as_tensor", "from_numpy", "empty_strided", "empty_permuted", "tril_indices",
             "triu_indices", "hann_window", "hamming_window", "blackman_window", "bartlett_window", "kaiser_window",
             "set_flush_denormal", "use_deterministic_algorithms", "compile", "vmap")
    return {getattr(R, n) for n in names if hasattr(R, n)}
