"""Which indices PyTorch's CPU ``topk`` picks from a 1-d array, ties included.

Pruning masks are built from ``topk`` over importance scores, and when scores tie at the
cut-off the chosen entries depend on the exact swap sequence of the C++ standard library
algorithm PyTorch runs (libstdc++ ``std::partial_sort`` when ``64 * k <= n``, otherwise
``std::nth_element``).  Without ties the answer is unique and a NumPy sort gives it; with a
tie at the cut-off we replay that algorithm on the values so the same entries are pruned.
"""
from __future__ import annotations

import numpy as np

__all__ = ["topk_indices"]


def _rank_keys(values: np.ndarray, largest: bool) -> list:
    # Dense ranks turn torch's NaN-aware comparator into a plain ``<`` on integers:
    # equal values get equal keys, NaN ranks above every number (torch treats it as largest).
    nan = np.isnan(values) if values.dtype.kind == "f" else np.zeros(values.shape, bool)
    ranks = np.empty(values.shape, dtype=np.int64)
    if (~nan).any():
        _, inv = np.unique(values[~nan], return_inverse=True)
        ranks[~nan] = inv.reshape(-1)
        top = int(inv.max()) + 1
    else:
        top = 0
    ranks[nan] = top
    return (-ranks if largest else ranks).tolist()


class _Selector:
    """libstdc++'s selection algorithms on parallel key / index lists, comparator ``key_a < key_b``."""

    def __init__(self, keys: list) -> None:
        self.k = keys
        self.i = list(range(len(keys)))

    def _swap(self, a: int, b: int) -> None:
        k, i = self.k, self.i
        k[a], k[b] = k[b], k[a]
        i[a], i[b] = i[b], i[a]

    def _move(self, dst: int, src: int) -> None:
        self.k[dst] = self.k[src]
        self.i[dst] = self.i[src]

    # ---- heaps (std::__adjust_heap / __push_heap / __make_heap / __pop_heap)
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

    def heap_select(self, first: int, middle: int, last: int) -> None:
        self._make_heap(first, middle)
        k = self.k
        for j in range(middle, last):
            if k[j] < k[first]:  # std::__pop_heap(first, middle, j)
                vk, vi = k[j], self.i[j]
                self._move(j, first)
                self._adjust_heap(first, 0, middle - first, vk, vi)

    # ---- introselect (std::nth_element)
    def _insertion_sort(self, first: int, last: int) -> None:
        if first == last:
            return
        k, ix = self.k, self.i
        for j in range(first + 1, last):
            vk, vi = k[j], ix[j]
            if vk < k[first]:
                k[first + 1:j + 1] = k[first:j]
                ix[first + 1:j + 1] = ix[first:j]
                k[first], ix[first] = vk, vi
            else:
                pos, nxt = j, j - 1
                while vk < k[nxt]:
                    self._move(pos, nxt)
                    pos, nxt = nxt, nxt - 1
                k[pos], ix[pos] = vk, vi

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
        k = self.k
        pivot, lo, hi = first, first + 1, last
        while True:
            while k[lo] < k[pivot]:
                lo += 1
            hi -= 1
            while k[pivot] < k[hi]:
                hi -= 1
            if not lo < hi:
                return lo
            self._swap(lo, hi)
            lo += 1

    def nth_element(self, nth: int) -> None:
        first, last = 0, len(self.k)
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
        self._insertion_sort(first, last)


def _same(a, b) -> bool:
    return a == b or (a != a and b != b)


def topk_indices(values: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Indices (as a set, in no promised order) of the ``k`` entries torch's CPU ``topk`` returns."""
    flat = np.asarray(values).reshape(-1)
    n = flat.size
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(flat, kind="stable")  # NaN last, i.e. largest, as in torch
    cut = n - k if largest else k  # boundary between chosen and rejected in ascending order
    if k == n or not _same(flat[order[cut - 1]], flat[order[cut]]):
        return order[cut:] if largest else order[:cut]
    sel = _Selector(_rank_keys(flat, largest))
    if k * 64 <= n:
        sel.heap_select(0, k, n)  # std::partial_sort (its final sort_heap keeps the set)
    else:
        sel.nth_element(k - 1)
    return np.asarray(sel.i[:k], dtype=np.int64)
