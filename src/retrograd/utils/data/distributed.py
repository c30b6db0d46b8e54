"""DistributedSampler: the share of a dataset's indices that one replica (process) reads.

``num_replicas`` and ``rank`` default to the world size and rank of the default process group
(``retrograd.distributed.init_process_group``); the indices (shuffle seeded with ``seed + epoch``,
padding by wrapping around, or ``drop_last``) are exactly PyTorch's, so several processes using
retrograd split a dataset as PyTorch would.
"""
from __future__ import annotations

import math
from typing import Iterator

from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler[int]):
    """Indices ``rank, rank + num_replicas, ...`` of a (shuffled, padded or trimmed) index list.

    >>> from retrograd.utils.data import DistributedSampler
    >>> list(DistributedSampler(range(5), num_replicas=2, rank=1, shuffle=False))
    [1, 3, 0]
    >>> s = DistributedSampler(range(8), num_replicas=2, rank=0, seed=1)
    >>> s.set_epoch(3); len(s), sorted(s) == sorted(set(s))
    (4, True)
    """

    def __init__(self, dataset, num_replicas: int | None = None, rank: int | None = None, shuffle: bool = True,
                 seed: int = 0, drop_last: bool = False) -> None:
        # missing values come from the default process group (a ValueError, torch's, when none
        # was initialised: asked even without mpi4py, so the error is the same everywhere)
        if num_replicas is None or rank is None:
            from ... import distributed as dist

            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval [0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            # every replica gets the same count: drop the tail rather than pad
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self) -> Iterator[int]:
        n = len(self.dataset)
        if self.shuffle:
            from ..._creation import Generator, randperm

            g = Generator()
            g.manual_seed(self.seed + self.epoch)  # same on every replica: they must agree on the order
            indices = randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            pad = self.total_size - len(indices)
            if pad <= len(indices):
                indices += indices[:pad]
            else:
                indices += (indices * math.ceil(pad / len(indices)))[:pad]
        else:
            indices = indices[:self.total_size]
        if len(indices) != self.total_size:
            raise AssertionError(f"Number of indices ({len(indices)}) does not match total_size ({self.total_size})")
        indices = indices[self.rank:self.total_size:self.num_replicas]
        if len(indices) != self.num_samples:
            raise AssertionError(f"Number of subsampled indices ({len(indices)}) does not match num_samples "
                                 f"({self.num_samples})")
        return iter(indices)

    def __len__(self) -> int:
        return self.num_samples

    def set_epoch(self, epoch: int) -> None:
        """Use ``epoch`` in the shuffle seed, so each epoch gets a new order (the same on all replicas)."""
        self.epoch = epoch
