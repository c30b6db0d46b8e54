"""Tests of the rearrange ops (src/retrograd/_ops/rearrange.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._indexing_helpers import _np  # noqa: E402
from ._differential_helpers import assert_same_layout  # noqa: E402
from parity import same_error  # noqa: E402


def test_repeat_interleave_forms():
    for fn in (lambda lib: lib.repeat_interleave(lib.tensor([1, 2, 0])),
               lambda lib: lib.tensor([[1, 2], [3, 4]]).repeat_interleave(2),
               lambda lib: lib.tensor([[1, 2], [3, 4]]).repeat_interleave(lib.tensor(2), dim=1),
               lambda lib: lib.tensor(3.).repeat_interleave(3)):
        np.testing.assert_array_equal(_np(fn(retrograd)), _np(fn(torch)))


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("op", [lambda L, x: x.roll(1, 0), lambda L, x: x.roll(-2), lambda L, x: x.flip(0),
                                lambda L, x: x.flip(0, -1), lambda L, x: x.repeat(1, 2, 1)])
def test_roll_flip_repeat_layouts(op):
    # roll and repeat come out contiguous; flip keeps its input's layout
    assert_same_layout(op)


def test_roll_of_an_empty_tensor_ignores_the_dim_and_a_0d_tensor_has_none():
    out = [tuple(L.zeros(3, 0).roll(-3, 2).shape) for L in (retrograd, torch)]
    assert out[0] == out[1]
    same_error(lambda L: L.tensor(1.0).roll(1, 0))
