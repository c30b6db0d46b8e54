"""Sort/argsort/msort, topk, kthvalue, median/nanmedian, mode, unique/unique_consecutive,
searchsorted, bucketize."""
from __future__ import annotations

import builtins as _b

import numpy as np

from .. import return_types as RT
from .._layout import like_input
from .._tensor import Tensor
from . import _stl_order as _stl
from ._common import shape_str, wrap_dim
from ._out import declares_out, values_indices_out, with_out
from ._registry import apply, primitive
from .reduction import _argsort_np, _dim_setup, _evenly, _isnan, _long, _selecting, _take_k, _values_indices
from .scatter import _not_implemented, _wrap

__all__ = ["searchsorted", "bucketize", "unique", "unique_consecutive", "median", "nanmedian", "mode", "sort",
           "argsort", "topk", "kthvalue"]


def _int_out(a: np.ndarray, out_int32: bool) -> Tensor:
    return _wrap(np.asarray(a, dtype=np.int32 if out_int32 else np.int64), False, None, 0)


def _bisect(seq: np.ndarray, vals: np.ndarray, right: bool, sorter: np.ndarray | None) -> np.ndarray:
    """PyTorch's searchsorted kernel, vectorised: per row of ``seq`` (2-d) a binary search for each
    value of the matching row of ``vals``.  The tests are ``!(mid >= v)`` (left) and ``!(mid > v)``
    (right), so NaN on either side steers right exactly as in the C++ loop; an unsorted ``seq`` gives
    the same (meaningless) answer PyTorch gives."""
    rows, n = seq.shape
    start = np.zeros(vals.shape, dtype=np.int64)
    end = np.full(vals.shape, n, dtype=np.int64)
    with np.errstate(invalid="ignore"):
        while True:
            active = start < end
            if not active.any():
                return start
            mid = start + ((end - start) >> 1)
            pos = np.minimum(mid, n - 1)
            if sorter is not None:
                pos = np.take_along_axis(sorter, pos, -1)
            mv = np.take_along_axis(seq, pos, -1)
            go_right = ~(mv > vals) if right else ~(mv >= vals)
            start = np.where(active & go_right, mid + 1, start)
            end = np.where(active & ~go_right, mid, end)


def _search_out(result: Tensor, out: Tensor) -> None:
    if out._data.dtype != result._data.dtype:
        from .._tensor import _scalar_type_name

        raise RuntimeError(
            "torch.searchsorted(): output tensor's dtype is wrong, it can only be Int(int32) or Long(int64) "
            f"depending on whether out_int32 flag is True, but we got output tensor's dtype "
            f"{_scalar_type_name(out.dtype)} and out_int32 flag is {result._data.dtype == np.int32}")


@with_out("searchsorted", _search_out, grad_check=False)
def searchsorted(sorted_sequence: Tensor, input, *, out_int32: bool = False, right: bool = False,
                 side: str | None = None, sorter: Tensor | None = None, out=None) -> Tensor:
    """Indices where ``input`` would be inserted into the innermost dim of ``sorted_sequence``.

    >>> import retrograd as torch
    >>> torch.searchsorted(torch.tensor([1, 3, 5]), torch.tensor([3, 6]))
    tensor([1, 3])
    """
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, got side of left "
                               "while right was True")
        right = side == "right"
    seq = sorted_sequence._data
    srt = None if sorter is None else sorter._data.astype(np.int64)
    scalar = not isinstance(input, Tensor)
    vals = np.asarray(input) if scalar else input._data
    if seq.ndim <= 1:
        s2 = seq.reshape(1, -1)
        v2 = vals.reshape(1, -1)
        res = _bisect(s2, v2, right, None if srt is None else srt.reshape(1, -1)) if s2.shape[1] else \
            np.zeros(v2.shape, dtype=np.int64)
        return _int_out(res.reshape(vals.shape), out_int32)
    if scalar or vals.ndim != seq.ndim or vals.shape[:-1] != seq.shape[:-1]:
        raise RuntimeError(
            "torch.searchsorted(): boundaries tensor should be 1 dimension or the first N-1 dimensions of boundaries "
            f"tensor and input value tensor must match, but we got boundaries tensor {shape_str(seq.shape)} and "
            f"input value tensor {shape_str(vals.shape)}")
    rows = int(np.prod(seq.shape[:-1]))
    s2 = seq.reshape(rows, seq.shape[-1])
    v2 = vals.reshape(rows, vals.shape[-1])
    if s2.shape[1] == 0 or v2.size == 0:
        res = np.zeros(v2.shape, dtype=np.int64)
    else:
        res = _bisect(s2, v2, right, None if srt is None else srt.reshape(rows, -1))
    return _int_out(res.reshape(vals.shape), out_int32)


