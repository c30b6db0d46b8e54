"""Tests of the rearrange ops (src/retrograd/_ops/rearrange.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._indexing_helpers import _np  # noqa: E402


def test_repeat_interleave_forms():
    for fn in (lambda lib: lib.repeat_interleave(lib.tensor([1, 2, 0])),
               lambda lib: lib.tensor([[1, 2], [3, 4]]).repeat_interleave(2),
               lambda lib: lib.tensor([[1, 2], [3, 4]]).repeat_interleave(lib.tensor(2), dim=1),
               lambda lib: lib.tensor(3.).repeat_interleave(3)):
        np.testing.assert_array_equal(_np(fn(retrograd)), _np(fn(torch)))
