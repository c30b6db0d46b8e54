"""Names PyTorch code touches that have one obvious answer on a CPU-only NumPy engine."""
from __future__ import annotations

import numpy as np

from . import _dtype as D
from ._size import Size, check_device
from ._tensor import Tensor

__all__ = ["cuda", "backends", "is_tensor", "is_floating_point", "is_complex", "numel", "result_type",
           "set_default_device", "get_default_device", "FloatTensor", "DoubleTensor", "LongTensor",
           "IntTensor", "BoolTensor", "ByteTensor", "HalfTensor", "is_storage", "typename",
           "use_deterministic_algorithms", "set_num_threads", "get_num_threads", "compile", "set_flush_denormal"]


# torch.cuda / torch.backends are packages of their own (``import torch.cuda`` must work);
# re-exported here so ``from ._compat import *`` keeps binding them on the top-level package.
from . import backends, cuda  # noqa: E402


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
    """NumPy on the CPU is deterministic already; the setting is stored for the getters."""
    if not isinstance(mode, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'mode' (position 1) must be bool, not "
                        f"{type(mode).__name__}")
    if not isinstance(warn_only, bool):
        raise TypeError(f"_set_deterministic_algorithms(): argument 'warn_only' must be bool, not "
                        f"{type(warn_only).__name__}")
    _settings["deterministic"] = mode
    _settings["warn_only"] = warn_only  # kept even when mode is off, as torch's getter reports it


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


class tensortype(type):
    """The metaclass of the legacy typed tensor classes (``torch.FloatTensor`` ...).

    As in PyTorch, these classes are not Tensor subclasses: ``isinstance(t, torch.FloatTensor)``
    checks the tensor's dtype, and calling one builds a plain ``Tensor`` of that dtype.
    """

    dtype: D.dtype

    def __new__(mcs, name, bases, ns):
        # the legacy classes cannot be subclassed (torch: they are not acceptable base types)
        for b in bases:
            if isinstance(b, tensortype):
                raise TypeError(f"type 'torch.{b.__name__}' is not an acceptable base type")
        return super().__new__(mcs, name, bases, ns)

    def __instancecheck__(cls, instance) -> bool:
        return isinstance(instance, Tensor) and instance.dtype is cls.dtype

    def __call__(cls, *args, device=None, **kwargs) -> Tensor:
        return _legacy_new(cls, args, device, kwargs)

    @property
    def is_cuda(cls) -> bool:
        return False

    @property
    def is_sparse(cls) -> bool:
        return False


tensortype.__module__ = "retrograd"


