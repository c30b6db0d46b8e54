"""``Size`` (a tuple that prints like torch.Size) and ``device`` (always the CPU)."""
from __future__ import annotations

import re

__all__ = ["Size", "device"]


class Size(tuple):
    """The shape of a tensor: a tuple of ints, printed as PyTorch prints it: ``torch.Size([2, 3])``.

    >>> import retrograd as torch
    >>> torch.ones(2, 3).shape == (2, 3)
    True
    """

    __slots__ = ()

    def __new__(cls, seq=()):
        t = tuple.__new__(cls, seq)
        for d in t:
            if type(d) is not int:  # (shapes from NumPy are plain ints: one cheap pass)
                return tuple.__new__(cls, _checked_dims(t))
        return t

    def __repr__(self) -> str:
        return f"torch.Size([{', '.join(str(d) for d in self)}])"

    __str__ = __repr__

    def numel(self) -> int:
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, item):
        r = super().__getitem__(item)
        return Size(r) if isinstance(item, slice) else r

    def __add__(self, other):
        if not isinstance(other, tuple):
            raise TypeError(f"can only concatenate tuple (not {type(other).__name__}) to torch.Size")
        return Size(tuple(self) + tuple(other))

    def __radd__(self, other):
        if not isinstance(other, tuple):
            return NotImplemented
        return Size(tuple(other) + tuple(self))

    def __mul__(self, n):
        if not isinstance(n, int):
            return NotImplemented
        return Size(tuple(self) * n)

    __rmul__ = __mul__

    def __reduce__(self):
        return (Size, (tuple(self),))


def _checked_dims(dims: tuple) -> list:
    """torch.Size's check: every item an int or something with ``__index__`` (a 0-d int tensor)."""
    out = []
    for i, d in enumerate(dims):
        if isinstance(d, int):
            out.append(int(d))
            continue
        try:
            out.append(d.__index__())
        except (AttributeError, TypeError):
            raise TypeError(f"torch.Size() takes an iterable of 'int' (item {i} is '{type(d).__name__}')") from None
    return out


# "type" or "type:index" (index without sign or leading zeros), PyTorch's device-string grammar
_DEVICE_RE = re.compile(r"([a-zA-Z_]+)(?::(0|[1-9][0-9]*))?\Z")


class device:
    """A device; retrograd computes on the CPU only.  ``device('cpu')``, ``device('cpu', 0)``."""

    __slots__ = ("type", "index")

    def __init__(self, type: "str | device" = "cpu", index: int | None = None) -> None:  # noqa: A002
        if isinstance(type, device):
            self.type, self.index = type.type, type.index
            return
        if isinstance(type, int):
            # torch.device(i) means "accelerator i"; there is none here
            if type < 0:
                raise RuntimeError("Device index must not be negative")
            raise RuntimeError("Cannot access accelerator device when none is available.")
        m = _DEVICE_RE.match(str(type))
        if m is None:
            raise RuntimeError(f"Invalid device string: '{type}'")
        name, idx = m.group(1), m.group(2)
        if name not in ("cpu", "cuda", "mps", "meta"):
            raise RuntimeError(
                "Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, hip, ve, fpga, maia, "
                f"xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone device type at start of device string: {type}")
        if idx is not None and index is not None:
            raise RuntimeError(f"type (string) must not include an index because index was passed explicitly: {type}")
        if index is not None and index < 0:
            raise RuntimeError("Device index must not be negative")
        self.type = name
        self.index = int(idx) if idx is not None else index

    def __repr__(self) -> str:
        if self.index is None:
            return f"device(type='{self.type}')"
        return f"device(type='{self.type}', index={self.index})"

    def __str__(self) -> str:
        return self.type if self.index is None else f"{self.type}:{self.index}"

    def __eq__(self, other) -> bool:
        if isinstance(other, str):
            other = device(other)
        return isinstance(other, device) and (self.type, self.index) == (other.type, other.index)

    def __hash__(self) -> int:
        return hash((self.type, self.index))

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        return None


# Public as ``retrograd.Size`` / ``retrograd.device``: name that module, as torch's classes name
# ``torch`` (``<class 'torch.Size'>``); pickles refer to the same public path.
Size.__module__ = device.__module__ = "retrograd"
CPU = device("cpu")


def check_device(dev) -> None:
    """Accept any spelling of the CPU; refuse accelerators with torch's message."""
    if dev is None:
        return
    d = dev if isinstance(dev, device) else device(dev)
    if d.type == "cuda":
        raise AssertionError("Torch not compiled with CUDA enabled")
    if d.type == "mps":
        raise RuntimeError("retrograd runs on the CPU only; the MPS backend is not available")