@with_out("bucketize", _search_out, grad_check=False)
def bucketize(input, boundaries: Tensor, *, out_int32: bool = False, right: bool = False) -> Tensor:
    """Bucket index of each element of ``input`` given 1-d ``boundaries``.

    ``right=False``: ``boundaries[i-1] < x <= boundaries[i]``; ``right=True``: ``boundaries[i-1] <= x < boundaries[i]``.

    >>> import retrograd as torch
    >>> torch.bucketize(torch.tensor([1, 4, 9]), torch.tensor([1, 3, 5, 7]))
    tensor([0, 2, 4])
    """
    if boundaries._data.ndim != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim({boundaries._data.ndim})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right)


# ---------------------------------------------------------------- unique
def _unique_op(name: str, node: str, msg: str):
    return primitive(name, lambda a, *, values: values, node=node,
                     a=_not_implemented(msg, NotImplementedError))


_unique2 = _unique_op("unique", "Unique2Backward0", "the derivative for '_unique2' is not implemented.")
_unique_dim = _unique_op("unique_dim", "UniqueDimBackward0", "the derivative for 'unique_dim' is not implemented.")
_unique_consec = _unique_op("unique_consecutive", "UniqueConsecutiveBackward0",
                            "the derivative for 'unique_consecutive' is not implemented.")


def _unique_result(op, input: Tensor, values, inverse, counts, return_inverse, return_counts):
    out = apply(op, (input,), {"values": values})
    if not (return_inverse or return_counts):
        return out
    res = [out]
    if return_inverse:
        res.append(_wrap(np.asarray(inverse, dtype=np.int64), False, None, 0))
    if return_counts:
        res.append(_wrap(np.asarray(counts, dtype=np.int64), False, None, 0))
    return tuple(res)


def _unique_dim_check(a: np.ndarray, dim, name: str) -> int:
    if a.ndim == 0:
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    d = wrap_dim(dim, a.ndim)
    if a.size == 0:
        if a.shape[d] != 0:
            raise RuntimeError("There are 0 sized dimensions, and they aren't selected, so unique cannot be applied")
        if sum(1 for s in a.shape if s == 0) > 1:
            raise RuntimeError("Number of zero sized dimensions is more than one, so unique cannot be applied ")
    return d


class _LexRow:
    """A slice under unique_dim's comparator: the first element that is ``<`` or ``>`` decides
    (NaN is neither, so it never decides)."""

    __slots__ = ("v",)

    def __init__(self, v: list) -> None:
        self.v = v

    def __lt__(self, other: "_LexRow") -> bool:
        for x, y in zip(self.v, other.v):
            if x < y:
                return True
            if x > y:
                return False
        return False


def _runs(srt: np.ndarray) -> np.ndarray:
    """Start flags of runs of equal consecutive rows of a 2-d array (NaN never equals NaN)."""
    if srt.shape[0] == 0:
        return np.zeros(0, dtype=bool)
    return np.concatenate([[True], (srt[1:] != srt[:-1]).any(axis=1)])


