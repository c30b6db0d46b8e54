"""One run of every multi-process check: ``python -m retrograd.distributed.run -n N dist_worker.py OUTDIR [--torch]``.

Each rank runs the collectives, sampler, DDP and error checks and pickles what it saw to
``OUTDIR/rank{R}.pkl``; the pytest side (test_dist_*.py) compares that with single-process
references.  One launch per world size keeps the suite fast: starting processes is the cost.
"""
from __future__ import annotations

import os
import pickle
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import retrograd.distributed as dist  # noqa: E402

import dist_worker_collectives  # noqa: E402
import dist_worker_ddp  # noqa: E402
import dist_worker_errors  # noqa: E402
import dist_worker_sampler  # noqa: E402


def main() -> None:
    outdir = sys.argv[1]
    dist.init_process_group("mpi", init_method="env://")
    r = dist.get_rank()
    out: dict = {"world": (r, dist.get_world_size(), dist.get_backend(), dist.is_initialized())}
    # what retrograd.distributed.run told this process (torchrun's variables), and how it ran it
    out["launch"] = ({k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE",
                                                     "NODE_RANK")}, sys.argv[1:], __name__)
    sections = [dist_worker_collectives.run, dist_worker_sampler.run, dist_worker_ddp.run, dist_worker_errors.run]
    if "--torch" in sys.argv:
        sections.append(lambda o: dist_worker_errors.run_torch(o, os.path.join(outdir, "torch_store")))
    for section in sections:
        section(out)  # an exception aborts the job (the launcher's doing); the test shows its traceback
    dist.barrier()
    dist.destroy_process_group()
    out["after_destroy"] = dist.is_initialized()
    with open(os.path.join(outdir, f"rank{r}.pkl"), "wb") as f:
        pickle.dump(out, f)


if __name__ == "__main__":
    main()
