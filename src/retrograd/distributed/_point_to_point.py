"""send / recv / isend / irecv and batched P2POps: one rank's tensor to another's.

The examples are not run as doctests: they belong in processes started by ``mpiexec``
(``python -m retrograd.distributed.run -n 2 ...``), and the values shown are one rank's.
"""
from __future__ import annotations

import numpy as np

from .._tensor import Tensor
from . import _mpi
from ._collectives import _bytes, _out, _store, check_tensor
from ._process_group import group_peer, resolve, warn_not_in_group
from ._work import Work

__all__ = ["send", "recv", "isend", "irecv", "P2POp", "batch_isend_irecv"]


def _peer(pg, rank, group_rank, what: str) -> int:
    peer = group_peer(pg, rank, group_rank, what)
    if peer == pg.rank():
        kind = "destination" if what == "send" else "source"
        raise ValueError(f"Invalid {kind} rank: {kind} rank should not be the same as the rank of the current "
                         "process.")
    return peer


def isend(tensor: Tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None):
    """Start sending ``tensor`` to rank ``dst``; returns a Work (``wait()`` before changing ``tensor``).

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> if dist.get_rank() == 0:                       # doctest: +SKIP
    ...     dist.isend(torch.ones(2), dst=1).wait()
    """
    check_tensor(tensor, "tensor")
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("isend")
    peer = _peer(pg, dst, group_dst, "send")
    buf = np.ascontiguousarray(tensor._data)
    return Work([pg._comm.Isend(_bytes(buf), dest=peer, tag=tag)], None, [tensor])


def send(tensor: Tensor, dst: int | None = None, group=None, tag: int = 0, group_dst: int | None = None) -> None:
    """Send ``tensor`` to rank ``dst`` and return once it may be reused."""
    w = isend(tensor, dst, group, tag, group_dst)
    if w is not None:
        w.wait()


def irecv(tensor: Tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None):
    """Start receiving into ``tensor`` from rank ``src`` (any rank when None); returns a Work."""
    check_tensor(tensor, "tensor")
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("irecv")
    M = _mpi.MPI()
    peer = M.ANY_SOURCE if src is None and group_src is None else _peer(pg, src, group_src, "recv")
    out = _out(tensor)
    req = pg._comm.Irecv(_bytes(out), source=peer, tag=tag)
    return Work([req], lambda: _store(tensor, out), [tensor], source=[])


def recv(tensor: Tensor, src: int | None = None, group=None, tag: int = 0, group_src: int | None = None) -> int:
    """Receive into ``tensor`` from rank ``src`` (any rank when None); returns the sender's global rank.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> t = torch.zeros(2)                               # doctest: +SKIP
    >>> dist.recv(t, src=0)                              # doctest: +SKIP
    0
    """
    pg = resolve(group) if isinstance(tensor, Tensor) else None
    w = irecv(tensor, src, group, tag, group_src)
    if w is None:
        return -1
    w.wait()
    return pg._ranks[w._source[-1]]


class P2POp:
    """One ``isend`` or ``irecv`` for ``batch_isend_irecv``."""

    def __init__(self, op, tensor: Tensor, peer: int | None = None, group=None, tag: int = 0,
                 group_peer: int | None = None) -> None:
        if op not in (isend, irecv):
            raise ValueError("Invalid ``op``. Expected ``op`` to be of type ``torch.distributed.isend`` or "
                             "``torch.distributed.irecv``.")
        check_tensor(tensor, "tensor")
        self.op, self.tensor, self.peer, self.group, self.tag, self.group_peer = op, tensor, peer, group, tag, \
            group_peer


def batch_isend_irecv(p2p_op_list: list[P2POp]) -> list[Work]:
    """Start every operation of the list; returns their Works."""
    if not isinstance(p2p_op_list, list) or not all(isinstance(p, P2POp) for p in p2p_op_list):
        raise ValueError("Invalid ``p2p_op_list``. Each op is expected to to be of type ``torch.distributed.P2POp``.")
    return [p.op(p.tensor, p.peer, p.group, p.tag, p.group_peer) for p in p2p_op_list]
