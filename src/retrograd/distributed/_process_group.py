"""Process groups on MPI communicators: the default (world) group, sub-groups, ranks.

A ``ProcessGroup`` wraps one mpi4py communicator.  Ranks passed to the public functions are
*global* ranks (the rank in the default group), as in torch; ``group_src``/``group_dst``
arguments take ranks within the group.

The examples are not run as doctests: they belong in processes started by ``mpiexec``
(``python -m retrograd.distributed.run -n 2 ...``), and the values shown are one rank's.
"""
from __future__ import annotations

import datetime
import os
import warnings

from . import _mpi

__all__ = ["Backend", "GroupMember", "ProcessGroup", "group", "init_process_group", "destroy_process_group",
           "is_initialized", "is_mpi_available", "is_gloo_available", "is_nccl_available", "get_rank",
           "get_world_size", "get_backend", "new_group", "get_process_group_ranks", "get_global_rank",
           "get_group_rank", "default_pg_timeout"]

NO_GROUP = "Default process group has not been initialized, please make sure to call init_process_group."
NON_GROUP_MEMBER = -100  # torch's marker for "this rank is not in the group new_group made"
default_pg_timeout = datetime.timedelta(minutes=30)


class Backend(str):
    """A backend's name; only ``"mpi"`` exists here (``"gloo"`` requests are served by MPI too).

    >>> from retrograd.distributed import Backend
    >>> Backend.MPI, Backend("MPI")
    ('mpi', 'mpi')
    """

    UNDEFINED = "undefined"
    GLOO = "gloo"
    NCCL = "nccl"
    UCC = "ucc"
    MPI = "mpi"

    def __new__(cls, name: str):
        if not isinstance(name, str):
            raise ValueError(f"Backend constructor parameter must be string-ish, but got: {type(name)}")
        return str.__new__(cls, name.lower())


class ProcessGroup:
    """A set of ranks that run collectives together, backed by one MPI communicator."""

    def __init__(self, comm, global_ranks: list[int], name: str) -> None:
        self._comm = comm
        self._ranks = list(global_ranks)
        self._name = name
        self._timeout = default_pg_timeout

    def rank(self) -> int:
        """This process's rank within the group."""
        return self._comm.Get_rank()

    def size(self) -> int:
        """The number of processes in the group."""
        return self._comm.Get_size()

    def name(self) -> str:
        return "MPI"

    @property
    def group_name(self) -> str:
        return self._name

    def __repr__(self) -> str:
        return f"<retrograd.distributed.ProcessGroup {self._name!r} ranks={self._ranks}>"


class _World:
    default: ProcessGroup | None = None
    groups: list[ProcessGroup] = []
    backend = Backend.MPI
    counter = 0


_world = _World()


class _GroupMemberMeta(type):
    @property
    def WORLD(cls) -> ProcessGroup | None:  # noqa: N802 - torch's name
        return _world.default


class GroupMember(metaclass=_GroupMemberMeta):
    """``GroupMember.WORLD`` is the default group (None before ``init_process_group``)."""

    NON_GROUP_MEMBER = NON_GROUP_MEMBER


class group(metaclass=_GroupMemberMeta):  # noqa: N801 - torch's name
    """``group.WORLD``: the default process group."""


def is_mpi_available() -> bool:
    """Whether the MPI backend can be used (mpi4py importable)."""
    return _mpi.mpi4py_installed()


def is_gloo_available() -> bool:
    return False


def is_nccl_available() -> bool:
    return False


def is_initialized() -> bool:
    """Whether ``init_process_group`` has run (and ``destroy_process_group`` has not since)."""
    return _world.default is not None


def _env_int(name: str) -> int | None:
    v = os.environ.get(name)
    return int(v) if v not in (None, "") else None


