"""Data loading (``retrograd.utils.data``): datasets, samplers, DataLoader, collation.

>>> import retrograd as torch
>>> from retrograd.utils.data import DataLoader, TensorDataset
>>> x = torch.arange(6.).view(3, 2)
>>> [b[0].shape for b in DataLoader(TensorDataset(x), batch_size=2)]
[torch.Size([2, 2]), torch.Size([1, 2])]
"""
from . import _utils, datapipes  # noqa: F401 - torch.utils.data._utils / .datapipes
from ._collate import default_collate, default_convert
from .dataloader import DataLoader, WorkerInfo, _DatasetKind, get_worker_info
from .datapipes.datapipe import IterDataPipe, MapDataPipe, functional_datapipe
from .distributed import DistributedSampler
from .dataset import ChainDataset, ConcatDataset, Dataset, IterableDataset, Subset, TensorDataset, random_split
from .stack_dataset import StackDataset
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler, SubsetRandomSampler,
                      WeightedRandomSampler)

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "ConcatDataset", "ChainDataset", "Subset",
           "random_split", "Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler", "DataLoader", "get_worker_info", "WorkerInfo",
           "default_collate", "default_convert", "StackDataset", "DistributedSampler",
           "IterDataPipe", "MapDataPipe", "functional_datapipe", "_DatasetKind"]
