"""``retrograd.layout`` and ``retrograd.memory_format``: the two enum-like types of PyTorch.

Every retrograd tensor is dense and strided (``x.layout is torch.strided``).  Memory
formats are real: a NumPy array can have any strides, so ``contiguous(memory_format=
torch.channels_last)`` lays the data out as NHWC while the tensor keeps its NCHW shape,
exactly as PyTorch does, and ``stride()`` / ``is_contiguous(memory_format=...)`` report it.

>>> import retrograd as torch
>>> x = torch.zeros(2, 3, 4, 5).contiguous(memory_format=torch.channels_last)
>>> x.stride(), x.is_contiguous(memory_format=torch.channels_last), x.layout
((60, 1, 15, 3), True, torch.strided)
"""
from __future__ import annotations

import numpy as np

__all__ = ["layout", "memory_format", "strided", "sparse_coo", "sparse_csr", "sparse_csc", "sparse_bsr",
           "sparse_bsc", "jagged", "contiguous_format", "channels_last", "channels_last_3d", "preserve_format"]


class _NamedConstant:
    """One named instance per value; created only here (PyTorch refuses ``torch.layout()``)."""

    __slots__ = ("_name",)
    _instances: dict

    def __new__(cls, *args, **kwargs):
        raise TypeError(f"cannot create 'retrograd.{cls.__name__}' instances")

    @classmethod
    def _make(cls, name: str):
        obj = object.__new__(cls)
        obj._name = name
        cls._instances[name] = obj
        return obj

    def __repr__(self) -> str:
        return f"torch.{self._name}"  # (torch's spelling, as for dtypes)

    def __reduce__(self):  # pickles as a reference to the module constant (one instance per name)
        return (_lookup, (type(self).__name__, self._name))


class layout(_NamedConstant):
    """How a tensor's elements are stored (retrograd: always ``strided``)."""

    __slots__ = ()
    _instances: dict = {}


class memory_format(_NamedConstant):
    """The order in which a dense tensor's dimensions are laid out in memory."""

    __slots__ = ()
    _instances: dict = {}


def _lookup(kind: str, name: str):
    return {"layout": layout, "memory_format": memory_format}[kind]._instances[name]


strided = layout._make("strided")
sparse_coo = layout._make("sparse_coo")
sparse_csr = layout._make("sparse_csr")
sparse_csc = layout._make("sparse_csc")
sparse_bsr = layout._make("sparse_bsr")
sparse_bsc = layout._make("sparse_bsc")
jagged = layout._make("jagged")

contiguous_format = memory_format._make("contiguous_format")
channels_last = memory_format._make("channels_last")
channels_last_3d = memory_format._make("channels_last_3d")
preserve_format = memory_format._make("preserve_format")

# the dimension order each channels-last format keeps innermost-last in memory
_PERMUTATION = {channels_last: (4, (0, 2, 3, 1)), channels_last_3d: (5, (0, 2, 3, 4, 1))}


def check_memory_format(fn: str, fmt) -> None:
    """TypeError (PyTorch's text) unless ``fmt`` is None or a memory_format."""
    if fmt is not None and not isinstance(fmt, memory_format):
        raise TypeError(f"{fn}(): argument 'memory_format' must be torch.memory_format, not {type(fmt).__name__}")


def is_contiguous_as(a: np.ndarray, fmt) -> bool:
    """Whether ``a`` is densely packed in ``fmt``'s dimension order."""
    if fmt is None or fmt is contiguous_format or fmt is preserve_format:
        return bool(a.flags.c_contiguous)
    rank, perm = _PERMUTATION[fmt]
    return a.ndim == rank and bool(a.transpose(perm).flags.c_contiguous)


def relaid(a: np.ndarray, fmt) -> np.ndarray:
    """A copy of ``a`` (same shape and values) laid out in ``fmt``; ``a`` itself if already so."""
    if fmt is None or fmt is contiguous_format:
        return a if a.flags.c_contiguous else np.ascontiguousarray(a)
    if fmt is preserve_format:
        return a
    rank, perm = _PERMUTATION[fmt]
    if a.ndim != rank:
        name = "channels_last" if rank == 4 else "channels_last_3d"
        raise RuntimeError(f"required rank {rank} tensor to use {name} format")
    if a.transpose(perm).flags.c_contiguous:
        return a
    return _packed(a, perm)


def _strides_like(a: np.ndarray, order: tuple) -> bool:
    """PyTorch's test of whether ``a``'s strides look like a channels-last layout: visiting the
    dimensions from innermost (``order``) outwards, strides never decrease; ambiguous cases
    (a zero channel stride, a batch stride equal to the channel stride) count as contiguous."""
    shape, strides = a.shape, a.strides
    if strides[1] == 0:
        return False
    low = 0
    for d in order:
        if shape[d] == 0 or strides[d] < low:
            return False
        if d == 0 and low == strides[1]:
            return False
        low = strides[d] * (shape[d] if shape[d] > 1 else 1)
    return True


