"""Data-parallel MLP training step on 1 and 2 processes (MPI), communication share, overlap.

``python bench/bench_distributed.py`` launches itself through ``retrograd.distributed.run``
with 1 and then 2 ranks (one BLAS thread per rank, so 2 ranks use the machine's 2 cores) and
prints, for a fixed global batch (strong scaling):

* the step time (forward + backward with DDP's all-reduce + SGD step) and the speedup;
* the share of the step that is communication: a blocking all-reduce of the whole gradient
  timed on its own, and the part of it the step actually waits for after backward
  ("exposed");
* a timeline of one step on rank 0: when each bucket's all-reduce starts, when it is seen
  complete, relative to the end of backward.  Buckets that start (and finish) before
  backward ends are communication overlapped with computation.

Options: ``--steps N`` (timed steps, default 20), ``--batch B`` (global batch, default 256),
``--bucket-mb M`` (DDP bucket cap, default 1: several buckets for this 10 MB model).
Not a test: it needs mpi4py and mpiexec (``pip install retrograd[distributed]``).
"""
from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time

HERE = os.path.dirname(os.path.abspath(__file__))
WIDTHS = (512, 1024, 1024, 1024, 10)


def _model(torch):
    torch.manual_seed(0)
    layers = []
    for i in range(len(WIDTHS) - 1):
        layers.append(torch.nn.Linear(WIDTHS[i], WIDTHS[i + 1]))
        if i < len(WIDTHS) - 2:
            layers.append(torch.nn.ReLU())
    return torch.nn.Sequential(*layers)


