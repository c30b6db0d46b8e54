"""Tensor creation: ``tensor``, ``zeros``, ``ones``, ``arange``, random tensors ...

Random numbers come from PyTorch's own CPU algorithm (``retrograd._rng``; ``Generator`` and the
seeding functions live in ``retrograd._generator``): after ``manual_seed(s)`` the values are
PyTorch's for the same seed and the same calls.
"""
from __future__ import annotations

import functools
import numbers
import warnings

import numpy as np

from . import _dtype as D
from . import _layout, _rng
from ._size import check_device
from ._tensor import Tensor
from ._generator import (Generator, _draw_seed, _eng, default_generator, get_rng_state,  # noqa: F401
                         initial_seed, manual_seed, seed, set_rng_state)

__all__ = ["tensor", "as_tensor", "from_numpy", "zeros", "ones", "full", "empty", "eye", "arange",
           "linspace", "logspace", "rand", "randn", "randint", "randperm", "zeros_like", "ones_like",
           "full_like", "empty_like", "rand_like", "randn_like", "randint_like", "manual_seed", "seed",
           "initial_seed", "Generator", "default_generator", "get_rng_state", "set_rng_state", "scalar_tensor",
           "normal", "bernoulli", "multinomial"]

_wrap = Tensor._wrap


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


