"""``retrograd.jit``: PyTorch's TorchScript API as no-ops, so code written for ``torch.jit`` runs.

retrograd has no compiler: ``script`` / ``trace`` / ``freeze`` / ``optimize_for_inference``
return what they are given (still eager Python, and still differentiable); decorators
(``ignore``, ``unused``, ``export``, ``interface`` ...) return the function; ``fork`` runs the
call at once and ``wait`` returns its value; ``is_scripting`` and ``is_tracing`` are False.
``save`` and ``load`` raise: there is no TorchScript archive format (use ``retrograd.save``
on a ``state_dict``).

>>> import retrograd as torch
>>> f = torch.jit.script(lambda x: x * 2)
>>> f(torch.tensor([1.]))
tensor([2.])
"""
from __future__ import annotations

import builtins
import contextlib
import sys
import typing
import warnings
from typing import Any, Callable, Final, Iterator, TypeVar

__all__ = ["script", "trace", "trace_module", "ignore", "unused", "export", "interface", "is_scripting",
           "is_tracing", "Final", "annotate", "ScriptModule", "ScriptFunction", "RecursiveScriptModule",
           "TracedModule", "TopLevelTracedModule", "Error", "Attribute", "Future", "fork", "wait", "freeze",
           "optimize_for_inference", "save", "load", "script_if_tracing", "script_method", "isinstance",
           "optimized_execution", "fuser", "strict_fusion", "set_fusion_strategy", "enable_onednn_fusion",
           "onednn_fusion_enabled", "CompilationUnit", "ScriptWarning", "TracerWarning", "TracingCheckError"]

F = TypeVar("F")


def _deprecated(api: str) -> None:
    # PyTorch 2.13's DeprecationWarning for the TorchScript entry points, raised with the default
    # stacklevel so it is attributed to this module: like torch's, hidden unless enabled.
    if sys.version_info >= (3, 14):
        msg = f"`torch.jit.{api}` is not supported in Python 3.14+ and may break. "
    else:
        msg = f"`torch.jit.{api}` is deprecated. "
    warnings.warn(msg + "Please switch to `torch.compile` or `torch.export`.", DeprecationWarning)


class Error(RuntimeError):
    """The TorchScript runtime error type (never raised by the no-op compiler)."""


class ScriptWarning(Warning):
    """Warning category of TorchScript."""


class TracerWarning(Warning):
    """Warning category of the tracer."""


class TracingCheckError(Exception):
    """Raised by ``trace(check_trace=True)`` in PyTorch; retrograd never traces."""


class ScriptFunction:
    """The type PyTorch gives scripted functions.  ``script`` here returns the function itself,
    so no object is ever of this type; it exists for ``isinstance`` checks and annotations."""


class CompilationUnit:
    """Placeholder for TorchScript's compilation unit (there is no compiler here)."""

    def __init__(self, lang: str | None = None, _frames_up: int = 0) -> None:
        if lang:
            raise RuntimeError("retrograd.jit.CompilationUnit: TorchScript source cannot be compiled "
                               "(retrograd has no TorchScript compiler)")


def _module_base():
    from .nn import Module

    return Module


class ScriptModule(_module_base()):  # type: ignore[misc]
    """The type PyTorch gives scripted modules: here a plain ``nn.Module`` subclass, because
    ``script`` returns modules unchanged (they are not instances of this class)."""


RecursiveScriptModule = ScriptModule
TracedModule = ScriptModule
TopLevelTracedModule = ScriptModule


def script(obj: F, optimize: Any = None, _frames_up: int = 0, _rcb: Any = None,
           example_inputs: Any = None) -> F:
    """Return ``obj`` (function, module or class) unchanged: retrograd runs it eagerly.

    >>> import retrograd as torch
    >>> m = torch.nn.Linear(2, 2)
    >>> torch.jit.script(m) is m
    True
    """
    _deprecated("script")
    if builtins.isinstance(obj, _module_base()):
        _check_no_lazy_tensors(obj)
    return obj