def worker(out_path: str, steps: int, batch: int, bucket_mb: float, poll: bool) -> None:
    import numpy as np

    import retrograd as torch
    import retrograd.distributed as dist
    from retrograd.distributed import _mpi
    from retrograd.nn.parallel import DistributedDataParallel as DDP

    dist.init_process_group("mpi")
    r, n = dist.get_rank(), dist.get_world_size()
    ddp = DDP(_model(torch), bucket_cap_mb=bucket_mb)
    if not poll:
        ddp.reducer.poll_interval_s = None  # progress only from the gradient hooks
    opt = torch.optim.SGD(ddp.parameters(), lr=0.01)
    rng = np.random.default_rng(r)
    x = torch.from_numpy(rng.standard_normal((batch // n, WIDTHS[0])).astype(np.float32))
    y = torch.from_numpy(rng.integers(0, WIDTHS[-1], batch // n))
    times, exposed, timelines = [], [], []
    for i in range(steps + 3):
        dist.barrier()
        ddp.reducer.timeline = []
        t0 = time.perf_counter()
        opt.zero_grad()
        loss = torch.nn.functional.cross_entropy(ddp(x), y)
        tb = time.perf_counter()
        loss.backward()
        t_bwd = time.perf_counter()
        opt.step()
        t1 = time.perf_counter()
        if i >= 3:  # warm-up steps excluded
            times.append(t1 - t0)
            ev = ddp.reducer.timeline
            end = [t for e, _, t in ev if e == "backward_end"]
            exposed.append(t_bwd - end[0] if end else 0.0)
            timelines.append({"backward_start": tb, "events": ev, "backward_return": t_bwd})
    ddp.reducer.timeline = None
    # the same gradient bytes in one blocking all-reduce, timed alone: the communication cost
    M = _mpi.MPI()
    flat = np.zeros(sum(p.numel() for p in ddp.parameters()), np.float32)
    comm = []
    for i in range(steps + 3):
        dist.barrier()
        t0 = time.perf_counter()
        dist.group.WORLD._comm.Allreduce(M.IN_PLACE, flat, M.SUM)
        if i >= 3:
            comm.append(time.perf_counter() - t0)
    if r == 0:
        with open(out_path, "w") as f:
            json.dump({"world": n, "step": times, "exposed": exposed, "allreduce": comm, "timelines": timelines,
                       "n_buckets": len(ddp.reducer.buckets),
                       "bucket_mb": [b.buffer.nbytes / 2**20 for b in ddp.reducer.buckets], "grad_mb": flat.nbytes / 2**20}, f)
    dist.destroy_process_group()


def _launch(n: int, out: str, args, poll: bool = True) -> None:
    env = {**os.environ, "OMP_NUM_THREADS": "1", "OPENBLAS_NUM_THREADS": "1", "MKL_NUM_THREADS": "1"}
    cmd = [sys.executable, "-m", "retrograd.distributed.run", "-n", str(n), os.path.abspath(__file__), "--worker",
           out, "--steps", str(args.steps), "--batch", str(args.batch), "--bucket-mb", str(args.bucket_mb)] + ([] if poll else ["--no-poll"])
    subprocess.run(cmd, check=True, env=env, timeout=900)


def _overlap_table(key: str, r: dict) -> None:
    """Per bucket, over the timed steps of rank 0: when its all-reduce starts and completes, in ms
    from the start of backward, and how often it completed before backward's own work ended."""
    tls = r["timelines"]
    rel = lambda tl, t: (t - tl["backward_start"]) * 1e3  # noqa: E731
    ends = [rel(tl, t) for tl in tls for e, _, t in tl["events"] if e == "backward_end"]
    rets = [rel(tl, tl["backward_return"]) for tl in tls]
    print(f"\n{key} ranks: backward's own work ends at {statistics.median(ends):.1f} ms (median), "
          f"loss.backward() returns at {statistics.median(rets):.1f} ms")
    print(f"  {'bucket':>6}  {'MB':>5}  {'start ms':>8}  {'done ms':>7}  {'done before backward ended':>26}")
    for b, mb in enumerate(r["bucket_mb"]):
        starts, dones, before = [], [], 0
        for tl in tls:
            end = [t for e, _, t in tl["events"] if e == "backward_end"][0]
            st = [t for e, k, t in tl["events"] if e == "start" and k == b]
            dn = [t for e, k, t in tl["events"] if e in ("done", "waited") and k == b]
            starts += [rel(tl, t) for t in st]
            dones += [rel(tl, min(dn))] if dn else []
            before += any(e == "done" and k == b and t < end for e, k, t in tl["events"])
        print(f"  {b:>6}  {mb:5.2f}  {statistics.median(starts):8.1f}  {statistics.median(dones):7.1f}  "
              f"{before:>19} of {len(tls)}")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=20)
    p.add_argument("--batch", type=int, default=256)
    p.add_argument("--bucket-mb", type=float, default=1.0)
    p.add_argument("--worker", default=None, help=argparse.SUPPRESS)
    p.add_argument("--no-poll", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args([] if argv is None else argv)
    if args.worker:
        worker(args.worker, args.steps, args.batch, args.bucket_mb, not args.no_poll)
        return 0
    try:
        import mpi4py  # noqa: F401
    except ImportError:
        print("bench_distributed: mpi4py is not installed (pip install retrograd[distributed]); skipped")
        return 0
    res = {}
    with tempfile.TemporaryDirectory() as tmp:
        for key, n, poll in (("1", 1, True), ("2", 2, True), ("2, hooks poll", 2, False)):
            out = os.path.join(tmp, f"w{n}{poll}.json")
            _launch(n, out, args, poll)
            with open(out) as f:
                res[key] = json.load(f)
    med = {k: statistics.median(r["step"]) for k, r in res.items()}
    print(f"MLP {'-'.join(map(str, WIDTHS))} ({res['1']['grad_mb']:.1f} MB of float32 gradients), global batch "
          f"{args.batch}, {args.steps} timed steps, 1 BLAS thread per rank, bucket cap {args.bucket_mb} MB "
          f"({res['2']['n_buckets']} buckets)")
    print(f"{'ranks':>13}  {'step ms':>8}  {'samples/s':>9}  {'speedup':>7}  {'allreduce ms':>12}  "
          f"{'comm share':>10}  {'exposed ms':>10}")
    for k, r in res.items():
        multi = r["world"] > 1
        ar = statistics.median(r["allreduce"]) if multi else 0.0
        ex = statistics.median(r["exposed"]) if multi else 0.0
        print(f"{k:>13}  {med[k] * 1e3:8.1f}  {args.batch / med[k]:9.0f}  {med['1'] / med[k]:7.2f}  "
              f"{ar * 1e3:12.1f}  {ar / med[k]:10.1%}  {ex * 1e3:10.1f}")
    for key in ("2", "2, hooks poll"):
        _overlap_table(key, res[key])
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