def init_process_group(backend: str | None = None, init_method: str | None = None,
                       timeout: datetime.timedelta | None = None, world_size: int = -1, rank: int = -1,
                       store=None, group_name: str = "", pg_options=None, device_id=None) -> None:
    """Join the default process group: every process that MPI started (``mpiexec -n N``).

    MPI decides ranks and the world size, so ``rank``/``world_size`` (or ``RANK``/``WORLD_SIZE``
    with ``init_method="env://"``) are checked against MPI's rather than used for a rendezvous;
    ``MASTER_ADDR``/``MASTER_PORT`` and ``store`` are not needed.  ``backend`` may be ``"mpi"``,
    ``None`` or ``"gloo"`` (CPU code written for gloo runs unchanged on MPI).
    Run alone (no launcher), the process is a group of one.

    >>> import retrograd.distributed as dist
    >>> dist.init_process_group("mpi")            # doctest: +SKIP
    >>> dist.get_rank(), dist.get_world_size()   # doctest: +SKIP
    (0, 1)
    """
    if _world.default is not None:
        raise ValueError("trying to initialize the default process group twice!")
    name = Backend(backend) if backend is not None else Backend.MPI
    # "cpu:gloo,cuda:nccl" style strings: the CPU part decides
    if ":" in name:
        parts = dict(p.split(":", 1) for p in name.split(",") if ":" in p)
        name = Backend(parts.get("cpu", "mpi"))
    if name == Backend.NCCL:
        raise RuntimeError("Distributed package doesn't have NCCL built in")
    if name not in (Backend.MPI, Backend.GLOO, Backend.UNDEFINED):
        raise ValueError(f"Invalid backend: '{backend}'; retrograd.distributed runs on 'mpi' "
                         "(and accepts 'gloo' for CPU code written for it)")
    if init_method is not None and not isinstance(init_method, str):
        raise TypeError(f"init_method must be a string, got {type(init_method).__name__}")
    MPI = _mpi.MPI()
    comm = MPI.COMM_WORLD
    mpi_rank, mpi_size = comm.Get_rank(), comm.Get_size()
    if init_method is not None and init_method.startswith("env://"):
        env_rank, env_size = _env_int("RANK"), _env_int("WORLD_SIZE")
        rank = env_rank if rank == -1 and env_rank is not None else rank
        world_size = env_size if world_size == -1 and env_size is not None else world_size
    if world_size not in (-1, None) and world_size != mpi_size:
        raise ValueError(f"world_size={world_size} was requested but MPI started {mpi_size} process(es); "
                         f"launch with `mpiexec -n {world_size} ...` (MPI decides the world size)")
    if rank not in (-1, None) and rank != mpi_rank:
        raise ValueError(f"rank={rank} was requested but MPI gave this process rank {mpi_rank}; with MPI the "
                         "launcher assigns ranks, so leave rank unset (or pass dist.get_rank() after init)")
    # the world group gets its own communicator so that nothing a user does on COMM_WORLD
    # directly can be matched with our collectives
    pg = ProcessGroup(comm.Dup(), list(range(mpi_size)), group_name or "0")
    if timeout is not None:
        pg._timeout = timeout
    _world.default = pg
    _world.groups = [pg]
    _world.counter = 1


def destroy_process_group(group: ProcessGroup | None = None) -> None:
    """Leave ``group`` (default: every group, the default one included)."""
    if group is None or group is _world.default:
        if _world.default is None:
            raise AssertionError("Process group cannot be None")
        for pg in _world.groups:
            _free(pg)
        _world.default = None
        _world.groups = []
        return
    if group == NON_GROUP_MEMBER:
        return
    if group not in _world.groups:
        raise ValueError("Invalid process group specified")
    _free(group)
    _world.groups.remove(group)


def _free(pg: ProcessGroup) -> None:
    try:
        pg._comm.Free()
    except Exception:  # noqa: BLE001 - MPI may already be finalised at interpreter exit
        pass


def default_group() -> ProcessGroup:
    if _world.default is None:
        raise ValueError(NO_GROUP)
    return _world.default


