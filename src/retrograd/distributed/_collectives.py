"""Tensor collectives (all_reduce, broadcast, gather ...) on MPI's nonblocking collectives.

Every collective starts MPI's nonblocking form and returns a ``Work``; ``async_op=False``
waits on it at once.  Data is moved as raw bytes, so every dtype travels; reductions use
MPI's own typed operations where MPI has the type (float32/64, all integers; bool through
MPI's logical operations), and for float16, which MPI cannot add, each rank gathers the
operands and reduces them in rank order with NumPy, the same on every rank.

The examples are not run as doctests: they belong in processes started by ``mpiexec``
(``python -m retrograd.distributed.run -n 2 ...``), and the values shown are one rank's.
"""
from __future__ import annotations


import numpy as np

from .._tensor import Tensor
from . import _mpi
from ._process_group import group_peer, resolve, warn_not_in_group
from ._reduce_op import ReduceOp, as_red_op_type
from ._work import Work

__all__ = ["all_reduce", "broadcast", "reduce", "all_gather", "all_gather_into_tensor", "gather", "scatter",
           "reduce_scatter", "reduce_scatter_tensor", "all_to_all", "all_to_all_single", "barrier"]

_R = ReduceOp.RedOpType
_BITWISE = (_R.BAND, _R.BOR, _R.BXOR)
_NUMPY_REDUCE = {_R.SUM: np.add, _R.AVG: np.add, _R.PRODUCT: np.multiply, _R.MIN: np.minimum, _R.MAX: np.maximum,
                 _R.BAND: np.bitwise_and, _R.BOR: np.bitwise_or, _R.BXOR: np.bitwise_xor}


# ---------------------------------------------------------------------------------------- checks
def check_tensor(t, name: str) -> None:
    if not isinstance(t, Tensor):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type torch.Tensor\n"
                        f"             but got {type(t)} instead.")


def check_tensor_list(ts, name: str) -> None:
    if not isinstance(ts, list):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} instead.")
    if not all(isinstance(t, Tensor) for t in ts):
        raise TypeError(f"Invalid function argument. Expected parameter `{name}` of type List[torch.Tensor]\n"
                        f"             but got {type(ts)} with elements of type {[type(t) for t in ts]}.")


def same_dtype(*groups) -> None:
    last = None
    for g in groups:
        for t in (g if isinstance(g, list) else (g,)):
            if last is None:
                last = t.dtype
            elif t.dtype != last:
                raise ValueError(f"Invalid usage of tensors with different dtypesFound {last} and  {t.dtype}")


def _shape(a) -> str:
    return "(" + ", ".join(str(d) for d in a) + ")"


def _check_sizes(op_name: str, ts: list, expected: tuple) -> None:
    for i, t in enumerate(ts):
        if tuple(t.shape) != tuple(expected):
            raise RuntimeError(f"ProcessGroupMPI::{op_name}: invalid tensor size at index {i} (expected "
                               f"{_shape(expected)}, got {_shape(t.shape)})")


# ---------------------------------------------------------------------------------------- buffers
def _inout(t: Tensor) -> np.ndarray:
    """A C-contiguous array holding ``t``'s values that MPI may read and overwrite (``t``'s own when it can)."""
    d = t._data
    if d.flags.c_contiguous and d.flags.writeable:
        return d
    return np.ascontiguousarray(d)


def _out(t: Tensor) -> np.ndarray:
    """A C-contiguous array MPI may fill for ``t`` (``t``'s own when it can); its contents are not read."""
    d = t._data
    if d.flags.c_contiguous and d.flags.writeable:
        return d
    return np.empty(d.shape, d.dtype)


def _store(t: Tensor, buf: np.ndarray) -> None:
    if buf is not t._data:
        np.copyto(t._data, buf.reshape(t._data.shape))


def _bytes(a: np.ndarray) -> np.ndarray:
    return a.reshape(-1).view(np.uint8)


