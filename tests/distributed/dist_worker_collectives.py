"""Collectives run by each rank under mpiexec; results go back to the tests (dist_worker.py)."""
from __future__ import annotations

import numpy as np

import retrograd as torch
import retrograd.distributed as dist

from dist_inputs import DTYPES, OPS, SHAPE, op_allowed, split_sizes, value


def _t(a: np.ndarray):
    return torch.from_numpy(np.array(a))


def run(out: dict) -> None:
    r, n = dist.get_rank(), dist.get_world_size()
    R = dist.ReduceOp
    for dt in DTYPES:
        tdt = getattr(torch, dt)
        for op in OPS:
            if not op_allowed(op, dt):
                continue
            t = _t(value(r, dt, op))
            dist.all_reduce(t, op=getattr(R, op))
            out[f"all_reduce/{dt}/{op}"] = t.numpy()
            # the same through async_op=True and Work.wait()
            t = _t(value(r, dt, op))
            w = dist.all_reduce(t, op=R(getattr(R, op)), async_op=True)
            assert w.wait() is True and w.is_completed() and w.result()[0] is t
            out[f"all_reduce_async/{dt}/{op}"] = t.numpy()
        for op in ("SUM", "MAX"):
            t = _t(value(r, dt, op))
            dist.reduce(t, dst=n - 1, op=getattr(R, op))
            if r == n - 1:
                out[f"reduce/{dt}/{op}"] = t.numpy()
            else:
                out[f"reduce_untouched/{dt}/{op}"] = t.numpy()
        t = _t(value(r, dt))
        dist.broadcast(t, src=1)
        out[f"broadcast/{dt}"] = t.numpy()
        lst = [torch.zeros(SHAPE, dtype=tdt) for _ in range(n)]
        dist.all_gather(lst, _t(value(r, dt)))
        out[f"all_gather/{dt}"] = np.stack([x.numpy() for x in lst])
        o = torch.zeros((n * SHAPE[0], SHAPE[1]), dtype=tdt)
        dist.all_gather_into_tensor(o, _t(value(r, dt)))
        out[f"all_gather_into_tensor/{dt}"] = o.numpy()
        lst = [torch.zeros(SHAPE, dtype=tdt) for _ in range(n)] if r == 0 else None
        dist.gather(_t(value(r, dt)), lst, dst=0)
        if r == 0:
            out[f"gather/{dt}"] = np.stack([x.numpy() for x in lst])
        o = torch.zeros(SHAPE, dtype=tdt)
        src = n - 1
        dist.scatter(o, [_t(value(10 + j, dt)) for j in range(n)] if r == src else None, src=src)
        out[f"scatter/{dt}"] = o.numpy()
        if dt != "bool":
            big = np.concatenate([value(r + 3 * j, dt) for j in range(n)])
            o = torch.zeros(SHAPE, dtype=tdt)
            dist.reduce_scatter_tensor(o, _t(big))
            out[f"reduce_scatter_tensor/{dt}"] = o.numpy()
            o = torch.zeros(SHAPE, dtype=tdt)
            dist.reduce_scatter(o, [_t(value(r + 3 * j, dt)) for j in range(n)], op=R.MAX)
            out[f"reduce_scatter/{dt}"] = o.numpy()
        # all_to_all with uneven pieces: piece j of rank r has split_sizes(n, r)[j] rows
        ins = [_t(value(r * 10 + j, dt, shape=(k, 2))) for j, k in enumerate(split_sizes(n, r))]
        outs = [torch.zeros((split_sizes(n, j)[r], 2), dtype=tdt) for j in range(n)]
        dist.all_to_all(outs, ins)
        out[f"all_to_all/{dt}"] = [x.numpy() for x in outs]
        # point to point around a ring: blocking send/recv, then isend/irecv
        nxt, prv = (r + 1) % n, (r - 1) % n
        got = torch.zeros(SHAPE, dtype=tdt)
        if r % 2 == 0:
            dist.send(_t(value(r, dt)), dst=nxt)
            who = dist.recv(got, src=prv)
        else:
            who = dist.recv(got, src=prv)
            dist.send(_t(value(r, dt)), dst=nxt)
        out[f"recv/{dt}"] = (got.numpy(), who)
        got = torch.zeros(SHAPE, dtype=tdt)
        works = [dist.irecv(got, src=prv, tag=7), dist.isend(_t(value(r + 5, dt)), dst=nxt, tag=7)]
        for w in works:
            w.wait()
        out[f"irecv/{dt}"] = got.numpy()

    # all_to_all_single with uneven splits (float32)
    ins = torch.from_numpy(np.concatenate([value(r * 10 + j, "float32", shape=(k, 2))
                                           for j, k in enumerate(split_sizes(n, r))]))
    rows_in = [split_sizes(n, j)[r] for j in range(n)]
    o = torch.zeros((sum(rows_in), 2))
    dist.all_to_all_single(o, ins, output_split_sizes=rows_in, input_split_sizes=split_sizes(n, r))
    out["all_to_all_single"] = o.numpy()

    # a non-contiguous view: the result lands in the base tensor too
    base = _t(value(r, "float32", shape=(3, 2)))
    view = base.t()
    dist.all_reduce(view)
    out["all_reduce_view_base"] = base.numpy()

    # recv from any source: the returned rank is the sender's
    if r == 0:
        senders = []
        for _ in range(n - 1):
            t = torch.zeros(1)
            senders.append((dist.recv(t), float(t)))
        out["recv_any"] = sorted(senders)
    else:
        dist.send(torch.tensor([float(r * 100)]), dst=0)

    # object collectives
    objs = [{"rank": r}, f"s{r}", None] if r == 0 else [None, None, None]
    dist.broadcast_object_list(objs, src=0)
    out["broadcast_object_list"] = objs
    lst = [None] * n
    dist.all_gather_object(lst, {"r": r, "t": torch.tensor([float(r)])})
    out["all_gather_object"] = [(d["r"], d["t"].tolist()) for d in lst]
    lst = [None] * n if r == 0 else None
    dist.gather_object((r, "x" * r), lst, dst=0)
    if r == 0:
        out["gather_object"] = lst
    o = [None]
    dist.scatter_object_list(o, [{"to": j} for j in range(n)] if r == 0 else None, src=0)
    out["scatter_object_list"] = o[0]
    if r == 0:
        dist.send_object_list([{"a": 1}, [2, 3]], dst=1)
    elif r == 1:
        o = [None, None]
        who = dist.recv_object_list(o, src=0)
        out["recv_object_list"] = (who, o)

    # sub-groups: the even ranks, and the odd ones
    evens = dist.new_group([k for k in range(n) if k % 2 == 0])
    odds = dist.new_group([k for k in range(n) if k % 2 == 1])
    mine = evens if r % 2 == 0 else odds
    other = odds if r % 2 == 0 else evens
    out["group_info"] = (dist.get_rank(mine), dist.get_world_size(mine), dist.get_process_group_ranks(mine),
                         other == dist.GroupMember.NON_GROUP_MEMBER, dist.get_rank(other))
    t = torch.tensor([float(r)])
    dist.all_reduce(t, group=mine)
    out["group_all_reduce"] = float(t)
    t = torch.tensor([float(r)])
    dist.broadcast(t, src=max(mine._ranks), group=mine)  # src: a global rank
    out["group_broadcast"] = float(t)
    t = torch.tensor([float(r)])
    dist.broadcast(t, group=mine, group_src=0)
    out["group_broadcast_group_src"] = float(t)
    import warnings
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        t = torch.tensor([float(r)])
        res = dist.all_reduce(t, group=other)  # not a member: skipped, with torch's warning
    out["non_member"] = (res, float(t), [str(w.message) for w in caught])
    dist.destroy_process_group(evens if r % 2 == 0 else odds)
    dist.barrier()
    w = dist.barrier(async_op=True)
    out["barrier_async"] = w.wait()
