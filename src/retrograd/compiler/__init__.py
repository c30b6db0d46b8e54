"""``torch.compiler``: retrograd has no compiler, so every entry point runs code as written.

Code written for torch calls these to opt functions in or out of ``torch.compile``; here
compilation never happens, so the decorators return their function unchanged and the queries
answer that nothing is being compiled or exported.

>>> import retrograd as torch
>>> @torch.compiler.disable
... def f(x):
...     return x + 1
>>> f(torch.tensor(1.)), torch.compiler.is_compiling()
(tensor(2.), False)
"""
from __future__ import annotations

import contextlib
import types
from typing import Any, Callable

__all__ = ["compile", "disable", "reset", "is_compiling", "is_dynamo_compiling", "is_exporting",
           "allow_in_graph", "assume_constant_result", "substitute_in_graph", "set_stance",
           "list_backends", "cudagraph_mark_step_begin", "nested_compile_region", "config"]

config = types.SimpleNamespace()


def _identity_decorator(fn: Callable | None) -> Any:
    return (lambda f: f) if fn is None else fn


def compile(*args, **kwargs):
    """Same as ``torch.compile``: the model or function itself (no compiler here)."""
    from .._compat import compile as _compile

    return _compile(*args, **kwargs)


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None):
    """Exclude ``fn`` from compilation: nothing is compiled here, so ``fn`` itself."""
    return _identity_decorator(fn)


def allow_in_graph(fn: Callable) -> Callable:
    return fn


def assume_constant_result(fn: Callable) -> Callable:
    return fn


def substitute_in_graph(original_fn: Callable, *, can_constant_fold_through: bool = False,
                        skip_signature_check: bool = False) -> Callable:
    return lambda fn: fn


def nested_compile_region(fn: Callable | None = None, options=None):
    return _identity_decorator(fn)


def reset() -> None:
    """Forget compiled code (there is none)."""


def is_compiling() -> bool:
    return False


def is_dynamo_compiling() -> bool:
    return False


def is_exporting() -> bool:
    return False


def list_backends(exclude_tags=("debug", "experimental")) -> list:
    return []


def cudagraph_mark_step_begin() -> None:
    """No CUDA graphs here."""


@contextlib.contextmanager
def set_stance(stance: str = "default", *, skip_guard_eval_unsafe: bool = False, force_backend=None):
    """Usable as a context manager (and ignored): there is no compiled code to steer."""
    yield