def _check_no_lazy_tensors(root) -> None:
    # scripting freezes parameter shapes, so PyTorch refuses modules that still hold lazy placeholders
    from .nn.parameter import is_lazy

    for mod in root.modules():
        for kind, store in (("parameters", mod._parameters), ("buffers", mod._buffers)):
            for name, t in store.items():
                if t is not None and is_lazy(t):
                    cls = type(mod)
                    raise RuntimeError(f"'{cls.__module__}.{cls.__qualname__}' has uninitialized {kind} {name}. "
                                       "Did you forget to run a forward pass?")


def trace(func: F, example_inputs: Any = None, optimize: Any = None, check_trace: bool = True,
          check_inputs: Any = None, check_tolerance: float = 1e-5, strict: bool = True, _force_outplace: bool = False,
          _module_class: Any = None, _compilation_unit: Any = None, example_kwarg_inputs: Any = None,
          _store_inputs: bool = True) -> F:
    """Return ``func`` unchanged (no trace is recorded; data-dependent control flow keeps working).

    >>> import retrograd as torch
    >>> f = torch.jit.trace(lambda x: x + 1, torch.tensor([1.]))
    >>> f(torch.tensor([2.]))
    tensor([3.])
    """
    # (as many warnings as PyTorch gives: a module is traced through trace_module, and
    # check_trace traces a second time)
    is_module = builtins.isinstance(func, _module_base())
    for i in range(2 if check_trace else 1):
        if i == 0 or not is_module:
            _deprecated("trace")
        if is_module:
            _deprecated("trace_method")
    return func


def trace_module(mod: F, inputs: Any = None, optimize: Any = None, check_trace: bool = True,
                 check_inputs: Any = None, check_tolerance: float = 1e-5, strict: bool = True,
                 _force_outplace: bool = False, _module_class: Any = None, _compilation_unit: Any = None,
                 example_inputs_is_kwarg: bool = False, _store_inputs: bool = True) -> F:
    """Return ``mod`` unchanged.

    >>> import retrograd as torch
    >>> m = torch.nn.Linear(1, 1)
    >>> torch.jit.trace_module(m, {"forward": torch.ones(1, 1)}) is m
    True
    """
    for _ in range(2 if check_trace else 1):  # (check_trace traces twice)
        _deprecated("trace_method")  # (sic: PyTorch's trace_module names trace_method)
    return mod


def script_if_tracing(fn: F) -> F:
    """Return ``fn`` (nothing is ever traced).

    >>> import retrograd as torch
    >>> torch.jit.script_if_tracing(abs)(-1)
    1
    """
    return fn


def script_method(fn: F) -> F:
    """Return ``fn`` (the legacy ScriptModule method decorator).

    >>> import retrograd as torch
    >>> torch.jit.script_method(abs)(-2)
    2
    """
    _deprecated("script_method")
    return fn


def ignore(drop: Any = False, **kwargs: Any):
    """``@ignore`` or ``@ignore(drop=True)``: leave a function to Python (here: everything is).

    >>> import retrograd as torch
    >>> @torch.jit.ignore
    ... def f(x): return x + 1
    >>> f(1)
    2
    """
    if callable(drop):  # used bare: @torch.jit.ignore
        return drop
    return lambda fn: fn


def unused(fn: F) -> F:
    """Mark a method the compiler should skip; returns ``fn``.

    >>> import retrograd as torch
    >>> torch.jit.unused(abs)(-3)
    3
    """
    return fn


def export(fn: F) -> F:
    """Mark a method as a compilation entry point; returns ``fn``.

    >>> import retrograd as torch
    >>> torch.jit.export(abs)(-4)
    4
    """
    return fn


