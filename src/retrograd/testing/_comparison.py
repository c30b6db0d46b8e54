"""assert_close: PyTorch's comparison semantics and failure messages."""
from __future__ import annotations

import collections.abc
from typing import Any

import numpy as np

from .._tensor import Tensor

# (rtol, atol) by dtype, PyTorch's defaults.
_TOLERANCES = {"float16": (1e-3, 1e-5), "bfloat16": (1.6e-2, 1e-5), "float32": (1.3e-6, 1e-5),
               "float64": (1e-7, 1e-7)}


def _default_tol(*dtypes) -> tuple[float, float]:
    rtols, atols = zip(*(_TOLERANCES.get(d, (0.0, 0.0)) for d in dtypes))
    return max(rtols), max(atols)


def _fail(msg: str | None, default: str):
    raise AssertionError(msg if msg is not None else default)


def _index_str(flat_index: int, shape) -> str:
    if not shape:
        return "()"
    idx = np.unravel_index(flat_index, shape)
    return "(" + ", ".join(str(int(i)) for i in idx) + ("," if len(idx) == 1 else "") + ")"


def _compare_tensors(actual: Tensor, expected: Tensor, rtol, atol, equal_nan, check_dtype, msg) -> None:
    if actual.shape != expected.shape:
        _fail(msg, f"The values for attribute 'shape' do not match: {actual.shape} != {expected.shape}.")
    if check_dtype and actual.dtype is not expected.dtype:
        _fail(msg, f"The values for attribute 'dtype' do not match: {actual.dtype} != {expected.dtype}.")
    if rtol is None or atol is None:
        rtol, atol = _default_tol(actual.dtype.name, expected.dtype.name)
    a = actual.detach().numpy()
    b = expected.detach().numpy()
    if a.dtype != b.dtype:
        common = np.promote_types(a.dtype, b.dtype)
        a, b = a.astype(common), b.astype(common)
    equality = rtol == 0 and atol == 0  # (integer and bool dtypes default to this)
    if a.dtype.kind == "b" or equality:
        bad = a != b
        if equal_nan and a.dtype.kind == "f":
            bad &= ~(np.isnan(a) & np.isnan(b))
    else:
        af, bf = a.astype(np.float64), b.astype(np.float64)
        with np.errstate(invalid="ignore", over="ignore"):
            diff = np.abs(af - bf)
            # torch.isclose: equal values (infinities of one sign included), or a finite
            # difference within tolerance; inf vs -inf differ by inf, which is never close
            close = (af == bf) | (np.isfinite(diff) & (diff <= atol + rtol * np.abs(bf)))
            if equal_nan:
                close |= np.isnan(af) & np.isnan(bf)
        bad = ~close
    if not bad.any():
        return
    kind = "equal" if equality else "close"
    if a.ndim == 0:  # torch reports a 0-d mismatch as two scalars
        _fail(msg, _scalar_mismatch(a.item(), b.item(), rtol, atol, equality))
    n_bad, n = int(bad.sum()), bad.size
    lines = [f"Tensor-likes are not {kind}!", "", f"Mismatched elements: {n_bad} / {n} ({100.0 * n_bad / n:.1f}%)"]
    # Differences in the compared dtype, reported as Python numbers (as PyTorch does).
    flat_bad = bad.reshape(-1)
    wide = a.dtype if a.dtype.kind == "f" else np.dtype(np.int64)
    af, bf = a.astype(wide).reshape(-1), b.astype(wide).reshape(-1)
    with np.errstate(invalid="ignore", divide="ignore", over="ignore"):
        diff = np.abs(af - bf)
        rel = (diff / np.abs(bf)) if wide.kind == "f" else (
            diff.astype(np.float32) / np.abs(bf).astype(np.float32))
    i = int(np.argmax(np.where(flat_bad, np.nan_to_num(diff, nan=np.inf), -1)))
    j = int(np.argmax(np.where(flat_bad, np.nan_to_num(rel, nan=np.inf), -1)))
    allowed_a = "" if equality else f" (up to {atol} allowed)"
    allowed_r = "" if equality else f" (up to {rtol} allowed)"
    lines.append(f"Greatest absolute difference: {diff[i].item()} at index {_index_str(i, a.shape)}{allowed_a}")
    lines.append(f"Greatest relative difference: {rel[j].item()} at index {_index_str(j, a.shape)}{allowed_r}")
    _fail(msg, "\n".join(lines))


