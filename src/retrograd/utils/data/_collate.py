"""default_collate / default_convert: turn a list of samples into a batch (PyTorch's rules).

Tensors are stacked; NumPy arrays and NumPy scalars become tensors; Python floats become a
float64 tensor and ints an int64 tensor; strings and bytes stay lists; dicts, namedtuples,
tuples and lists are collated field by field (tuples come back as lists, as in PyTorch).
"""
from __future__ import annotations

import collections.abc
import copy
import re
from typing import Any, Callable

import numpy as np

from ..._tensor import Tensor

__all__ = ["default_collate", "default_convert", "collate", "default_collate_fn_map"]

np_str_obj_array_pattern = re.compile(r"[SaUO]")
default_collate_err_msg_format = ("default_collate: batch must contain tensors, numpy arrays, numbers, "
                                  "dicts or lists; found {}")


def _stack(batch: list[Tensor]) -> Tensor:
    """``torch.stack(batch, 0)``; uses the op table's ``stack`` when it exists (keeps autograd)."""
    import retrograd

    stack = getattr(retrograd, "stack", None)
    if stack is not None:
        return stack(batch, 0)
    shape = batch[0]._data.shape
    for i, t in enumerate(batch):
        if t._data.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got {list(shape)} at entry 0 and "
                               f"{list(t._data.shape)} at entry {i}")
    if any(t.requires_grad for t in batch):
        raise RuntimeError("collating tensors that require grad needs retrograd.stack")
    return Tensor._wrap(np.stack([t._data for t in batch]), False, None, 0)


def collate_tensor_fn(batch, *, collate_fn_map=None):
    from ._utils.worker import get_worker_info

    out = _stack(list(batch))
    if get_worker_info() is not None:
        # PyTorch stacks into shared memory inside a worker, so batches reach the main process
        # without a copy; retrograd marks the batch shared so is_shared() answers the same
        out.share_memory_()
    return out


def collate_numpy_array_fn(batch, *, collate_fn_map=None):
    from ..._creation import as_tensor

    if np_str_obj_array_pattern.search(batch[0].dtype.str) is not None:
        raise TypeError(default_collate_err_msg_format.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def collate_numpy_scalar_fn(batch, *, collate_fn_map=None):
    from ..._creation import as_tensor

    return as_tensor(np.array(batch))


def collate_float_fn(batch, *, collate_fn_map=None):
    from ..._creation import tensor
    from ..._dtype import float64

    return tensor(batch, dtype=float64)


def collate_int_fn(batch, *, collate_fn_map=None):
    from ..._creation import tensor

    return tensor(batch)


def collate_str_fn(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map: dict[Any, Callable] = {
    Tensor: collate_tensor_fn,
    np.ndarray: collate_numpy_array_fn,
    (np.bool_, np.number, np.object_): collate_numpy_scalar_fn,
    float: collate_float_fn,
    int: collate_int_fn,
    str: collate_str_fn,
    bytes: collate_str_fn,
}


def collate(batch, *, collate_fn_map: dict | None = None):
    """Collate ``batch`` using ``collate_fn_map`` (type -> function) for the leaves."""
    elem = batch[0]
    elem_type = type(elem)
    if collate_fn_map is not None:
        if elem_type in collate_fn_map:
            return collate_fn_map[elem_type](batch, collate_fn_map=collate_fn_map)
        for collate_type in collate_fn_map:
            if isinstance(elem, collate_type):
                return collate_fn_map[collate_type](batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        fields = {key: collate([d[key] for d in batch], collate_fn_map=collate_fn_map) for key in elem}
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                clone = copy.copy(elem)
                clone.update(fields)
                return clone
            return elem_type(fields)
        except TypeError:
            return fields
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):  # namedtuple
        return elem_type(*(collate(samples, collate_fn_map=collate_fn_map) for samples in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        it = iter(batch)
        elem_size = len(next(it))
        if not all(len(e) == elem_size for e in it):
            raise RuntimeError("each element in list of batch should be of equal size")
        transposed = list(zip(*batch))
        if isinstance(elem, tuple):
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
        try:
            if isinstance(elem, collections.abc.MutableSequence):
                clone = copy.copy(elem)
                for i, samples in enumerate(transposed):
                    clone[i] = collate(samples, collate_fn_map=collate_fn_map)
                return clone
            return elem_type([collate(samples, collate_fn_map=collate_fn_map) for samples in transposed])
        except TypeError:
            return [collate(samples, collate_fn_map=collate_fn_map) for samples in transposed]
    raise TypeError(default_collate_err_msg_format.format(elem_type))


def default_collate(batch):
    """Collate a list of samples into a batch with PyTorch's default rules.

    >>> from retrograd.utils.data import default_collate
    >>> default_collate([(1, 2.0), (3, 4.0)])
    [tensor([1, 3]), tensor([2., 4.], dtype=torch.float64)]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Convert NumPy arrays (also inside dicts, lists, tuples) to tensors; leave the rest alone."""
    from ..._creation import as_tensor

    elem_type = type(data)
    if isinstance(data, Tensor):
        return data
    if elem_type.__module__ == "numpy" and elem_type.__name__ not in ("str_", "string_"):
        if elem_type.__name__ == "ndarray" and np_str_obj_array_pattern.search(data.dtype.str) is not None:
            return data
        return as_tensor(np.asarray(data))
    if isinstance(data, collections.abc.Mapping):
        fields = {key: default_convert(data[key]) for key in data}
        try:
            if isinstance(data, collections.abc.MutableMapping):
                clone = copy.copy(data)
                clone.update(fields)
                return clone
            return elem_type(fields)
        except TypeError:
            return fields
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return elem_type(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        try:
            if isinstance(data, collections.abc.MutableSequence):
                clone = copy.copy(data)
                for i, d in enumerate(data):
                    clone[i] = default_convert(d)
                return clone
            return elem_type([default_convert(d) for d in data])
        except TypeError:
            return [default_convert(d) for d in data]
    return data
