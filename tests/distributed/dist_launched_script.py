"""A script for the launcher test: rank 1 fails after a collective, while rank 0 waits in a barrier."""
import retrograd as torch
import retrograd.distributed as dist

dist.init_process_group(backend="gloo", init_method="env://")  # torch code written for gloo runs on MPI
t = torch.tensor([float(dist.get_rank())])
dist.all_reduce(t)
if dist.get_rank() == 1:
    raise RuntimeError("rank 1 fails on purpose")
dist.barrier()  # rank 0 waits here for a rank that has failed: the launcher must end the job
dist.destroy_process_group()