def _infer_data_dtype(obj, found: set | None = None) -> D.dtype:
    """``torch.tensor``'s dtype for (nested) data: every element's own dtype, promoted together.

    Python bool / int / float count as bool / int64 / the default float; NumPy scalars,
    arrays and tensors bring their own dtype: [int32 tensor, 2] -> int64,
    [float16 tensor, 2.] -> float32, [np.float64(1), 2] -> float64, [] -> default float.
    ``found`` (if given) collects "tensor" / "ndarray" when such elements occur.
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
            if found is not None:
                found.add("tensor")
        elif isinstance(x, (np.ndarray, np.generic)):
            d = D.from_numpy_dtype(x.dtype)
            if found is not None and isinstance(x, np.ndarray):
                found.add("ndarray")
        elif isinstance(x, bool):
            d = D.bool_
        elif isinstance(x, numbers.Integral):
            d = D.int64
        elif isinstance(x, numbers.Real):
            d = D.get_default_dtype()
        elif isinstance(x, complex):
            raise TypeError("retrograd does not support complex tensors")
        elif isinstance(x, str):
            if x is obj:
                raise TypeError("new(): invalid data type 'str'")
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
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if isinstance(data, Tensor):
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
    found: set = set()
    dt = dtype or _infer_data_dtype(data, found)
    if isinstance(data, (list, tuple)):
        if dtype is not None:  # (no inference walk ran: look at the top level only, which is cheap)
            for x in data:
                if isinstance(x, Tensor):
                    found.add("tensor")
                elif isinstance(x, np.ndarray):
                    found.add("ndarray")
        if "ndarray" in found:
            x = data  # PyTorch sizes the data along its first elements, taking len() of each
            while isinstance(x, (list, tuple)) and x:
                x = x[0]
            if isinstance(x, np.ndarray) and x.ndim == 0:
                raise TypeError("len() of unsized object")
        if "ndarray" in found and "ndarray_list" not in _WARNED_ONCE:
            _WARNED_ONCE.add("ndarray_list")  # (PyTorch warns once per process)
            warnings.warn("Creating a tensor from a list of numpy.ndarrays is extremely slow. Please consider "
                          "converting the list to a single numpy.ndarray with numpy.array() before converting to "
                          "a tensor.", UserWarning, stacklevel=2)
        if "tensor" in found:
            grad_leaves: list = []
            data = _tensor_leaves_to_scalars(data, dt, grad_leaves)
            if grad_leaves:
                warnings.warn("Converting a tensor with requires_grad=True to a scalar may lead to unexpected "
                              "behavior.\nConsider using tensor.detach() first.", UserWarning, stacklevel=2)
    try:
        if dt._kind == 1 and data is not None:
            arr = np.array(data, dtype=object)  # Python ints: check int64's range, then wrap as torch
            if arr.dtype == object and arr.size and not isinstance(arr.flat[0], (list, tuple)):
                lo, hi = (-np.iinfo(dt.np).max if dt.np.kind == "u" else np.iinfo(dt.np).min), np.iinfo(dt.np).max
                for v in arr.flat:
                    if isinstance(v, int) and not _INT64_MIN <= v <= _INT64_MAX:
                        raise ValueError("Overflow when unpacking long long")
                    if isinstance(v, int) and not lo <= v <= hi:  # (uint8 takes -255..255, wrapping)
                        raise OverflowError
                    if isinstance(v, float) and v != v:
                        raise OverflowError
            arr = np.array(data, dtype=np.int64 if dt.np.kind in "iu" and not any(
                isinstance(v, float) for v in arr.flat) else None).astype(dt.np) if arr.dtype == object \
                else np.array(data, dtype=dt.np)
        else:
            arr = np.array(data, dtype=dt.np)
    except ValueError as exc:
        if str(exc).startswith("Overflow"):
            raise
        _check_ragged(data)
        raise ValueError(f"expected sequence of equal-length lists ({exc})") from None
    except OverflowError:
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow") from None
    return _finish(arr, requires_grad)


_INT64_MIN, _INT64_MAX = -2 ** 63, 2 ** 63 - 1
_WARNED_ONCE: set = set()  # warnings PyTorch gives once per process (TORCH_WARN_ONCE)


def _tensor_leaves_to_scalars(data, dt: D.dtype, grad_leaves: list):
    """Nested lists holding tensors -> the same lists holding NumPy scalars.

    PyTorch treats a tensor inside a list as one number (it converts it as ``float(t)`` /
    ``int(t)`` would): one-element tensors of any shape are fine, others raise.
    """
    if isinstance(data, (list, tuple)):
        return [_tensor_leaves_to_scalars(x, dt, grad_leaves) for x in data]
    if not isinstance(data, Tensor):
        return data
    a = data._data
    if a.size != 1:
        raise ValueError("only one element tensors can be converted to Python scalars")
    if dt.np.kind in "iu" and a.dtype.kind not in "iub":
        # an integer result reads each tensor as an index, which must be an integer tensor
        raise TypeError("only integer tensors of a single element can be converted to an index")
    if data._requires_grad:
        grad_leaves.append(data)
    return a.reshape(-1)[0]


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
    dtype = D.as_dtype(dtype) or D.get_default_dtype()  # (float / int / bool name float64 / int64 / bool)
    from ._ops._common import checked_scalar  # (-5 wraps into uint8 as 251; 300 is refused, as in torch)

    return _finish(np.array(checked_scalar(s, dtype), dtype=dtype.np), requires_grad)


def as_tensor(data, dtype: D.dtype | None = None, device=None) -> Tensor:
    """Like ``tensor`` but shares memory with a NumPy array or Tensor when it can."""
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if isinstance(data, Tensor):
        return data if dtype is None or dtype is data.dtype else data.to(dtype)
    if isinstance(data, np.ndarray):
        dt = dtype or D.from_numpy_dtype(data.dtype)
        if data.dtype == dt.np:
            _warn_if_read_only(data, 3)  # (shared, as from_numpy; a converted copy is writable)
            return _wrap(data, False, None, 0)
        return _wrap(data.astype(dt.np), False, None, 0)
    return tensor(data, dtype=dtype)


asarray = as_tensor


def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing memory with ``ndarray``.

    >>> import numpy as np
    >>> import retrograd as torch
    >>> a = np.zeros(2)
    >>> t = torch.from_numpy(a); a[0] = 1.
    >>> t
    tensor([1., 0.], dtype=torch.float64)
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    D.from_numpy_dtype(ndarray.dtype)
    if any(st < 0 for st in ndarray.strides):
        raise ValueError("At least one stride in the given numpy array is negative, and tensors with negative "
                         "strides are not currently supported. (You can probably work around this by making a "
                         "copy of your array  with array.copy().) ")
    _warn_if_read_only(ndarray, 3)
    return _wrap(ndarray, False, None, 0)


def _warn_if_read_only(a: np.ndarray, stacklevel: int) -> None:
    """PyTorch's once-per-process warning when a tensor would share a read-only array."""
    if not a.flags.writeable and "read_only" not in _WARNED_ONCE:
        _WARNED_ONCE.add("read_only")
        warnings.warn("The given NumPy array is not writable, and PyTorch does not support non-writable tensors. "
                      "This means writing to this tensor will result in undefined behavior. You may want to copy "
                      "the array to protect its data or make it writable before converting it to a tensor. This "
                      "type of warning will be suppressed for the rest of this program.", UserWarning,
                      stacklevel=stacklevel)


def _size_item_ok(s) -> bool:
    """An int-like size entry: int, NumPy integer (or 0-d integer array), integer tensor of one value."""
    if isinstance(s, (int, np.integer)):
        return not isinstance(s, bool)  # (torch refuses True / False as sizes)
    if isinstance(s, np.ndarray):
        return s.ndim == 0 and s.dtype.kind in "iu"
    return isinstance(s, Tensor) and s.dtype._kind == 1 and s.numel() == 1


