"""Tests of the bitwise ops (src/retrograd/_ops/bitwise.py), checked against PyTorch."""
from __future__ import annotations

import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._pointwise_helpers import _pair, _same  # noqa: E402


def test_shifts_out_of_range_and_unsigned():
    amounts = [-1, 0, 1, 7, 8, 62, 63, 64, 100]
    for dtype in ("int64", "int32", "int8", "uint8"):
        r, t = _pair([5] * len(amounts), dtype)
        rn, tn = _pair([-5 if dtype != "uint8" else 250] * len(amounts), dtype)
        ra, ta = _pair(amounts, "int64")
        for x, y in ((r, t), (rn, tn)):
            _same(retrograd.bitwise_left_shift(x, ra), torch.bitwise_left_shift(y, ta))
            _same(retrograd.bitwise_right_shift(x, ra), torch.bitwise_right_shift(y, ta))
            _same(x << 3, y << 3)
            _same(x >> 9, y >> 9)
    _same(retrograd.tensor([True]) << 1, torch.tensor([True]) << 1)
