"""The comparison behind ``TestCase.assertEqual``: PyTorch's permissive "relaxed pair" rules.

``torch.testing.assert_close`` is strict (both sides must be tensors, or both numbers of one type);
PyTorch's test-suite ``assertEqual`` is looser: a tensor may be compared with a list, a NumPy array,
a Python number or a bool, and numbers of different types compare by value.  This module walks both
inputs (sequences and mappings element by element), picks a comparison "kind" for each leaf pair in
PyTorch's order (None, bool, number, tensor/array, string, set, type, any object) and reports the
first mismatch with PyTorch's message text, including the ``The failure occurred for item [..]``
suffix for nested inputs.

>>> from retrograd.testing._internal._compare import compare
>>> compare([1, 2.0], [1, 2.0])
"""
from __future__ import annotations

import cmath
import collections.abc
import enum
import unittest
from typing import Any, Callable

import numpy as np

import retrograd
from retrograd import _dtype as D
from retrograd._tensor import Tensor

__all__ = ["Mismatch", "compare", "has_corresponding_dtype"]

# (rtol, atol) by dtype name: the defaults of torch.testing.assert_close.
_DTYPE_PRECISIONS = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
                     "float64": (1e-7, 1e-7)}
# assertEqual reads Python scalars at the float32 tolerances (looser than assert_close's float64).
_NUMBER_DTYPE = {int: "int64", float: "float32", complex: "complex64"}
_NUMBER_TOL = {"int64": (0.0, 0.0), "float32": (1.3e-6, 1e-5), "complex64": (1.3e-6, 1e-5)}
_NUMBER_TYPES = (int, float, complex, np.number)
_BOOL_TYPES = (bool, np.bool_)


class Mismatch(Exception):
    """A failed comparison: the exception type to raise, its message and the item path."""

    def __init__(self, exc_type: type[Exception], msg: str, path: tuple = ()) -> None:
        super().__init__(msg)
        self.exc_type, self.msg, self.path = exc_type, msg, path

    def to_error(self, msg: str | Callable[[str], str] | None = None) -> Exception:
        """The exception to raise; a string ``msg`` replaces the text, a callable edits it."""
        if isinstance(msg, str):
            return self.exc_type(msg)
        text = self.msg
        if self.path:
            text += "\n\nThe failure occurred for item " + "".join(str([p]) for p in self.path)
        return self.exc_type(msg(text) if callable(msg) else text)


class _Unsupported(Exception):
    """This kind of leaf comparison does not apply to the inputs; try the next one."""


def has_corresponding_dtype(np_dtype) -> bool:
    """Whether retrograd has a dtype for this NumPy dtype."""
    try:
        D.from_numpy_dtype(np.dtype(np_dtype))
    except (TypeError, KeyError):
        return False
    return True


def _tolerances(rtol, atol, defaults: tuple[float, float], path: tuple) -> tuple[float, float]:
    if (rtol is None) != (atol is None):
        raise Mismatch(ValueError, "Both 'rtol' and 'atol' must be either specified or omitted, "
                                   f"but got no {'rtol' if rtol is None else 'atol'}.", path)
    return (rtol, atol) if rtol is not None else defaults


def _diff_line(kind: str, diff, idx, tol, equality: bool) -> str:
    line = f"{kind.title()} difference: {diff}" if idx is None else f"Greatest {kind} difference: {diff} at index {idx}"
    return line if equality else f"{line} (up to {tol} allowed)"


def _mismatch_text(what: str, extra: str, abs_diff, abs_idx, rel_diff, rel_idx, rtol, atol) -> str:
    equality = rtol == 0 and atol == 0
    return "\n".join([f"{what} are not {'equal' if equality else 'close'}!", "", extra,
                      _diff_line("absolute", abs_diff, abs_idx, atol, equality),
                      _diff_line("relative", rel_diff, rel_idx, rtol, equality)])


def _scalar_text(actual, expected, rtol, atol) -> str:
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    return _mismatch_text("Scalars", f"Expected {expected} but got {actual}.", abs_diff, None, rel_diff, None,
                          rtol, atol)


# ---------------------------------------------------------------------------------------------- leaves
def _single_item(x, against: str, path: tuple):
    numel = x.numel() if isinstance(x, Tensor) else x.size
    if numel > 1:
        raise Mismatch(ValueError, f"Only single element tensor-likes can be compared against a {against}. "
                                   f"Got {numel} elements instead.", path)
    return x.item()


def _leaf_none(a, e, path, opts):
    if a is not None and e is not None:
        raise _Unsupported
    if not (a is None and e is None):
        raise Mismatch(AssertionError, f"None mismatch: {a} is not {e}", path)


