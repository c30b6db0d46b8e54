"""Grad modes: whether ops record the graph.  Thread-local, like PyTorch's.

Each mode works as a context manager and as a decorator::

    >>> import retrograd as torch
    >>> x = torch.tensor(1., requires_grad=True)
    >>> with torch.no_grad():
    ...     y = x * 2
    >>> y.requires_grad
    False
"""
from __future__ import annotations

import functools
import inspect
import warnings
import threading

from . import _sites

__all__ = ["no_grad", "enable_grad", "set_grad_enabled", "is_grad_enabled",
           "inference_mode", "is_inference_mode_enabled"]


class _State(threading.local):
    def __init__(self) -> None:
        self.enabled = True
        self.inference = False
        # (kind, site) of the user's no_grad / inference_mode block now open, else None: results
        # computed there from tensors that require grad remember it (explain(), error messages)
        self.region = None


state = _State()


def is_grad_enabled() -> bool:
    """True when ops record the graph in this thread."""
    return state.enabled


def is_inference_mode_enabled() -> bool:
    """True inside ``inference_mode()``."""
    return state.inference


class _DecoratorContextManager:
    """Base: subclasses define __enter__/__exit__; usable as ``@mode()`` and ``@mode``."""

    def __call__(self, func):
        if inspect.isclass(func):
            # PyTorch still allows it (deprecated): calling the class constructs it in the mode;
            # its methods are not wrapped.
            warnings.warn(
                "Decorating classes is deprecated and will be disabled in future versions. You should only decorate "
                "functions or methods. To preserve the current behavior of class decoration, you can directly "
                "decorate the `__init__` method and nothing else.", FutureWarning, stacklevel=2)
            cls = func

            def func(*args, **kwargs):
                return cls(*args, **kwargs)
        if inspect.isgeneratorfunction(func):
            @functools.wraps(func)
            def gen_wrapper(*args, **kwargs):
                # Every resumption of the generator (send, throw, close) runs in the mode; the
                # caller's code between resumptions runs in the caller's mode.
                gen = func(*args, **kwargs)
                try:
                    with self.clone():
                        response = gen.send(None)
                    while True:
                        try:
                            request = yield response
                        except GeneratorExit:
                            with self.clone():
                                gen.close()
                            raise
                        except BaseException as exc:  # forward throw() into the generator
                            with self.clone():
                                response = gen.throw(exc)
                        else:
                            with self.clone():
                                response = gen.send(request)
                except StopIteration as stop:
                    return stop.value
            return gen_wrapper

        if type(self) in (no_grad, enable_grad):
            # (the two plain modes: set and restore the flag directly, no context object per
            # call; an optimizer's ``step`` is decorated with no_grad)
            enabled = type(self) is enable_grad
            code = getattr(func, "__code__", None)
            region = None if enabled or code is None or getattr(func, "__module__", "").startswith("retrograd") \
                else ("@torch.no_grad()", (code.co_filename, code.co_firstlineno))  # (a user's function)

            @functools.wraps(func)
            def mode_wrapper(*args, **kwargs):
                prev, prev_region = state.enabled, state.region
                state.enabled = enabled
                if region is not None:
                    state.region = region
                try:
                    return func(*args, **kwargs)
                finally:
                    state.enabled = prev
                    state.region = prev_region
            return mode_wrapper

        @functools.wraps(func)
        def wrapper(*args, **kwargs):
            with self.clone():
                return func(*args, **kwargs)
        return wrapper

    def clone(self):
        return self.__class__()


class no_grad(_DecoratorContextManager):
    """Disable graph recording inside the block (tensors made there don't require grad)."""

    def __new__(cls, orig_func=None):
        if orig_func is None or cls is not no_grad:
            return super().__new__(cls)
        return cls()(orig_func)  # bare @no_grad

    def __init__(self, orig_func=None) -> None:
        self.prev = True

    def __enter__(self) -> None:
        self.prev = state.enabled
        self.prev_region = state.region
        state.enabled = False
        site = _sites.region_site()
        state.region = None if site is None else ("torch.no_grad()", site)

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev
        state.region = self.prev_region


class enable_grad(_DecoratorContextManager):
    """Enable graph recording inside the block, even within ``no_grad``."""

    def __new__(cls, orig_func=None):
        if orig_func is None:
            return super().__new__(cls)
        return cls()(orig_func)

    def __init__(self, orig_func=None) -> None:
        self.prev = True

    def __enter__(self) -> None:
        self.prev = state.enabled
        state.enabled = True

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev


class set_grad_enabled(_DecoratorContextManager):
    """Set grad mode to ``mode``; takes effect immediately, and also works with ``with``."""

    def __init__(self, mode: bool) -> None:
        if type(mode) is not bool:
            t = type(mode)
            name = t.__name__ if t.__module__ == "builtins" else f"{t.__module__.split('.')[0]}.{t.__name__}"
            raise TypeError(f"set_grad_enabled(): argument 'enabled' (position 1) must be bool, not {name}")
        self.prev = state.enabled
        self.mode = mode
        state.enabled = mode

    def __enter__(self) -> None:
        state.enabled = self.mode

    def __exit__(self, *exc) -> None:
        state.enabled = self.prev

    def __call__(self, func):
        # Used as ``@set_grad_enabled(False)``: the constructor already switched the mode;
        # undo that (PyTorch does the same), the mode applies inside calls only.
        state.enabled = self.prev
        return super().__call__(func)

    def clone(self):
        return self.__class__(self.mode)


_inference_armed = [False]


def _arm_inference_checks() -> None:
    """First use of inference mode: from now on, saving a tensor for backward checks
    whether it is an inference tensor (programs that never use inference mode pay nothing)."""
    from . import graph
    from .._ops import _registry

    graph._inference_used[0] = True
    _registry._FAST_SAVE = False  # the registry's fast save path skips SavedTensor's checks
    _inference_armed[0] = True


class inference_mode(_DecoratorContextManager):
    """Like ``no_grad`` and cheaper; tensors made inside are inference tensors."""

    def __new__(cls, mode=True):
        if callable(mode) and not isinstance(mode, bool):
            return cls(True)(mode)
        return super().__new__(cls)

    def __init__(self, mode: bool = True) -> None:
        self.mode = bool(mode)
        self.prev = (True, False)

    def __enter__(self) -> None:
        self.prev = (state.enabled, state.inference)
        if self.mode and not _inference_armed[0]:
            _arm_inference_checks()
        # PyTorch's InferenceMode guard also sets grad mode to ``not mode``.
        state.enabled = not self.mode
        state.inference = self.mode
        self.prev_region = state.region
        site = _sites.region_site() if self.mode else None
        state.region = None if site is None else ("torch.inference_mode()", site)

    def __exit__(self, *exc) -> None:
        state.enabled, state.inference = self.prev
        state.region = self.prev_region

    def clone(self):
        return self.__class__(self.mode)
