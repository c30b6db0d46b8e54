"""``torch.utils.data.datapipes.iter``: the iterable DataPipes retrograd provides.

>>> from retrograd.utils.data.datapipes.iter import IterableWrapper
>>> [b for b in IterableWrapper(range(5)).batch(2)]
[[0, 1], [2, 3], [4]]
"""
from ._pipes import Batcher, Concater, Filter, IterableWrapper, Mapper, ShardingFilter, Shuffler  # noqa: F401

__all__ = ["Batcher", "Concater", "Filter", "IterableWrapper", "Mapper", "ShardingFilter", "Shuffler"]