def suggest_format(a: np.ndarray):
    """The memory format PyTorch infers from ``a``'s strides (``suggest_memory_format``)."""
    if a.ndim == 4 and _strides_like(a, (1, 3, 2, 0)):
        return channels_last
    if a.ndim == 5 and _strides_like(a, (1, 4, 3, 2, 0)):
        return channels_last_3d
    return contiguous_format


def format_strides(a: np.ndarray, fmt) -> tuple:
    """The byte strides torch gives a fresh tensor of ``a``'s shape in ``fmt``: dense in the
    format's dimension order, a size-1 dimension taking the stride it would have with size 1."""
    if fmt in _PERMUTATION:
        rank, perm = _PERMUTATION[fmt]
        if a.ndim != rank:
            name = "channels_last" if rank == 4 else "channels_last_3d"
            raise RuntimeError(f"required rank {rank} tensor to use {name} format")
    else:
        perm = tuple(range(a.ndim))
    strides = [0] * a.ndim
    step = a.itemsize
    for d in reversed(perm):
        strides[d] = step
        step *= max(a.shape[d], 1)
    return tuple(strides)


def _packed(a: np.ndarray, perm: tuple) -> np.ndarray:
    """A fresh copy of ``a`` packed in ``perm`` order, with torch's strides (see format_strides)."""
    packed = np.ascontiguousarray(a.transpose(perm))
    fmt = channels_last if len(perm) == 4 else channels_last_3d
    return np.lib.stride_tricks.as_strided(packed, a.shape, format_strides(a, fmt))


def copied(a: np.ndarray, fmt) -> np.ndarray:
    """A fresh copy of ``a`` laid out in ``fmt`` (``preserve_format``/None: ``a``'s own dense order)."""
    if fmt is None or fmt is preserve_format:
        # PyTorch's clone keeps the strides of a dense, non-overlapping tensor; anything else
        # (expanded, sliced) gets dense strides in the order of its own (infer_dense_strides)
        if not _dense(a):
            if a.size == 0 or min(a.strides, default=1) < 0:
                return a.copy(order="C")
            out = np.lib.stride_tricks.as_strided(np.empty(a.size, a.dtype), a.shape, _infer_dense_strides(a))
            out[...] = a
            return out
        if a.size == 0 or min(a.strides, default=1) <= 0:
            return a.copy(order="K")
        # the very same strides (NumPy's order="K" would renumber size-1 dimensions)
        out = np.lib.stride_tricks.as_strided(np.empty(a.size, a.dtype), a.shape, a.strides)
        out[...] = a
        return out
    if fmt is contiguous_format:
        return np.array(a, order="C", copy=True)
    rank, perm = _PERMUTATION[fmt]
    if a.ndim != rank:
        relaid(a, fmt)  # (raises torch's rank error)
    return _packed(a, perm)


def _sorted_dims(nd: int, order) -> list:
    """The dims innermost first, as PyTorch's stride-order insertion sort leaves them: each dim moves
    outward past those ``order(d0, d1) > 0`` says belong inside it, and stops at the first that
    ``order`` ranks (< 0); ties (0) are stepped over without swapping."""
    perm = list(range(nd - 1, -1, -1))
    for i in range(1, nd):
        d1 = i
        for d0 in range(i - 1, -1, -1):
            c = order(perm[d0], perm[d1])
            if c > 0:
                perm[d0], perm[d1] = perm[d1], perm[d0]
                d1 = d0
            elif c < 0:
                break
    return perm


def _infer_dense_strides(a: np.ndarray) -> tuple:
    """PyTorch's infer_dense_strides: dense byte strides that keep the order of ``a``'s strides
    (an insertion sort of the dims, innermost first; a zero stride is ambiguous and keeps its place,
    equal strides put the smaller dim inside).

    >>> import numpy as np
    >>> _infer_dense_strides(np.zeros((4, 6)).T[:, ::2])  # torch: empty_like gives strides (1, 6)
    (8, 48)
    """
    shape, st = a.shape, a.strides

    def order(d0: int, d1: int) -> int:
        if st[d0] == 0 or st[d1] == 0:
            return 0
        if st[d0] != st[d1]:
            return -1 if st[d0] < st[d1] else 1
        return 1 if shape[d0] > shape[d1] else 0

    perm = _sorted_dims(a.ndim, order)
    out, step = [0] * a.ndim, a.itemsize
    for d in perm:
        out[d] = step
        if shape[d] > 1:
            step *= shape[d]
    return tuple(out)


