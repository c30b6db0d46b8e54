"""Argument handling shared by the op families: scalars, type promotion, dims."""
from __future__ import annotations

import numpy as np

from .. import _dtype as D
from .._layout import like_operands
from .._tensor import Tensor

_wrap = Tensor._wrap


_INT64_MIN, _INT64_MAX, _UINT64_MAX = -2 ** 63, 2 ** 63 - 1, 2 ** 64 - 1


def _scalar_array(value, npd) -> np.ndarray:
    """``value`` as a 0-d array of ``npd`` the way PyTorch converts a Python scalar:
    ints beyond int64 are an OverflowError, ints wrap into narrower integer dtypes, and
    floats too large for the dtype become inf (silently)."""
    if type(value) is int or (isinstance(value, int) and not isinstance(value, (bool, np.bool_))):
        if value < _INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")
        if value > _UINT64_MAX:
            raise OverflowError("int too big to convert")
        if npd.kind in "iub":
            return np.array(value, dtype=np.int64 if value <= _INT64_MAX else np.uint64).astype(npd)
    if -65504.0 <= value <= 65504.0:  # fits every float dtype: no overflow warning possible
        return np.array(value, dtype=npd)
    with np.errstate(over="ignore", invalid="ignore"):  # (an errstate object is single-use)
        return np.array(value, dtype=npd)


_INT_RANGE = {np.dtype(t): (int(np.iinfo(t).min), int(np.iinfo(t).max))
              for t in (np.uint8, np.int8, np.int16, np.int32, np.int64)}


def _int_scalar(value, rt: D.dtype):
    """(scalar tensor, cast) for a Python int meeting an integer tensor whose promoted dtype
    ``rt`` cannot hold it.  PyTorch keeps such a number as a 64-bit "wrapped number": ops that
    compute in ``rt`` (add, mul ...) wrap it then, but ops that compute in a float (div,
    copysign, xlogy) see its true value.  Returns None when the number fits (the common case).
    In-place ops (name ending in ``_``) keep the wrapped scalar: they write ``rt`` anyway."""
    lo, hi = _INT_RANGE.get(rt.np, (0, -1))
    if lo <= value <= hi or not _INT64_MIN <= value <= _INT64_MAX:
        return None
    return _wrap(np.array(value, dtype=np.int64), False, None, 0), rt


def checked_scalar(value, dtype: D.dtype):
    """``value`` converted to ``dtype`` with PyTorch's overflow check (c10::checked_convert),
    as full(), fill_() and clamp() do: integers may wrap within their width (``-1`` -> 255 for
    uint8, down to ``-255``), floats must fit the range (NaN and inf never fit an integer)."""
    npd = dtype.np
    if npd.kind in "iu":
        lo, hi = _INT_RANGE[npd]
        if isinstance(value, (bool, np.bool_)):
            return npd.type(value)
        if isinstance(value, (int, np.integer)):
            ok = (-hi <= value <= hi) if npd.kind == "u" else (lo <= value <= hi)
            if ok:
                return np.array(int(value), dtype=np.int64).astype(npd)[()]
        elif value == value and lo <= value <= hi:  # a float: NaN fails the == test
            return npd.type(value)
        raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype.name]} without overflow")
    if npd.kind == "f" and isinstance(value, (float, np.floating)) and value == value and abs(value) != float("inf"):
        if abs(value) > np.finfo(npd).max:
            raise RuntimeError(f"value cannot be converted to type {_C_NAMES[dtype.name]} without overflow")
    return value


_C_NAMES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int", "int64": "int64_t",
            "float32": "float", "float64": "double", "float16": "c10::Half", "bfloat16": "c10::BFloat16",
            "bool": "bool"}


def scalar_tensor(value, dtype: D.dtype) -> Tensor:
    """A Python scalar as a 0-d tensor that does not require grad."""
    return _wrap(_scalar_array(value, dtype.np), False, None, 0)


def to_tensor(x, dtype: D.dtype | None = None) -> Tensor:
    """Anything array-like as a Tensor (Tensors pass through)."""
    if isinstance(x, Tensor):
        return x
    if isinstance(x, np.ndarray):
        return _wrap(x, False, None, 0)
    from .._creation import tensor

    return tensor(x, dtype=dtype)


_SCALAR_CACHE: dict = {}
_SCALAR_CACHE_MAX = 4096
_Tensor = Tensor
_array = np.array


