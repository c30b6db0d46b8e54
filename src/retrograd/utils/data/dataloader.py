"""DataLoader: batches from a dataset through a sampler and a collate function.

Loading always happens in the calling process.  ``num_workers > 0`` is accepted (so
PyTorch code runs unchanged) and behaves like one in-process worker: ``worker_init_fn(0)``
runs when an epoch starts (only the first one with ``persistent_workers``, whose iterator is
kept and reset) and ``get_worker_info()`` reports worker 0 of 1 while samples load.
"""
from __future__ import annotations

import multiprocessing
import os
import warnings
from typing import Callable, Generic, Iterable, TypeVar

from ._collate import default_collate, default_convert
from .dataset import Dataset, IterableDataset
from .datapipes.datapipe import IterDataPipe, _apply_shuffle_settings
from ._utils import worker as _worker
from ._utils.fetch import _IterableDatasetFetcher, _MapDatasetFetcher
from ._utils.worker import WorkerInfo, get_worker_info
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader", "get_worker_info", "WorkerInfo", "_DatasetKind"]


class _DatasetKind:
    Map = 0
    Iterable = 1


def _worker_scope(info: WorkerInfo | None):
    """Context manager: ``get_worker_info()`` returns ``info`` inside (the in-process worker)."""

    class _Scope:
        def __enter__(self):
            self.prev, _worker._worker_info = _worker._worker_info, info

        def __exit__(self, *exc):
            _worker._worker_info = self.prev

    return _Scope()


def _cpu_count() -> int | None:
    if hasattr(os, "sched_getaffinity"):
        return len(os.sched_getaffinity(0))
    return os.cpu_count()


class _InfiniteConstantSampler(Sampler):
    """The sampler of an IterableDataset: ``None`` forever (the dataset decides what comes next)."""

    def __iter__(self):
        while True:
            yield None


class _LoaderIter:
    """One pass over a DataLoader (or every pass, for ``persistent_workers``)."""

    def __init__(self, loader: "DataLoader") -> None:
        self._workers: list = []  # no worker processes: loading happens in this process
        self._reset(loader, first_iter=True)

    def _reset(self, loader: "DataLoader", first_iter: bool = False) -> None:
        from ..._creation import _draw_seed
        from .datapipes.datapipe import IterDataPipe, _apply_random_seed

        self._loader = loader
        self._dataset = loader.dataset
        self._num_workers = loader.num_workers
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._collate_fn = loader.collate_fn
        self._IterableDataset_len_called = loader._IterableDataset_len_called
        self._sampler_iter = iter(loader._index_sampler)
        # PyTorch draws a base seed for the workers from the loader's generator every epoch.
        self._base_seed = _draw_seed(loader.generator)
        if isinstance(self._dataset, IterDataPipe):
            # datapipes (their shufflers) get a seed shared by all workers, drawn from the loader's generator
            _apply_random_seed(self._dataset, _draw_seed(loader.generator))
        self._worker = None
        if loader.num_workers > 0:
            self._worker = WorkerInfo(id=0, num_workers=1, seed=self._base_seed, dataset=loader.dataset)
            if first_iter and loader.worker_init_fn is not None:
                with _worker_scope(self._worker):
                    loader.worker_init_fn(0)
        with _worker_scope(self._worker):
            if loader._dataset_kind == _DatasetKind.Iterable:
                self._fetcher = _IterableDatasetFetcher(self._dataset, self._auto_collation, self._collate_fn,
                                                        self._drop_last)
            else:
                self._fetcher = _MapDatasetFetcher(self._dataset, self._auto_collation, self._collate_fn,
                                                   self._drop_last)
        self._num_yielded = 0
        self._ended = False

    def __iter__(self):
        return self

    def __len__(self) -> int:
        return len(self._loader)

    def __getstate__(self):
        raise NotImplementedError(f"{type(self).__name__} cannot be pickled")

    def _shutdown_workers(self) -> None:
        """Nothing to stop: there are no worker processes."""

    def __next__(self):
        if self._ended:
            raise StopIteration
        try:
            index = next(self._sampler_iter)
            with _worker_scope(self._worker):
                data = self._fetcher.fetch(index)
        except StopIteration:
            self._ended = True
            raise
        self._num_yielded += 1
        if (self._loader._dataset_kind == _DatasetKind.Iterable and self._IterableDataset_len_called is not None
                and self._num_yielded > self._IterableDataset_len_called):
            msg = (f"Length of IterableDataset {self._dataset} was reported to be {self._IterableDataset_len_called}"
                   f"(when accessing len(dataloader)), but {self._num_yielded} samples have been fetched. ")
            if self._num_workers > 0:
                msg += ("For multiprocessing data-loading, this could be caused by not properly configuring the "
                        "IterableDataset replica at each worker. Please see "
                        "https://pytorch.org/docs/stable/data.html#torch.utils.data.IterableDataset for examples.")
            warnings.warn(msg, stacklevel=2)
        return data