def _type_label(v) -> str:
    t = type(v)
    return t.__name__ if t.__module__ in ("builtins", "retrograd._tensor") else f"{t.__module__.split('.')[0]}.{t.__name__}"


def _shape(size, fname: str | None = None) -> tuple:
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = size[0]
    elif fname is not None:
        if len(size) > 1 and isinstance(size[0], (tuple, list)):
            raise TypeError(f"{fname}() takes 1 positional argument but {len(size)} were given")
        if len(size) == 1 and not _size_item_ok(size[0]):
            raise TypeError(f"{fname}(): argument 'size' (position 1) must be tuple of ints, not "
                            f"{type(size[0]).__name__}")
    if fname is not None:
        # PyTorch's argument parser: the first entry is checked as "the" size, later ones while unpacking
        for i, s in enumerate(size):
            if _size_item_ok(s):
                continue
            if i == 0:
                raise TypeError(f"{fname}(): argument 'size' (position 1) must be tuple of ints, but found "
                                f"element of type {_type_label(s)} at pos 0")
            raise TypeError(f"{fname}(): argument 'size' failed to unpack the object at pos {i + 1} with error "
                            f"\"type must be tuple of ints,but got {_type_label(s)}\"")
    try:
        shape = tuple(int(s) for s in size)
    except TypeError:
        raise TypeError(f"size must be a sequence of ints, got {size!r}") from None
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: [{', '.join(map(str, shape))}]")
    return shape


def _dt(dtype, default=None) -> D.dtype:
    return D.as_dtype(dtype) or default or D.get_default_dtype()


def _size_kw(args: tuple, size, fname: str) -> tuple:
    """The shape of a varargs factory called as ``f(2, 3)``, ``f((2, 3))`` or ``f(size=(2, 3))``."""
    if size is None:
        return args
    if args:
        raise TypeError(f"{fname}() received an invalid combination of arguments - got both positional sizes "
                        "and size=")
    return (size,)


def _factory_out(name: str):
    """``out=`` for a factory function, as torch's: the result takes ``out``'s dtype (a different
    explicit ``dtype`` is an error), ``out`` is resized when its shape differs (silently, as
    factories do in torch) or written in place, and returned."""
    def deco(fn):
        @functools.wraps(fn)
        def wrapper(*args, out=None, **kwargs):
            if out is None:
                return fn(*args, **kwargs)
            from ._tensor import _scalar_type_name, bump_version

            if out._requires_grad:
                raise RuntimeError(f"aten::{name}(): functions with out=... arguments don't support automatic "
                                   "differentiation, but one of the arguments requires grad.")
            dtype = kwargs.get("dtype")
            if dtype is not None and dtype is not out.dtype:
                raise RuntimeError(f"dtype {_scalar_type_name(dtype)} does not match dtype of out parameter "
                                   f"({_scalar_type_name(out.dtype)})")
            kwargs["dtype"] = out.dtype
            data = fn(*args, **kwargs)._data
            if out._data.shape == data.shape:
                out._data[...] = data
            else:
                out._data = np.array(data, copy=True)
            bump_version(out)
            return out
        return wrapper
    return deco


