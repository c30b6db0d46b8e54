"""``torch._dynamo``: the names PyTorch code and tests reach for, on an engine without a compiler.

``@torch._dynamo.disable`` and friends appear in model code and in PyTorch's own test files;
they return what they decorate.  See ``retrograd.compiler``.

>>> import retrograd as torch
>>> torch._dynamo.is_compiling()
False
"""
from __future__ import annotations

import types
from typing import Callable

from .compiler import allow_in_graph, assume_constant_result, is_compiling, list_backends, reset  # noqa: F401

__all__ = ["disable", "optimize", "reset", "is_compiling", "allow_in_graph", "assume_constant_result",
           "list_backends", "config", "mark_dynamic", "mark_static", "maybe_mark_dynamic", "graph_break",
           "explain"]

config = types.SimpleNamespace(suppress_errors=False, cache_size_limit=8, verbose=False)


def disable(fn: Callable | None = None, recursive: bool = True, *, reason: str | None = None,
            wrapping: bool = True):
    return (lambda f: f) if fn is None else fn


def optimize(*args, **kwargs):
    """A decorator that leaves the function as it is."""
    return lambda fn: fn


def mark_dynamic(t, index, **kwargs) -> None:
    """Shape hints for the compiler: nothing to record here."""


def mark_static(t, index=None) -> None:
    """Shape hints for the compiler: nothing to record here."""


def maybe_mark_dynamic(t, index) -> None:
    """Shape hints for the compiler: nothing to record here."""


def graph_break() -> None:
    """Nothing is traced, so there is no graph to break."""


def explain(f: Callable, *extra_args, **extra_kwargs):
    raise RuntimeError("retrograd has no compiler: torch._dynamo.explain is not available")