def unique(input: Tensor, sorted: bool = True, return_inverse: bool = False, return_counts: bool = False,
           dim: int | None = None):
    """Sorted unique elements (or unique slices along ``dim``), optionally with inverse indices and counts.

    Like PyTorch's CPU kernel it sorts with std::sort (replayed, see ``_stl_order``) and keeps the first
    element of each run, so each NaN is its own entry and a run of 0.0 / -0.0 shows the sign PyTorch
    shows; ``sorted=False`` gives the same sorted result, as PyTorch's CPU kernel does.

    >>> import retrograd as torch
    >>> torch.unique(torch.tensor([3, 1, 3]), return_counts=True)
    (tensor([1, 3]), tensor([1, 2]))
    """
    from . import _stl_order as stl

    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        order = _sort_indices(flat, 0, False, False) if flat.size else np.zeros(0, dtype=np.int64)
        srt = flat[order]
        start = _runs(srt.reshape(-1, 1))
        group = np.cumsum(start) - 1
        inv = np.empty(flat.size, dtype=np.int64)
        inv[order] = group
        cnt = np.diff(np.append(np.flatnonzero(start), flat.size))
        return _unique_result(_unique2, input, srt[start], inv.reshape(a.shape), cnt, return_inverse, return_counts)
    d = _unique_dim_check(a, dim, "unique")
    m = np.moveaxis(a, d, 0)
    rows = m.reshape(m.shape[0], int(np.prod(m.shape[1:])))
    if rows.shape[1] and rows.shape[0] > 1:
        if rows.dtype.kind == "f" and np.isnan(rows).any():
            keys = [_LexRow(r) for r in rows.tolist()]
        else:  # dense ranks make Python's tuple order the kernel's lexicographic one
            ranks = stl.dense_ranks(rows.reshape(1, -1))[0].reshape(rows.shape)
            keys = [tuple(r) for r in ranks.tolist()]
        order = np.asarray(stl.sort_order(keys), dtype=np.int64)
    else:
        order = np.arange(rows.shape[0])
    srt = rows[order]
    start = _runs(srt)
    inv = np.empty(rows.shape[0], dtype=np.int64)
    inv[order] = np.cumsum(start) - 1
    cnt = np.diff(np.append(np.flatnonzero(start), rows.shape[0]))
    vals = np.moveaxis(np.take(m, order[start], axis=0), 0, d)
    return _unique_result(_unique_dim, input, vals, inv, cnt, return_inverse, return_counts)


