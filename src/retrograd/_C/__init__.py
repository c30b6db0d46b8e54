"""``torch._C``: the few private engine queries and helper nodes that PyTorch code and tests use.

retrograd has no C++ core; this package holds Python versions of those names (engine state
queries, ``_functions``' helper nodes, ``_autograd`` utilities).

>>> import retrograd as torch
>>> torch._C._current_graph_task_id()
-1
"""
from __future__ import annotations

import weakref

from . import _autograd, _functions  # noqa: F401

# (retrograd's linear algebra is NumPy's LAPACK)
has_lapack = True


def is_grad_enabled() -> bool:
    """Whether grad mode is on in this thread."""
    from ..autograd import grad_mode

    return grad_mode.state.enabled


def _set_grad_enabled(enabled: bool) -> None:
    from ..autograd import grad_mode

    grad_mode.state.enabled = bool(enabled)


def _set_fwd_grad_enabled(enabled: bool) -> None:
    """Turn forward-mode AD tangent propagation on or off (PyTorch's private switch)."""
    from ..autograd import forward_ad

    forward_ad._set_fwd_grad_enabled_flag(enabled)


def _is_fwd_grad_enabled() -> bool:
    """Whether forward-mode AD tangent propagation is on (it is by default)."""
    from ..autograd import forward_ad

    return forward_ad._is_fwd_grad_enabled()


__all__ = ["is_grad_enabled", "_set_grad_enabled", "_set_fwd_grad_enabled", "_is_fwd_grad_enabled", "has_lapack", "_will_engine_execute_node", "_current_graph_task_id", "_current_graph_task_execution_order",
           "_current_autograd_node", "_WeakTensorRef", "_set_cached_tensors_enabled", "_add_cached_tensor",
           "_remove_cached_tensor", "_is_cached_tensor"]


def _run():
    from ..autograd import engine

    return engine._local.stack[-1] if engine._local.stack else None


def _will_engine_execute_node(node) -> bool:
    """Whether the backward pass now running will execute ``node`` (a grad_fn or a leaf's AccumulateGrad)."""
    from ..autograd.graph import AccumulateGrad, Node

    if not isinstance(node, Node):
        raise RuntimeError(f"_will_engine_execute_node expects an grad_fn, but got {type(node).__name__}")
    run = _run()
    if run is None:
        raise RuntimeError("_get_should_execute_nodes should only be called during the backward pass")
    if type(node) is AccumulateGrad and run.capture:
        raise RuntimeError("A leaf node was passed to _will_engine_execute_node but we are currently running "
                           "autograd.grad(). This is currently not supported.")
    return node in run.execute


def _current_graph_task_id() -> int:
    """The id of the backward pass running in this thread (ids increase by one per pass); -1 outside one."""
    run = _run()
    return -1 if run is None else run.id


def _current_graph_task_execution_order() -> list:
    """The nodes of the running backward pass in the order the engine executes them."""
    run = _run()
    if run is None:
        raise RuntimeError("_current_graph_task_execution_order should only be called during the backward pass")
    from ..autograd._toggles import is_multithreading_enabled

    if is_multithreading_enabled():
        raise RuntimeError("_current_graph_task_execution_order expects the current backward to be executed with "
                           "multithreading disabled, e.g. by running:\n\n>>> with "
                           "torch.autograd.set_multithreading_enabled(False):\n...     torch.autograd.grad(...)\n")
    from ..autograd.engine import execution_order

    return execution_order(run)


def _current_autograd_node():
    """The node whose backward is running in this thread, or None."""
    run = _run()
    return None if run is None else run.current


class _WeakTensorRef:
    """A weak reference to a tensor: ``expired()`` once the tensor is gone."""

    def __init__(self, t) -> None:
        self._ref = weakref.ref(t)

    def expired(self) -> bool:
        return self._ref() is None


# ---- cached tensors (CUDA-graph bookkeeping in PyTorch: here only the registry itself) ----
_cached: dict = {}
_cached_enabled = [False]


def _set_cached_tensors_enabled(enabled: bool) -> None:
    _cached_enabled[0] = bool(enabled)


def _add_cached_tensor(t) -> None:
    _cached[id(t)] = weakref.ref(t)


def _remove_cached_tensor(t) -> None:
    _cached.pop(id(t), None)


def _is_cached_tensor(t) -> bool:
    ref = _cached.get(id(t))
    return ref is not None and ref() is t


def _is_alias_of(a, b) -> bool:
    """True when tensors ``a`` and ``b`` share one storage (PyTorch's ``torch._C._is_alias_of``).

    >>> import retrograd as torch
    >>> x = torch.zeros(4)
    >>> torch._C._is_alias_of(x, x[1:]), torch._C._is_alias_of(x, x.clone())
    (True, False)
    """
    def root(arr):
        while getattr(arr, "base", None) is not None:
            arr = arr.base
        return arr

    return root(a._data) is root(b._data)


__all__.append("_is_alias_of")


def _warn() -> None:
    """PyTorch's test hook for a C++ ``TORCH_WARN``: a UserWarning with a fixed text."""
    import warnings

    warnings.warn("Test message for TORCH_WARN", UserWarning, stacklevel=2)


def _warn_deprecation() -> None:
    """PyTorch's test hook for ``TORCH_WARN_DEPRECATION``: a DeprecationWarning with a fixed text."""
    import warnings

    warnings.warn("Test message for TORCH_WARN_DEPRECATION", DeprecationWarning, stacklevel=2)
