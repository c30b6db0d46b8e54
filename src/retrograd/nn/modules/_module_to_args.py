"""Argument parsing for ``Module.to``: torch's three signatures and the TypeError that lists them
(``retrograd._to_args`` does the same for ``Tensor.to``)."""
from __future__ import annotations

from ..._tensor import Tensor


_TO_SIGNATURES = (
    " * (torch.device device = None, torch.dtype dtype = None, bool non_blocking = False, bool copy = False, *, "
    "torch.memory_format memory_format = None)\n"
    " * (torch.dtype dtype, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n"
    " * (Tensor tensor, bool non_blocking = False, bool copy = False, *, torch.memory_format memory_format = None)\n")


def _to_arg_name(a) -> str:
    from ... import _dtype as D
    from ..._size import device

    if isinstance(a, Tensor):
        return "Tensor"
    if isinstance(a, D.dtype):
        return "torch.dtype"
    if isinstance(a, device):
        return "torch.device"
    return type(a).__name__


def _parse_module_to(args: tuple, kwargs: dict):
    """(device, dtype, copy) from ``Module.to``'s arguments, checked against torch's three signatures.

    A bad combination raises torch's ``TypeError`` listing the signatures; ``copy`` is returned
    (None when not given) so the caller can refuse it as torch does.
    """
    from ... import _dtype as D
    from ..._size import device

    if len(args) > 4:
        raise TypeError(f"to() takes from 0 to 4 positional arguments but {len(args)} were given")

    def bad():
        got = [_to_arg_name(a) for a in args] + [f"{k}={_to_arg_name(v)}" for k, v in kwargs.items()]
        return TypeError(f"to() received an invalid combination of arguments - got ({', '.join(got)}), "
                         f"but expected one of:\n{_TO_SIGNATURES}")

    def is_device(a) -> bool:
        return a is None or isinstance(a, (str, device)) or (isinstance(a, int) and not isinstance(a, bool))

    first = args[0] if args else None
    if args and isinstance(first, Tensor):
        names, lead = ("tensor", "non_blocking", "copy"), 1
    elif args and isinstance(first, D.dtype):
        names, lead = ("dtype", "non_blocking", "copy"), 1
    else:
        names, lead = ("device", "dtype", "non_blocking", "copy"), 2
    if len(args) > len(names):
        raise bad()
    bound = dict(zip(names, args))
    for k, v in kwargs.items():
        if k in bound or (k not in names and k != "memory_format"):
            raise bad()
        bound[k] = v
    if names[0] == "device":
        if not is_device(bound.get("device")):
            raise bad()
        if bound.get("dtype") is not None and not isinstance(bound["dtype"], D.dtype):
            raise bad()
    for k in names[lead:]:
        if k in bound and not isinstance(bound[k], bool):
            raise bad()
    dtype = bound.get("dtype")
    if "tensor" in bound:
        dtype = bound["tensor"].dtype
    return bound.get("device"), dtype, bound.get("copy")