def _float_scalar(value, npd) -> Tensor:
    """A Python number as a 0-d tensor of floating NumPy dtype ``npd``, cached.

    Scalars in ``x * 2`` are wrapped on every op; the same few constants recur, so the
    0-d tensors are shared (read-only).  Zeros (signed) and NaN are not cached because
    equal keys would not mean equal values.
    """
    key = (value, npd)
    t = _SCALAR_CACHE.get(key)
    if t is None:
        arr = _scalar_array(value, npd)
        if not value or value != value:
            return _wrap(arr, False, None, 0)
        arr.flags.writeable = False
        t = _wrap(arr, False, None, 0)
        if len(_SCALAR_CACHE) >= _SCALAR_CACHE_MAX:
            _SCALAR_CACHE.clear()
        _SCALAR_CACHE[key] = t
    return t


def binary_operands(a, b, name: str = "op"):
    """(Tensor, Tensor, cast dtype or None) with PyTorch's type promotion.

    Python scalars become 0-d tensors of the promoted dtype; when two tensors differ in
    dtype the forward computes in the promoted dtype (the engine casts grads back).
    """
    # Fast paths first: this runs for every binary op (and in every backward rule).
    if type(a) is _Tensor:
        tb = type(b)
        if tb is _Tensor:
            if a._data.dtype is b._data.dtype:
                return a, b, None
        elif tb is float or tb is int:
            npd = a._data.dtype
            if npd.kind == "f":
                return a, _float_scalar(b, npd), None
    elif type(b) is _Tensor:
        ta = type(a)
        if ta is float or ta is int:
            npd = b._data.dtype
            if npd.kind == "f":
                return _float_scalar(a, npd), b, None
    ta = isinstance(a, Tensor)
    tb = isinstance(b, Tensor)
    if ta and tb:
        if a._data.dtype is b._data.dtype:
            return a, b, None
        rt = D.result_type(a, b)
        return a, b, rt
    if ta:
        if isinstance(b, np.ndarray):
            b = _wrap(b, False, None, 0)
            return binary_operands(a, b, name)
        _check_scalar(b, name)
        rt = D.result_type(a, b)
        if type(b) is int and rt._kind == 1 and name[-1] != "_":
            w = _int_scalar(b, rt)
            if w is not None:
                return a, w[0], w[1]
        return a, scalar_tensor(b, rt), (rt if rt.np != a._data.dtype else None)
    if tb:
        if isinstance(a, np.ndarray):
            a = _wrap(a, False, None, 0)
            return binary_operands(a, b, name)
        _check_scalar(a, name)
        rt = D.result_type(a, b)
        if type(a) is int and rt._kind == 1 and name[-1] != "_":
            w = _int_scalar(a, rt)
            if w is not None:
                return w[0], b, w[1]
        return scalar_tensor(a, rt), b, (rt if rt.np != b._data.dtype else None)
    return to_tensor(a), to_tensor(b), None


def number_arg(fname: str, arg: str, value):
    """A Scalar argument (``alpha=``, ``value=``) as PyTorch's argument parser takes it.

    Python numbers pass through; a 0-dim Tensor that does not require grad binds as its
    number (PyTorch accepts those for Scalars); anything else is a TypeError.
    """
    if isinstance(value, (int, float, complex, bool, np.number, np.bool_)):
        return value
    if isinstance(value, Tensor) and value._data.ndim == 0 and not value.requires_grad:
        return value.item()
    raise TypeError(f"{fname}(): argument '{arg}' must be Number, not {type(value).__name__}")


def _dense_span(a) -> tuple[int, int] | None:
    """(first byte, end byte) of an array whose elements tile a contiguous block, else None."""
    if not isinstance(a, np.ndarray) or a.size == 0:
        return None
    dims = sorted((abs(st), n) for st, n in zip(a.strides, a.shape) if n != 1)
    expect = a.itemsize
    for st, n in dims:
        if st != expect:
            return None
        expect *= n
    lo = a.__array_interface__["data"][0] + sum(st * (n - 1) for st, n in zip(a.strides, a.shape) if st < 0)
    return lo, lo + a.nbytes