def _legacy_new(cls, args: tuple, device, kwargs: dict) -> Tensor:
    """PyTorch's legacy constructor: ``()``, ``(tensor)``, ``(*sizes)``, ``(Size)`` or ``(sequence)``."""
    dt = cls.dtype
    if kwargs:
        got = ", ".join([type(a).__name__ for a in args] +
                        [f"{k}={'torch.dtype' if isinstance(v, D.dtype) else type(v).__name__}"
                         for k, v in kwargs.items()])
        raise TypeError(
            f"new() received an invalid combination of arguments - got ({got}), but expected one of:\n"
            " * (*, torch.device device = None)\n"
            f"      didn't match because some of the keywords were incorrect: {', '.join(kwargs)}\n"
            " * (torch.Storage storage)\n * (Tensor other)\n"
            " * (tuple of ints size, *, torch.device device = None)\n"
            " * (object data, *, torch.device device = None)\n")
    check_device(device)
    if not args:
        return Tensor._wrap(np.empty((0,), dtype=dt.np), False, None, 0)
    first = args[0]
    from ._storage import TypedStorage, UntypedStorage

    if len(args) == 1 and isinstance(first, (TypedStorage, UntypedStorage)):
        # a 1-D tensor over the storage's memory (shared, as torch's)
        if isinstance(first, TypedStorage) and first.dtype is not dt:
            raise RuntimeError(f"Expected a Storage of type {_SCALAR_NAMES[dt.name]} or an UntypedStorage, but got "
                               f"type {_SCALAR_NAMES[first.dtype.name]} for argument 1 'storage'")
        return Tensor._wrap(first.untyped()._bytes().view(dt.np) if isinstance(first, TypedStorage)
                            else first._bytes().view(dt.np), False, None, 0)
    if len(args) == 1 and isinstance(first, Tensor):
        if first.dtype is not dt:
            raise TypeError(f"expected {_options(dt)} (got {_options(first.dtype)})")
        from ._ops.indexing import _alias
        from ._ops._registry import apply

        return apply(_alias, (first,))  # shares memory with ``first`` (AliasBackward0), as in PyTorch
    if isinstance(first, Size) or isinstance(first, (int, np.integer)) and not isinstance(first, bool):
        sizes = tuple(first) if isinstance(first, Size) and len(args) == 1 else args
        for i, n in enumerate(sizes):
            if not isinstance(n, (int, np.integer)) or isinstance(n, bool):
                raise TypeError(f"new(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                                f"\"type must be tuple of ints,but got {type(n).__name__}\"")
        if any(n < 0 for n in sizes):
            raise RuntimeError(f"Trying to create tensor with negative dimension {min(sizes)}: "
                               f"[{', '.join(str(int(n)) for n in sizes)}]")
        # (PyTorch leaves the memory uninitialised; zeros are one valid choice of its contents)
        return Tensor._wrap(np.zeros(tuple(int(n) for n in sizes), dtype=dt.np), False, None, 0)
    if len(args) > 1:
        raise TypeError(f"new() received an invalid combination of arguments - got "
                        f"({', '.join(type(a).__name__ for a in args)}), but expected one of:\n"
                        " * (*, torch.device device = None)\n * (torch.Storage storage)\n * (Tensor other)\n"
                        " * (tuple of ints size, *, torch.device device = None)\n"
                        " * (object data, *, torch.device device = None)\n")
    if isinstance(first, str):
        raise TypeError("new(): invalid data type 'str'")
    if not isinstance(first, (list, tuple, range, np.ndarray)):
        raise TypeError(f"new(): data must be a sequence (got {type(first).__name__})")
    from ._creation import tensor

    return tensor(first, dtype=dt)


# c10's ScalarType names, which torch's storage errors print
_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half", "bfloat16": "BFloat16", "int64": "Long",
                 "int32": "Int", "int16": "Short", "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _options(dt: D.dtype) -> str:
    from ._ops.linalg.products import CPP_NAMES

    name = CPP_NAMES.get(dt.name, dt.name)
    return (f"TensorOptions(dtype={name}, device=cpu, layout=Strided, requires_grad=false (default), "
            "pinned_memory=false (default), memory_format=(nullopt))")


def _legacy(name: str, dt: D.dtype) -> tensortype:
    if dt is D.bfloat16:  # (stored as float32: NumPy has no bfloat16)
        doc = (f"Legacy typed constructor and type check for {dt} tensors.\n\n"
               "    NumPy has no bfloat16, so the tensors it builds hold float32 (``dtype`` is\n"
               "    ``torch.float32``, where torch says ``torch.bfloat16``).\n\n"
               f"    >>> import retrograd as torch\n    >>> torch.{name}([1, 2])\n    tensor([1., 2.])\n")
    else:
        doc = (f"Legacy typed constructor and type check for {dt} tensors.\n\n"
               f"    >>> import retrograd as torch\n    >>> torch.{name}([1, 2]).dtype\n    {dt}\n")
    cls = tensortype(name, (), {"__doc__": doc, "__module__": "retrograd"})
    cls.dtype = dt
    return cls


FloatTensor = _legacy("FloatTensor", D.float32)
DoubleTensor = _legacy("DoubleTensor", D.float64)
HalfTensor = _legacy("HalfTensor", D.float16)
BFloat16Tensor = _legacy("BFloat16Tensor", D.bfloat16)
LongTensor = _legacy("LongTensor", D.int64)
IntTensor = _legacy("IntTensor", D.int32)
ShortTensor = _legacy("ShortTensor", D.int16)
CharTensor = _legacy("CharTensor", D.int8)
ByteTensor = _legacy("ByteTensor", D.uint8)
BoolTensor = _legacy("BoolTensor", D.bool_)
__all__ += ["BFloat16Tensor", "ShortTensor", "CharTensor"]


