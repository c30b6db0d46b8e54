"""``torch.utils.data._utils.worker``: the worker-side state of a DataLoader.

retrograd loads in the calling process; while an in-process "worker" fetches samples,
``_worker_info`` holds its :class:`WorkerInfo` (``get_worker_info()`` reads it), else None.

>>> from retrograd.utils.data._utils.worker import _generate_state, get_worker_info
>>> get_worker_info() is None
True
>>> len(_generate_state(1234, 0))
4
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info"]


@dataclass(frozen=True, slots=True)
class WorkerInfo:
    """Read-only description of a worker: ``id``, ``num_workers``, ``seed``, ``dataset`` (and
    ``rng``, ``worker_method``, as in PyTorch 2.13; assigning raises FrozenInstanceError there too)."""

    id: int
    num_workers: int
    seed: int
    dataset: Any
    rng: Any = None
    worker_method: str | None = "multiprocessing"


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's :class:`WorkerInfo`, or None in the main process."""
    return _worker_info


def _generate_state(base_seed: int, worker_id: int) -> list[int]:
    """The 4-word NumPy seed PyTorch gives worker ``worker_id`` of a loader seeded ``base_seed``.

    PyTorch hashes ``[worker_id, low 32 bits, high 32 bits]`` exactly as NumPy's SeedSequence
    does, so NumPy's own SeedSequence computes the same words.
    """
    entropy = [worker_id, base_seed & 0xFFFFFFFF, base_seed >> 32]
    return np.random.SeedSequence(entropy).generate_state(4).tolist()
