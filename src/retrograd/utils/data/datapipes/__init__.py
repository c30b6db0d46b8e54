"""``torch.utils.data.datapipes``: composable data pipelines (a small core of PyTorch's).

An ``IterDataPipe`` is an IterableDataset built by chaining functional forms
(``.map``, ``.filter``, ``.shuffle``, ``.sharding_filter``, ``.batch``) onto a source such
as ``IterableWrapper``.  A DataLoader turns its shufflers on or off with ``shuffle=`` and seeds
them from its generator every epoch.

>>> from retrograd.utils.data.datapipes.iter import IterableWrapper
>>> list(IterableWrapper(range(6)).map(lambda x: x * 10).filter(lambda x: x > 20))
[30, 40, 50]
"""
from . import datapipe, iter, map  # noqa: F401
from .datapipe import IterDataPipe, MapDataPipe, functional_datapipe  # noqa: F401

__all__ = ["datapipe", "iter", "map", "IterDataPipe", "MapDataPipe", "functional_datapipe"]
