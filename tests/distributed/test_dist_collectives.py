"""Every collective, every dtype, 2 and 4 real processes: against a single-process reference.

The inputs are small integers (dist_inputs.value), so sums, products and averages are exact in
every dtype whatever order MPI combines the ranks in: the comparisons are exact.
"""
from __future__ import annotations

import numpy as np
import pytest

from dist_inputs import DTYPES, OPS, op_allowed, reduced, split_sizes, value


def _eq(got, want) -> None:
    assert got.dtype == want.dtype, (got.dtype, want.dtype)
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_reduce_every_op(world, dtype):
    n = world.n
    for op in OPS:
        if not op_allowed(op, dtype):
            continue
        want = reduced([value(r, dtype, op) for r in range(n)], op)
        for r in range(n):
            _eq(world[r][f"all_reduce/{dtype}/{op}"], want)
            _eq(world[r][f"all_reduce_async/{dtype}/{op}"], want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_reduce_and_broadcast(world, dtype):
    n = world.n
    for op in ("SUM", "MAX"):
        _eq(world[n - 1][f"reduce/{dtype}/{op}"], reduced([value(r, dtype, op) for r in range(n)], op))
        for r in range(n - 1):  # only dst receives the result
            _eq(world[r][f"reduce_untouched/{dtype}/{op}"], value(r, dtype, op))
    for r in range(n):
        _eq(world[r][f"broadcast/{dtype}"], value(1, dtype))


@pytest.mark.parametrize("dtype", DTYPES)
def test_gathers_and_scatter(world, dtype):
    n = world.n
    stacked = np.stack([value(r, dtype) for r in range(n)])
    for r in range(n):
        _eq(world[r][f"all_gather/{dtype}"], stacked)
        _eq(world[r][f"all_gather_into_tensor/{dtype}"], np.concatenate(list(stacked)))
        _eq(world[r][f"scatter/{dtype}"], value(10 + r, dtype))
    _eq(world[0][f"gather/{dtype}"], stacked)


@pytest.mark.parametrize("dtype", [d for d in DTYPES if d != "bool"])
def test_reduce_scatter(world, dtype):
    n = world.n
    for r in range(n):
        # rank k's input chunk j is value(k + 3j); rank r receives the reduction of the chunks j == r
        want = reduced([value(k + 3 * r, dtype) for k in range(n)], "SUM")
        _eq(world[r][f"reduce_scatter_tensor/{dtype}"], want)
        _eq(world[r][f"reduce_scatter/{dtype}"], reduced([value(k + 3 * r, dtype) for k in range(n)], "MAX"))


@pytest.mark.parametrize("dtype", DTYPES)
def test_all_to_all_uneven(world, dtype):
    n = world.n
    for r in range(n):
        got = world[r][f"all_to_all/{dtype}"]
        for j in range(n):  # from rank j: its piece r, split_sizes(n, j)[r] rows
            _eq(got[j], value(j * 10 + r, dtype, shape=(split_sizes(n, j)[r], 2)))


def test_all_to_all_single_uneven(world):
    n = world.n
    for r in range(n):
        want = np.concatenate([value(j * 10 + r, "float32", shape=(split_sizes(n, j)[r], 2)) for j in range(n)])
        _eq(world[r]["all_to_all_single"], want)


@pytest.mark.parametrize("dtype", DTYPES)
def test_point_to_point_ring(world, dtype):
    n = world.n
    for r in range(n):
        got, sender = world[r][f"recv/{dtype}"]
        prev = (r - 1) % n
        assert sender == prev
        _eq(got, value(prev, dtype))
        _eq(world[r][f"irecv/{dtype}"], value(prev + 5, dtype))
    assert world[0]["recv_any"] == [(k, float(k * 100)) for k in range(1, n)]


def test_non_contiguous_view_writes_its_base(world):
    n = world.n
    want = reduced([value(r, "float32", shape=(3, 2)) for r in range(n)], "SUM")
    for r in range(n):
        _eq(world[r]["all_reduce_view_base"], want)


def test_object_collectives(world):
    n = world.n
    for r in range(n):
        assert world[r]["broadcast_object_list"] == [{"rank": 0}, "s0", None]
        assert world[r]["all_gather_object"] == [(k, [float(k)]) for k in range(n)]
        assert world[r]["scatter_object_list"] == {"to": r}
    assert world[0]["gather_object"] == [(k, "x" * k) for k in range(n)]
    assert world[1]["recv_object_list"] == (0, [{"a": 1}, [2, 3]])


def test_groups(world):
    n = world.n
    for r in range(n):
        members = [k for k in range(n) if k % 2 == r % 2]
        assert world[r]["world"] == (r, n, "mpi", True)
        assert world[r]["after_destroy"] is False
        assert world[r]["group_info"] == (members.index(r), len(members), members, True, -1)
        assert world[r]["group_all_reduce"] == float(sum(members))
        assert world[r]["group_broadcast"] == float(max(members))
        assert world[r]["group_broadcast_group_src"] == float(members[0])
        result, value_after, warnings = world[r]["non_member"]
        assert result is None and value_after == float(r)
        assert warnings == [f"Running all_reduce on global rank {r} which does not belong to the given group."]
        assert world[r]["barrier_async"] is True