# ---------------------------------------------------------------- runtime settings (stored only)
__all__ += ["set_float32_matmul_precision", "get_float32_matmul_precision", "set_num_interop_threads",
            "get_num_interop_threads", "init_num_threads", "are_deterministic_algorithms_enabled",
            "is_deterministic_algorithms_warn_only_enabled", "set_deterministic_debug_mode",
            "get_deterministic_debug_mode", "set_warn_always", "is_warn_always_enabled",
            "set_default_tensor_type", "get_device", "is_inference", "is_signed", "compiled_with_cxx11_abi",
            "empty_strided", "frombuffer"]

_settings = {"matmul_precision": "highest", "interop_threads": 1, "deterministic": False, "warn_only": False,
             "warn_always": False}


def set_float32_matmul_precision(precision: str) -> None:
    """Store the float32 matmul precision ('highest', 'high', 'medium'); NumPy always computes 'highest'."""
    import warnings

    if precision not in ("highest", "high", "medium"):
        warnings.warn(f"{precision} is not one of 'highest', 'high', or 'medium'; the current"
                      "setFloat32MatmulPrecision call has no effect.", stacklevel=2)
        return
    _settings["matmul_precision"] = precision


def get_float32_matmul_precision() -> str:
    """The stored float32 matmul precision.

    >>> import retrograd as torch
    >>> torch.get_float32_matmul_precision()
    'highest'
    """
    return _settings["matmul_precision"]


def set_num_interop_threads(n: int) -> None:
    _settings["interop_threads"] = int(n)


def get_num_interop_threads() -> int:
    return _settings["interop_threads"]


def init_num_threads() -> None:
    pass


def are_deterministic_algorithms_enabled() -> bool:
    return _settings["deterministic"]


def is_deterministic_algorithms_warn_only_enabled() -> bool:
    return _settings["warn_only"]


def set_deterministic_debug_mode(debug_mode) -> None:
    """'default'/0, 'warn'/1, 'error'/2, as torch (ties to use_deterministic_algorithms)."""
    if isinstance(debug_mode, str):
        names = {"default": 0, "warn": 1, "error": 2}
        if debug_mode not in names:
            raise RuntimeError("invalid value of debug_mode, expected one of `default`, `warn`, `error`, "
                               f"but got {debug_mode}")
        debug_mode = names[debug_mode]
    elif isinstance(debug_mode, int):
        if debug_mode not in (0, 1, 2):
            raise RuntimeError(f"invalid value of debug_mode, expected 0, 1, or 2, but got {debug_mode}")
    else:
        raise TypeError(f"debug_mode must be str or int, but got {type(debug_mode)}")
    use_deterministic_algorithms(debug_mode != 0, warn_only=debug_mode == 1)


def get_deterministic_debug_mode() -> int:
    if not _settings["deterministic"]:
        return 0
    return 1 if _settings["warn_only"] else 2


def set_warn_always(b: bool) -> None:
    _settings["warn_always"] = bool(b)


def is_warn_always_enabled() -> bool:
    return _settings["warn_always"]


_LEGACY_DTYPES = {"FloatTensor": "float32", "DoubleTensor": "float64", "HalfTensor": "float16",
                  "BFloat16Tensor": "bfloat16", "LongTensor": "int64", "IntTensor": "int32", "ShortTensor": "int16",
                  "CharTensor": "int8", "ByteTensor": "uint8", "BoolTensor": "bool"}


def set_default_tensor_type(t) -> None:
    """Legacy: set the default float dtype from 'torch.DoubleTensor' or torch.DoubleTensor (deprecated)."""
    import importlib
    import warnings

    if isinstance(t, str):
        module, _, name = t.rpartition(".")
        if module not in ("torch", "retrograd") or name not in _LEGACY_DTYPES:
            importlib.import_module(module or t)  # ModuleNotFoundError for 'foo', as torch
            raise TypeError(f"invalid type: '{t}'")
    else:
        name = getattr(t, "__name__", None)
        if getattr(t, "__module__", None) == "torch.cuda":  # torch.cuda.FloatTensor ...: no CUDA here
            raise TypeError(f"type torch.cuda.{name} not available. Torch not compiled with CUDA enabled.")
        if name not in _LEGACY_DTYPES:
            raise TypeError(f"invalid type: '{t}'")
    warnings.warn("torch.set_default_tensor_type() is deprecated as of PyTorch 2.1, please use "
                  "torch.set_default_dtype() and torch.set_default_device() as alternatives.", stacklevel=2)
    dt = getattr(D, {"bool": "bool_"}.get(_LEGACY_DTYPES[name], _LEGACY_DTYPES[name]))
    if not dt.is_floating_point:
        raise TypeError("only floating-point types are supported as the default type")
    D.set_default_dtype(dt)