def _leaf_bool(a, e, path, opts):
    others = _BOOL_TYPES + _NUMBER_TYPES + (Tensor, np.ndarray)
    if not ((isinstance(a, _BOOL_TYPES) and isinstance(e, others))
            or (isinstance(e, _BOOL_TYPES) and isinstance(a, others))):
        raise _Unsupported

    def to_bool(x):
        if isinstance(x, (Tensor, np.ndarray)):
            return bool(_single_item(x, "boolean", path))
        return bool(x.item()) if isinstance(x, (np.number, np.bool_)) else bool(x)

    a, e = to_bool(a), to_bool(e)
    if a is not e:
        raise Mismatch(AssertionError, f"Booleans mismatch: {a} is not {e}", path)


def _leaf_number(a, e, path, opts):
    others = _NUMBER_TYPES + (Tensor, np.ndarray)
    if not ((isinstance(a, _NUMBER_TYPES) and isinstance(e, others))
            or (isinstance(e, _NUMBER_TYPES) and isinstance(a, others))):
        raise _Unsupported

    def to_number(x):
        if isinstance(x, (Tensor, np.ndarray)):
            n = _single_item(x, "number", path)
            return int(n) if isinstance(n, bool) else n
        if isinstance(x, enum.Enum):
            return int(x)
        n = x.item() if isinstance(x, np.number) else x
        if type(n) not in _NUMBER_DTYPE:
            raise _Unsupported
        return n

    a, e = to_number(a), to_number(e)
    defaults = [_NUMBER_TOL[_NUMBER_DTYPE[type(x)]] for x in (a, e)]
    rtol, atol = _tolerances(opts["rtol"], opts["atol"], (max(d[0] for d in defaults), max(d[1] for d in defaults)),
                             path)
    rtol, atol = max(rtol, opts["rtol_override"]), max(atol, opts["atol_override"])
    if a == e or (opts["equal_nan"] and cmath.isnan(a) and cmath.isnan(e)):
        return
    abs_diff = abs(a - e)
    if cmath.isfinite(abs_diff) and abs_diff <= atol + rtol * abs(e):
        return
    raise Mismatch(AssertionError, _scalar_text(a, e, rtol, atol), path)


def _as_tensor(x) -> Tensor:
    return x if isinstance(x, Tensor) else retrograd.as_tensor(x)


def _leaf_tensor(a, e, path, opts):
    if not (isinstance(a, (Tensor, np.ndarray)) and isinstance(e, (Tensor, np.ndarray))):
        raise _Unsupported
    a, e = _as_tensor(a), _as_tensor(e)
    defaults = (max(_DTYPE_PRECISIONS.get(t.dtype.name, (0.0, 0.0))[0] for t in (a, e)),
                max(_DTYPE_PRECISIONS.get(t.dtype.name, (0.0, 0.0))[1] for t in (a, e)))
    rtol, atol = _tolerances(opts["rtol"], opts["atol"], defaults, path)
    rtol, atol = max(rtol, opts["rtol_override"]), max(atol, opts["atol_override"])

    def attr_mismatch(name, x, y):
        raise Mismatch(AssertionError, f"The values for attribute '{name}' do not match: {x} != {y}.", path)

    if a.shape != e.shape:
        attr_mismatch("shape", a.shape, e.shape)
    if opts["check_device"] and a.device != e.device:
        attr_mismatch("device", a.device, e.device)
    if opts["check_dtype"] and a.dtype is not e.dtype:
        attr_mismatch("dtype", a.dtype, e.dtype)
    dtype = a.dtype if a.dtype is e.dtype else retrograd.promote_types(a.dtype, e.dtype)
    x = a.detach().numpy().astype(dtype.np, copy=False)
    y = e.detach().numpy().astype(dtype.np, copy=False)
    matches = _isclose(x, y, dtype, rtol, atol, opts["equal_nan"])
    if matches.all():
        return
    if x.ndim == 0:
        raise Mismatch(AssertionError, _scalar_text(x.item(), y.item(), rtol, atol), path)
    raise Mismatch(AssertionError, _tensor_text(x, y, matches, dtype, rtol, atol), path)


def _isclose(x: np.ndarray, y: np.ndarray, dtype, rtol, atol, equal_nan) -> np.ndarray:
    """torch.isclose: equal, or a finite difference within ``atol + |rtol * expected|``."""
    close = x == y
    if dtype.is_floating_point:
        if equal_nan:
            close |= np.isnan(x) & np.isnan(y)
        if rtol != 0 or atol != 0:
            # Computed in the tensors' own precision, as PyTorch does.
            with np.errstate(invalid="ignore", over="ignore"):
                err = np.abs(x - y)
                close |= np.isfinite(err) & (err <= atol + np.abs(rtol * y))
    elif dtype is not D.bool_ and (rtol != 0 or atol != 0):
        err = np.abs(x.astype(np.float64) - y.astype(np.float64))
        close |= err <= atol + np.abs(rtol * y.astype(np.float64))
    return close