@_factory_out("zeros")
def zeros(*size_args, size=None, dtype=None, device=None, requires_grad=False, out=None, layout=None) -> Tensor:
    """A tensor of zeros of the given shape.

    >>> import retrograd as torch
    >>> torch.zeros(2, dtype=torch.int64)
    tensor([0, 0])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    size = _size_kw(size_args, size, "zeros")
    if any(isinstance(s, int) and s < 0 for s in (size[0] if len(size) == 1 and isinstance(size[0], (tuple, list))
                                                  else size)):
        raise RuntimeError("zeros: Dimension size must be non-negative.")  # zeros' own wording
    return _finish(np.zeros(_shape(size, 'zeros'), dtype=_dt(dtype).np), requires_grad)


@_factory_out("ones")
def ones(*size_args, size=None, dtype=None, device=None, requires_grad=False, out=None, layout=None) -> Tensor:
    """A tensor of ones of the given shape."""
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    size = _size_kw(size_args, size, "ones")
    return _finish(np.ones(_shape(size, 'ones'), dtype=_dt(dtype).np), requires_grad)


def empty(*size_args, size=None, dtype=None, device=None, requires_grad=False, memory_format=None, out=None, layout=None,
          pin_memory=False) -> Tensor:
    """An uninitialised tensor (zero-filled here, which is one valid 'uninitialised')."""
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    size = _size_kw(size_args, size, "empty")
    data = np.zeros(_shape(size, 'empty'), dtype=_dt(dtype).np)
    if memory_format is not None:
        from . import _layout

        if memory_format is _layout.preserve_format:
            raise RuntimeError("unsupported memory format Preserve")
        data = _layout.copied(data, memory_format)  # torch's channels_last strides (rank checked)
    return _finish(data, requires_grad)


@_factory_out("full")
def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None, layout=None) -> Tensor:
    """A tensor filled with ``fill_value``; dtype inferred from it (bool, int64, float)."""
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if not isinstance(size, (tuple, list)):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not {type(size).__name__}")
    if isinstance(fill_value, Tensor):
        if fill_value._data.ndim:
            raise TypeError("full(): argument 'fill_value' (position 2) must be Number, not Tensor")
        fill_value = fill_value.item()
    elif not isinstance(fill_value, (numbers.Number, np.bool_)):
        raise TypeError(f"full(): argument 'fill_value' (position 2) must be Number, not {type(fill_value).__name__}")
    if dtype is None:
        dtype = _infer_dtype(fill_value)
    from ._ops._common import checked_scalar

    return _finish(np.full(_shape((size,)), checked_scalar(fill_value, dtype), dtype=dtype.np), requires_grad)


@_factory_out("eye")
def eye(n: int, m: int | None = None, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """Identity matrix n x m."""
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    return _finish(np.eye(n, m, dtype=_dt(dtype).np), requires_grad)


@_factory_out("arange")
def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Values from start to end (exclusive) by step; int64 when all are integers."""
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if end is None:
        start, end = 0, start
    vals = [v.item() if isinstance(v, Tensor) else v for v in (start, end, step)]
    for v, nm, pos in zip(vals, ("start", "end", "step"), (0, 1, 2)):
        if not isinstance(v, (numbers.Number, np.bool_)):
            which, p = ("end", 1) if nm == "start" and end is None or nm == "end" and start == 0 and vals[0] == 0 \
                else (nm, pos + 1)
            raise TypeError(f"arange(): argument '{which}' (position {p}) must be Number, not {type(v).__name__}")
    if dtype is None:  # (bools count as integers)
        dtype = D.int64 if all(isinstance(v, (int, np.integer, np.bool_)) for v in vals) else D.get_default_dtype()
    if dtype is D.bool_:
        raise NotImplementedError('"arange_cpu" not implemented for \'Bool\'')
    start, end, step = vals
    if not (step > 0 or step < 0):  # (NaN too)
        raise RuntimeError("step must be nonzero")
    for v in (start, end):
        if v != v or abs(v) == float("inf"):
            raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dtype.np in (np.float32, np.float64):
        n = int(np.ceil((end - start) / step))
        data = _arange_values(float(start), float(step), max(n, 0), dtype.np)
    elif dtype.is_floating_point:
        n = int(np.ceil((end - start) / step))
        data = (start + np.arange(max(n, 0), dtype=np.float64) * step).astype(dtype.np)
    else:
        data = _int_arange(start, end, step, dtype)
    return _finish(data, requires_grad)


def _int_arange(start, end, step, dtype: D.dtype) -> np.ndarray:
    """arange for an integer dtype, as PyTorch counts it: the values are
    ``int(start) + i * int(step)`` (each truncated toward zero, then wrapped into the dtype).
    int64 also takes the length from the truncated bounds; the narrower types take it from
    the original ones, so ``arange(0.5, 3.7, 0.6, dtype=torch.int32)`` is six zeros."""
    ts, te, tst = int(start), int(end), int(step)
    if dtype is D.int64:
        if tst == 0:
            raise ValueError("step must be nonzero")
        num = te - ts + tst - ((tst > 0) - (tst < 0))
        n = abs(num) // abs(tst) * (1 if (num >= 0) == (tst > 0) else -1)  # C's truncating division
    else:
        n = int(np.ceil((float(end) - float(start)) / float(step)))
    idx = np.arange(max(n, 0), dtype=np.int64)
    with np.errstate(over="ignore"):
        return (np.array(ts).astype(np.int64) + idx * np.int64(tst)).astype(dtype.np)
_GRAIN = 32768  # at::internal::GRAIN_SIZE: below it a CPU kernel runs on one thread
_VEC_BYTES = 32  # the width of the (AVX2) vectorised kernel PyTorch runs arange with


