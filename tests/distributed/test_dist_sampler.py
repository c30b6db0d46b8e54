"""DistributedSampler under a real process group gives each rank torch's shard."""
from __future__ import annotations

import torch.utils.data as tdata

from dist_worker_sampler import CASES


def test_shards_equal_torch(world):
    n = world.n
    for length, shuffle, drop_last, seed in CASES:
        everyone = []
        for r in range(n):
            replicas, rank, size, shards = world[r][f"sampler/{length}/{shuffle}/{drop_last}/{seed}"]
            assert (replicas, rank) == (n, r)  # taken from the default group
            ref = tdata.DistributedSampler(range(length), num_replicas=n, rank=r, shuffle=shuffle, seed=seed,
                                           drop_last=drop_last)
            want = []
            for epoch in (0, 1):
                ref.set_epoch(epoch)
                want.append(list(ref))
            assert (size, shards) == (len(ref), want), (length, shuffle, drop_last, seed, r)
            everyone.append(shards[0])
        if not drop_last:  # together the ranks cover the dataset
            assert set(sum(everyone, [])) == set(range(length))