def resolve(group) -> ProcessGroup | None:
    """The group a collective runs on; None when this rank is not a member (the collective is skipped)."""
    pg = default_group()
    if group is None:
        return pg
    if group == NON_GROUP_MEMBER:
        return None
    if not isinstance(group, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup, got {type(group).__name__}")
    return group


def warn_not_in_group(op_name: str) -> None:
    warnings.warn(f"Running {op_name} on global rank {default_group().rank()} which does not belong to the given "
                  "group.", stacklevel=3)


def get_rank(group: ProcessGroup | None = None) -> int:
    """This process's rank in ``group`` (default group when None); -1 if it is not a member.

    >>> import retrograd.distributed as dist
    >>> dist.get_rank()                           # doctest: +SKIP
    0
    """
    pg = resolve(group)
    return -1 if pg is None else pg.rank()


def get_world_size(group: ProcessGroup | None = None) -> int:
    """The number of processes in ``group``; -1 if this process is not a member."""
    pg = resolve(group)
    return -1 if pg is None else pg.size()


def get_backend(group: ProcessGroup | None = None) -> Backend:
    """The backend's name: always ``"mpi"``."""
    pg = resolve(group)
    if pg is None:
        raise ValueError("Invalid process group specified")
    return Backend(Backend.MPI)


def get_process_group_ranks(group: ProcessGroup) -> list[int]:
    """The global ranks of the members of ``group``, in group-rank order."""
    if group is None:
        return list(default_group()._ranks)
    if group == NON_GROUP_MEMBER:
        raise ValueError("Group -100 is not registered, please create group with torch.distributed.new_group API")
    return list(group._ranks)


def get_global_rank(group: ProcessGroup, group_rank: int) -> int:
    """The global rank of the process whose rank in ``group`` is ``group_rank``."""
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"Group rank {group_rank} is not part of group {group}")
    return ranks[group_rank]


def get_group_rank(group: ProcessGroup, global_rank: int) -> int:
    """The rank within ``group`` of the process whose global rank is ``global_rank``."""
    ranks = get_process_group_ranks(group)
    if global_rank not in ranks:
        raise ValueError(f"Global rank {global_rank} is not part of group {group}")
    return ranks.index(global_rank)


def new_group(ranks: list[int] | None = None, timeout: datetime.timedelta | None = None, backend=None,
              pg_options=None, use_local_synchronization: bool = False, group_desc=None, device_id=None,
              sort_ranks: bool = True):
    """A group of the given global ranks; every process of the default group must call it.

    Processes outside ``ranks`` get ``GroupMember.NON_GROUP_MEMBER``.

    >>> import retrograd.distributed as dist
    >>> evens = dist.new_group([0, 2])           # doctest: +SKIP
    """
    world = default_group()
    n = world.size()
    ranks = list(range(n)) if ranks is None else [int(r) for r in ranks]
    if sort_ranks:
        ranks = sorted(ranks)
    if len(set(ranks)) != len(ranks):
        raise ValueError(f"ranks should be unique, got {ranks}")
    for r in ranks:
        if r < 0 or r >= n:
            raise ValueError("The new group's rank should be within the world_size set by init_process_group")
    MPI = _mpi.MPI()
    me = world.rank()
    member = me in ranks
    # Split is collective over the whole world, which is what torch asks of new_group's callers
    sub = world._comm.Split(0 if member else MPI.UNDEFINED, ranks.index(me) if member else 0)
    name = str(_world.counter)
    _world.counter += 1
    if not member:
        return NON_GROUP_MEMBER
    pg = ProcessGroup(sub, ranks, name)
    if timeout is not None:
        pg._timeout = timeout
    _world.groups.append(pg)
    return pg


def group_peer(pg: ProcessGroup, rank: int | None, group_rank: int | None, op_name: str) -> int:
    """The group rank named by a global ``rank`` or by ``group_rank`` (exactly one of them), as torch resolves it."""
    if group_rank is not None:
        if rank is not None:
            raise ValueError("Can't specify both group_rank and global_rank")
        peer = int(group_rank)
    else:
        if rank is None:
            raise ValueError("Must specify global_rank or group_rank")
        rank = int(rank)
        if pg is _world.default:
            peer = rank  # the default group's ranks are the global ones (checked below, like the backend does)
        elif rank not in pg._ranks:
            raise ValueError(f"Global rank {rank} is not part of group {pg}")
        else:
            peer = pg._ranks.index(rank)
    if not 0 <= peer < pg.size():
        raise RuntimeError(f"ProcessGroupMPI::{op_name}: invalid root rank: {peer}")
    return peer