def unique_consecutive(input: Tensor, return_inverse: bool = False, return_counts: bool = False,
                       dim: int | None = None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``); NaN never equals NaN.

    >>> import retrograd as torch
    >>> torch.unique_consecutive(torch.tensor([1, 1, 2, 1]))
    tensor([1, 2, 1])
    """
    a = input._data
    if dim is None:
        flat = a.reshape(-1)
        change = _runs(flat.reshape(-1, 1))
        vals = flat[change]
        inv = (np.cumsum(change) - 1).reshape(a.shape)
    else:
        d = _unique_dim_check(a, dim, "unique_consecutive")
        m = np.moveaxis(a, d, 0)
        change = _runs(m.reshape(m.shape[0], int(np.prod(m.shape[1:]))))
        vals = np.compress(change, a, axis=d)
        inv = np.cumsum(change) - 1
    starts = np.flatnonzero(change)
    cnt = np.diff(np.append(starts, change.size))
    return _unique_result(_unique_consec, input, vals, inv, cnt, return_inverse, return_counts)


_median_dim_op = _selecting("median_dim", "MedianBackward1")
_nanmedian_dim_op = _selecting("nanmedian_dim", "NanmedianBackward1")
_mode = _selecting("mode", "ModeBackward0")
_kthvalue = _selecting("kthvalue", "KthvalueBackward0")
_sort = _selecting("sort", "SortBackward0")
_sort_stable = _selecting("sort_stable", "SortBackward1")
_topk = _selecting("topk", "TopkBackward0")


# ---------------------------------------------------------------- order statistics
_median_all = primitive("median", lambda a: _median_value(a), node="MedianBackward0",
                        a=lambda g, a, out: _evenly(g, a, out))
_nanmedian_all = primitive("nanmedian", lambda a: _median_value(a, True), node="NanmedianBackward0",
                           a=lambda g, a, out: _evenly(g, a, out))


def _nan_as(dtype) -> np.ndarray:
    """NaN converted to ``dtype`` the way PyTorch's kernel does (C++ float -> int: INT_MIN for 32 and
    64 bit integers, 0 once narrowed further)."""
    if dtype.kind == "f":
        return np.asarray(np.nan, dtype=dtype)
    return np.asarray(np.iinfo(dtype).min if dtype.itemsize >= 4 else 0, dtype=dtype)


def _median_value(a: np.ndarray, ignore_nan: bool = False) -> np.ndarray:
    flat = a.reshape(-1)
    nan = _isnan(flat)
    if nan.any() and not ignore_nan:
        return np.asarray(np.nan, dtype=a.dtype)
    vals = flat[~nan] if ignore_nan else flat
    if vals.size == 0:
        return _nan_as(a.dtype)
    # (an index, not np.sort / np.partition: NumPy's SIMD sorts may turn 0.0 into -0.0)
    med = vals[np.argpartition(vals, (vals.size - 1) // 2)[(vals.size - 1) // 2]]
    if med == 0 and a.dtype.kind == "f":
        zeros = np.signbit(vals[vals == 0])
        if zeros.any() and not zeros.all():  # 0.0 and -0.0 tie: which one is reported is a replay question
            med = _median_zero(a.ravel(order="K"), ignore_nan)  # (PyTorch's clone keeps the memory order)
    return np.asarray(med, dtype=a.dtype)


def _median_zero(flat: np.ndarray, ignore_nan: bool):
    """The element PyTorch's full median reports: std::nth_element over the whole copy (NaN ordered
    last) with the median position counted among the non-NaN values (nanmedian) or all of them."""
    n = flat.size
    nth = (n - (int(_isnan(flat).sum()) if ignore_nan else 0) - 1) // 2
    r = _stl.Replay(_stl.row_keys(flat, False))
    r.nth_element(0, nth, n)
    return flat[r.i[nth]]


def _median_dim(input: Tensor, dim, keepdim: bool, ignore_nan: bool):
    if input._data.dtype == np.bool_:
        raise NotImplementedError("\"median_out\" not implemented for 'Bool'")
    a, d = _dim_setup(input, dim, "median")  # (nanmedian's message says median too)
    order = np.argsort(a, axis=d, kind="stable")  # NaN last
    nan = _isnan(a)
    n_ok = (~nan).sum(axis=d)
    if ignore_nan:
        k = np.maximum(n_ok - 1, 0) // 2
        idx = _take_k(order, d, k)
    else:
        idx = _take_k(order, d, (a.shape[d] - 1) // 2)
        has_nan = nan.any(axis=d, keepdims=True)
        idx = np.where(has_nan, np.expand_dims(np.argmax(nan, axis=d), d), idx)
    cls, op = (RT.nanmedian, _nanmedian_dim_op) if ignore_nan else (RT.median, _median_dim_op)
    return _values_indices(cls, op, input, d, idx, keepdim)


@values_indices_out("median", "median")
def median(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """Lower median of all elements, or ``(values, indices)`` along ``dim``; NaN propagates."""
    if dim is None:
        if input._data.dtype == np.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        return apply(_median_all, (input,))
    return _median_dim(input, dim, keepdim, False)


@values_indices_out("nanmedian", "median")
def nanmedian(input: Tensor, dim: int | None = None, keepdim: bool = False):
    """Median ignoring NaN (all-NaN slices give NaN), or ``(values, indices)`` along ``dim``."""
    if dim is None:
        if input._data.dtype == np.bool_:
            raise NotImplementedError("\"median_cpu\" not implemented for 'Bool'")
        return apply(_nanmedian_all, (input,))
    return _median_dim(input, dim, keepdim, True)


def _as_rows(a: np.ndarray, d: int) -> np.ndarray:
    """``a`` with ``d`` moved last, as a 2-d (slices, length) array."""
    m = np.moveaxis(a, d, -1)
    return m.reshape(_b.int(np.prod(m.shape[:-1])), m.shape[-1])  # (explicit: -1 is ambiguous when empty)


def _from_rows(rows: np.ndarray, like_shape: tuple, d: int) -> np.ndarray:
    """Inverse of :func:`_as_rows`: ``rows`` back to ``like_shape`` (whose length along ``d`` is the rows')."""
    moved = tuple(s for i, s in enumerate(like_shape) if i != d) + (rows.shape[1],)
    return np.moveaxis(rows.reshape(moved), -1, d)


def _sort_indices(a1: np.ndarray, d: int, descending: bool, stable: bool) -> np.ndarray:
    """PyTorch's CPU sort indices: std::stable_sort when ``stable``, else std::sort, whose order among
    tied values we replay (only on slices longer than 16, where it stops being an insertion sort)."""
    n = a1.shape[d]
    if stable or n <= _stl.SORT_THRESHOLD or a1.size == 0:
        return _argsort_np(a1, d, descending)
    rows = _as_rows(a1, d)
    asc = np.argsort(rows, axis=-1)  # NaN last; any order is right for a slice without ties
    need = np.flatnonzero(_stl.adjacent_ties(np.take_along_axis(rows, asc, -1)).any(-1))
    if not _stl.affordable(need.size, n):
        return _argsort_np(a1, d, descending)  # (stable order: see _stl_order.REPLAY_BUDGET)
    out = asc[:, ::-1] if descending else asc
    if need.size:
        out = out.copy()
        for r in need:
            out[r] = _stl.sort_order(_stl.row_keys(rows[r], descending))
    return _from_rows(out, a1.shape, d)


def _mode_index(row: np.ndarray) -> int:
    """PyTorch's CPU mode on one slice: std::sort of (value, index) pairs by value with a plain ``<``
    (NaN compares false both ways), then the first longest run of equal values, its last index."""
    n = row.size
    if not _isnan(row).any():
        _, inv, counts = np.unique(row, return_inverse=True, return_counts=True)
        best = int(np.argmax(counts))  # first longest run: the smallest such value
        if counts[best] == 1 or n <= _stl.SORT_THRESHOLD:  # unique, or an insertion sort: stable
            return int(np.flatnonzero(inv.reshape(-1) == best)[-1])
        keys = inv.reshape(-1).tolist()
    else:
        keys = row.tolist()  # raw floats: Python's NaN comparisons are C++'s
    try:
        order = _stl.sort_order(keys)
    except IndexError:  # NaN can break std::sort's unguarded loops (undefined behaviour in C++)
        order = np.argsort(row, kind="stable").tolist()
    srt = row[order].tolist()
    best_n, best_i, run = 0, 0, 0
    for i in range(n):
        run += 1
        if i == n - 1 or srt[i] != srt[i + 1]:
            if run > best_n:
                best_n, best_i = run, order[i]
            run = 0
    return int(best_i)


@values_indices_out("mode")
def mode(input: Tensor, dim: int = -1, keepdim: bool = False):
    """Most frequent value along ``dim`` (smallest on ties) and the index PyTorch reports for it,
    as ``(values, indices)``.

    >>> import retrograd as torch
    >>> torch.mode(torch.tensor([2, 1, 2, 1, 3])).indices
    tensor(3)
    """
    a, d = _dim_setup(input, dim, "mode")
    rows = _as_rows(a, d)
    idx = np.fromiter((_mode_index(row) for row in rows), dtype=np.int64, count=rows.shape[0])
    idx = _from_rows(idx.reshape(-1, 1), a.shape[:d] + (1,) + a.shape[d + 1:], d)
    return _values_indices(RT.mode, _mode, input, d, idx, keepdim)


def _kthvalue_out(result: Tensor, out: Tensor) -> None:
    if out._data.dtype != result._data.dtype:
        raise RuntimeError("output values must be of same type as input")


@declares_out("same", tuple_mode="same")
def sort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False, out=None):
    """Sorted values along ``dim`` and their original indices, as ``(values, indices)``.

    Tied values come out in the order PyTorch's CPU kernel leaves them (stable for ``stable=True`` or
    slices of at most 16 elements); NaN sorts as the largest value.

    >>> import retrograd as torch
    >>> torch.sort(torch.tensor([3., 1., 2.])).indices
    tensor([1, 2, 0])
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    idx = _sort_indices(a1, d, bool(descending), bool(stable))
    r = _values_indices(RT.sort, _sort_stable if stable else _sort, input, d, idx, True)
    if not a.flags.c_contiguous:  # both results laid out as PyTorch's empty_like(input), not row-major
        for t in r:
            t._data = like_input(t._data, a)
    return r


def argsort(input: Tensor, dim: int = -1, descending: bool = False, *, stable: bool = False) -> Tensor:
    """The indices that sort ``input`` along ``dim`` (``sort(...).indices``).

    >>> import retrograd as torch
    >>> torch.argsort(torch.tensor([3., 1., 2.]))
    tensor([1, 2, 0])
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    idx = _sort_indices(a.reshape(1) if a.ndim == 0 else a, d, bool(descending), bool(stable))
    return _long(idx.reshape(a.shape))