T_co = TypeVar("T_co", covariant=True)


class DataLoader(Generic[T_co]):
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
            self._dataset_kind = _DatasetKind.Iterable
            if isinstance(dataset, IterDataPipe):
                if shuffle is not None:  # a datapipe graph's shufflers follow the loader's shuffle flag
                    dataset = _apply_shuffle_settings(dataset, shuffle=shuffle)
                    self.dataset = dataset
            elif shuffle not in {False, None}:
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
            self._dataset_kind = _DatasetKind.Map
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
            if self._dataset_kind == _DatasetKind.Iterable:
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
        self._IterableDataset_len_called = None
        self._iterator = None
        self.__initialized = True
        self.check_worker_number_rationality()

    @property
    def multiprocessing_context(self):
        return self.__multiprocessing_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, multiprocessing_context) -> None:
        # Validated as PyTorch does, although loading stays in this process whatever the context.
        if multiprocessing_context is not None:
            if self.num_workers <= 0:
                raise ValueError("multiprocessing_context can only be used with multi-process loading "
                                 f"(num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(multiprocessing_context, str):
                valid = multiprocessing.get_all_start_methods()
                if multiprocessing_context not in valid:
                    raise ValueError("multiprocessing_context option should specify a valid start method in "
                                     f"{valid!r}, but got multiprocessing_context={multiprocessing_context!r}")
                multiprocessing_context = multiprocessing.get_context(multiprocessing_context)
            if not isinstance(multiprocessing_context, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object or a string "
                                f"specifying the start method, but got multiprocessing_context={multiprocessing_context}")
        self.__multiprocessing_context = multiprocessing_context

    def check_worker_number_rationality(self) -> None:
        """Warn (as PyTorch does) when ``num_workers`` exceeds the CPUs this process may use."""
        if not self.num_workers:
            return
        suggest = _cpu_count()
        if suggest is not None and self.num_workers <= suggest:
            return
        if suggest is None:
            part = "DataLoader is not able to compute a suggested max number of worker in current system."
        else:
            cpuset = "" if hasattr(os, "sched_getaffinity") else " (`cpuset` is not taken into account)"
            part = (f"Our suggested max number of worker in current system is {suggest}{cpuset}, which is smaller "
                    "than what this DataLoader is going to create.")
        warnings.warn(f"This DataLoader will create {self.num_workers} worker processes in total. {part} Please be "
                      "aware that excessive worker creation might get DataLoader running slow or even freeze, lower "
                      "the worker number to avoid potential slowness/freeze if necessary.", stacklevel=2)

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
        if self.persistent_workers and self.num_workers > 0:
            # one iterator for the loader's lifetime, reset each epoch (PyTorch keeps its workers)
            if self._iterator is None:
                self._iterator = _LoaderIter(self)
            else:
                self._iterator._reset(self)
            return self._iterator
        return _LoaderIter(self)

    def __len__(self) -> int:
        if self._dataset_kind == _DatasetKind.Iterable:
            # remembered so that fetching more than this many samples warns (as in PyTorch)
            length = self._IterableDataset_len_called = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last else -(-length // self.batch_size)
            return length
        return len(self._index_sampler)