def check_out_overlap(out, *inputs, full: bool = False) -> None:
    """PyTorch's refusal of an ``out=`` tensor that partly overlaps an input in memory.

    Exactly the same view (same start, shape and strides) is fine unless ``full`` (the
    kernels that check with ``assert_no_overlap``: kthvalue, gather, take ...); memory
    PyTorch cannot judge cheaply (a non-dense operand) is never refused.
    """
    od = getattr(out, "_data", None)
    span = _dense_span(od)
    if span is None:
        return
    for t in inputs:
        td = getattr(t, "_data", None) if isinstance(t, Tensor) else None
        if td is None or (td is od and not full):
            continue
        other = _dense_span(td)
        if other is None or other[1] <= span[0] or span[1] <= other[0]:
            continue
        if not full and (td.__array_interface__["data"][0] == od.__array_interface__["data"][0]
                         and td.shape == od.shape and td.strides == od.strides):
            continue
        raise RuntimeError("unsupported operation: some elements of the input tensor and the written-to tensor "
                           "refer to a single memory location. Please clone() the tensor before performing the "
                           "operation.")


def _check_scalar(x, name: str) -> None:
    if not isinstance(x, (int, float, bool, np.number, np.bool_)):
        raise TypeError(
            f"{name}(): argument 'other' (position 1) must be Tensor, not {type(x).__name__}")


def float_dtype_for(t: Tensor) -> D.dtype | None:
    """Ops like exp() on integer tensors compute in the default float dtype."""
    if t._data.dtype.kind in "iub":
        return D.get_default_dtype()
    return None


def wrap_dim(dim: int, ndim: int) -> int:
    """A possibly negative dim as a positive one, with PyTorch's IndexError."""
    lo, hi = (-ndim, ndim - 1) if ndim else (-1, 0)
    if isinstance(dim, (bool, np.bool_)):  # (PyTorch's int arguments refuse bools: x.topk(4, True))
        raise TypeError("dim must be int, not bool")
    if not isinstance(dim, (int, np.integer)):
        # PyTorch parses a one-element integer tensor as an int argument (never a float one)
        if not (isinstance(dim, Tensor) and dim.dtype._kind == 1 and dim.numel() == 1):
            raise TypeError(f"dim must be int, not {type(dim).__name__}")
        dim = int(dim.item())
    if dim < lo or dim > hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], but got {dim})")
    return int(dim) % ndim if ndim else 0


def wrap_dims(dim, ndim: int) -> tuple[int, ...]:
    """dim as int / tuple / list / None -> sorted tuple of positive dims (None = all)."""
    if dim is None:
        return tuple(range(ndim))
    if isinstance(dim, (int, np.integer)):
        return (wrap_dim(dim, ndim),)
    dims = tuple(wrap_dim(d, ndim) for d in dim)
    if len(set(dims)) != len(dims):
        d = next(d for d in dims if dims.count(d) > 1)
        raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def shape_str(shape) -> str:
    return "[" + ", ".join(str(int(s)) for s in shape) + "]"


def broadcast_error(a_shape, b_shape):
    """PyTorch's message for shapes that do not broadcast."""
    na, nb = len(a_shape), len(b_shape)
    n = max(na, nb)
    for i in range(1, n + 1):
        sa = a_shape[-i] if i <= na else 1
        sb = b_shape[-i] if i <= nb else 1
        if sa != sb and sa != 1 and sb != 1:
            return RuntimeError(
                f"The size of tensor a ({sa}) must match the size of tensor b ({sb}) at "
                f"non-singleton dimension {n - i}")
    return RuntimeError("shapes do not broadcast")


def parse_shape(args) -> tuple[int, ...]:
    """Shapes given as ``f(2, 3)``, ``f((2, 3))`` or ``f([2, 3])`` or a Size."""
    if len(args) == 1 and isinstance(args[0], (tuple, list)):
        args = args[0]
    try:
        return tuple(int(a) for a in args)
    except TypeError:
        raise TypeError(f"expected a sequence of integers, got {args!r}") from None


def grad_dtype(input: Tensor, dtype):
    """``dtype=`` of a differentiable op: PyTorch's autograd refuses a non-float result type."""
    if dtype is not None and input._requires_grad and not dtype.is_floating_point:
        from ..autograd import grad_mode
        from .._tensor import _scalar_type_name

        if grad_mode.is_grad_enabled():
            raise RuntimeError(f"Autograd not support dtype: {_scalar_type_name(dtype)}")
    return dtype


