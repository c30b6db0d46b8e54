"""``torch.nn.parallel.DistributedDataParallel`` on retrograd.distributed (MPI).

Each process holds a full replica of the module and feeds it its own share of the data; DDP
keeps the replicas identical: parameters and buffers are broadcast from rank 0 when it is
built (buffers again before each forward), and during backward the gradients are averaged
over the ranks by the bucketed, overlapped all-reduce of ``_reducer.Reducer``.  After
``loss.backward()`` every rank holds the gradient of the full batch's mean loss, so the same
optimizer step keeps the replicas equal.

The examples are not run as doctests: they belong in processes started by ``mpiexec``
(``python -m retrograd.distributed.run -n 2 ...``), and the values shown are one rank's.
"""
from __future__ import annotations

import contextlib

import numpy as np

from ...autograd import grad_mode
from ...distributed._process_group import resolve
from ..modules.module import Module
from ._reducer import FIRST_BUCKET_BYTES, Reducer

__all__ = ["DistributedDataParallel"]


class DistributedDataParallel(Module):
    """Data parallelism over processes: wrap the model, train as usual; gradients are averaged.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> dist.init_process_group("mpi")                          # doctest: +SKIP
    >>> model = torch.nn.parallel.DistributedDataParallel(torch.nn.Linear(4, 1))   # doctest: +SKIP
    >>> model(torch.randn(8, 4)).pow(2).mean().backward()        # doctest: +SKIP
    >>> list(model.state_dict())                                 # doctest: +SKIP
    ['module.weight', 'module.bias']

    ``device_ids``/``output_device`` must be None (CPU), ``gradient_as_bucket_view`` and
    ``static_graph`` are accepted and change nothing observable here.
    """

    def __init__(self, module: Module, device_ids=None, output_device=None, dim: int = 0,
                 broadcast_buffers: bool | None = None, init_sync: bool = True, process_group=None,
                 bucket_cap_mb: float | None = None, find_unused_parameters: bool = False,
                 check_reduction: bool = False, gradient_as_bucket_view: bool = False, static_graph: bool = False,
                 delay_all_reduce_named_params=None, param_to_hook_all_reduce=None, mixed_precision=None,
                 device_mesh=None, skip_all_reduce_unused_params: bool = False, bucket_cap_mb_list=None,
                 batched_grad_copy: bool = False, forward_sync_buffers: bool | None = None) -> None:
        super().__init__()
        pg = resolve(process_group)
        if pg is None:
            raise ValueError("DistributedDataParallel needs a process group this rank belongs to")
        if device_ids is not None and len(device_ids) > 1:
            raise ValueError("device_ids can only be None or contain a single element.")
        if device_ids or output_device is not None:
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only work with "
                             "single-device/multiple-device GPU modules or CPU modules, but got device_ids "
                             f"{device_ids}, output_device {output_device}, and module parameters {{device(type='cpu')}}.")
        ignored = set(getattr(module, "_ddp_params_and_buffers_to_ignore", ()))
        params, seen = [], set()
        for name, p in module.named_parameters():
            if name in ignored or id(p) in seen:
                continue
            seen.add(id(p))
            params.append(p)
        if not any(p.requires_grad for p in params):
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have any parameter "
                               "that requires a gradient.")
        self.module = module
        self.process_group = pg
        self.device_ids = None
        self.output_device = None
        self.dim = dim
        self.broadcast_buffers = True if broadcast_buffers is None else bool(broadcast_buffers)
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_bytes_cap = int((25 if bucket_cap_mb is None else bucket_cap_mb) * 1024 * 1024)
        self._module_buffers = [b for n, b in module.named_buffers() if n not in ignored]
        self._comm = pg._comm
        self._verify_same_model(params)
        if init_sync:
            self._broadcast_from_rank0(params + self._module_buffers)
        self.reducer = Reducer([p for p in params if p.requires_grad], pg, self.bucket_bytes_cap,
                               find_unused_parameters, FIRST_BUCKET_BYTES if bucket_cap_mb is None else None)

    # ------------------------------------------------------------------ construction helpers
    def _verify_same_model(self, params) -> None:
        # a mismatch would make the coalesced broadcast and the buckets disagree (garbage or a
        # hang); every rank sees every other's description, so every rank raises
        mine = [(tuple(p.shape), str(p.dtype)) for p in params]
        every = self._comm.allgather(mine)
        for r, theirs in enumerate(every):
            if len(theirs) != len(every[0]):
                raise RuntimeError(f"DDP expects same model across all ranks, but Rank {self.process_group.rank()} "
                                   f"has {len(mine)} params, while rank {r} has inconsistent {len(theirs)} params.")
            for i, (a, b) in enumerate(zip(every[0], theirs)):
                if a != b:
                    raise RuntimeError(f"DDP expects same model across all ranks, but parameter {i} has shape/dtype "
                                       f"{a[0]}/{a[1]} on rank 0 and {b[0]}/{b[1]} on rank {r}.")

    def _broadcast_from_rank0(self, tensors) -> None:
        """Every tensor's values from group rank 0, in one coalesced broadcast of their bytes."""
        if self.process_group.size() == 1 or not tensors:
            return
        flat = np.concatenate([np.ascontiguousarray(t._data).reshape(-1).view(np.uint8) for t in tensors])
        self._comm.Bcast(flat, root=0)
        off = 0
        for t in tensors:
            n = t._data.nbytes
            np.copyto(t._data, flat[off:off + n].view(t._data.dtype).reshape(t._data.shape))
            off += n

    # ------------------------------------------------------------------ training
    def forward(self, *inputs, **kwargs):
        sync = grad_mode.state.enabled and self.require_backward_grad_sync
        if sync:
            self.reducer.ensure_prior_reduction_finished()
        if self.broadcast_buffers and self.require_forward_param_sync and self._module_buffers:
            self._broadcast_from_rank0(self._module_buffers)
        out = self.module(*inputs, **kwargs)
        if sync:
            self.reducer.prepare_for_backward(out)
        else:
            self.reducer.expect_hooks = False
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Inside, backward only accumulates local gradients; the first backward after it averages them all.

        >>> with ddp.no_sync():                       # doctest: +SKIP
        ...     ddp(x1).sum().backward()              # local only
        >>> ddp(x2).sum().backward()                  # averages x1's and x2's gradients  # doctest: +SKIP
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old
