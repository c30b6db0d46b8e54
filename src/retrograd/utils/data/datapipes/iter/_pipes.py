"""The iterable DataPipes: a source wrapper and the common transforms."""
from __future__ import annotations

import copy
import random
from typing import Callable, Iterable

from ..datapipe import IterDataPipe, functional_datapipe

__all__ = ["IterableWrapper", "Mapper", "Filter", "Shuffler", "ShardingFilter", "Batcher", "Concater"]


class IterableWrapper(IterDataPipe):
    """Yield the items of ``iterable`` (deep-copied per epoch unless ``deepcopy=False``)."""

    def __init__(self, iterable: Iterable, deepcopy: bool = True) -> None:
        self.iterable = iterable
        self.deepcopy = deepcopy

    def __iter__(self):
        source = self.iterable
        if self.deepcopy:
            try:
                source = copy.deepcopy(self.iterable)
            except TypeError:  # (not copyable: iterate the object itself, as PyTorch does)
                pass
        yield from source

    def __len__(self) -> int:
        return len(self.iterable)


@functional_datapipe("map")
class Mapper(IterDataPipe):
    """Apply ``fn`` to every item."""

    def __init__(self, datapipe: IterDataPipe, fn: Callable) -> None:
        self.datapipe = datapipe
        self.fn = fn

    def __iter__(self):
        for item in self.datapipe:
            yield self.fn(item)

    def __len__(self) -> int:
        return len(self.datapipe)


@functional_datapipe("filter")
class Filter(IterDataPipe):
    """Keep the items for which ``filter_fn`` is true."""

    def __init__(self, datapipe: IterDataPipe, filter_fn: Callable) -> None:
        self.datapipe = datapipe
        self.filter_fn = filter_fn

    def __iter__(self):
        for item in self.datapipe:
            if self.filter_fn(item):
                yield item


@functional_datapipe("shuffle")
class Shuffler(IterDataPipe):
    """Shuffle through a buffer of ``buffer_size`` items (a DataLoader can switch it off and seeds it)."""

    def __init__(self, datapipe: IterDataPipe, *, buffer_size: int = 10000, unbatch_level: int = 0) -> None:
        if buffer_size <= 0:
            raise AssertionError("buffer_size should be larger than 0")
        if unbatch_level != 0:
            raise NotImplementedError("Shuffler: unbatch_level other than 0 is not supported by retrograd")
        self.datapipe = datapipe
        self.buffer_size = buffer_size
        self._enabled = True
        self._seed: int | None = None

    def set_shuffle(self, shuffle: bool = True) -> "Shuffler":
        self._enabled = shuffle
        return self

    def set_seed(self, seed: int) -> "Shuffler":
        self._seed = seed
        return self

    def __iter__(self):
        if not self._enabled:
            yield from self.datapipe
            return
        if self._seed is None:
            from ....._creation import _draw_seed

            seed = _draw_seed(None)
        else:
            seed, self._seed = self._seed, None  # a DataLoader seeds each epoch afresh
        rng = random.Random(seed)
        buffer: list = []
        for item in self.datapipe:
            if len(buffer) == self.buffer_size:
                idx = rng.randint(0, len(buffer) - 1)
                buffer[idx], item = item, buffer[idx]
                yield item
            else:
                buffer.append(item)
        while buffer:
            idx = rng.randint(0, len(buffer) - 1)
            yield buffer.pop(idx)

    def __len__(self) -> int:
        return len(self.datapipe)


@functional_datapipe("sharding_filter")
class ShardingFilter(IterDataPipe):
    """Keep every ``num_instances``-th item from ``instance_id`` (all items in a single process)."""

    def __init__(self, source_datapipe: IterDataPipe, sharding_group_filter=None) -> None:
        self.source_datapipe = source_datapipe
        self.num_of_instances = 1
        self.instance_id = 0

    def apply_sharding(self, num_of_instances: int, instance_id: int, sharding_group=None) -> None:
        self.num_of_instances = num_of_instances
        self.instance_id = instance_id

    def __iter__(self):
        for i, item in enumerate(self.source_datapipe):
            if i % self.num_of_instances == self.instance_id:
                yield item

    def __len__(self) -> int:
        n = len(self.source_datapipe)
        return n // self.num_of_instances + (1 if self.instance_id < n % self.num_of_instances else 0)


@functional_datapipe("batch")
class Batcher(IterDataPipe):
    """Group items into lists of ``batch_size`` (the last one shorter unless ``drop_last``)."""

    def __init__(self, datapipe: IterDataPipe, batch_size: int, drop_last: bool = False, wrapper_class=list) -> None:
        if batch_size <= 0:
            raise AssertionError("Batch size is required to be larger than 0!")
        self.datapipe = datapipe
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.wrapper_class = wrapper_class

    def __iter__(self):
        batch: list = []
        for item in self.datapipe:
            batch.append(item)
            if len(batch) == self.batch_size:
                yield self.wrapper_class(batch)
                batch = []
        if batch and not self.drop_last:
            yield self.wrapper_class(batch)


@functional_datapipe("concat")
class Concater(IterDataPipe):
    """The items of this DataPipe, then those of each of ``datapipes``."""

    def __init__(self, *datapipes: IterDataPipe) -> None:
        if len(datapipes) == 0:
            raise ValueError("Expected at least one DataPipe, but got nothing")
        if not all(isinstance(dp, IterDataPipe) for dp in datapipes):
            raise TypeError("Expected all inputs to be `IterDataPipe`")
        self.datapipes = datapipes

    def __iter__(self):
        for dp in self.datapipes:
            yield from dp

    def __len__(self) -> int:
        return sum(len(dp) for dp in self.datapipes)
