"""Tensor creation: ``tensor``, ``zeros``, ``ones``, ``arange``, random tensors ...

Random numbers come from one NumPy generator that ``manual_seed`` resets (the values
differ from PyTorch's generator; the distributions are the same).
"""
from __future__ import annotations

import numbers

import numpy as np

from . import _dtype as D
from ._size import check_device
from ._tensor import Tensor

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "eye", "arange",
           "linspace", "logspace", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like",
           "full_like", "empty_like", "rand_like", "randn_like", "randint_like", "manual_seed", "seed",
           "initial_seed", "Generator", "default_generator", "get_rng_state", "set_rng_state", "scalar_tensor",
           "normal", "bernoulli", "multinomial"]

_wrap = Tensor._wrap


class Generator:
    """A random number generator (wraps ``numpy.random.Generator``)."""

    def __init__(self, device="cpu") -> None:
        self._seed = 67280421310721
        self.np = np.random.default_rng(self._seed)

    def manual_seed(self, seed: int) -> "Generator":
        self._seed = int(seed)
        self.np = np.random.default_rng(self._seed)
        return self

    def seed(self) -> int:
        s = int(np.random.SeedSequence().entropy) % (2 ** 63)
        self.manual_seed(s)
        return s

    def initial_seed(self) -> int:
        return self._seed

    def get_state(self) -> Tensor:
        import pickle

        raw = np.frombuffer(pickle.dumps(self.np.bit_generator.state), dtype=np.uint8).copy()
        return _wrap(raw, False, None, 0)

    def set_state(self, state: Tensor) -> "Generator":
        import pickle

        self.np.bit_generator.state = pickle.loads(state._data.tobytes())  # noqa: S301 - our own bytes
        return self


default_generator = Generator()


def _gen(generator: Generator | None):
    return (generator or default_generator).np


def manual_seed(seed: int) -> Generator:
    """Seed the default generator (reproducible rand/randn/randint/dropout/shuffle)."""
    return default_generator.manual_seed(seed)


def seed() -> int:
    return default_generator.seed()


def initial_seed() -> int:
    return default_generator.initial_seed()


def get_rng_state() -> Tensor:
    return default_generator.get_state()


def set_rng_state(state: Tensor) -> None:
    default_generator.set_state(state)


def _infer_dtype(obj) -> D.dtype:
    """dtype of nested Python data: bool < int64 < default float, as PyTorch infers."""
    kind = -1  # no element yet: empty data is the default float dtype, as in PyTorch
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, Tensor):
            kind = max(kind, x.dtype._kind)
        elif isinstance(x, np.ndarray):
            kind = max(kind, D.from_numpy_dtype(x.dtype)._kind)
        elif isinstance(x, (bool, np.bool_)):
            kind = max(kind, 0)
        elif isinstance(x, numbers.Integral):
            kind = max(kind, 1)
        elif isinstance(x, numbers.Real):
            kind = 2
        elif isinstance(x, complex):
            raise TypeError("retrograd does not support complex tensors")
        else:
            raise TypeError(f"new(): invalid data type '{type(x).__name__}'")
    return (D.bool_, D.int64, D.get_default_dtype(), D.get_default_dtype())[kind]


def _infer_data_dtype(obj) -> D.dtype:
    """``torch.tensor``'s dtype for (nested) data: every element's own dtype, promoted together.

    Python bool / int / float count as bool / int64 / the default float; NumPy scalars,
    arrays and tensors bring their own dtype: [int32 tensor, 2] -> int64,
    [float16 tensor, 2.] -> float32, [np.float64(1), 2] -> float64, [] -> default float.
    """
    result = None
    stack = [obj]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple, range)):
            stack.extend(x)
            continue
        if isinstance(x, Tensor):
            d = x.dtype
        elif isinstance(x, (np.ndarray, np.generic)):
            d = D.from_numpy_dtype(x.dtype)
        elif isinstance(x, bool):
            d = D.bool_
        elif isinstance(x, numbers.Integral):
            d = D.int64
        elif isinstance(x, numbers.Real):
            d = D.get_default_dtype()
        elif isinstance(x, complex):
            raise TypeError("retrograd does not support complex tensors")
        elif isinstance(x, str):
            raise ValueError("too many dimensions 'str'")
        else:
            raise RuntimeError(f"Could not infer dtype of {type(x).__name__}")
        result = d if result is None else D.promote_types(result, d)
    return result or D.get_default_dtype()


def _finish(data: np.ndarray, requires_grad: bool) -> Tensor:
    t = _wrap(data, False, None, 0)
    if requires_grad:
        t._set_requires_grad(True)
    return t


