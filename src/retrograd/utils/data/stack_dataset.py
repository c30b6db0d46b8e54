"""StackDataset: zip several equally long datasets into tuple- or dict-shaped samples."""
from __future__ import annotations

from typing import Any

from .dataset import Dataset

__all__ = ["StackDataset"]


class StackDataset(Dataset):
    """Sample ``i`` is ``(ds[i] for ds in args)`` or ``{k: ds[i] for k, ds in kwargs}``.

    Give the datasets either positionally (tuple samples) or by keyword (dict samples), not both;
    all must have the same length.

    >>> import retrograd as torch
    >>> from retrograd.utils.data import StackDataset, TensorDataset
    >>> ds = StackDataset(x=[10, 20, 30], y="abc")
    >>> len(ds), ds[1]
    (3, {'x': 20, 'y': 'b'})
    >>> StackDataset([1, 2], [3, 4])[0]
    (1, 3)
    """

    datasets: tuple | dict

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        if args and kwargs:
            # (PyTorch's message, including its missing space between the two literals)
            raise ValueError("Supported either ``tuple``- (via ``args``) or``dict``- (via ``kwargs``) like "
                             "input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(self._length != len(ds) for ds in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: ds[index] for k, ds in self.datasets.items()}
        return tuple(ds[index] for ds in self.datasets)

    def _column(self, dataset, indices: list) -> list:
        """``[dataset[i] for i in indices]``, batched when the dataset has ``__getitems__``."""
        getitems = getattr(dataset, "__getitems__", None)
        if not callable(getitems):
            return [dataset[i] for i in indices]
        items = getitems(indices)
        if len(items) != len(indices):
            raise ValueError(f"Nested dataset's output size mismatch. Expected {len(indices)}, got {len(items)}")
        return list(items)

    def __getitems__(self, indices: list) -> list:
        """A batch of samples (what DataLoader asks for when it batches)."""
        if isinstance(self.datasets, dict):
            columns = {k: self._column(ds, indices) for k, ds in self.datasets.items()}
            return [{k: col[j] for k, col in columns.items()} for j in range(len(indices))]
        cols = [self._column(ds, indices) for ds in self.datasets]
        return [tuple(col[j] for col in cols) for j in range(len(indices))]

    def __len__(self) -> int:
        return self._length
