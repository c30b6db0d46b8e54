"""Which indices PyTorch's CPU ``topk`` picks from a 1-d array, ties included (for pruning).

Pruning masks are built from ``topk`` over importance scores; when scores tie at the cut-off the
chosen entries depend on the swap sequence of the C++ algorithm PyTorch runs.  The replay of those
algorithms lives with the ordering ops (``retrograd._ops._stl_order``); this module keeps the
NumPy-array entry point prune.py uses.
"""
from __future__ import annotations

import numpy as np

from ..._ops._stl_order import row_keys, topk_order

__all__ = ["topk_indices"]


def _same(a, b) -> bool:
    return a == b or (a != a and b != b)


def topk_indices(values: np.ndarray, k: int, largest: bool) -> np.ndarray:
    """Indices (as a set, in no promised order) of the ``k`` entries torch's CPU ``topk`` returns.

    >>> import numpy as np
    >>> sorted(topk_indices(np.array([1., 3., 3., 2., 3.]), 2, True).tolist())
    [2, 4]
    """
    flat = np.asarray(values).reshape(-1)
    n = flat.size
    if k == 0:
        return np.zeros(0, dtype=np.int64)
    order = np.argsort(flat, kind="stable")  # NaN last, i.e. largest, as in torch
    cut = n - k if largest else k  # boundary between chosen and rejected in ascending order
    if k == n or not _same(flat[order[cut - 1]], flat[order[cut]]):
        return order[cut:] if largest else order[:cut]
    return np.asarray(topk_order(row_keys(flat, largest), k, False), dtype=np.int64)