def tensor(data, *, dtype: D.dtype | None = None, device=None, requires_grad: bool = False,
           pin_memory: bool = False) -> Tensor:
    """A new leaf tensor holding a copy of ``data`` (numbers, nested lists, arrays, tensors).

    >>> import retrograd as torch
    >>> torch.tensor([1., 2.], requires_grad=True)
    tensor([1., 2.], requires_grad=True)
    """
    check_device(device)
    if isinstance(data, Tensor):
        import warnings

        warnings.warn("To copy construct from a tensor, it is recommended to use sourceTensor.detach().clone() "
                      "or sourceTensor.detach().clone().requires_grad_(True), rather than torch.tensor(sourceTensor).",
                      UserWarning, stacklevel=2)
        arr = data._data.astype(dtype.np if dtype else data._data.dtype, copy=True)
        return _finish(arr, requires_grad)
    if isinstance(data, np.ndarray):
        dt = dtype or D.from_numpy_dtype(data.dtype)
        return _finish(np.array(data, dtype=dt.np), requires_grad)
    if isinstance(data, np.generic):
        dt = dtype or D.from_numpy_dtype(data.dtype)
        return _finish(np.array(data, dtype=dt.np), requires_grad)
    dt = dtype or _infer_data_dtype(data)
    if isinstance(data, (list, tuple)) and any(isinstance(x, Tensor) for x in data):
        data = [x._data if isinstance(x, Tensor) else x for x in data]
        if any(isinstance(x, np.ndarray) and x.ndim > 0 for x in data):
            raise ValueError("only one element tensors can be converted to Python scalars")
    try:
        arr = np.array(data, dtype=dt.np)
    except ValueError as exc:
        _check_ragged(data)
        raise ValueError(f"expected sequence of equal-length lists ({exc})") from None
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow") from None
    return _finish(arr, requires_grad)


def _check_ragged(data) -> None:
    """PyTorch's error for nested sequences whose lengths disagree (iterative walk)."""
    sizes = []
    x = data
    while isinstance(x, (list, tuple)):
        sizes.append(len(x))
        if not x:
            break
        x = x[0]
    stack = [(data, 0)]
    while stack:
        seq, dim = stack.pop()
        if len(seq) != sizes[dim]:
            raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(seq)})")
        if dim + 1 < len(sizes):
            for item in reversed(seq):
                if not isinstance(item, (list, tuple)):
                    raise TypeError("not a sequence")
                stack.append((item, dim + 1))


