"""``torch.utils._mode_utils``: ``no_dispatch``.

retrograd has no dispatcher and no ``__torch_dispatch__`` modes, so there is never anything
to switch off: ``no_dispatch()`` is an honest no-op context manager.

>>> import retrograd as torch
>>> from retrograd.utils._mode_utils import no_dispatch
>>> with no_dispatch():
...     y = torch.ones(2) * 2
>>> y
tensor([2., 2.])
"""
from __future__ import annotations

import contextlib
from typing import Iterator

__all__ = ["no_dispatch", "all_same_mode"]


@contextlib.contextmanager
def no_dispatch() -> Iterator[None]:
    """Run the block with ``__torch_dispatch__`` modes disabled (there are none in retrograd)."""
    yield


def all_same_mode(modes) -> bool:
    """Whether every entry of ``modes`` is the same object as the first."""
    modes = list(modes)
    return all(m is modes[0] for m in modes)