def _tensor_text(x, y, matches, dtype, rtol, atol) -> str:
    n, n_bad = matches.size, int(matches.size - matches.sum())
    extra = f"Mismatched elements: {n_bad} / {n} ({n_bad / n:.1%})"
    if not dtype.is_floating_point:  # integers and bools: differences as int64, ratios as the default float
        xf, yf = x.reshape(-1).astype(np.int64), y.reshape(-1).astype(np.int64)
        ratio_dtype = retrograd.get_default_dtype().np
    else:
        xf, yf = x.reshape(-1), y.reshape(-1)
        ratio_dtype = xf.dtype
    flat = matches.reshape(-1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        abs_diff = np.abs(xf - yf)
        abs_diff[flat] = 0
        rel_diff = abs_diff.astype(ratio_dtype) / np.abs(yf).astype(ratio_dtype)
        rel_diff[flat] = 0
    i, j = _argmax(abs_diff), _argmax(rel_diff)

    def index(k):
        return tuple(int(v) for v in np.unravel_index(k, x.shape))

    return _mismatch_text("Tensor-likes", extra, abs_diff[i].item(), index(i), rel_diff[j].item(), index(j),
                          rtol, atol)


def _argmax(v: np.ndarray) -> int:
    # torch.max propagates NaN: a NaN is the maximum.
    nan = np.isnan(v) if v.dtype.kind == "f" else None
    if nan is not None and nan.any():
        return int(np.argmax(nan))
    return int(np.argmax(v))


def _unittest_leaf(classes, type_name):
    def leaf(a, e, path, opts):
        if not (isinstance(a, classes) and isinstance(e, classes)):
            raise _Unsupported
        try:
            unittest.TestCase().assertEqual(a, e)
        except AssertionError as error:
            raise Mismatch(AssertionError, f"{type_name} comparison failed: {error}", path) from None
    return leaf


_LEAVES = (_leaf_none, _leaf_bool, _leaf_number, _leaf_tensor, _unittest_leaf((str, bytes), "String"),
           _unittest_leaf(set, "Set"), _unittest_leaf(type, "Type"), _unittest_leaf(object, "Object"))


# ---------------------------------------------------------------------------------------------- walking
def _container_types():
    """Sequence / mapping types walked element by element (torch also walks its module containers)."""
    seq: list[type] = [collections.abc.Sequence]
    maps: list[type] = [collections.abc.Mapping]
    nn = retrograd.nn
    seq += [getattr(nn, n) for n in ("Sequential", "ModuleList", "ParameterList") if hasattr(nn, n)]
    maps += [getattr(nn, n) for n in ("ModuleDict", "ParameterDict") if hasattr(nn, n)]
    try:
        from retrograd.utils.data import Subset
        seq.append(Subset)
    except ImportError:  # pragma: no cover - data utilities are optional
        pass
    return tuple(seq), tuple(maps)


def _leaf_pairs(a, e, path, seq_types, map_types, out: list) -> None:
    if isinstance(a, seq_types) and not isinstance(a, str) and isinstance(e, seq_types) and not isinstance(e, str):
        if len(a) != len(e):
            raise Mismatch(AssertionError, f"The length of the sequences mismatch: {len(a)} != {len(e)}", path)
        for i in range(len(a)):
            _leaf_pairs(a[i], e[i], path + (i,), seq_types, map_types, out)
    elif isinstance(a, map_types) and isinstance(e, map_types):
        ka, ke = set(a.keys()), set(e.keys())
        if ka != ke:
            raise Mismatch(AssertionError, "The keys of the mappings do not match:\n"
                                           f"Missing keys in the actual mapping: {sorted(ke - ka)}\n"
                                           f"Additional keys in the actual mapping: {sorted(ka - ke)}", path)
        try:
            keys = sorted(ka)
        except TypeError:
            keys = list(ka)
        for k in keys:
            _leaf_pairs(a[k], e[k], path + (k,), seq_types, map_types, out)
    else:
        out.append((a, e, path))


def compare(actual: Any, expected: Any, *, rtol: float | None = None, atol: float | None = None,
            rtol_override: float = 0.0, atol_override: float = 0.0, equal_nan: bool = True,
            check_dtype: bool = True, check_device: bool = False) -> None:
    """Raise :class:`Mismatch` at the first leaf pair that differs (see the module docstring).

    >>> import retrograd as torch
    >>> compare([torch.tensor([1., 2.]), 3], [torch.tensor([1., 2.]), 3.0])
    """
    seq_types, map_types = _container_types()
    opts = {"rtol": rtol, "atol": atol, "rtol_override": rtol_override, "atol_override": atol_override,
            "equal_nan": equal_nan, "check_dtype": check_dtype, "check_device": check_device}
    pairs: list = []
    _leaf_pairs(actual, expected, (), seq_types, map_types, pairs)
    for a, e, path in pairs:
        for leaf in _LEAVES:
            try:
                leaf(a, e, path, opts)
            except _Unsupported:
                continue
            break