def _scalar_mismatch(actual, expected, rtol, atol, equality: bool) -> str:
    """torch's message for two mismatching scalars (Python numbers or 0-d tensors)."""
    abs_diff = abs(actual - expected)
    rel_diff = float("inf") if expected == 0 else abs_diff / abs(expected)
    allowed_a = "" if equality else f" (up to {atol} allowed)"
    allowed_r = "" if equality else f" (up to {rtol} allowed)"
    return (f"Scalars are not {'equal' if equality else 'close'}!\n\nExpected {expected} but got {actual}.\n"
            f"Absolute difference: {abs_diff}{allowed_a}\nRelative difference: {rel_diff}{allowed_r}")


def assert_close(actual: Any, expected: Any, *, allow_subclasses: bool = True, rtol: float | None = None,
                 atol: float | None = None, equal_nan: bool = False, check_device: bool = True,
                 check_dtype: bool = True, check_layout: bool = True, check_stride: bool = False,
                 msg: str | None = None) -> None:
    """Raise AssertionError unless ``actual`` and ``expected`` are close (tensors, numbers, nested sequences/maps).

    >>> import retrograd as torch
    >>> torch.testing.assert_close(torch.tensor(1.0), torch.tensor(1.0 + 1e-7))
    """
    if (rtol is None) != (atol is None):
        raise ValueError(f"Both 'rtol' and 'atol' must be either specified or omitted, but got no {'rtol' if rtol is None else 'atol'}.")
    stack = [(actual, expected, ())]
    while stack:
        a, e, path = stack.pop()
        if isinstance(a, Tensor) or isinstance(e, Tensor):
            if not isinstance(a, Tensor) or not isinstance(e, Tensor):
                _fail(msg, f"Both inputs have different types: {type(a)} and {type(e)}.")
            _compare_tensors(a, e, rtol, atol, equal_nan, check_dtype, msg)
        elif isinstance(a, collections.abc.Mapping) and isinstance(e, collections.abc.Mapping):
            if set(a) != set(e):
                _fail(msg, f"The keys of the mappings do not match:\n{sorted(map(str, a))} != {sorted(map(str, e))}")
            for k in a:
                stack.append((a[k], e[k], path + (k,)))
        elif isinstance(a, collections.abc.Sequence) and not isinstance(a, str) and \
                isinstance(e, collections.abc.Sequence) and not isinstance(e, str):
            if len(a) != len(e):
                _fail(msg, f"The length of the sequences mismatch: {len(a)} != {len(e)}")
            for i, (x, y) in enumerate(zip(a, e)):
                stack.append((x, y, path + (i,)))
        elif isinstance(a, (int, float, bool, np.number)) and isinstance(e, (int, float, bool, np.number)):
            if check_dtype and type(a) is not type(e) and not (isinstance(a, np.number) or isinstance(e, np.number)):
                _fail(msg, f"The values for attribute 'dtype' do not match: {type(a)} != {type(e)}.")
            from .._creation import tensor

            kind = "float64" if isinstance(a, float) or isinstance(e, float) else "int64"
            r, t = (rtol, atol) if rtol is not None else _default_tol(kind if kind == "float64" else "int")
            ta, te = tensor(a, dtype=None), tensor(e, dtype=None)
            _compare_tensors(ta.double() if kind == "float64" else ta, te.double() if kind == "float64" else te,
                             r, t, equal_nan, False, msg)
        elif a is None and e is None:
            continue
        else:
            if a != e:
                _fail(msg, f"Inputs are not equal: {a!r} != {e!r}")


def assert_allclose(actual, expected, rtol=None, atol=None, equal_nan=True, msg="") -> None:
    """Deprecated torch.testing.assert_allclose (dtype-lenient assert_close)."""
    from .._creation import as_tensor

    a = actual if isinstance(actual, Tensor) else as_tensor(actual)
    e = expected if isinstance(expected, Tensor) else as_tensor(expected, dtype=a.dtype)
    assert_close(a, e, rtol=rtol, atol=atol, equal_nan=equal_nan, check_dtype=False, msg=msg or None)
