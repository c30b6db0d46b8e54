"""A script for the launcher test: each rank writes what it was told (env, argv, group) to OUTDIR/rankR.json."""
import json
import os
import sys

import retrograd as torch
import retrograd.distributed as dist

dist.init_process_group(backend="gloo", init_method="env://")  # torch code written for gloo runs on MPI
t = torch.tensor([float(dist.get_rank())])
dist.all_reduce(t)
info = {k: os.environ.get(k) for k in ("RANK", "WORLD_SIZE", "LOCAL_RANK", "LOCAL_WORLD_SIZE", "NODE_RANK")}
info.update(argv=sys.argv[1:], rank=dist.get_rank(), size=dist.get_world_size(), total=float(t),
            main=__name__)
with open(os.path.join(sys.argv[1], f"rank{dist.get_rank()}.json"), "w") as f:
    json.dump(info, f)
if "--fail-on-rank-1" in sys.argv and dist.get_rank() == 1:
    raise RuntimeError("rank 1 fails on purpose")
dist.barrier()  # rank 0 waits here for a rank that has failed: the launcher must end the job
dist.destroy_process_group()
