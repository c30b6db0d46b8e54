"""Misuse raises what torch raises: the same calls made on torch's gloo backend in the same processes.

Backend-specific texts name the backend (torch's "ProcessGroupGloo::...", ours
"ProcessGroupMPI::..."); they are compared with that one word swapped.  Errors before any
process group exists are compared in this process.
"""
from __future__ import annotations

import pytest
import torch.distributed as tdist

import retrograd as rg
import retrograd.distributed as dist


def test_errors_match_torch_gloo(world2):
    for r in range(world2.n):
        ours, theirs = world2[r]["errors/retrograd"], world2[r]["errors/torch"]
        assert ours.keys() == theirs.keys()
        for name in ours:
            assert ours[name] is not None and theirs[name] is not None, name
            (ot, om), (tt, tm) = ours[name], theirs[name]
            assert ot == tt, (name, ours[name], theirs[name])
            tm = tm.replace("ProcessGroupGloo", "ProcessGroupMPI").replace("with Gloo", "with MPI")
            if name == "reduce_scatter_size":
                # torch's text is a C++ CHECK with a log prefix (time stamp, rank): ours is its core
                assert om in tm, (name, om, tm)
            else:
                assert om == tm, (name, om, tm)


@pytest.mark.parametrize("call", [
    lambda d, t: d.get_rank(), lambda d, t: d.get_world_size(), lambda d, t: d.barrier(),
    lambda d, t: d.all_reduce(t.ones(2)), lambda d, t: d.broadcast(t.ones(2), src=0),
    lambda d, t: d.new_group([0]), lambda d, t: d.all_gather_object([None], 1),
    lambda d, t: d.destroy_process_group(),
])
def test_uninitialized_group_errors_match_torch(call):
    import torch

    assert not dist.is_initialized() and not tdist.is_initialized()
    with pytest.raises(Exception) as theirs:
        call(tdist, torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(dist, rg)
    assert str(ours.value) == str(theirs.value)


def test_ddp_without_group_matches_torch():
    import torch

    with pytest.raises(ValueError) as theirs:
        torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(2, 1))
    with pytest.raises(ValueError) as ours:
        rg.nn.parallel.DistributedDataParallel(rg.nn.Linear(2, 1))
    assert str(ours.value) == str(theirs.value)


def test_reduce_op_spelling_matches_torch():
    R, T = dist.ReduceOp, tdist.ReduceOp
    for name in ("SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR", "PREMUL_SUM"):
        ours, theirs = getattr(R, name), getattr(T, name)
        assert (repr(ours), str(ours), ours.value) == (repr(theirs), str(theirs), theirs.value)
        assert R(ours) == ours and R(ours) == R(ours)
    assert dist.GroupMember.NON_GROUP_MEMBER == tdist.GroupMember.NON_GROUP_MEMBER
    assert dist.GroupMember.WORLD is None and dist.group.WORLD is None
