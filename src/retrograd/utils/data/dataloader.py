"""DataLoader: batches from a dataset through a sampler and a collate function.

Loading always happens in the calling process.  ``num_workers > 0`` is accepted (so
PyTorch code runs unchanged) and behaves like one in-process worker: ``worker_init_fn(0)``
runs when an epoch starts and ``get_worker_info()`` reports worker 0 of 1 while samples load.
"""
from __future__ import annotations

import itertools
import warnings
from dataclasses import dataclass
from typing import Any, Callable, Iterable

from ._collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "WorkerInfo"]


@dataclass(frozen=True)
class WorkerInfo:
    """What ``get_worker_info()`` returns inside a (here: in-process) worker."""

    id: int
    num_workers: int
    seed: int
    dataset: Any


_worker_info: WorkerInfo | None = None


def get_worker_info() -> WorkerInfo | None:
    """The current worker's info, or None in the main process (always None with ``num_workers=0``)."""
    return _worker_info


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: ``None`` forever (the dataset decides what comes next)."""

    def __iter__(self):
        while True:
            yield None


class _LoaderIter:
    """One pass over a DataLoader."""

    def __init__(self, loader: "DataLoader") -> None:
        from ..._creation import _draw_seed

        self._loader = loader
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._sampler_iter = iter(loader._index_sampler)
        # PyTorch draws a base seed for the workers from the loader's generator every epoch.
        self._base_seed = _draw_seed(loader.generator)
        self._worker = None
        if loader.num_workers > 0:
            self._worker = WorkerInfo(0, 1, self._base_seed, loader.dataset)
            if loader.worker_init_fn is not None:
                with self._as_worker():
                    loader.worker_init_fn(0)
        self._dataset_iter = None
        if loader._dataset_kind == "iterable":
            with self._as_worker():
                self._dataset_iter = iter(self._dataset)
        self._num_yielded = 0
        self._ended = False

    def _as_worker(self):
        info = self._worker

        class _Scope:
            def __enter__(self_):
                global _worker_info
                self_.prev, _worker_info = _worker_info, info

            def __exit__(self_, *exc):
                global _worker_info
                _worker_info = self_.prev

        return _Scope()

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def _fetch(self, index):
        ds = self._dataset
        if self._dataset_iter is not None:  # iterable dataset
            if self._auto_collation:
                data = list(itertools.islice(self._dataset_iter, len(index)))
                if len(data) == 0 or (self._drop_last and len(data) < len(index)):
                    raise StopIteration
            else:
                data = next(self._dataset_iter)
        elif self._auto_collation:
            getitems = getattr(ds, "__getitems__", None)
            data = getitems(index) if callable(getitems) else [ds[i] for i in index]
        else:
            data = ds[index]
        return self._collate_fn(data)

    def __next__(self):
        if self._ended:
            raise StopIteration
        try:
            index = next(self._sampler_iter)
            with self._as_worker():
                data = self._fetch(index)
        except StopIteration:
            self._ended = True
            raise
        self._num_yielded += 1
        return data


class DataLoader:
    """Iterate over ``dataset`` in batches (PyTorch's DataLoader, loading in this process).

    >>> import retrograd as torch
    >>> from retrograd.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(torch.arange(5.), torch.arange(5))
    >>> [y.tolist() for _, y in DataLoader(ds, batch_size=2)]
    [[0, 1], [2, 3], [4]]
    """

    __initialized = False

    def __init__(self, dataset: Dataset, batch_size: int | None = 1, shuffle: bool | None = None,
                 sampler: Sampler | Iterable | None = None, batch_sampler: Sampler | Iterable | None = None,
                 num_workers: int = 0, collate_fn: Callable | None = None, pin_memory: bool = False,
                 drop_last: bool = False, timeout: float = 0, worker_init_fn: Callable | None = None,
                 multiprocessing_context=None, generator=None, *, prefetch_factor: int | None = None,
                 persistent_workers: bool = False, pin_memory_device: str = "", in_order: bool = True) -> None:
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to disable "
                             "multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing.let num_workers > 0 "
                             "to enable multiprocessing, otherwise set prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")
        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.in_order = in_order

        if isinstance(dataset, IterableDataset):
            self._dataset_kind = "iterable"
            if shuffle not in {False, None}:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified shuffle option, but got "
                                 f"shuffle={shuffle}")
            if sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified sampler option, but got "
                                 f"sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError(f"DataLoader with IterableDataset: expected unspecified batch_sampler option, but "
                                 f"got batch_sampler={batch_sampler}")
        else:
            shuffle = bool(shuffle)
            self._dataset_kind = "map"
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, shuffle, sampler, and "
                                 "drop_last")
            batch_size = None
            drop_last = False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually exclusive with drop_last")
        if sampler is None:
            if self._dataset_kind == "iterable":
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self.__initialized = True

    def __setattr__(self, attr: str, val) -> None:
        if self.__initialized and attr in ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
                                           "persistent_workers"):
            raise ValueError(f"{attr} attribute should not be set after {self.__class__.__name__} is initialized")
        super().__setattr__(attr, val)

    @property
    def _auto_collation(self) -> bool:
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def __iter__(self) -> _LoaderIter:
        if self.pin_memory:  # (torch says so each time an iteration starts without an accelerator)
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, then device pinned "
                          "memory won't be used.", UserWarning, stacklevel=2)
        return _LoaderIter(self)

    def __len__(self) -> int:
        if self._dataset_kind == "iterable":
            length = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)
