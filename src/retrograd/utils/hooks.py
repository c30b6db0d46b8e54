"""Hook handles (what every ``register_*hook`` returns) and small hook helpers, as ``torch.utils.hooks``."""
from __future__ import annotations

import warnings
import weakref
from collections import OrderedDict
from typing import Any, Callable

# (BackwardHook is served by the module-level __getattr__ below)
__all__ = ["RemovableHandle", "unserializable_hook", "warn_if_has_hooks", "BackwardHook"]  # noqa: F822


class RemovableHandle:
    """Removes the hook it was returned for: ``handle.remove()`` or ``with handle:``.

    ``hooks_dict`` maps hook ids to hooks; ``extra_dict`` (a dict or a list of dicts) holds
    more entries under the same id that go with it.  The dicts are held weakly, so a handle
    does not keep its module or tensor alive.  Handles pickle and deep-copy together with the
    object that owns the dicts (the copy then removes from the copied dicts), as in PyTorch.

    >>> import copy
    >>> import retrograd as torch
    >>> m = torch.nn.Linear(2, 2)
    >>> h = m.register_forward_hook(lambda mod, inp, out: None)
    >>> m2, h2 = copy.deepcopy((m, h))
    >>> h2.remove(); len(m2._forward_hooks), len(m._forward_hooks)
    (0, 1)
    """

    id: int
    next_id: int = 0

    def __init__(self, hooks_dict: Any, *, extra_dict: Any = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = RemovableHandle.next_id
        RemovableHandle.next_id += 1
        self.extra_dict_ref: tuple = ()
        if isinstance(extra_dict, dict):
            self.extra_dict_ref = (weakref.ref(extra_dict),)
        elif isinstance(extra_dict, list):
            self.extra_dict_ref = tuple(weakref.ref(d) for d in extra_dict)

    def remove(self) -> None:
        hooks_dict = self.hooks_dict_ref()
        if hooks_dict is not None and self.id in hooks_dict:
            del hooks_dict[self.id]
        for ref in self.extra_dict_ref:
            extra = ref()
            if extra is not None and self.id in extra:
                del extra[self.id]

    # Weak references cannot be pickled: store the dicts themselves (pickle / deepcopy memoise
    # them, so a handle copied along with its owner points at the owner's copy).
    def __getstate__(self):
        if self.extra_dict_ref is None:
            return (self.hooks_dict_ref(), self.id)
        return (self.hooks_dict_ref(), self.id, tuple(ref() for ref in self.extra_dict_ref))

    def __setstate__(self, state) -> None:
        if state[0] is None:
            self.hooks_dict_ref = weakref.ref(_DeadDict())  # the dict was gone: a dead reference
        else:
            self.hooks_dict_ref = weakref.ref(state[0])
        self.id = state[1]
        # ids must stay unique after loading handles made by another process
        RemovableHandle.next_id = max(RemovableHandle.next_id, self.id + 1)
        if len(state) < 3 or state[2] is None:
            self.extra_dict_ref = ()
        else:
            self.extra_dict_ref = tuple(weakref.ref(d) for d in state[2] if d is not None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class _DeadDict(OrderedDict):
    """A throwaway dict for a restored handle whose dict no longer exists."""


class HookDict(dict):
    """A dict that can be weakly referenced (plain dicts cannot)."""

    __slots__ = ("__weakref__",)


def unserializable_hook(f: Callable) -> Callable:
    """Mark ``f`` as a hook that is not expected to be saved (silences :func:`warn_if_has_hooks`).

    >>> from retrograd.utils.hooks import unserializable_hook
    >>> @unserializable_hook
    ... def hook(grad):
    ...     return grad
    >>> hook.__torch_unserializable__
    True
    """
    f.__torch_unserializable__ = True
    return f


def _backward_hooks_of(tensor) -> dict:
    hooks = tensor.__dict__.get("_backward_hooks") if hasattr(tensor, "__dict__") else None
    if hooks is None:
        hooks = getattr(tensor, "_hooks", None)  # (retrograd keeps tensor hooks here)
    return hooks or {}


def warn_if_has_hooks(tensor) -> None:
    """Warn (UserWarning) for each backward hook on ``tensor`` that saving it will drop.

    >>> import warnings
    >>> import retrograd as torch
    >>> from retrograd.utils.hooks import warn_if_has_hooks
    >>> t = torch.ones(1, requires_grad=True)
    >>> _ = t.register_hook(lambda g: g)
    >>> with warnings.catch_warnings(record=True) as w:
    ...     warnings.simplefilter("always")
    ...     warn_if_has_hooks(t)
    >>> len(w)
    1
    """
    hooks = _backward_hooks_of(tensor)
    for k in list(hooks):
        hook = hooks[k]
        if not hasattr(hook, "__torch_unserializable__"):
            warnings.warn(f"backward hook {hook!r} on tensor will not be serialized.  If this is expected, you can "
                          "decorate the function with @torch.utils.hooks.unserializable_hook to suppress this warning",
                          stacklevel=2)


def __getattr__(name: str):
    # BackwardHook lives with Module (which imports this module), so it is looked up on demand.
    if name == "BackwardHook":
        from ..nn.modules.module import _BackwardHook

        return _BackwardHook
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
