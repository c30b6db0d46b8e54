"""Collectives on picklable Python objects (``broadcast_object_list``, ``all_gather_object`` ...).

Objects travel pickled, with mpi4py's lowercase (object) communication calls.

The examples are not run as doctests: they belong in processes started by ``mpiexec``
(``python -m retrograd.distributed.run -n 2 ...``), and the values shown are one rank's.
"""
from __future__ import annotations

from typing import Any

from ._process_group import group_peer, resolve, warn_not_in_group

__all__ = ["broadcast_object_list", "all_gather_object", "gather_object", "scatter_object_list",
           "send_object_list", "recv_object_list"]

_OBJECT_TAG = 32767  # the largest tag every MPI must accept; tensor sends default to tag 0


def broadcast_object_list(object_list: list[Any], src: int | None = None, group=None, device=None,
                          group_src: int | None = None) -> None:
    """Replace ``object_list``'s items on every rank by those of rank ``src``.

    >>> import retrograd.distributed as dist
    >>> objs = [{"lr": 0.1}] if dist.get_rank() == 0 else [None]   # doctest: +SKIP
    >>> dist.broadcast_object_list(objs, src=0); objs              # doctest: +SKIP
    [{'lr': 0.1}]
    """
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("broadcast_object_list")
    root = group_peer(pg, src, group_src, "broadcast")
    got = pg._comm.bcast(list(object_list) if pg.rank() == root else None, root=root)
    if pg.rank() != root:
        for i, obj in enumerate(got[:len(object_list)]):
            object_list[i] = obj


def all_gather_object(object_list: list[Any], obj: Any, group=None) -> None:
    """``object_list[i]`` becomes rank ``i``'s ``obj``, on every rank.

    >>> import retrograd.distributed as dist
    >>> out = [None] * dist.get_world_size()                     # doctest: +SKIP
    >>> dist.all_gather_object(out, dist.get_rank()); out        # doctest: +SKIP
    [0, 1]
    """
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("all_gather_object")
    for i, o in enumerate(pg._comm.allgather(obj)):
        object_list[i] = o


def gather_object(obj: Any, object_gather_list: list[Any] | None = None, dst: int | None = None, group=None,
                  group_dst: int | None = None) -> None:
    """Every rank's ``obj`` into ``object_gather_list`` on rank ``dst``."""
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("gather_object")
    root = group_peer(pg, dst if dst is not None or group_dst is not None else 0, group_dst, "gather")
    if pg.rank() == root and object_gather_list is None:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    got = pg._comm.gather(obj, root=root)
    if pg.rank() == root:
        for i, o in enumerate(got):
            object_gather_list[i] = o


def scatter_object_list(scatter_object_output_list: list[Any], scatter_object_input_list: list[Any] | None = None,
                        src: int | None = None, group=None, group_src: int | None = None) -> None:
    """``scatter_object_input_list[i]`` of rank ``src`` into ``scatter_object_output_list[0]`` of rank ``i``."""
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("scatter_object_list")
    if not isinstance(scatter_object_output_list, list) or len(scatter_object_output_list) < 1:
        raise ValueError("Expected argument scatter_object_output_list to be a list of size at least 1.")
    root = group_peer(pg, src if src is not None or group_src is not None else 0, group_src, "scatter")
    items = None
    if pg.rank() == root:
        items = list(scatter_object_input_list or [])
        if len(items) != pg.size():
            raise ValueError(f"Expected scatter_object_input_list to have {pg.size()} elements, got {len(items)}")
    scatter_object_output_list[0] = pg._comm.scatter(items, root=root)


def send_object_list(object_list: list[Any], dst: int | None = None, group=None, device=None,
                     group_dst: int | None = None) -> None:
    """Send the items of ``object_list`` to rank ``dst`` (which calls ``recv_object_list``)."""
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("send_object_list")
    peer = group_peer(pg, dst, group_dst, "send")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as the rank of the "
                         "current process.")
    pg._comm.send(list(object_list), dest=peer, tag=_OBJECT_TAG)


def recv_object_list(object_list: list[Any], src: int | None = None, group=None, device=None,
                     group_src: int | None = None) -> int:
    """Fill ``object_list`` with the items rank ``src`` sent; returns the sender's global rank."""
    from . import _mpi

    pg = resolve(group)
    if pg is None:
        warn_not_in_group("recv_object_list")
        return -1
    M = _mpi.MPI()
    peer = M.ANY_SOURCE if src is None and group_src is None else group_peer(pg, src, group_src, "recv")
    status = M.Status()
    got = pg._comm.recv(source=peer, tag=_OBJECT_TAG, status=status)
    for i, o in enumerate(got[:len(object_list)]):
        object_list[i] = o
    return pg._ranks[status.Get_source()]
