"""Tests of the masked ops (src/retrograd/_ops/masked.py), checked against PyTorch."""
from __future__ import annotations

import warnings

import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._pointwise_helpers import _same  # noqa: E402
from ._differential_helpers import assert_same_layout  # noqa: E402


def test_where_forms_and_uint8_condition():
    c_r, c_t = retrograd.tensor([True, False, True]), torch.tensor([True, False, True])
    for a, b in ((1.0, 0.0), (1, 0), (2, 0.5), (True, False)):
        _same(retrograd.where(c_r, a, b), torch.where(c_t, a, b))
    with pytest.warns(UserWarning, match="uint8 condition"):
        ours = retrograd.where(retrograd.tensor([1, 0], dtype=retrograd.uint8), 1.0, 0.0)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        theirs = torch.where(torch.tensor([1, 0], dtype=torch.uint8), 1.0, 0.0)
    _same(ours, theirs)
    assert [t.tolist() for t in retrograd.where(retrograd.tensor([[1, 0], [0, 3]]))] == [[0, 1], [0, 1]]


# ---- found by the differential fuzzer (tests/fuzz)
def test_masked_fill_result_is_contiguous():
    assert_same_layout(lambda L, x: x.masked_fill(x > 3, 0.0))


@pytest.mark.parametrize("op", [lambda L, x: L.where(x > 0, x, x.contiguous()),
                                lambda L, x: L.where(x.contiguous() > 0, x, 1.0)])
def test_where_follows_its_first_operand_that_orders_the_dims(op):
    assert_same_layout(op)


@pytest.mark.parametrize("shapes", [((3,), (3,), (5,)), ((5,), (3,), (5,)), ((3, 2), (2,), (4, 2)), ((3,), (4,), (3,))])
def test_where_broadcast_error_names_the_failing_pair(shapes):
    from parity import same_error

    c, a, b = shapes
    same_error(lambda L: L.where(L.zeros(c) > 0, L.zeros(a), L.zeros(b)))
