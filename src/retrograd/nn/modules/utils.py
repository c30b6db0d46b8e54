"""``torch.nn.modules.utils``: argument-normalising helpers and state-dict prefix handling.

>>> from retrograd.nn.modules.utils import _pair, consume_prefix_in_state_dict_if_present
>>> _pair(3)
(3, 3)
>>> sd = {"module.w": 1, "module.sub.b": 2}
>>> consume_prefix_in_state_dict_if_present(sd, "module.")
>>> sorted(sd)
['sub.b', 'w']
"""
from __future__ import annotations

import collections.abc
from itertools import repeat
from typing import Any

__all__ = ["consume_prefix_in_state_dict_if_present"]


def _ntuple(n: int, name: str = "parse"):
    """A converter that repeats a scalar ``n`` times and passes iterables through as tuples."""
    def parse(x):
        if isinstance(x, collections.abc.Iterable):
            return tuple(x)
        return tuple(repeat(x, n))

    parse.__name__ = name
    return parse


_single = _ntuple(1, "_single")
_pair = _ntuple(2, "_pair")
_triple = _ntuple(3, "_triple")
_quadruple = _ntuple(4, "_quadruple")


def _reverse_repeat_tuple(t, n: int) -> tuple:
    """Reverse ``t`` and repeat each element ``n`` times (the layout ``F.pad`` wants)."""
    return tuple(x for x in reversed(t) for _ in range(n))


def _list_with_default(out_size, defaults) -> list:
    """``out_size`` with each ``None`` replaced by the matching trailing entry of ``defaults``."""
    if isinstance(out_size, (int,)):
        return out_size
    if len(defaults) <= len(out_size):
        raise ValueError(f"Input dimension should be at least {len(out_size) + 1}")
    return [v if v is not None else d for v, d in zip(out_size, defaults[-len(out_size):])]


def consume_prefix_in_state_dict_if_present(state_dict: dict[str, Any], prefix: str) -> None:
    """Strip ``prefix`` from every key of ``state_dict`` (and its ``_metadata``) that starts with it, in place.

    Typical use: load a checkpoint saved from a ``DataParallel``-wrapped model (keys ``module.*``).
    """
    keys = list(state_dict.keys())
    for key in keys:
        if key.startswith(prefix):
            state_dict[key[len(prefix):]] = state_dict.pop(key)
    metadata = getattr(state_dict, "_metadata", None)
    if metadata is not None:
        for key in list(metadata.keys()):
            # the metadata key of the root module is "" and of a child "child"
            if len(key) == 0:
                continue
            if key == prefix.replace(".", "") or key.startswith(prefix):
                metadata[key[len(prefix):]] = metadata.pop(key)
