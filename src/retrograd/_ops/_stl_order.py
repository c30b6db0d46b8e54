"""Replays of the libstdc++ ordering algorithms PyTorch's CPU kernels run, so tie choices match.

When values tie, which index ``sort`` / ``topk`` / ``kthvalue`` report depends on the exact swap
sequence of the C++ algorithm PyTorch runs on each slice (``std::sort``, ``std::partial_sort``,
``std::nth_element``, ATen's own quickselect).  Without ties the answer is unique and a NumPy sort
gives it, so callers use these replays only on the slices that need them.

The algorithms run on *keys*: dense integer ranks (equal values share a rank, every NaN gets the
top rank), negated for the descending / largest comparators.  PyTorch's NaN-aware comparators then
become a plain ``<`` on integers.
"""
from __future__ import annotations

import numpy as np

__all__ = ["dense_ranks", "adjacent_ties", "row_keys", "Replay", "topk_order", "sort_order", "quick_select",
           "affordable"]

# The replays run in Python (~0.5 µs per element step).  Past this many elements to replay in
# one call, ties keep NumPy's (stable) order instead: an unstable sort's order among equal
# values is unspecified, so only exact-equality comparisons with torch can tell, and a 1000 x
# 1000 tie-heavy sort stays ~40 ms instead of ~0.5 s.
REPLAY_BUDGET = 1 << 16


def affordable(rows: int, length: int) -> bool:
    """Whether replaying ``rows`` slices of ``length`` elements stays within REPLAY_BUDGET."""
    return rows * length <= REPLAY_BUDGET

SORT_THRESHOLD = 16  # libstdc++'s _S_threshold: below it std::sort finishes by insertion sort


