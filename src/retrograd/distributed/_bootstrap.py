"""What each process runs under ``retrograd.distributed.run``: set torchrun's variables, run the script.

``python -m retrograd.distributed._bootstrap [-m] TARGET ARGS...`` (one per MPI process):
exports ``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``, ``GROUP_RANK`` and
``NODE_RANK`` from MPI, as torchrun exports them, then runs TARGET (a script path, or a module
with ``-m``) as ``__main__``.  An exception that escapes the script aborts the whole MPI job,
so the other ranks do not wait forever in a collective the failed rank will never join.
"""
from __future__ import annotations

import os
import runpy
import sys
import traceback


def _export_ranks() -> None:
    from ._mpi import MPI

    M = MPI()
    world = M.COMM_WORLD
    node = world.Split_type(M.COMM_TYPE_SHARED)  # the processes on this machine
    local_rank, local_size = node.Get_rank(), node.Get_size()
    # one leader per machine numbers the machines
    leaders = world.Split(0 if local_rank == 0 else M.UNDEFINED, world.Get_rank())
    node_rank = leaders.Get_rank() if local_rank == 0 else 0
    node_rank = node.bcast(node_rank, root=0)
    if local_rank == 0:
        leaders.Free()
    node.Free()
    os.environ.update(RANK=str(world.Get_rank()), WORLD_SIZE=str(world.Get_size()), LOCAL_RANK=str(local_rank),
                      LOCAL_WORLD_SIZE=str(local_size), GROUP_RANK=str(node_rank), NODE_RANK=str(node_rank))


def main(argv: list[str]) -> int:
    if not argv:
        print("usage: python -m retrograd.distributed._bootstrap [-m] SCRIPT_OR_MODULE [ARGS...]", file=sys.stderr)
        return 2
    _export_ranks()
    as_module = argv[0] == "-m"
    if as_module:
        argv = argv[1:]
    target = argv[0]
    sys.argv = list(argv)
    try:
        if as_module:
            runpy.run_module(target, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(target)))
            runpy.run_path(target, run_name="__main__")
    except SystemExit as e:
        if e.code not in (None, 0):
            _abort(e.code if isinstance(e.code, int) else 1)
        raise
    except BaseException:  # noqa: BLE001 - any failure must take the whole job down
        traceback.print_exc()
        _abort(1)
    return 0


def _abort(code: int) -> None:
    from ._mpi import MPI

    sys.stdout.flush()
    sys.stderr.flush()
    M = MPI()
    if M.COMM_WORLD.Get_size() > 1:
        M.COMM_WORLD.Abort(code)
    sys.exit(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
