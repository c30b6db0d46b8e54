"""DistributedSampler shards, with num_replicas/rank taken from the default group (run under mpiexec)."""
from __future__ import annotations

from retrograd.utils.data import DistributedSampler

CASES = [(n, shuffle, drop_last, seed) for n in (7, 10, 16) for shuffle in (False, True)
         for drop_last in (False, True) for seed in (0, 3)]


def run(out: dict) -> None:
    for length, shuffle, drop_last, seed in CASES:
        s = DistributedSampler(range(length), shuffle=shuffle, seed=seed, drop_last=drop_last)
        shards = []
        for epoch in (0, 1):
            s.set_epoch(epoch)
            shards.append(list(s))
        out[f"sampler/{length}/{shuffle}/{drop_last}/{seed}"] = (s.num_replicas, s.rank, len(s), shards)
