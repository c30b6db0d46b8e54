"""Names PyTorch code touches that have one obvious answer on a CPU-only NumPy engine."""
from __future__ import annotations

import types

import numpy as np

from . import _dtype as D
from ._size import check_device
from ._tensor import Tensor

__all__ = ["cuda", "backends", "is_tensor", "is_floating_point", "is_complex", "numel", "result_type",
           "set_default_device", "get_default_device", "FloatTensor", "DoubleTensor", "LongTensor",
           "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "is_storage", "typename",
           "use_deterministic_algorithms", "set_num_threads", "get_num_threads", "compile"]


def _false(*args, **kwargs) -> bool:
    return False


cuda = types.SimpleNamespace(is_available=_false, device_count=lambda: 0, manual_seed=lambda s: None,
                             manual_seed_all=lambda s: None, is_initialized=_false,
                             synchronize=lambda *a: None, empty_cache=lambda: None)
backends = types.SimpleNamespace(
    mps=types.SimpleNamespace(is_available=_false, is_built=_false),
    cudnn=types.SimpleNamespace(deterministic=False, benchmark=False, enabled=True, is_available=_false),
    cuda=types.SimpleNamespace(is_built=_false, matmul=types.SimpleNamespace(allow_tf32=False)),
)


def is_tensor(obj) -> bool:
    return isinstance(obj, Tensor)


def is_storage(obj) -> bool:
    return False


def _tensor_arg(fn: str, input) -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument 'input' (position 1) must be Tensor, not {type(input).__name__}")


def is_floating_point(input: Tensor) -> bool:
    _tensor_arg("is_floating_point", input)
    return input.is_floating_point()


def is_complex(input: Tensor) -> bool:
    """False: retrograd has no complex dtypes (PyTorch's check of the argument kept)."""
    _tensor_arg("is_complex", input)
    return input.is_complex()


def numel(input: Tensor) -> int:
    return input.numel()


def typename(obj) -> str:
    return obj.type() if isinstance(obj, Tensor) else type(obj).__name__


def result_type(tensor1, tensor2) -> D.dtype:
    """The dtype an op on these operands returns (PyTorch's promotion rules)."""
    return D.result_type(tensor1, tensor2)


def set_default_device(device) -> None:
    check_device(device)


def get_default_device():
    from ._size import CPU

    return CPU


def use_deterministic_algorithms(mode: bool, *, warn_only: bool = False) -> None:
    """NumPy on the CPU is deterministic already."""


def set_num_threads(n: int) -> None:
    pass


def get_num_threads() -> int:
    import os

    return os.cpu_count() or 1


def compile(model=None, **kwargs):
    """No compiler here: returns the model (or a decorator that does)."""
    if model is None:
        return lambda m: m
    return model


def _legacy(dt: D.dtype):
    class _Legacy(Tensor):
        """Legacy typed constructor (``torch.FloatTensor([1, 2])``)."""

        def __new__(cls, *args, **kwargs):
            t = Tensor.__new__(Tensor)
            Tensor.__init__(t, *args, dtype=dt)
            return t

        def __init__(self, *a, **k) -> None:
            pass

    _Legacy.__name__ = {"float32": "FloatTensor", "float64": "DoubleTensor", "int64": "LongTensor",
                        "int32": "IntTensor", "bool": "BoolTensor", "uint8": "ByteTensor",
                        "float16": "HalfTensor"}[dt.name]
    return _Legacy


FloatTensor = _legacy(D.float32)
DoubleTensor = _legacy(D.float64)
LongTensor = _legacy(D.int64)
IntTensor = _legacy(D.int32)
BoolTensor = _legacy(D.bool_)
ByteTensor = _legacy(D.uint8)
HalfTensor = _legacy(D.float16)
np
