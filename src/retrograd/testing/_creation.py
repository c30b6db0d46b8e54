"""make_tensor: a random tensor for tests, as ``torch.testing.make_tensor``."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._creation import _eng
from .._tensor import Tensor


def make_tensor(*shape, dtype: D.dtype, device, low=None, high=None, requires_grad: bool = False,
                noncontiguous: bool = False, exclude_zero: bool = False, memory_format=None) -> Tensor:
    """Uniform values in [low, high) (floats default [-9, 9], ints [-9, 10), bools random).

    >>> import retrograd as torch
    >>> torch.testing.make_tensor(2, 3, dtype=torch.float32, device="cpu").shape
    torch.Size([2, 3])
    """
    if len(shape) == 1 and isinstance(shape[0], (tuple, list)):
        shape = tuple(shape[0])
    shape = tuple(shape)
    if noncontiguous and memory_format is not None:
        raise ValueError("The parameters `noncontiguous` and `memory_format` are mutually exclusive, but got "
                         f"noncontiguous={noncontiguous} and memory_format={memory_format}")
    noncontiguous = noncontiguous and int(np.prod(shape, dtype=np.int64)) > 1
    if noncontiguous:  # torch's recipe: draw twice the last dim, keep every other element from the 2nd
        shape = (*shape[:-1], 2 * shape[-1])
    eng = _eng(None)  # PyTorch's draws: randint for bools / integers, uniform_ for floats
    n = int(np.prod(shape, dtype=np.int64))
    if dtype is D.bool_:
        data = eng.randint(n, 0, 2).astype(np.bool_).reshape(shape)
    elif dtype.is_floating_point:
        lo = -9.0 if low is None else low
        hi = 9.0 if high is None else high
        if lo > hi:
            raise ValueError(f"low must be less than or equal to high, but got low={lo} and high={hi}")
        if hi - lo >= np.finfo(dtype.np).max:  # uniform_ needs the span to be finite: halve, then double
            data = eng.uniform(n, dtype.np, lo / 2, hi / 2).reshape(shape) * 2
        else:
            data = eng.uniform(n, dtype.np, lo, hi).reshape(shape)
    else:
        info = np.iinfo(dtype.np)
        lo = max(-9 if low is None else int(np.ceil(low)), info.min)
        hi = min(10 if high is None else int(high), info.max)
        data = eng.randint(n, lo, hi).astype(dtype.np).reshape(shape)
    # (np.ascontiguousarray would turn a 0-d array into a 1-d one)
    data = data[..., 1::2] if noncontiguous else np.require(data, requirements="C")
    if exclude_zero and dtype is not D.bool_:
        data[data == 0] = np.finfo(dtype.np).tiny if dtype.is_floating_point else 1
    t = Tensor._wrap(data, False, None, 0)
    if memory_format is not None:
        t = t.clone(memory_format=memory_format)
    if requires_grad:
        t.requires_grad_(True)
    return t