def _arange_values(start: float, step: float, n: int, npt) -> np.ndarray:
    """PyTorch's float32 / float64 CPU arange kernel, value for value.

    The kernel computes in double: element ``i`` is ``start + step * i`` (one fused
    multiply-add), except that the vectorised loop fills each block of ``V`` lanes from its
    first element ``b`` (rounded to the dtype) as ``b + step * k``.  Blocks go two at a time;
    the tail (< 2V elements) and each thread's chunk start use the scalar formula.
    """
    out = np.empty(n, npt)
    if n == 0:
        return out
    from ._compat import get_num_threads

    V = _VEC_BYTES // np.dtype(npt).itemsize
    nthreads = max(1, min(get_num_threads(), -(-n // _GRAIN)))
    chunk = -(-n // nthreads)
    lanes = np.arange(V, dtype=np.float64)
    for lo in range(0, n, chunk):
        m = min(n, lo + chunk) - lo
        nvec = (m // (2 * V)) * 2 * V  # elements filled by the vectorised loop
        if nvec:
            firsts = np.arange(lo, lo + nvec, V, dtype=np.float64)
            bases = _rng._fma64(firsts, step, start).astype(npt).astype(np.float64)
            if npt == np.float64 and step != 1.0:  # b + step * k, fused
                block = _rng._fma64(np.tile(lanes, len(bases)), step, np.repeat(bases, V))
            else:
                block = (bases[:, None] + lanes[None, :] * step).reshape(-1)
            out[lo:lo + nvec] = block
        tail = np.arange(lo + nvec, lo + m, dtype=np.float64)
        out[lo + nvec:lo + m] = _rng._fma64(tail, step, start)
    return out


@_factory_out("linspace")
def linspace(start, end, steps: int, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``steps`` evenly spaced values from start to end inclusive, rounded as PyTorch rounds them.

    >>> import retrograd as torch
    >>> torch.linspace(0, 1, 5)
    tensor([0.0000, 0.2500, 0.5000, 0.7500, 1.0000])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is D.bool_:
        raise NotImplementedError('"linspace_cpu" not implemented for \'Bool\'')
    start, end = (v.item() if isinstance(v, Tensor) else v for v in (start, end))
    return _finish(_linspace_values(start, end, int(steps), _dt(dtype)), requires_grad)


def _linspace_values(start, end, steps: int, dt: D.dtype) -> np.ndarray:
    """PyTorch's CPU linspace kernel, value for value.

    It casts start and end to the dtype, computes ``step = (end - start) / (steps - 1)`` in
    the dtype (in double for integer dtypes) and fills the first half with
    ``start + step * i`` and the second with ``end - step * (steps - 1 - i)``; the compiler
    fuses each of those into one multiply-add (one rounding), so a plain NumPy
    ``start + step * i`` differs from PyTorch in the last bit for about half the values,
    enough to change every loss a training loop prints afterwards.
    """
    npt = dt.np
    if steps == 0:
        return np.empty(0, npt)
    from ._ops._common import checked_scalar

    # start and end converted to the dtype as PyTorch converts them (integers truncate; a
    # value out of the dtype's range is an error)
    s, e = (npt.type(checked_scalar(v, dt)) for v in (start, end))
    if steps == 1:
        return np.full(1, s, npt)
    idx = np.arange(steps)
    half = steps // 2
    k = np.where(idx < half, idx, steps - idx - 1)
    with np.errstate(over="ignore", invalid="ignore"):
        if dt is D.float16:
            # Half arithmetic rounds to half after every operation (nothing to fuse)
            def r(a):
                return np.asarray(a, np.float16).astype(np.float32)
            s32, e32 = r(s), r(e)
            step = r(r(e32 - s32) / r(steps - 1))
            prod = r(step * r(k))
            out = np.where(idx < half, r(s32 + prod), r(e32 - prod))
            return out.astype(npt)
        if npt == np.float32:
            # fma in float: the product of two floats is exact in double, then one rounding
            step = np.float32(np.float32(e - s) / np.float32(steps - 1))
            k64 = k.astype(np.float32).astype(np.float64)
            out = np.where(idx < half, np.float64(s) + np.float64(step) * k64,
                           np.float64(e) - np.float64(step) * k64)
            return out.astype(np.float32)
        # double (and the integer dtypes, whose step is a double): fma in double
        s64, e64 = np.float64(s), np.float64(e)
        step = (e64 - s64) / np.float64(steps - 1)
        k64 = k.astype(np.float64)
        out = np.where(idx < half, _rng._fma64(k64, float(step), float(s64)),
                       _rng._fma64(k64, -float(step), float(e64)))
        if dt.is_floating_point:
            return out.astype(npt)
        return np.trunc(out).astype(np.int64).astype(npt)  # (via int64: negatives wrap into unsigned types)


@_factory_out("logspace")
def logspace(start, end, steps: int, base: float = 10.0, *, dtype=None, device=None, requires_grad=False) -> Tensor:
    """``base ** linspace(start, end, steps)`` as PyTorch computes it (to within an ulp): the
    first half counted from ``start``, the second from ``end``; integer dtypes truncate
    start and end first.

    >>> import retrograd as torch
    >>> torch.logspace(0, 2, 3)
    tensor([  1.,  10., 100.])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
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


def rand(*size_args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Uniform [0, 1) samples (PyTorch's values for the same seed).

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.rand(3)
    tensor([0.4963, 0.7682, 0.0885])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    size = _size_kw(size_args, size, "rand")
    dt = _dt(dtype)
    _random_dtype_check("check_uniform_bounds", dt)
    shape = _shape(size, "rand")
    return _finish(_eng(generator).uniform(_numel(shape), dt.np).reshape(shape), requires_grad)


def randn(*size_args, size=None, generator=None, dtype=None, device=None, requires_grad=False, out=None) -> Tensor:
    """Standard normal samples (PyTorch's values for the same seed).

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randn(3)
    tensor([ 1.5410, -0.2934, -2.1788])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    size = _size_kw(size_args, size, "randn")
    dt = _dt(dtype)
    _random_dtype_check("normal_kernel_cpu", dt)
    shape = _shape(size, "randn")
    return _finish(_eng(generator).normal(_numel(shape), dt.np).reshape(shape), requires_grad)


def _numel(shape: tuple) -> int:
    n = 1
    for s in shape:
        n *= s
    return n


def _random_dtype_check(kernel: str, dt: D.dtype) -> None:
    dt.np  # complex / float8 / quantized: retrograd's own TypeError, not a made-up kernel message
    if not dt.is_floating_point:
        from ._tensor import _scalar_type_name

        raise NotImplementedError(f'"{kernel}" not implemented for \'{_scalar_type_name(dt)}\'')


def randint(low=None, high=None, size=None, *, generator=None, dtype=None, device=None,
            requires_grad=False) -> Tensor:
    """Integers uniform in [low, high); int64 by default (PyTorch's values for the same seed).

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randint(3, 10, (3,))
    tensor([7, 6, 3])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if low is None:  # randint(high=10, size=(3,))
        if high is None:
            raise TypeError("randint() received an invalid combination of arguments - got no 'high'")
        low = 0
    if size is None and isinstance(high, (tuple, list)):
        low, high, size = 0, low, high
    if high is None:
        low, high = 0, low
    if isinstance(size, (int, np.integer)) or (size is None and isinstance(high, (int, np.integer))):
        bad = size if size is not None else high
        raise TypeError(f"randint(): argument 'size' (position {3 if size is not None else 2}) must be tuple of "
                        f"ints, not {type(bad).__name__}")
    for v, nm in ((low, "low"), (high, "high")):
        if isinstance(v, float):
            raise TypeError(f"randint(): argument '{'high' if high is v else 'low'}' (position 1) must be int, "
                            "not float")
    if dtype is D.bool_ and high > 2:
        raise RuntimeError("to - 1 is out of bounds for bool")
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= to={high}")
    shape = _shape((size,))
    vals = _eng(generator).randint(_numel(shape), int(low), int(high))
    return _finish(vals.astype((dtype or D.int64).np).reshape(shape), requires_grad)


def randperm(n: int, *, generator=None, dtype=None, device=None, requires_grad=False) -> Tensor:
    """A random permutation of 0..n-1 (PyTorch's for the same seed).

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.randperm(5)
    tensor([4, 0, 1, 3, 2])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    check_device(device)
    if not isinstance(n, (int, np.integer)):
        raise TypeError(f"randperm(): argument 'n' (position 1) must be int, not {type(n).__name__}")
    if n < 0:
        raise RuntimeError(f"Trying to create tensor with negative dimension {n}: [{n}]")
    perm = np.array(_eng(generator).randperm(int(n)), dtype=np.int64)
    return _finish(perm.astype((dtype or D.int64).np), requires_grad)


def normal(mean, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False) -> Tensor:
    """Normal samples with the given mean and std (tensors or numbers), as PyTorch draws them:
    standard normals of the output's shape, then ``* std + mean``.

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.normal(2.0, 0.5, (3,))
    tensor([2.7705, 1.8533, 0.9106])
    """
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    m = mean._data if isinstance(mean, Tensor) else mean
    s = std._data if isinstance(std, Tensor) else std
    if np.any(np.asarray(s) < 0):
        bad = np.asarray(s).min() if not isinstance(std, Tensor) else None
        raise RuntimeError(f"normal expects std >= 0.0, but found std {bad:g}" if bad is not None else
                           "normal expects all elements of std >= 0.0")
    try:
        shape = _shape((size,)) if size is not None else np.broadcast_shapes(np.shape(m), np.shape(s))
    except ValueError:
        from ._ops._common import broadcast_error

        raise broadcast_error(np.shape(m), np.shape(s)) from None
    dt = dtype or (mean.dtype if isinstance(mean, Tensor) else std.dtype if isinstance(std, Tensor)
                   else D.get_default_dtype())
    _random_dtype_check("normal_kernel_cpu", dt)
    eng = _eng(generator)
    n = _numel(shape)
    if not isinstance(mean, Tensor) and not isinstance(std, Tensor):
        # normal(mean, std, size): one normal_(mean, std) fill
        return _finish(eng.normal(n, dt.np, float(mean), float(std)).reshape(shape), requires_grad)
    eps = eng.normal(n, dt.np).reshape(shape)
    with np.errstate(over="ignore", invalid="ignore"):
        sd = np.asarray(s, dtype=dt.np)
        res = eps * sd if isinstance(std, Tensor) else eps * dt.np.type(s)
        res = res + (np.asarray(m, dtype=dt.np) if isinstance(mean, Tensor) else dt.np.type(m))
    res = np.asarray(res, dtype=dt.np).reshape(shape)
    inputs = tuple(v for v in (mean, std) if isinstance(v, Tensor))
    if any(v.requires_grad for v in inputs):
        # PyTorch records the sample but gives mean and std a zero gradient (no reparameterisation)
        from ._ops._registry import apply
        from ._ops.random import _normal_op

        kind = 3 if len(inputs) == 2 else (1 if isinstance(mean, Tensor) else 2)
        return apply(_normal_op(kind), inputs, {"values": res})
    return _wrap(res, False, None, 0)


def bernoulli(input: Tensor, p=None, *, generator=None) -> Tensor:
    """1 with probability ``input`` (or ``p``), else 0; PyTorch's draws for the same seed.

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.bernoulli(torch.tensor([0.2, 0.9, 0.5]))
    tensor([0., 1., 1.])
    """
    if not input.dtype.is_floating_point:
        from ._tensor import _scalar_type_name

        raise NotImplementedError(f'"bernoulli_tensor_cpu_p_" not implemented for \'{_scalar_type_name(input.dtype)}\'')
    eng = _eng(generator)
    if p is not None:
        if not 0 <= p <= 1:
            raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={p}")
        vals = _rng.bernoulli_scalar(eng, input._data.size, float(p)).reshape(input._data.shape)
        return _wrap(vals.astype(input._data.dtype), False, None, 0)
    probs = input._data
    if not np.all((probs >= 0) & (probs <= 1)):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.  (Could this error message "
                           "be improved?  If so, please report an enhancement request to PyTorch.)")
    return _wrap(_rng.bernoulli_tensor(eng, probs).astype(input._data.dtype), False, None, 0)


def multinomial(input: Tensor, num_samples: int, replacement: bool = False, *, generator=None) -> Tensor:
    """Sample category indices with probabilities proportional to the rows of ``input``
    (PyTorch's algorithm and draws: exponential keys without replacement or for one sample,
    inverse-CDF search on double uniforms with replacement).

    >>> import retrograd as torch
    >>> _ = torch.manual_seed(0)
    >>> torch.multinomial(torch.tensor([0.1, 0.0, 0.9]), 2)
    tensor([2, 0])
    """
    if not input.dtype.is_floating_point:
        from ._tensor import _scalar_type_name

        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_scalar_type_name(input.dtype)}")
    if input._data.ndim not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    if not replacement and num_samples > input._data.shape[-1]:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without replacement")
    data = np.atleast_2d(input._data)
    p = data.astype(np.float64)
    if not np.all(np.isfinite(p) & (p >= 0)):
        if replacement and num_samples > 1:  # (PyTorch's sampling-with-replacement kernel checks itself)
            bad = "< 0" if np.any(np.isnan(p) | (p < 0)) else "= infinity or NaN"
            raise RuntimeError(f"invalid multinomial distribution (encountering probability entry {bad})")
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if np.any(p.sum(-1) <= 0):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    eng = _eng(generator)
    if not replacement or num_samples == 1:
        # keys p / Exp(1) in the input's dtype; the largest num_samples win
        q = _rng.exponential(eng, data.size, 1.0).astype(data.dtype).reshape(data.shape)
        with np.errstate(divide="ignore", invalid="ignore"):
            keys = data / q
        out = np.argsort(-keys, axis=-1, kind="stable")[:, :num_samples]
    else:
        out = np.empty((data.shape[0], num_samples), np.int64)
        for i, row in enumerate(data):
            cum = np.cumsum(row.astype(np.float64)) if data.dtype == np.float64 else _cumsum_acc(row)
            cum = cum / cum[-1]
            cum[-1] = 1.0
            u = eng.unit(num_samples, np.float64)
            out[i] = np.searchsorted(cum, u, side="left")
    out = out.astype(np.int64)
    return _wrap(out if input._data.ndim == 2 else out[0], False, None, 0)


def _cumsum_acc(row: np.ndarray) -> np.ndarray:
    """Running sum of a float32 row as PyTorch's kernel keeps it (float32 cumulative values)."""
    return np.cumsum(row.astype(np.float32), dtype=np.float32)


def _like(input: Tensor, dtype):
    return dtype or input.dtype


def _like_array(input: Tensor, dt: D.dtype, memory_format, fill) -> np.ndarray:
    """A fresh array of ``input``'s shape and dtype ``dt`` laid out as PyTorch lays out a ``*_like``
    result (``memory_format``; by default a dense input's own strides, e.g. channels_last).
    ``fill(n, row_major)`` gives its ``n`` values in memory order (a random stream fills memory in
    order, and PyTorch's normal fill takes another path when the result is not row-major)."""
    a = input._data
    if memory_format is None and a.flags.c_contiguous:  # (the common case: row-major)
        return fill(a.size, True).reshape(a.shape)
    strides = _layout.like_strides(a, dt.np.itemsize, memory_format)
    return _layout.laid_out(fill(a.size, strides is None), a.shape, strides)


def _filled(value, npt):
    return lambda n, row_major: np.full(n, value, dtype=npt)


def zeros_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    dt = _like(input, D.as_dtype(dtype))  # (float / int / bool name float64 / int64 / bool)
    return _finish(_like_array(input, dt, memory_format, lambda n, row_major: np.zeros(n, dt.np)), requires_grad)


def ones_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    dt = _like(input, D.as_dtype(dtype))  # (float / int / bool name float64 / int64 / bool)
    return _finish(_like_array(input, dt, memory_format, lambda n, row_major: np.ones(n, dt.np)), requires_grad)


def empty_like(input: Tensor, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    # (zero-filled: uninitialised memory would make runs irreproducible)
    return zeros_like(input, dtype=dtype, requires_grad=requires_grad, memory_format=memory_format)


def full_like(input: Tensor, fill_value, *, dtype=None, device=None, requires_grad=False, memory_format=None) -> Tensor:
    dt = _like(input, D.as_dtype(dtype))  # (float / int / bool name float64 / int64 / bool)
    from ._ops._common import checked_scalar

    return _finish(_like_array(input, dt, memory_format, _filled(checked_scalar(fill_value, dt), dt.np)),
                   requires_grad)


def rand_like(input: Tensor, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None) -> Tensor:
    """``rand`` of ``input``'s shape (and dtype unless given), laid out like ``input``."""
    dt = _like(input, D.as_dtype(dtype))  # (float / int / bool name float64 / int64 / bool)
    _random_dtype_check("check_uniform_bounds", dt)
    eng = _eng(generator)
    return _finish(_like_array(input, dt, memory_format, lambda n, row_major: eng.uniform(n, dt.np)),
                   requires_grad)


def randn_like(input: Tensor, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None) -> Tensor:
    """``randn`` of ``input``'s shape (and dtype unless given), laid out like ``input``."""
    dt = _like(input, D.as_dtype(dtype))  # (float / int / bool name float64 / int64 / bool)
    _random_dtype_check("normal_kernel_cpu", dt)
    eng = _eng(generator)
    # (PyTorch's vectorised normal fill runs only on a row-major result; any other layout takes
    # its serial pairwise path, in memory order)
    return _finish(_like_array(input, dt, memory_format,
                               lambda n, row_major: eng.normal(n, dt.np, contiguous=row_major)), requires_grad)


def randint_like(input: Tensor, low, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False) -> Tensor:
    """``randint`` of ``input``'s shape (and dtype unless given)."""
    dtype = D.as_dtype(dtype)  # (float / int / bool name float64 / int64 / bool)
    return randint(low, high, input._data.shape, generator=generator, dtype=_like(input, dtype),
                   requires_grad=requires_grad)