def _topk_indices(a1: np.ndarray, d: int, k: int, largest: bool, sorted: bool) -> np.ndarray:
    """Indices (kept-dim layout) of PyTorch's CPU topk.  The kernel runs std::partial_sort when
    ``64 * k <= n`` and else std::nth_element (+ std::sort of the first k - 1 when ``sorted``).  A
    slice whose k + 1 most extreme values are distinct has one answer, which NumPy gives, except
    that an unsorted nth_element result keeps the algorithm's own order, so that case is replayed."""
    n = a1.shape[d]
    rows = _as_rows(a1, d)
    if k == 0 or rows.size == 0:
        return _from_rows(np.zeros((rows.shape[0], k), dtype=np.int64), a1.shape[:d] + (k,) + a1.shape[d + 1:], d)
    m = k + 1 if k < n else n  # the candidates: the k picked and the first one left out
    if m < n:  # (np.argpartition, like np.sort, puts NaN last)
        cand = np.argpartition(rows, n - m if largest else m - 1, axis=-1)
        cand = cand[:, n - m:] if largest else cand[:, :m]
    else:
        cand = np.broadcast_to(np.arange(n), rows.shape)
    o = np.argsort(np.take_along_axis(rows, cand, -1), axis=-1)
    cand = np.take_along_axis(cand, o[:, ::-1] if largest else o, -1)
    out = cand[:, :k]
    if not sorted and k > 1 and k * 64 > n:
        need = np.arange(rows.shape[0])  # nth_element's own order: every slice
    else:
        need = np.flatnonzero(_stl.adjacent_ties(np.take_along_axis(rows, cand, -1)).any(-1))
    if need.size and _stl.affordable(need.size, n):
        out = out.copy()
        for r in need:
            out[r] = _stl.topk_order(_stl.row_keys(rows[r], largest), k, sorted)
    return _from_rows(out, a1.shape[:d] + (k,) + a1.shape[d + 1:], d)