def interface(obj: F) -> F:
    """Declare a TorchScript interface class; returns ``obj``.

    >>> import retrograd as torch
    >>> @torch.jit.interface
    ... class I:
    ...     def f(self, x: int) -> int: ...
    >>> I.__name__
    'I'
    """
    warnings.warn("`torch.jit.interface` is deprecated. Please use `torch.compile` instead.", DeprecationWarning)
    return obj


def _overload(func: F) -> F:
    """Declare a TorchScript overload; returns ``func``."""
    return func


def _overload_method(func: F) -> F:
    """Declare a TorchScript method overload; returns ``func``."""
    return func


def is_scripting() -> bool:
    """False: code never runs under the TorchScript compiler here.

    >>> import retrograd as torch
    >>> torch.jit.is_scripting()
    False
    """
    return False


def is_tracing() -> bool:
    """False: code never runs under the tracer here.

    >>> import retrograd as torch
    >>> torch.jit.is_tracing()
    False
    """
    return False


def annotate(the_type: Any, the_value: F) -> F:
    """Give TorchScript a type hint for ``the_value``; returns it.

    >>> import retrograd as torch
    >>> torch.jit.annotate(list, [])
    []
    """
    return the_value


class Attribute:
    """``Attribute(value, type)``: a typed module attribute for TorchScript; here evaluates to ``value``.

    >>> import retrograd as torch
    >>> torch.jit.Attribute(3, int)
    3
    """

    def __new__(cls, value: Any, type: Any = None) -> Any:  # noqa: A002
        return value


def isinstance(obj: Any, target_type: Any) -> bool:  # noqa: A001
    """``isinstance`` that also understands ``List[int]``, ``Dict[str, Tensor]``, ``Optional[...]``.

    >>> import retrograd as torch
    >>> from typing import List
    >>> torch.jit.isinstance([1, 2], List[int]), torch.jit.isinstance([1, "a"], List[int])
    (True, False)
    """
    origin = typing.get_origin(target_type)
    if origin is None:
        if target_type is Any:
            return True
        return builtins.isinstance(obj, target_type)
    args = typing.get_args(target_type)
    if origin is typing.Union or (hasattr(__import__("types"), "UnionType")
                                  and origin is __import__("types").UnionType):
        return any(isinstance(obj, a) for a in args)
    if not builtins.isinstance(obj, origin):
        return False
    if not args:
        return True
    if origin in (list, set, frozenset):
        return all(isinstance(x, args[0]) for x in obj)
    if origin is dict:
        return all(isinstance(k, args[0]) and isinstance(v, args[1]) for k, v in obj.items())
    if origin is tuple:
        if len(args) == 2 and args[1] is Ellipsis:
            return all(isinstance(x, args[0]) for x in obj)
        return len(obj) == len(args) and all(isinstance(x, a) for x, a in zip(obj, args))
    return True


class Future:
    """The handle :func:`fork` returns: already completed, since the call ran at once.

    >>> import retrograd as torch
    >>> fut = torch.jit.fork(pow, 2, 3)
    >>> fut.done(), fut.wait()
    (True, 8)
    """

    def __init__(self, value: Any = None) -> None:
        self._value = value

    def done(self) -> bool:
        return True

    def wait(self) -> Any:
        return self._value

    def value(self) -> Any:
        return self._value

    def then(self, callback: Callable[[Future], Any]) -> Future:
        return Future(callback(self))


def fork(func: Callable[..., Any], *args: Any, **kwargs: Any) -> Future:
    """Run ``func(*args, **kwargs)`` now (no interpreter threads here) and return a completed Future.

    >>> import retrograd as torch
    >>> torch.jit.wait(torch.jit.fork(max, 1, 5))
    5
    """
    return Future(func(*args, **kwargs))


def wait(future: Future) -> Any:
    """The value of a :func:`fork` result.

    >>> import retrograd as torch
    >>> torch.jit.wait(torch.jit.fork(min, 1, 5))
    1
    """
    return future.wait()


