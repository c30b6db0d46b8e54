"""DataPipe base classes, the functional-form registry and the graph settings a DataLoader applies."""
from __future__ import annotations

from typing import Callable, TypeVar

from ..dataset import Dataset, IterableDataset

__all__ = ["IterDataPipe", "MapDataPipe", "functional_datapipe"]

T_co = TypeVar("T_co", covariant=True)


class IterDataPipe(IterableDataset[T_co]):
    """An iterable-style DataPipe; ``dp.<name>(...)`` applies the DataPipe registered as ``name``.

    >>> from retrograd.utils.data.datapipes.iter import IterableWrapper
    >>> list(IterableWrapper([3, 1, 2]).map(str))
    ['3', '1', '2']
    """

    functions: dict[str, Callable] = {}

    def __getattr__(self, name: str):
        fn = type(self).functions.get(name) if not name.startswith("__") else None
        if fn is None:
            raise AttributeError(f"'{self.__class__.__name__}' object has no attribute '{name}'")
        return lambda *args, **kwargs: fn(self, *args, **kwargs)

    @classmethod
    def register_datapipe_as_function(cls, function_name: str, cls_to_register) -> None:
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is already taken")
        cls.functions[function_name] = cls_to_register

    def __repr__(self) -> str:
        return self.__class__.__qualname__

    def __str__(self) -> str:
        return self.__class__.__qualname__


class MapDataPipe(Dataset[T_co]):
    """A map-style DataPipe (indexable); functional forms are registered as for IterDataPipe."""

    functions: dict[str, Callable] = {}

    def __getattr__(self, name: str):
        fn = type(self).functions.get(name) if not name.startswith("__") else None
        if fn is None:
            raise AttributeError(f"'{self.__class__.__name__}' object has no attribute '{name}'")
        return lambda *args, **kwargs: fn(self, *args, **kwargs)

    @classmethod
    def register_datapipe_as_function(cls, function_name: str, cls_to_register) -> None:
        if function_name in cls.functions:
            raise Exception(f"Unable to add DataPipe function name {function_name} as it is already taken")
        cls.functions[function_name] = cls_to_register


class functional_datapipe:
    """Class decorator: register a DataPipe class under a functional name (``dp.name(...)``)."""

    def __init__(self, name: str) -> None:
        self.name = name

    def __call__(self, cls):
        if issubclass(cls, IterDataPipe):
            IterDataPipe.register_datapipe_as_function(self.name, cls)
        elif issubclass(cls, MapDataPipe):
            MapDataPipe.register_datapipe_as_function(self.name, cls)
        else:
            raise TypeError("`functional_datapipe` can only decorate IterDataPipe or MapDataPipe")
        return cls


def _graph_nodes(datapipe) -> list:
    """Every DataPipe reachable from ``datapipe`` through its DataPipe-valued attributes."""
    seen: dict[int, object] = {}
    stack = [datapipe]
    while stack:
        node = stack.pop()
        if id(node) in seen:
            continue
        seen[id(node)] = node
        for value in vars(node).values():
            children = value if isinstance(value, (list, tuple)) else (value,)
            stack.extend(c for c in children if isinstance(c, (IterDataPipe, MapDataPipe)))
    return list(seen.values())


def _apply_shuffle_settings(datapipe, shuffle: bool | None = None):
    """Turn every shuffler in the graph on or off (what ``DataLoader(shuffle=...)`` does)."""
    if shuffle is None:
        return datapipe
    for node in _graph_nodes(datapipe):
        if hasattr(node, "set_shuffle"):
            node.set_shuffle(bool(shuffle))
    return datapipe


def _apply_random_seed(datapipe, seed: int):
    """Seed every shuffler in the graph (the DataLoader draws ``seed`` from its generator each epoch)."""
    for i, node in enumerate(_graph_nodes(datapipe)):
        if hasattr(node, "set_seed"):
            node.set_seed(seed + i)
    return datapipe