def scalar_tensor(s, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    return _finish(np.array(s, dtype=(dtype or D.get_default_dtype()).np), requires_grad)


def as_tensor(data, dtype: D.dtype | None = None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or Tensor when it can."""
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        dt = dtype or D.from_numpy_dtype(data.dtype)
        return _wrap(data if data.dtype == dt.np else data.astype(dt.np), False, None, 0)
    return tensor(data, dtype=dtype)


asarray = as_tensor


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray``."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_numpy_dtype(ndarray.dtype)
    return _wrap(ndarray, False, None, 0)


def _shape(size) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    try:
        shape = tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"size must be a sequence of ints, got {size!r}") from None
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")
    return shape


def _dt(dtype, default=None) -> D.dtype:
    return dtype or default or D.get_default_dtype()


def zeros(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None) -> Tensor:
    """A tensor of zeros of the given shape.

    >>> import retrograd as torch
    >>> torch.zeros(2, dtype=torch.int64)
    tensor([0, 0])
    """
    check_device(device)
    if any(isinstance(s, int) and s < 0 for s in (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list))
                                                  else size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")  # zeros' own wording
    return _finish(np.zeros(_shape(size), dtype=_dt(dtype).np), requires_grad)


def ones(*size, dtype=None, device=None, requires_grad=False, out=None, layout=None) -> Tensor:
    """A tensor of ones of the given shape."""
    check_device(device)
    return _finish(np.ones(_shape(size), dtype=_dt(dtype).np), requires_grad)


def empty(*size, dtype=None, device=None, requires_grad=False, memory_format=None, out=None, layout=None,
          pin_memory=False) -> Tensor:
    """An uninitialised tensor (zero-filled here, which is one valid 'uninitialised')."""
    check_device(device)
    return _finish(np.zeros(_shape(size), dtype=_dt(dtype).np), requires_grad)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None, layout=None) -> Tensor:
    """A tensor filled with ``fill_value``; dtype inferred from it (bool, int64, float)."""
    check_device(device)
    if dtype is None:
        dtype = _infer_dtype(fill_value.item() if isinstance(fill_value, Tensor) else fill_value)
    return _finish(np.full(_shape((size,)), fill_value, dtype=dtype.np), requires_grad)


def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Identity matrix n x m."""
    check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    return _finish(np.eye(n, m, dtype=_dt(dtype).np), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Values from start to end (exclusive) by step; int64 when all are integers."""
    check_device(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    if vals[2] == 0:
        raise RuntimeError("step must be nonzero")
    if (vals[1] - vals[0]) * vals[2] < 0:
        raise RuntimeError("upper bound and larger bound inconsistent with step sign")
    if dtype is None:
        dtype = D.int64 if all(isinstance(v, (int, np.integer)) and not isinstance(v, bool) for v in vals) \
            else D.get_default_dtype()
    n = int(np.ceil((vals[1] - vals[0]) / vals[2]))
    data = (vals[0] + np.arange(max(n, 0), dtype=np.float64) * vals[2]).astype(dtype.np) \
        if dtype.is_floating_point else np.arange(vals[0], vals[1], vals[2]).astype(dtype.np)
    return _finish(data, requires_grad)


def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive."""
    check_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    return _finish(np.linspace(float(start), float(end), int(steps)).astype(_dt(dtype).np), requires_grad)


def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``base ** linspace(start, end, steps)`` as PyTorch computes it (to within an ulp): the
    first half counted from ``start``, the second from ``end``; integer dtypes truncate
    start and end first.

    >>> import retrograd as torch
    >>> torch.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    check_device(device)
    steps = int(steps)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    dt = _dt(dtype)
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    base = float(base)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        if steps == 1:
            data = np.full(1, base ** float(start))
        else:
            # start and end in the target dtype (truncated for integers), the rest in double
            s, e = (np.float64(dt.np.type(v) if dt.is_floating_point else int(v)) for v in (start, end))
            step = (e - s) / (steps - 1)
            idx = np.arange(steps)
            data = np.power(base, np.where(idx < steps // 2, s + step * idx, e - step * (steps - idx - 1)))
        return _finish(data.astype(dt.np), requires_grad)


def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Uniform [0, 1) samples."""
    check_device(device)
    return _finish(_gen(generator).random(_shape(size)).astype(_dt(dtype).np), requires_grad)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Standard normal samples."""
    check_device(device)
    return _finish(_gen(generator).standard_normal(_shape(size)).astype(_dt(dtype).np), requires_grad)


def randint(low, high=None, size=None, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Integers uniform in [low, high); int64 by default."""
    check_device(device)
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    return _finish(_gen(generator).integers(low, high, size=_shape((size,))).astype((dtype or D.int64).np),
                   requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of 0..n-1."""
    return _finish(_gen(generator).permutation(int(n)).astype((dtype or D.int64).np), requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, out=None) -> Tensor:
    """Normal samples with the given mean and std (tensors or numbers)."""
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    shape = _shape((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    dt = mean.dtype if isinstance(mean, Tensor) else std.dtype if isinstance(std, Tensor) else D.get_default_dtype()
    return _wrap((_gen(generator).standard_normal(shape) * s + m).astype(dt.np), False, None, 0)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """1 with probability ``input`` (or p), else 0."""
    probs = input._data if p is None else np.full(input._data.shape, p)
    return _wrap((_gen(generator).random(input._data.shape) < probs).astype(input._data.dtype), False, None, 0)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Sample category indices with probabilities proportional to the rows of ``input``."""
    p = np.atleast_2d(input._data.astype(np.float64))
    rng = _gen(generator)
    rows = []
    for row in p:
        if row.sum() <= 0:
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
        if not replacement and num_samples > np.count_nonzero(row):
            raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
        rows.append(rng.choice(len(row), size=num_samples, replace=replacement, p=row / row.sum()))
    out = np.array(rows, dtype=np.int64)
    return _wrap(out if input._data.ndim == 2 else out[0], False, None, 0)


def _like(input: Tensor, dtype):
    return dtype or input.dtype


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _finish(np.zeros(input._data.shape, dtype=_like(input, dtype).np), requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _finish(np.ones(input._data.shape, dtype=_like(input, dtype).np), requires_grad)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _finish(np.zeros(input._data.shape, dtype=_like(input, dtype).np), requires_grad)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return _finish(np.full(input._data.shape, fill_value, dtype=_like(input, dtype).np), requires_grad)


def rand_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return rand(input._data.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def randn_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    return randn(input._data.shape, dtype=_like(input, dtype), requires_grad=requires_grad)


def randint_like(input: Tensor, low, high=None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    return randint(low, high, input._data.shape, dtype=_like(input, dtype), requires_grad=requires_grad)
