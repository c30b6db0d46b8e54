"""Argument parsing for ``Tensor.to``: PyTorch's three signatures and their TypeErrors.

* ``to(device=None, dtype=None, non_blocking=False, copy=False, *, memory_format=None)``
* ``to(dtype, non_blocking=False, copy=False, *, memory_format=None)``
* ``to(tensor, non_blocking=False, copy=False, *, memory_format=None)``
"""
from __future__ import annotations

from . import _dtype as D
from . import _layout
from ._size import check_device, device

_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, "
    "*, torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = "
    "None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = "
    "None)\n")
_KEYWORDS = {"device", "dtype", "non_blocking", "copy", "memory_format", "tensor"}


def _type_name(v) -> str:
    from ._tensor import Tensor

    if isinstance(v, D.dtype):
        return "torch.dtype"
    if isinstance(v, Tensor):
        return "Tensor"
    if isinstance(v, _layout.memory_format):
        return "torch.memory_format"
    if isinstance(v, device):
        return "torch.device"
    return type(v).__name__


def _invalid(args: tuple, kwargs: dict) -> TypeError:
    kws = [f"{k}={_type_name(v)}" for k, v in kwargs.items()]
    got = ", ".join([_type_name(a) for a in args] + kws) if args else "".join(k + ", " for k in kws)
    return TypeError(f"to() received an invalid combination of arguments - got ({got}), but expected one of:\n"
                     + _SIGNATURES)


def _is_dtype(v) -> bool:
    return isinstance(v, D.dtype) or (isinstance(v, type) and v in D._PY_TYPES)


def _is_device(v) -> bool:
    return v is None or isinstance(v, (str, device)) or (isinstance(v, int) and not isinstance(v, bool))


def parse_to_args(args: tuple, kwargs: dict):
    """``(dtype or None, copy, memory_format or None)`` from ``Tensor.to``'s arguments.

    >>> parse_to_args((float, False, True), {})[1:]
    (True, None)
    """
    from ._tensor import Tensor

    if len(args) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(args)} were given")
    if set(kwargs) - _KEYWORDS:
        raise _invalid(args, kwargs)
    first = args[0] if args else None
    if isinstance(first, (bool, float)):  # (PyTorch reads a Python bool / float as its type)
        first = type(first)
        args = (first,) + args[1:]
    if args and _is_dtype(first):
        lead, names = {"dtype": first}, ("non_blocking", "copy")
    elif args and isinstance(first, Tensor):
        lead, names = {"tensor": first}, ("non_blocking", "copy")
    elif not args or _is_device(first):
        lead, names = ({"device": first} if args else {}), ("dtype", "non_blocking", "copy")
    else:
        raise _invalid(args, kwargs)
    rest = args[1:]
    if len(rest) > len(names) or any(n in kwargs for n in list(lead) + list(names[:len(rest)])):
        raise _invalid(args, kwargs)
    opts = {**lead, **dict(zip(names, rest)), **kwargs}
    if "tensor" in opts and ("device" in opts or "dtype" in opts):
        raise _invalid(args, kwargs)
    for n in ("non_blocking", "copy"):
        if n in opts and not isinstance(opts[n], bool):
            raise _invalid(args, kwargs)
    dt = opts.get("dtype")
    if dt is not None and not _is_dtype(dt):
        raise _invalid(args, kwargs)
    fmt = opts.get("memory_format")
    if fmt is not None and not isinstance(fmt, _layout.memory_format):
        raise _invalid(args, kwargs)
    dev = opts.get("device")
    if not _is_device(dev):
        raise _invalid(args, kwargs)
    if isinstance(dev, int) and not isinstance(dev, bool):  # a device index: an accelerator's
        raise RuntimeError("Cannot access accelerator device when none is available.")
    check_device(dev)
    if "tensor" in opts:
        dt = opts["tensor"].dtype
    return (None if dt is None else D.as_dtype(dt)), opts.get("copy", False), fmt
