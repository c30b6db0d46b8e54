"""Misuse that every rank commits alike (so nobody waits on a partner): the errors raised.

``run`` records retrograd's; ``run_torch`` makes the same calls on torch's gloo backend (a
file-store group over the same processes), so the tests compare the two texts.
"""
from __future__ import annotations


def _calls(dist, torch, r: int, n: int) -> dict:
    R = dist.ReduceOp
    return {
        "not_a_tensor": lambda: dist.all_reduce([1, 2]),
        "dtype_mismatch": lambda: dist.all_gather([torch.zeros(2), torch.zeros(2, dtype=torch.float64)],
                                                  torch.ones(2)),
        "all_gather_list_length": lambda: dist.all_gather([torch.zeros(2)] * (n + 1), torch.ones(2)),
        "all_gather_shape": lambda: dist.all_gather([torch.zeros(3) for _ in range(n)], torch.ones(2)),
        "all_gather_into_tensor_size": lambda: dist.all_gather_into_tensor(torch.zeros(2 * n + 1), torch.ones(2)),
        "all_to_all_list": lambda: dist.all_to_all([torch.zeros(1)] * n, [torch.ones(1)] * (n + 1)),
        "send_to_self": lambda: dist.send(torch.ones(1), dst=r),
        "band_float": lambda: dist.all_reduce(torch.ones(2), op=R.BAND),
        "bxor_double": lambda: dist.all_reduce(torch.ones(2, dtype=torch.float64), op=R.BXOR),
        "avg_long": lambda: dist.all_reduce(torch.ones(2, dtype=torch.int64), op=R.AVG),
        "avg_bool": lambda: dist.all_reduce(torch.ones(2, dtype=torch.bool), op=R.AVG),
        "reduce_scatter_size": lambda: dist.reduce_scatter_tensor(torch.zeros(3), torch.ones(2 * n)),
        "broadcast_root": lambda: dist.broadcast(torch.ones(2), src=n + 3),
        "init_twice": lambda: dist.init_process_group("gloo" if "torch" in dist.__name__ else "mpi"),
        "premul_sum": lambda: dist.all_reduce(torch.ones(2), op=dist._make_nccl_premul_sum(2.0))
        if hasattr(dist, "_make_nccl_premul_sum") else dist.all_reduce(torch.ones(2), op=R.PREMUL_SUM),
        "both_src_and_group_src": lambda: dist.broadcast(torch.ones(2), src=0, group_src=0),
    }


def _record(calls: dict) -> dict:
    got = {}
    for name, call in calls.items():
        try:
            call()
            got[name] = None
        except Exception as e:  # noqa: BLE001 - the point is to record it
            got[name] = (type(e).__name__, str(e))
    return got


def run(out: dict) -> None:
    import retrograd as torch
    import retrograd.distributed as dist

    out["errors/retrograd"] = _record(_calls(dist, torch, dist.get_rank(), dist.get_world_size()))


def run_torch(out: dict, store: str) -> None:
    import warnings

    import torch
    import torch.distributed as tdist

    import retrograd.distributed as dist

    r, n = dist.get_rank(), dist.get_world_size()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tdist.init_process_group("gloo", init_method=f"file://{store}", rank=r, world_size=n)
        try:
            out["errors/torch"] = _record(_calls(tdist, torch, r, n))
        finally:
            tdist.destroy_process_group()
