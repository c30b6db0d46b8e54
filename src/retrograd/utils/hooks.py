"""RemovableHandle: what every ``register_*hook`` returns."""
from __future__ import annotations

import itertools
import weakref

__all__ = ["RemovableHandle"]

_ids = itertools.count()


class RemovableHandle:
    """Removes the hook it was returned for: ``handle.remove()`` or ``with handle:``."""

    def __init__(self, hooks_dict: dict, *, extra_dict: dict | None = None) -> None:
        self.hooks_dict_ref = weakref.ref(hooks_dict)
        self.id = next(_ids)
        self.extra_dict_ref = weakref.ref(extra_dict) if extra_dict is not None else None

    def remove(self) -> None:
        d = self.hooks_dict_ref()
        if d is not None:
            d.pop(self.id, None)
        if self.extra_dict_ref is not None:
            e = self.extra_dict_ref()
            if e is not None:
                e.pop(self.id, None)

    def __enter__(self) -> "RemovableHandle":
        return self

    def __exit__(self, *exc) -> None:
        self.remove()


class HookDict(dict):
    """A dict that can be weakly referenced (plain dicts cannot)."""

    __slots__ = ("__weakref__",)