def like_input(out: np.ndarray, a: np.ndarray) -> np.ndarray:
    """``out`` (shaped like ``a``) laid out as PyTorch lays out a fresh result made from ``a``
    elementwise or with ``empty_like(a)``: ``a``'s own strides when dense, else dense strides in the
    order of ``a``'s (an expanded or sliced ``a``); ``out`` itself when it already is."""
    if a.flags.c_contiguous or out.shape != a.shape or a.ndim < 2 or out.size == 0:
        return out
    want = tuple(s // a.itemsize * out.itemsize for s in _infer_dense_strides(a))
    if out.strides == want:
        return out
    r = np.lib.stride_tricks.as_strided(np.empty(out.size, out.dtype), out.shape, want)
    r[...] = out
    return r


def like_operands(out: np.ndarray, *arrays) -> np.ndarray:
    """``out`` laid out as PyTorch's TensorIterator lays out an elementwise result of ``arrays``
    (broadcast to ``out``'s shape): dims ordered by the first operand whose strides tell two dims
    apart (a broadcast dim tells nothing), dense in that order; ``out`` itself when it already is.

    >>> import numpy as np
    >>> t = np.zeros((3, 2)).T
    >>> like_operands(t + np.zeros((2, 3)), t, np.zeros((2, 3))).strides
    (8, 16)
    """
    shape, nd = out.shape, out.ndim
    if nd < 2 or out.size == 0:
        return out
    ops = []
    for x in arrays:
        if isinstance(x, np.ndarray) and x.ndim:
            off = nd - x.ndim
            ops.append([0] * off + [0 if n == 1 and shape[off + i] != 1 else s
                                    for i, (s, n) in enumerate(zip(x.strides, x.shape))])

    def order(d0: int, d1: int) -> int:
        for st in ops:
            if st[d0] == 0 or st[d1] == 0:
                continue
            if st[d0] != st[d1]:
                return -1 if st[d0] < st[d1] else 1
            if shape[d0] > shape[d1]:
                return 1
        return 0

    perm = _sorted_dims(nd, order)
    if perm == list(range(nd - 1, -1, -1)):
        return out if out.flags.c_contiguous else np.ascontiguousarray(out)
    want, step = [0] * nd, out.itemsize
    for d in perm:
        want[d] = step
        step *= shape[d]
    if out.strides == tuple(want):
        return out
    r = np.lib.stride_tricks.as_strided(np.empty(out.size, out.dtype), shape, want)
    r[...] = out
    return r


def like_strides(a: np.ndarray, itemsize: int, fmt) -> tuple | None:
    """The byte strides PyTorch gives ``empty_like(a, memory_format=fmt)`` with elements of
    ``itemsize`` bytes, or None for plain row-major.

    ``preserve_format`` (the default): a dense, non-overlapping ``a`` keeps its own strides
    (scaled to the new element size); anything else takes the format its strides suggest.
    """
    if fmt is None or fmt is preserve_format:
        if a.flags.c_contiguous:
            return None
        if a.size and min(a.strides, default=1) > 0 and _dense(a):
            return tuple(st // a.itemsize * itemsize for st in a.strides)
        fmt = suggest_format(a)
    if fmt is contiguous_format:
        return None
    check_memory_format("empty_like", fmt)
    return tuple(st // a.itemsize * itemsize for st in format_strides(a, fmt))


def laid_out(flat: np.ndarray, shape: tuple, strides: tuple | None) -> np.ndarray:
    """``flat`` (a fresh 1-d array, in memory order) seen with ``shape`` and byte ``strides``."""
    if strides is None:
        return flat.reshape(shape)
    return np.lib.stride_tricks.as_strided(flat, shape, strides)


def follows_input_layout(forward):
    """Wrap an op's NumPy forward so its array results take the memory format of its inputs, as
    PyTorch's convolution and pooling kernels do: channels_last(_3d) when an input of the
    result's rank is laid out so (values unchanged; row-major inputs pay one flag test).

    >>> import numpy as np
    >>> f = follows_input_layout(lambda x: x * 2)
    >>> f(np.ones((1, 3, 2, 2)).transpose(0, 2, 3, 1).copy().transpose(0, 3, 1, 2)).strides
    (96, 8, 48, 24)
    """
    import functools

    @functools.wraps(forward)
    def wrapped(*args, **kwargs):
        out = forward(*args, **kwargs)
        fmt = None
        for a in args:
            if type(a) is np.ndarray and a.ndim >= 4 and not a.flags.c_contiguous:
                f = suggest_format(a)
                if f is not contiguous_format:
                    fmt = f
                    break
        if fmt is None:
            return out
        rank = _PERMUTATION[fmt][0]
        if isinstance(out, tuple):
            return tuple(relaid(o, fmt) if isinstance(o, np.ndarray) and o.ndim == rank else o for o in out)
        return relaid(out, fmt) if out.ndim == rank else out

    return wrapped


def _dense(a: np.ndarray) -> bool:
    """Whether ``a``'s elements fill its memory span exactly once (some permutation of C order)."""
    if a.flags.c_contiguous:
        return True
    expected = a.itemsize
    for stride, size in sorted((st, n) for st, n in zip(a.strides, a.shape) if n != 1):
        if stride != expected:
            return False
        expected *= size
    return True
