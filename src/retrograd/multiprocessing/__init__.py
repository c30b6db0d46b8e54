"""``torch.multiprocessing``: Python's multiprocessing (retrograd tensors pickle like any object).

PyTorch wraps the standard module to move tensors through shared memory; retrograd does not
share tensor memory across processes, so its tensors travel by pickling and this package is the
standard library's API under torch's name.

>>> import retrograd.multiprocessing as mp
>>> mp.get_start_method(allow_none=True) in (None, "fork", "spawn", "forkserver")
True
"""
from __future__ import annotations

import multiprocessing as _mp
from multiprocessing import *  # noqa: F401,F403

__all__ = list(_mp.__all__) + ["get_all_sharing_strategies", "get_sharing_strategy", "set_sharing_strategy"]

_strategy = ["file_system"]


def get_all_sharing_strategies() -> set:
    return {"file_system"}


def get_sharing_strategy() -> str:
    return _strategy[0]


def set_sharing_strategy(new_strategy: str) -> None:
    if new_strategy not in get_all_sharing_strategies():
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}")
    _strategy[0] = new_strategy