@declares_out("same", tuple_mode="same")
def topk(input: Tensor, k: int, dim: int = -1, largest: bool = True, sorted: bool = True):
    """The ``k`` largest (or smallest) values along ``dim`` and their indices, as ``(values, indices)``.

    Among tied values the indices are those PyTorch's CPU kernel picks; NaN counts as the largest.

    >>> import retrograd as torch
    >>> torch.topk(torch.tensor([1, 3, 3, 2, 3]), 2).indices
    tensor([2, 4])
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    if k < 0 or k > a1.shape[d]:
        raise RuntimeError("selected index k out of range")
    if a.dtype == np.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    if a.ndim == 0:  # k 0 or 1: the element itself (PyTorch returns it even for k = 0)
        return _values_indices(RT.topk, _topk, input, 0, np.zeros((1,), dtype=np.int64), True)
    idx = _topk_indices(a1, d, int(k), bool(largest), bool(sorted))
    return _values_indices(RT.topk, _topk, input, d, idx, True)


@declares_out("same", tuple_mode=_kthvalue_out, full_overlap=True)
def kthvalue(input: Tensor, k: int, dim: int = -1, keepdim: bool = False):
    """The ``k``-th smallest value along ``dim`` (1-based) and its index, as ``(values, indices)``.

    >>> import retrograd as torch
    >>> torch.tensor([3., 1., 2.]).kthvalue(2)
    torch.return_types.kthvalue(
    values=tensor(2.),
    indices=tensor(2))
    """
    a = input._data
    d = wrap_dim(dim, a.ndim)
    a1 = a.reshape(1) if a.ndim == 0 else a
    if a.dtype == np.bool_:
        raise NotImplementedError("\"kthvalue_cpu\" not implemented for 'Bool'")
    if a1.shape[d] == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if k < 1 or k > a1.shape[d]:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    rows = _as_rows(a1, d)
    pos = np.argpartition(rows, k - 1, axis=-1)[:, k - 1:k]  # (NaN last, as in PyTorch)
    # Among tied values PyTorch returns whichever its quickselect leaves at k: replay it on slices
    # where the k-th value occurs more than once.
    kv = np.take_along_axis(rows, pos, -1)
    same = rows == kv
    if rows.dtype.kind == "f":
        same |= np.isnan(rows) & np.isnan(kv)
    need = np.flatnonzero(same.sum(-1) > 1)
    if need.size and _stl.affordable(need.size, rows.shape[-1]):
        pos = pos.copy()
        for r in need:
            pos[r, 0] = _stl.quick_select(_stl.row_keys(rows[r], False), k - 1)
    idx = _from_rows(pos, a1.shape[:d] + (1,) + a1.shape[d + 1:], d)
    return _values_indices(RT.kthvalue, _kthvalue, input, d, idx, keepdim)
