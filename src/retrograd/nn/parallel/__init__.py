"""``torch.nn.parallel``: DataParallel (one process) and DistributedDataParallel (several, on MPI)."""
from __future__ import annotations

from .data_parallel import DataParallel, data_parallel  # noqa: F401
from .distributed import DistributedDataParallel  # noqa: F401

__all__ = ["DataParallel", "data_parallel", "DistributedDataParallel"]