def requested_dtype(r: Tensor, dtype) -> Tensor:
    """An accumulating op's result in the ``dtype=`` the caller asked for.

    Integer and bool inputs accumulate in int64 (PyTorch's default); an explicit integral or
    bool ``dtype=`` keeps that type instead (``sum(x, dtype=torch.int8)`` wraps like int8).
    Wrapping the int64 result afterwards gives the same bits, because sums and products
    modulo 2**64 agree modulo 2**8 .. 2**32.  Such results never require grad (see grad_dtype).
    """
    if dtype is not None and r._data.dtype != dtype.np:
        return _wrap(r._data.astype(dtype.np), False, None, 0)
    return r


def no_keepdim_without_dim(name: str, keepdim, dim_doc: str = "tuple of ints dim") -> None:
    """``x.sum(keepdim=True)`` (no dim) matches none of PyTorch's signatures: its TypeError."""
    if keepdim:
        raise TypeError(f"{name}() received an invalid combination of arguments - got (keepdim=bool, ), but "
                        f"expected one of:\n * (*, torch.dtype dtype = None)\n"
                        f" * ({dim_doc}, bool keepdim = False, *, torch.dtype dtype = None)\n")


_MISSING = object()


def tensor_args(name: str, _method_only: bool = False, **positions: int):
    """Decorator: PyTorch's TypeError when a parameter that must be a Tensor gets anything else.

    ``positions`` maps each such parameter to its position in PyTorch's signature, as its
    message counts it (from 1), e.g. ``@tensor_args("gather", index=3)``.  PyTorch's Tensor
    methods do not count ``self``: the wrapper's ``method_form`` (what ``_tensor_methods``
    binds) says one less.  ``_method_only``: the op is a method only (``put_``), so
    ``positions`` are already the method's.
    """
    import functools
    import inspect

    def make(fn, pos_of: dict):
        params = list(inspect.signature(fn).parameters)
        where = [(p, params.index(p), pos) for p, pos in pos_of.items()]

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            for p, i, pos in where:
                v = args[i] if i < len(args) else kwargs.get(p, _MISSING)
                if v is not _MISSING and not isinstance(v, Tensor):
                    raise TypeError(f"{name}(): argument '{p}' (position {pos}) must be Tensor, not "
                                    f"{type(v).__name__}")
            return fn(*args, **kwargs)
        return wrapper

    def deco(fn):
        wrapper = make(fn, positions)
        if not _method_only:
            wrapper.method_form = make(fn, {p: pos - 1 for p, pos in positions.items() if pos > 1})
        return wrapper
    return deco


def int_tuple_arg(name: str, arg: str, pos: int, dims: tuple):
    """Function forms that take one tuple (torch.flip(x, 0) is refused; the method's varargs are not)."""
    if len(dims) == 1 and isinstance(dims[0], (int, np.integer)) and not isinstance(dims[0], bool):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be tuple of ints, not "
                        f"{type(dims[0]).__name__}")


# ---------------------------------------------------------------- helpers the subject modules share
# (kept here, below every subject module, so that sharing them creates no import cycle)
def _const(a) -> Tensor:
    """An array as a tensor outside the graph."""
    return Tensor._wrap(np.asarray(a), False, None, 0)


def _tensor_arg(fn: str, input, pos: int = 1, name: str = "input") -> None:
    if not isinstance(input, Tensor):
        raise TypeError(f"{fn}(): argument '{name}' (position {pos}) must be Tensor, not {type(input).__name__}")


def _contig():
    from .._layout import contiguous_format

    return contiguous_format


def _need_tensor(name: str, x, arg: str = "input", pos: int = 1) -> None:
    if not isinstance(x, Tensor):
        raise TypeError(f"{name}(): argument '{arg}' (position {pos}) must be Tensor, not {type(x).__name__}")


def _tensor_operands(name: str, input, other):
    """binary_operands for the ops PyTorch only defines on two tensors (atan2, maximum ...)."""
    _need_tensor(name, input)
    _need_tensor(name, other, "other", 2)
    return binary_operands(input, other, name)


def _it(out, a, b):
    """``out`` laid out as PyTorch lays out ``a op b`` (see _layout.like_operands); NumPy's row-major
    result for operands of conflicting layouts follows the first one there (row-major operands cost
    one flag test).  Shared by the binary, comparison and ternary subjects."""
    return out if a.flags.c_contiguous and b.flags.c_contiguous else like_operands(out, a, b)