# ---------------------------------------------------------------------------------------- reductions
class _Reduction:
    """How one (op, dtype) pair is carried out: an MPI op on a typed buffer, or NumPy after a gather."""

    def __init__(self, op, npdtype: np.dtype, size: int) -> None:
        op = as_red_op_type(op)
        kind = npdtype.kind
        if op is _R.PREMUL_SUM:
            raise RuntimeError("Cannot use ReduceOp.PREMUL_SUM with MPI")
        if op in _BITWISE and kind == "f":
            raise RuntimeError(f"Cannot use ReduceOp.{op.name} with non-integral dtype")
        if op is _R.AVG and kind != "f":
            from .._tensor import _legacy_type_name

            raise RuntimeError(f"result type Float can't be cast to the desired output type "
                               f"{_legacy_type_name(npdtype)[len('torch.'):-len('Tensor')]}")
        MPI = _mpi.MPI()
        self.op, self.size, self.npdtype = op, size, npdtype
        self.divide = op is _R.AVG and size > 1
        if kind == "b":
            # bool: sum/max/or are "any", product/min/and are "all", xor is parity; MPI's logical
            # ops on the bytes give exactly 0 or 1, valid bools
            self.mpi_type = MPI.UINT8_T
            self.view = np.uint8
            self.mpi_op = {_R.SUM: MPI.LOR, _R.MAX: MPI.LOR, _R.BOR: MPI.LOR, _R.PRODUCT: MPI.LAND,
                           _R.MIN: MPI.LAND, _R.BAND: MPI.LAND, _R.BXOR: MPI.LXOR}[op]
        else:
            self.mpi_type = _mpi.mpi_datatype(npdtype)
            self.view = npdtype
            self.mpi_op = {_R.SUM: MPI.SUM, _R.AVG: MPI.SUM, _R.PRODUCT: MPI.PROD, _R.MIN: MPI.MIN,
                           _R.MAX: MPI.MAX, _R.BAND: MPI.BAND, _R.BOR: MPI.BOR, _R.BXOR: MPI.BXOR}[op]

    @property
    def native(self) -> bool:
        return self.mpi_type is not None

    def spec(self, a: np.ndarray):
        return [a.reshape(-1).view(self.view), self.mpi_type]

    def finish(self, a: np.ndarray) -> None:
        if self.divide:
            np.divide(a, self.size, out=a, casting="unsafe")

    def combine(self, stacked: np.ndarray, out: np.ndarray) -> None:
        """Reduce ``stacked[0], stacked[1], ...`` (rank order) into ``out`` with NumPy."""
        f = _NUMPY_REDUCE[self.op]
        acc = stacked[0].copy()
        for k in range(1, stacked.shape[0]):
            f(acc, stacked[k], out=acc)
        np.copyto(out, acc.reshape(out.shape))
        self.finish(out)


# ---------------------------------------------------------------------------------------- API
def _done(work: Work, async_op: bool):
    if async_op:
        return work
    work.wait()
    return None