def get_device(input: Tensor) -> int:
    """-1: every retrograd tensor lives on the CPU."""
    _tensor_arg("get_device", input)
    return -1


def is_inference(input: Tensor) -> bool:
    _tensor_arg("is_inference", input)
    return input.is_inference()


def is_signed(input: Tensor) -> bool:
    _tensor_arg("is_signed", input)
    return input.is_signed()


def compiled_with_cxx11_abi() -> bool:
    return True


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad: bool = False,
                  pin_memory: bool = False) -> Tensor:
    """An uninitialised tensor with the given shape and strides (values unspecified).

    >>> import retrograd as torch
    >>> torch.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    import retrograd

    size, stride = tuple(size), tuple(stride)
    if len(size) != len(stride):
        raise RuntimeError("mismatch in length of strides and shape")
    check_device(device)
    n = 0 if any(s == 0 for s in size) else 1 + sum((s - 1) * st for s, st in zip(size, stride))
    t = retrograd.zeros(n, dtype=dtype).as_strided(size, stride).detach()
    return t.requires_grad_(True) if requires_grad else t


def frombuffer(buffer, *, dtype, count: int = -1, offset: int = 0, requires_grad: bool = False) -> Tensor:
    """A 1-D tensor over a buffer's bytes (bytes, bytearray, memoryview, array ...).

    >>> import retrograd as torch
    >>> torch.frombuffer(bytearray(b"\\x01\\x00\\x00\\x00"), dtype=torch.int32)
    tensor([1], dtype=torch.int32)
    """
    import warnings

    mv = memoryview(buffer)
    nbytes = mv.nbytes
    if offset < 0 or offset >= nbytes:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than buffer length "
                         f"({nbytes} bytes) minus 1")
    if nbytes == 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    item = dtype.np.itemsize
    if count < 0:
        if (nbytes - offset) % item:
            raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) must be a "
                             f"multiple of element size ({item})")
        count = (nbytes - offset) // item
    elif offset + count * item > nbytes:
        raise ValueError(f"requested buffer length ({count} * {item} bytes) after offset ({offset} bytes) must "
                         f"not be greater than actual buffer length ({nbytes} bytes)")
    if mv.readonly and not _settings.get("frombuffer_warned"):
        _settings["frombuffer_warned"] = True
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable tensors. This "
                      "means you can write to the underlying (supposedly non-writable) buffer using the tensor. You "
                      "may want to copy the buffer to protect its data or make it writable before converting it to "
                      "a tensor. This type of warning will be suppressed for the rest of this program.", stacklevel=2)
    arr = np.frombuffer(mv, dtype=dtype.np, count=count, offset=offset)
    if arr.flags.writeable is False:
        arr = arr.copy()  # NumPy cannot hand out a writable view of read-only bytes
    from ._creation import from_numpy

    t = from_numpy(arr)
    return t.requires_grad_(True) if requires_grad else t


# The math constants torch exposes at top level (``from torch import inf, nan`` is common in
# client and test code); plain Python floats, as in torch.
pi = 3.141592653589793
e = 2.718281828459045
inf = float("inf")
nan = float("nan")
newaxis = None
__all__ += ["pi", "e", "inf", "nan", "newaxis"]


def set_flush_denormal(mode: bool) -> bool:
    """Whether flushing denormal floats to zero could be switched: False, since NumPy offers no
    control of the CPU's flush-to-zero mode (torch returns True on x86 CPUs).

    >>> import retrograd as torch
    >>> torch.set_flush_denormal(True)
    False
    """
    if not isinstance(mode, bool):
        raise RuntimeError(f"flush_denormal expects a bool, but got {type(mode).__name__}")
    return False
