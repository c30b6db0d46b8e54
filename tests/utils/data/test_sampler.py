"""utils.data samplers (DistributedSampler), against torch 2.13."""

import pytest

from retrograd.utils import data as rd

torch = pytest.importorskip("torch")

import torch.utils.data as td  # noqa: E402

from ..._behaviour_compare import raises_like, same  # noqa: E402


@pytest.mark.parametrize("n", [1, 5, 8, 11, 23])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("shuffle,drop_last", [(False, False), (False, True), (True, False), (True, True)])
def test_distributed_sampler_indices_match_torch(n, replicas, shuffle, drop_last):
    ds = list(range(n))
    for rank in range(replicas):
        for seed, epoch in [(0, 0), (7, 3)]:
            ts = td.DistributedSampler(ds, num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                       drop_last=drop_last)
            rs = rd.DistributedSampler(ds, num_replicas=replicas, rank=rank, shuffle=shuffle, seed=seed,
                                       drop_last=drop_last)
            ts.set_epoch(epoch)
            rs.set_epoch(epoch)
            assert list(rs) == list(ts)
            assert len(rs) == len(ts) and rs.total_size == ts.total_size


def test_distributed_sampler_padding_wraps_more_than_once_and_errors():
    # 2 samples over 5 replicas: the index list is repeated more than once to pad
    for rank in range(5):
        assert list(rd.DistributedSampler([0, 1], 5, rank, shuffle=False)) == \
            list(td.DistributedSampler([0, 1], 5, rank, shuffle=False))
    raises_like(lambda: td.DistributedSampler(range(4)), lambda: rd.DistributedSampler(range(4)))
    raises_like(lambda: td.DistributedSampler(range(4), num_replicas=2),
                lambda: rd.DistributedSampler(range(4), num_replicas=2))
    raises_like(lambda: td.DistributedSampler(range(4), num_replicas=2, rank=2),
                lambda: rd.DistributedSampler(range(4), num_replicas=2, rank=2))
    raises_like(lambda: td.DistributedSampler(range(4), num_replicas=2, rank=-1),
                lambda: rd.DistributedSampler(range(4), num_replicas=2, rank=-1))
    # inside a DataLoader
    tl = td.DataLoader(list(range(9)), batch_size=2, sampler=td.DistributedSampler(range(9), 2, 1, seed=3))
    rl = rd.DataLoader(list(range(9)), batch_size=2, sampler=rd.DistributedSampler(range(9), 2, 1, seed=3))
    same(list(tl), list(rl))
