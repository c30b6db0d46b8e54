"""``torch.distributed`` for the CPU, on MPI (through mpi4py): process groups and collectives.

Launch N processes with ``python -m retrograd.distributed.run -n N train.py`` (or plain
``mpiexec -n N python train.py``); each calls ``init_process_group("mpi")`` and then uses
torch's API: ``all_reduce``, ``broadcast``, ``all_gather`` ..., ``send``/``recv``, and
``nn.parallel.DistributedDataParallel`` for data-parallel training.

Importing this package is cheap: mpi4py (which starts MPI) is imported on the first call
that needs it.  Without mpi4py, ``is_available()`` is False and ``init_process_group``
raises a RuntimeError naming ``pip install retrograd[distributed]``.

>>> import retrograd.distributed as dist
>>> dist.is_initialized()
False
"""
from __future__ import annotations

from . import _mpi
from ._process_group import (Backend, GroupMember, ProcessGroup, default_pg_timeout, destroy_process_group,  # noqa: F401
                             get_backend, get_global_rank, get_group_rank, get_process_group_ranks, get_rank,
                             get_world_size, group, init_process_group, is_gloo_available, is_initialized,
                             is_mpi_available, is_nccl_available, new_group)
from ._reduce_op import ReduceOp  # noqa: F401
from ._work import Work  # noqa: F401
from ._collectives import (all_gather, all_gather_into_tensor, all_reduce, all_to_all, all_to_all_single,  # noqa: F401
                           barrier, broadcast, gather, reduce, reduce_scatter, reduce_scatter_tensor, scatter)
from ._point_to_point import P2POp, batch_isend_irecv, irecv, isend, recv, send  # noqa: F401
from ._object_collectives import (all_gather_object, broadcast_object_list, gather_object,  # noqa: F401
                                  recv_object_list, scatter_object_list, send_object_list)

__all__ = ["is_available", "Backend", "GroupMember", "ProcessGroup", "ReduceOp", "Work", "P2POp", "group",
           "init_process_group", "destroy_process_group", "is_initialized", "is_mpi_available", "is_gloo_available",
           "is_nccl_available", "get_rank", "get_world_size", "get_backend", "new_group", "get_process_group_ranks",
           "get_global_rank", "get_group_rank", "barrier", "all_reduce", "broadcast", "reduce", "all_gather",
           "all_gather_into_tensor", "gather", "scatter", "reduce_scatter", "reduce_scatter_tensor", "all_to_all",
           "all_to_all_single", "send", "recv", "isend", "irecv", "batch_isend_irecv", "broadcast_object_list",
           "all_gather_object", "gather_object", "scatter_object_list", "send_object_list", "recv_object_list"]


def is_available() -> bool:
    """Whether process groups can be made here: True when mpi4py is installed.

    Answered without importing mpi4py (importing it would start MPI).

    >>> import retrograd.distributed as dist
    >>> isinstance(dist.is_available(), bool)
    True
    """
    return _mpi.mpi4py_installed()