def dense_ranks(a: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """(ranks, tie flags) along the last axis of a 2-d array.

    ``ranks`` has ``a``'s shape: 0 for the smallest value of each row, equal values equal ranks,
    -0.0 == 0.0, NaN above everything.  ``tie flags`` (one per row, sorted adjacent pairs) says where a
    rank repeats.
    """
    order = np.argsort(a, axis=-1, kind="stable")  # NaN last
    srt = np.take_along_axis(a, order, -1)
    diff = srt[:, 1:] != srt[:, :-1]
    if a.dtype.kind == "f":
        diff &= ~(np.isnan(srt[:, 1:]) & np.isnan(srt[:, :-1]))
    rs = np.zeros(a.shape, dtype=np.int64)
    if a.shape[-1] > 1:
        np.cumsum(diff, axis=-1, out=rs[:, 1:])
    ranks = np.empty_like(rs)
    np.put_along_axis(ranks, order, rs, -1)
    return ranks, ~diff


def adjacent_ties(srt: np.ndarray) -> np.ndarray:
    """Along the last axis of a sorted array: is each element equal to the next (NaN equals NaN)?"""
    eq = srt[..., 1:] == srt[..., :-1]
    if srt.dtype.kind == "f":
        eq |= np.isnan(srt[..., 1:]) & np.isnan(srt[..., :-1])
    return eq


def row_keys(row: np.ndarray, negate: bool) -> list:
    """Dense-rank keys of one 1-d slice (see the module docstring), as a list for the replays."""
    ranks, _ = dense_ranks(row.reshape(1, -1))
    return (-ranks[0] if negate else ranks[0]).tolist()


class Replay:
    """libstdc++'s algorithms on parallel key / index lists, comparator ``key_a < key_b``."""

    def __init__(self, keys: list) -> None:
        self.k = list(keys)  # sorted in place: never the caller's list
        self.i = list(range(len(keys)))

    def _swap(self, a: int, b: int) -> None:
        k, i = self.k, self.i
        k[a], k[b] = k[b], k[a]
        i[a], i[b] = i[b], i[a]

    def _move(self, dst: int, src: int) -> None:
        self.k[dst] = self.k[src]
        self.i[dst] = self.i[src]

    # ---- heaps (std::__adjust_heap / __push_heap / __make_heap / __pop_heap / __sort_heap)
    def _push_heap(self, first: int, hole: int, top: int, vk, vi) -> None:
        k = self.k
        parent = (hole - 1) // 2
        while hole > top and k[first + parent] < vk:
            self._move(first + hole, first + parent)
            hole = parent
            parent = (hole - 1) // 2
        k[first + hole] = vk
        self.i[first + hole] = vi

    def _adjust_heap(self, first: int, hole: int, length: int, vk, vi) -> None:
        k = self.k
        top = hole
        child = hole
        while child < (length - 1) // 2:
            child = 2 * (child + 1)
            if k[first + child] < k[first + child - 1]:
                child -= 1
            self._move(first + hole, first + child)
            hole = child
        if (length & 1) == 0 and child == (length - 2) // 2:
            child = 2 * (child + 1)
            self._move(first + hole, first + child - 1)
            hole = child - 1
        self._push_heap(first, hole, top, vk, vi)

    def _make_heap(self, first: int, last: int) -> None:
        length = last - first
        if length < 2:
            return
        parent = (length - 2) // 2
        while True:
            self._adjust_heap(first, parent, length, self.k[first + parent], self.i[first + parent])
            if parent == 0:
                return
            parent -= 1

    def _pop_heap(self, first: int, last: int, result: int) -> None:
        vk, vi = self.k[result], self.i[result]
        self._move(result, first)
        self._adjust_heap(first, 0, last - first, vk, vi)

    def heap_select(self, first: int, middle: int, last: int) -> None:
        self._make_heap(first, middle)
        k = self.k
        for j in range(middle, last):
            if k[j] < k[first]:
                self._pop_heap(first, middle, j)

    def sort_heap(self, first: int, last: int) -> None:
        while last - first > 1:
            last -= 1
            self._pop_heap(first, last, last)

    def partial_sort(self, first: int, middle: int, last: int) -> None:
        self.heap_select(first, middle, last)
        self.sort_heap(first, middle)

    # ---- insertion sorts
    def _linear_insert(self, pos: int) -> None:  # std::__unguarded_linear_insert
        k, ix = self.k, self.i
        vk, vi = k[pos], ix[pos]
        nxt = pos - 1
        while vk < k[nxt]:
            k[pos], ix[pos] = k[nxt], ix[nxt]
            pos, nxt = nxt, nxt - 1
        k[pos], ix[pos] = vk, vi

    def insertion_sort(self, first: int, last: int) -> None:
        if first == last:
            return
        k, ix = self.k, self.i
        for j in range(first + 1, last):
            vk = k[j]
            if vk < k[first]:
                vi = ix[j]
                k[first + 1:j + 1] = k[first:j]
                ix[first + 1:j + 1] = ix[first:j]
                k[first], ix[first] = vk, vi
            else:
                self._linear_insert(j)

    # ---- partitioning (std::__move_median_to_first / __unguarded_partition_pivot)
    def _move_median_to_first(self, result: int, a: int, b: int, c: int) -> None:
        k = self.k
        if k[a] < k[b]:
            if k[b] < k[c]:
                self._swap(result, b)
            elif k[a] < k[c]:
                self._swap(result, c)
            else:
                self._swap(result, a)
        elif k[a] < k[c]:
            self._swap(result, a)
        elif k[b] < k[c]:
            self._swap(result, c)
        else:
            self._swap(result, b)

    def _partition_pivot(self, first: int, last: int) -> int:
        mid = first + (last - first) // 2
        self._move_median_to_first(first, first + 1, mid, last - 1)
        k, ix = self.k, self.i
        pk = k[first]  # the pivot stays at ``first`` during the partition
        lo, hi = first + 1, last
        while True:
            while k[lo] < pk:
                lo += 1
            hi -= 1
            while pk < k[hi]:
                hi -= 1
            if not lo < hi:
                return lo
            k[lo], k[hi] = k[hi], k[lo]
            ix[lo], ix[hi] = ix[hi], ix[lo]
            lo += 1

    # ---- std::sort (introsort) and std::nth_element (introselect)
    def sort(self, first: int, last: int) -> None:
        if first == last:
            return
        self._introsort(first, last, 2 * ((last - first).bit_length() - 1))
        if last - first > SORT_THRESHOLD:
            self.insertion_sort(first, first + SORT_THRESHOLD)
            for j in range(first + SORT_THRESHOLD, last):
                self._linear_insert(j)
        else:
            self.insertion_sort(first, last)

    def _introsort(self, first: int, last: int, depth: int) -> None:
        while last - first > SORT_THRESHOLD:
            if depth == 0:
                self.partial_sort(first, last, last)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            self._introsort(cut, last, depth)
            last = cut

    def nth_element(self, first: int, nth: int, last: int) -> None:
        if first == last or nth == last:
            return
        depth = 2 * ((last - first).bit_length() - 1)
        while last - first > 3:
            if depth == 0:
                self.heap_select(first, nth + 1, last)
                self._swap(first, nth)
                return
            depth -= 1
            cut = self._partition_pivot(first, last)
            if cut <= nth:
                first = cut
            else:
                last = cut
        self.insertion_sort(first, last)


def sort_order(keys: list) -> list:
    """Indices in the order ``std::sort`` leaves them (comparator ``key_a < key_b``)."""
    r = Replay(keys)
    r.sort(0, len(keys))
    return r.i


def topk_order(keys: list, k: int, sorted: bool) -> list:
    """The ``k`` indices, in output order, that PyTorch's CPU topk kernel picks (keys ascend toward the
    wanted end): ``std::partial_sort`` when ``64 * k <= n``, else ``std::nth_element`` followed, when
    ``sorted``, by ``std::sort`` of the first ``k - 1``."""
    n = len(keys)
    r = Replay(keys)
    if k == 0:
        return []
    if k * 64 <= n:
        r.partial_sort(0, k, n)
    else:
        r.nth_element(0, k - 1, n)
        if sorted:
            r.sort(0, k - 1)
    return r.i[:k]


def quick_select(keys: list, k: int) -> int:
    """ATen's quick_select_template (median of three, Hoare partition) on one slice: the original
    index it leaves at position ``k``."""
    arr = list(keys)
    ind = list(range(len(arr)))

    def swap(i, j):
        arr[i], arr[j] = arr[j], arr[i]
        ind[i], ind[j] = ind[j], ind[i]

    lo, hi = 0, len(arr) - 1
    while True:
        if hi <= lo:
            return ind[k]
        if hi == lo + 1:
            if arr[lo] > arr[hi]:
                swap(lo, hi)
            return ind[k]
        p = lo + (hi - lo) // 2
        swap(p, lo + 1)
        if arr[lo + 1] > arr[hi]:
            swap(lo + 1, hi)
        if arr[lo] > arr[hi]:
            swap(lo, hi)
        if arr[lo + 1] > arr[lo]:
            swap(lo + 1, lo)
        i, j = lo + 1, hi
        piv = arr[lo]
        while True:
            i += 1
            while piv > arr[i]:
                i += 1
            j -= 1
            while arr[j] > piv:
                j -= 1
            if j < i:
                break
            swap(i, j)
        swap(lo, j)
        if j <= k:
            lo = i
        if j >= k:
            hi = j - 1