def freeze(mod: F, preserved_attrs: list[str] | None = None, optimize_numerics: bool = True) -> F:
    """Return ``mod`` unchanged (PyTorch inlines parameters as constants; nothing to do here).

    >>> import retrograd as torch
    >>> m = torch.nn.Linear(1, 1).eval()
    >>> torch.jit.freeze(m) is m
    True
    """
    return mod


def optimize_for_inference(mod: F, other_methods: list[str] | None = None) -> F:
    """Return ``mod`` unchanged.

    >>> import retrograd as torch
    >>> m = torch.nn.Linear(1, 1)
    >>> torch.jit.optimize_for_inference(m) is m
    True
    """
    return mod


def _no_archive(what: str) -> RuntimeError:
    return RuntimeError(f"retrograd.jit.{what}: TorchScript archives are not supported (retrograd has no "
                        f"TorchScript compiler). Save the weights instead: retrograd.save(model.state_dict(), f), "
                        f"then model.load_state_dict(retrograd.load(f)).")


def save(m: Any, f: Any, _extra_files: Any = None) -> None:
    """Refused: there is no TorchScript archive format.  Use ``retrograd.save(m.state_dict(), f)``.

    >>> import retrograd as torch
    >>> torch.jit.save(torch.nn.Linear(1, 1), "m.pt")
    Traceback (most recent call last):
    ...
    RuntimeError: retrograd.jit.save: TorchScript archives are not supported ...
    """
    raise _no_archive("save")


def load(f: Any, map_location: Any = None, _extra_files: Any = None, _restore_shapes: bool = False) -> Any:
    """Refused: there is no TorchScript archive format.  Use ``retrograd.load`` on a saved state_dict.

    >>> import retrograd as torch
    >>> torch.jit.load("m.pt")
    Traceback (most recent call last):
    ...
    RuntimeError: retrograd.jit.load: TorchScript archives are not supported ...
    """
    raise _no_archive("load")


@contextlib.contextmanager
def optimized_execution(should_optimize: bool) -> Iterator[None]:
    """A context that changes nothing (there is no executor to configure).

    >>> import retrograd as torch
    >>> with torch.jit.optimized_execution(False):
    ...     pass
    """
    yield


@contextlib.contextmanager
def fuser(name: str) -> Iterator[None]:
    """A context that changes nothing (there is no fuser).

    >>> import retrograd as torch
    >>> with torch.jit.fuser("fuser1"):
    ...     pass
    """
    yield


class strict_fusion:
    """A context that changes nothing (nothing is fused, so nothing can fail to fuse).

    >>> import retrograd as torch
    >>> with torch.jit.strict_fusion():
    ...     pass
    """

    def __enter__(self) -> strict_fusion:
        return self

    def __exit__(self, *exc: Any) -> None:
        return None


_fusion_strategy: list[tuple[str, int]] = [("STATIC", 2), ("DYNAMIC", 10)]


def set_fusion_strategy(strategy: list[tuple[str, int]]) -> list[tuple[str, int]]:
    """Record a fusion strategy (unused) and return the previous one, as PyTorch does.

    >>> import retrograd as torch
    >>> old = torch.jit.set_fusion_strategy([("DYNAMIC", 3)])
    >>> _ = torch.jit.set_fusion_strategy(old)
    """
    global _fusion_strategy
    old, _fusion_strategy = _fusion_strategy, list(strategy)
    return old


_onednn = False


def enable_onednn_fusion(enabled: bool) -> None:
    """Record the flag (there is no oneDNN graph fuser here).

    >>> import retrograd as torch
    >>> torch.jit.enable_onednn_fusion(False)
    """
    global _onednn
    _onednn = bool(enabled)


def onednn_fusion_enabled() -> bool:
    """The flag last set by :func:`enable_onednn_fusion` (False by default).

    >>> import retrograd as torch
    >>> torch.jit.onednn_fusion_enabled()
    False
    """
    return _onednn