def all_reduce(tensor: Tensor, op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``tensor`` over all ranks of ``group`` in place: afterwards every rank holds the result.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> t = torch.ones(2) * (dist.get_rank() + 1)   # doctest: +SKIP
    >>> dist.all_reduce(t); t                        # doctest: +SKIP
    tensor([3., 3.])
    """
    check_tensor(tensor, "tensor")
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("all_reduce")
    red = _Reduction(op, tensor._data.dtype, pg.size())
    buf = _inout(tensor)
    MPI = _mpi.MPI()
    if red.native:
        req = pg._comm.Iallreduce(MPI.IN_PLACE, red.spec(buf), red.mpi_op)

        def finish() -> None:
            red.finish(buf)
            _store(tensor, buf)
        return _done(Work([req], finish, [tensor]), async_op)
    stacked = np.empty((pg.size(), buf.nbytes), np.uint8)
    req = pg._comm.Iallgather(_bytes(buf), stacked)

    def finish_gathered() -> None:
        red.combine(stacked.view(buf.dtype), buf)
        _store(tensor, buf)
    return _done(Work([req], finish_gathered, [tensor]), async_op)


def broadcast(tensor: Tensor, src: int | None = None, group=None, async_op: bool = False,
              group_src: int | None = None):
    """Copy ``tensor`` from rank ``src`` into ``tensor`` on every other rank.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> t = torch.full((2,), float(dist.get_rank()))   # doctest: +SKIP
    >>> dist.broadcast(t, src=0); t                      # doctest: +SKIP
    tensor([0., 0.])
    """
    check_tensor(tensor, "tensor")
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("broadcast")
    root = group_peer(pg, src, group_src, "broadcast")
    buf = _inout(tensor)
    req = pg._comm.Ibcast(_bytes(buf), root=root)
    return _done(Work([req], lambda: _store(tensor, buf), [tensor]), async_op)


def reduce(tensor: Tensor, dst: int | None = None, op=ReduceOp.SUM, group=None, async_op: bool = False,
           group_dst: int | None = None):
    """Reduce ``tensor`` over the ranks into ``tensor`` on rank ``dst`` (others keep theirs).

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> t = torch.ones(2)                      # doctest: +SKIP
    >>> dist.reduce(t, dst=0)                  # doctest: +SKIP
    """
    check_tensor(tensor, "tensor")
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("reduce")
    root = group_peer(pg, dst, group_dst, "reduce")
    red = _Reduction(op, tensor._data.dtype, pg.size())
    MPI = _mpi.MPI()
    am_root = pg.rank() == root
    buf = _inout(tensor) if am_root else np.ascontiguousarray(tensor._data)
    if red.native:
        if am_root:
            req = pg._comm.Ireduce(MPI.IN_PLACE, red.spec(buf), red.mpi_op, root=root)

            def finish() -> None:
                red.finish(buf)
                _store(tensor, buf)
            return _done(Work([req], finish, [tensor]), async_op)
        req = pg._comm.Ireduce(red.spec(buf), None, red.mpi_op, root=root)
        return _done(Work([req], None, [tensor]), async_op)
    stacked = np.empty((pg.size(), buf.nbytes), np.uint8) if am_root else None
    req = pg._comm.Igather(_bytes(buf), stacked, root=root)
    if not am_root:
        return _done(Work([req], None, [tensor]), async_op)

    def finish_gathered() -> None:
        red.combine(stacked.view(buf.dtype), buf)
        _store(tensor, buf)
    return _done(Work([req], finish_gathered, [tensor]), async_op)


def all_gather(tensor_list: list[Tensor], tensor: Tensor, group=None, async_op: bool = False):
    """Every rank's ``tensor`` into ``tensor_list[rank]``, on every rank.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> out = [torch.zeros(1) for _ in range(dist.get_world_size())]   # doctest: +SKIP
    >>> dist.all_gather(out, torch.ones(1) * dist.get_rank())           # doctest: +SKIP
    """
    check_tensor_list(tensor_list, "tensor_list")
    check_tensor(tensor, "tensor")
    same_dtype(tensor_list, tensor)
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("all_gather")
    n = pg.size()
    if len(tensor_list) != n:
        raise RuntimeError(f"ProcessGroupMPI::allgather: invalid output tensor list at index 0 (expected length "
                           f"{n}, got {len(tensor_list)})")
    _check_sizes("allgather", tensor_list, tensor.shape)
    src = np.ascontiguousarray(tensor._data)
    stacked = np.empty((n, src.nbytes), np.uint8)
    req = pg._comm.Iallgather(_bytes(src), stacked)

    def finish() -> None:
        for i, t in enumerate(tensor_list):
            np.copyto(t._data, stacked[i].view(src.dtype).reshape(src.shape))
    return _done(Work([req], finish, tensor_list), async_op)


def _chunk_shapes(shape: tuple, n: int) -> list[tuple]:
    """The shapes ``torch.chunk(x, n)`` gives for ``x`` of ``shape`` (dim 0)."""
    if not shape:
        return [()]
    d0 = shape[0]
    step = -(-d0 // n) if d0 else 0
    sizes = [min(step, d0 - i * step) for i in range(n) if step and i * step < d0] or [0]
    return [(s, *shape[1:]) for s in sizes]


def all_gather_into_tensor(output_tensor: Tensor, input_tensor: Tensor, group=None, async_op: bool = False):
    """Every rank's ``input_tensor`` concatenated along dim 0 into ``output_tensor``.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> out = torch.zeros(2 * dist.get_world_size())                          # doctest: +SKIP
    >>> dist.all_gather_into_tensor(out, torch.ones(2) * dist.get_rank())     # doctest: +SKIP
    """
    check_tensor(output_tensor, "output_tensor")
    check_tensor(input_tensor, "input_tensor")
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("all_gather_into_tensor")
    n = pg.size()
    if output_tensor.dtype != input_tensor.dtype:
        raise RuntimeError(f"ProcessGroupMPI::allgather: invalid tensor type at index 0 (expected "
                           f"{input_tensor.dtype}, got {output_tensor.dtype})")
    chunks = _chunk_shapes(tuple(output_tensor.shape), n)
    want = tuple(input_tensor.shape)
    for i in range(n):
        got = chunks[i] if i < len(chunks) else (0, *want[1:])
        if got != want:
            raise RuntimeError(f"ProcessGroupMPI::allgather: invalid tensor size at index {i} (expected "
                               f"{_shape(want)}, got {_shape(got)})")
    src = np.ascontiguousarray(input_tensor._data)
    out = _out(output_tensor)
    req = pg._comm.Iallgather(_bytes(src), _bytes(out))
    return _done(Work([req], lambda: _store(output_tensor, out), [output_tensor]), async_op)


def gather(tensor: Tensor, gather_list: list[Tensor] | None = None, dst: int | None = None, group=None,
           async_op: bool = False, group_dst: int | None = None):
    """Every rank's ``tensor`` into ``gather_list`` on rank ``dst``.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> dist.gather(torch.ones(1), dst=0)      # doctest: +SKIP
    """
    check_tensor(tensor, "tensor")
    if gather_list:
        check_tensor_list(gather_list, "gather_list")
    else:
        gather_list = []
    same_dtype(gather_list, tensor)
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("gather")
    root = group_peer(pg, dst if dst is not None or group_dst is not None else 0, group_dst, "gather")
    n = pg.size()
    am_root = pg.rank() == root
    if am_root and not gather_list:
        raise ValueError("Argument ``gather_list`` must be specified on destination rank.")
    if not am_root and gather_list:
        raise ValueError("Argument ``gather_list`` must NOT be specified on non-destination ranks.")
    if am_root:
        if len(gather_list) != n:
            raise RuntimeError(f"ProcessGroupMPI::gather: Incorrect output list size {len(gather_list)}. Output "
                               f"list size should be {n}, same as size of the process group.")
        _check_sizes("gather", gather_list, tensor.shape)
    src = np.ascontiguousarray(tensor._data)
    stacked = np.empty((n, src.nbytes), np.uint8) if am_root else None
    req = pg._comm.Igather(_bytes(src), stacked, root=root)

    def finish() -> None:
        for i, t in enumerate(gather_list):
            np.copyto(t._data, stacked[i].view(src.dtype).reshape(src.shape))
    return _done(Work([req], finish if am_root else None, gather_list), async_op)


def scatter(tensor: Tensor, scatter_list: list[Tensor] | None = None, src: int | None = None, group=None,
            async_op: bool = False, group_src: int | None = None):
    """``scatter_list[i]`` on rank ``src`` into ``tensor`` on rank ``i``.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> t = torch.zeros(1)                     # doctest: +SKIP
    >>> dist.scatter(t, [torch.ones(1)] * dist.get_world_size() if dist.get_rank() == 0 else None, src=0)  # doctest: +SKIP
    """
    check_tensor(tensor, "tensor")
    if scatter_list:
        check_tensor_list(scatter_list, "scatter_list")
    else:
        scatter_list = []
    same_dtype(scatter_list, tensor)
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("scatter")
    root = group_peer(pg, src if src is not None or group_src is not None else 0, group_src, "scatter")
    n = pg.size()
    am_root = pg.rank() == root
    if am_root and not scatter_list:
        raise ValueError("Argument ``scatter_list`` must be specified on source rank.")
    if not am_root and scatter_list:
        raise ValueError("Argument ``scatter_list`` must NOT be specified on non-source ranks.")
    stacked = None
    if am_root:
        if len(scatter_list) != n:
            raise RuntimeError(f"ProcessGroupMPI::scatter: Incorrect input list size {len(scatter_list)}. Input "
                               f"list size should be {n}, same as size of the process group.")
        _check_sizes("scatter", scatter_list, tensor.shape)
        stacked = np.stack([np.ascontiguousarray(t._data).reshape(-1).view(np.uint8) for t in scatter_list]) \
            if tensor._data.size else np.empty((n, 0), np.uint8)
    out = _out(tensor)
    req = pg._comm.Iscatter(stacked, _bytes(out), root=root)
    return _done(Work([req], lambda: _store(tensor, out), [tensor]), async_op)


def reduce_scatter_tensor(output: Tensor, input: Tensor, op=ReduceOp.SUM, group=None,  # noqa: A002
                          async_op: bool = False):
    """Reduce ``input`` over the ranks, then give rank ``i`` the ``i``-th chunk (dim 0) in ``output``.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> out = torch.zeros(2)                                                       # doctest: +SKIP
    >>> dist.reduce_scatter_tensor(out, torch.ones(2 * dist.get_world_size()))     # doctest: +SKIP
    """
    check_tensor(output, "output")
    check_tensor(input, "input")
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("reduce_scatter_tensor")
    n = pg.size()
    if output.dtype != input.dtype:
        raise RuntimeError(f"Check failed: outputTensors[i].dtype() == inputTensors[i].dtype() "
                           f"({output.dtype} vs. {input.dtype}).")
    out_shape, in_shape = tuple(output.shape), tuple(input.shape)
    if not out_shape or not in_shape or out_shape[0] * n != in_shape[0] or out_shape[1:] != in_shape[1:]:
        a = out_shape[0] * n if out_shape else n
        b = in_shape[0] if in_shape else 1
        raise RuntimeError(f"Check failed: outputShape[0] * worldSize == inputShape[0] ({a} vs. {b}).")
    return _reduce_scatter(pg, output, np.ascontiguousarray(input._data), op, async_op)


def _reduce_scatter(pg, output: Tensor, src: np.ndarray, op, async_op: bool):
    n = pg.size()
    red = _Reduction(op, src.dtype, n)
    out = _out(output)
    if red.native:
        req = pg._comm.Ireduce_scatter_block(red.spec(src), red.spec(out), red.mpi_op)

        def finish() -> None:
            red.finish(out)
            _store(output, out)
        return _done(Work([req], finish, [output]), async_op)
    stacked = np.empty((n, src.nbytes), np.uint8)
    req = pg._comm.Iallgather(_bytes(src), stacked)
    me, per = pg.rank(), out.size

    def finish_gathered() -> None:
        mine = stacked.view(src.dtype).reshape(n, n, per)[:, me]
        red.combine(mine, out)
        _store(output, out)
    return _done(Work([req], finish_gathered, [output]), async_op)


def reduce_scatter(output: Tensor, input_list: list[Tensor], op=ReduceOp.SUM, group=None, async_op: bool = False):
    """Reduce ``input_list[i]`` over the ranks into ``output`` on rank ``i``."""
    check_tensor(output, "output")
    check_tensor_list(input_list, "input_list")
    same_dtype(output, input_list)
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("reduce_scatter")
    n = pg.size()
    if len(input_list) != n:
        raise RuntimeError(f"ProcessGroupMPI::reduce_scatter: invalid input tensor list size {len(input_list)} "
                           f"(expected {n}, the size of the process group)")
    _check_sizes("reduce_scatter", input_list, output.shape)
    src = np.concatenate([np.ascontiguousarray(t._data).reshape(-1) for t in input_list])
    return _reduce_scatter(pg, output, src, op, async_op)


def _alltoallv(pg, sends: list[np.ndarray], recv_sizes: list[int], async_op: bool, finish, result):
    n = pg.size()
    sbuf = np.concatenate([_bytes(s) for s in sends]) if sends else np.empty(0, np.uint8)
    scounts = [s.nbytes for s in sends]
    sdispl = [int(x) for x in np.concatenate([[0], np.cumsum(scounts)[:-1]])] if n else []
    rbuf = np.empty(int(sum(recv_sizes)), np.uint8)
    rdispl = [int(x) for x in np.concatenate([[0], np.cumsum(recv_sizes)[:-1]])] if n else []
    M = _mpi.MPI()
    req = pg._comm.Ialltoallv([sbuf, (scounts, sdispl), M.BYTE], [rbuf, (list(recv_sizes), rdispl), M.BYTE])
    return _done(Work([req], lambda: finish(rbuf, rdispl), result), async_op)


def all_to_all(output_tensor_list: list[Tensor], input_tensor_list: list[Tensor], group=None,
               async_op: bool = False):
    """``input_tensor_list[j]`` of rank ``i`` into ``output_tensor_list[i]`` of rank ``j``.

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> n = dist.get_world_size()                                                      # doctest: +SKIP
    >>> dist.all_to_all([torch.zeros(1) for _ in range(n)], [torch.ones(1)] * n)       # doctest: +SKIP
    """
    check_tensor_list(output_tensor_list, "output_tensor_list")
    check_tensor_list(input_tensor_list, "input_tensor_list")
    same_dtype(output_tensor_list, input_tensor_list)
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("all_to_all")
    n = pg.size()
    if len(input_tensor_list) != n:
        raise RuntimeError(f"ProcessGroupMPI::alltoall: input tensor list size {len(input_tensor_list)} does not "
                           f"match world size {n}")
    if len(output_tensor_list) != n:
        raise RuntimeError(f"ProcessGroupMPI::alltoall: output tensor list size {len(output_tensor_list)} does not "
                           f"match world size {n}")
    sends = [np.ascontiguousarray(t._data) for t in input_tensor_list]

    def finish(rbuf, rdispl) -> None:
        for t, off in zip(output_tensor_list, rdispl):
            d = t._data
            np.copyto(d, rbuf[off:off + d.nbytes].view(d.dtype).reshape(d.shape))
    return _alltoallv(pg, sends, [t._data.nbytes for t in output_tensor_list], async_op, finish,
                      output_tensor_list)


def all_to_all_single(output: Tensor, input: Tensor, output_split_sizes=None, input_split_sizes=None,  # noqa: A002
                      group=None, async_op: bool = False):
    """Split ``input`` along dim 0, send piece ``j`` to rank ``j``, concatenate what arrives into ``output``."""
    check_tensor(output, "output")
    check_tensor(input, "input")
    same_dtype(output, input)
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("all_to_all_single")
    n = pg.size()
    src = np.ascontiguousarray(input._data)
    out = _out(output)

    def splits(sizes, a, what):
        d0 = a.shape[0] if a.ndim else 1
        if not sizes:
            if d0 % n:
                raise RuntimeError(f"Tensor's dim 0 does not divide equally across group size {n}")
            sizes = [d0 // n] * n
        if len(sizes) != n or sum(sizes) != d0:
            raise RuntimeError(f"Split sizes doesn't match total dim 0 size (got {list(sizes)} for the {what} of "
                               f"dim 0 size {d0} and group size {n})")
        row = a[0].nbytes if a.ndim and d0 else a.itemsize
        return [int(s) * row for s in sizes]
    scounts = splits(input_split_sizes, src, "input")
    rcounts = splits(output_split_sizes, out, "output")
    flat = _bytes(src)
    offs = np.concatenate([[0], np.cumsum(scounts)]).astype(int)
    sends = [flat[offs[j]:offs[j + 1]] for j in range(n)]

    def finish(rbuf, rdispl) -> None:
        _bytes(out)[:] = rbuf
        _store(output, out)
    return _alltoallv(pg, sends, rcounts, async_op, finish, [output])


def barrier(group=None, async_op: bool = False, device_ids=None):
    """Wait until every rank of ``group`` has reached this call."""
    pg = resolve(group)
    if pg is None:
        return warn_not_in_group("barrier")
    return _done(Work([pg._comm.Ibarrier()]), async_op)


