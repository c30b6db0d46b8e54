"""The gradient reducer behind DistributedDataParallel: buckets, hooks, overlapped all-reduce.

Parameters are grouped, in reverse registration order (roughly the order backward produces
their gradients), into buckets of at most ``bucket_cap_mb`` (with the default cap the first
one holds 1 MiB, as torch's, so the first all-reduce starts early), one dtype per bucket.  A post-accumulate-grad hook on each
parameter copies its gradient into its bucket's flat buffer; when a bucket is full, its
nonblocking ``MPI_Iallreduce`` starts at once (buckets start in index order, the same on
every rank, as MPI requires), so communication overlaps the rest of backward.  A callback
queued on the autograd engine waits for every bucket at the end of backward and writes
the averaged gradients back into ``.grad``.

MPI moves a nonblocking collective forward only while some MPI call runs in the process, and
backward spends its time in NumPy kernels, not in MPI.  So while buckets are in flight a small
thread polls them (``MPI_Test`` every ``poll_interval_s``; NumPy's kernels release the GIL, so
it runs beside them), which lets the data move during the rest of backward.  With
``poll_interval_s = None`` the hooks poll instead (progress only between gradients).
"""
from __future__ import annotations

import threading
import time

import numpy as np

from ..._tensor import Tensor
from ...autograd.engine import queue_callback
from ...autograd.graph import AccumulateGrad
from ...distributed import _mpi

__all__ = ["Reducer"]

FIRST_BUCKET_BYTES = 1024 * 1024  # torch's dist._DEFAULT_FIRST_BUCKET_BYTES

UNFINISHED = (
    "Expected to have finished reduction in the prior iteration before starting a new one. This error indicates "
    "that your module has parameters that were not used in producing loss. You can enable unused parameter "
    "detection by passing the keyword argument `find_unused_parameters=True` to "
    "`torch.nn.parallel.DistributedDataParallel`, and by \nmaking sure all `forward` function outputs participate "
    "in calculating loss. \nIf you already have done the above, then the distributed data parallel module wasn't "
    "able to locate the output tensors in the return value of your module's `forward` function. Please include the "
    "loss function and the structure of the return value of `forward` of your module when reporting this issue "
    "(e.g. list, dict, iterable).\nParameter indices which did not receive grad for rank {rank}: {indices}")


class _Bucket:
    __slots__ = ("index", "members", "buffer", "mpi_type", "pending", "request", "completed")

    def __init__(self, index: int, members: list[tuple[int, int, int]], dtype: np.dtype) -> None:
        self.index = index
        self.members = members  # (param index, offset, numel)
        n = sum(m[2] for m in members)
        datatype = _mpi.mpi_datatype(dtype)
        if datatype is None:
            # float16 gradients: MPI cannot add halves, so the bucket travels (and sums) as float32
            dtype, datatype = np.dtype(np.float32), _mpi.MPI().FLOAT
        self.buffer = np.zeros(n, dtype)
        self.mpi_type = datatype
        self.pending = len(members)
        self.request = None
        self.completed = False


class Reducer:
    """Averages the gradients of ``params`` over the process group, during backward."""

    def __init__(self, params: list[Tensor], pg, bucket_cap_bytes: int, find_unused: bool,
                 first_bucket_bytes: int | None = None) -> None:
        MPI = _mpi.MPI()
        self.params = params
        self.size = pg.size()
        self.rank = pg.rank()
        # a private communicator: DDP's nonblocking all-reduces can never be matched with a
        # collective the user runs on the group meanwhile
        self.comm = pg._comm.Dup()
        self.find_unused = find_unused
        self.buckets: list[_Bucket] = []
        self.where: list[tuple[_Bucket, int, int]] = [None] * len(params)  # type: ignore[list-item]
        order = list(range(len(params)))[::-1]
        cap = bucket_cap_bytes if first_bucket_bytes is None else first_bucket_bytes
        open_: dict = {}  # dtype -> (members, bytes)
        for i in order:
            d = params[i]._data
            members, nbytes = open_.get(d.dtype, ([], 0))
            members.append(i)
            nbytes += d.nbytes
            open_[d.dtype] = (members, nbytes)
            if nbytes >= cap:
                self._add_bucket(members, d.dtype)
                del open_[d.dtype]
                cap = bucket_cap_bytes
        for dt, (members, _) in open_.items():
            self._add_bucket(members, dt)
        self.expect_hooks = False
        self.queued = False
        self.next_bucket = 0
        self.ready = np.zeros(len(params), bool)
        self.used = np.zeros(len(params), np.int32)
        self.unused_at_forward: list[int] = []
        self.error: str | None = None
        # (event, bucket, time.perf_counter()) with event start / done (seen complete during backward) /
        # backward_end / waited: set to [] to record (bench/bench_distributed.py draws the overlap from it)
        self.timeline: list | None = None
        self._MPI = MPI
        # the polling thread calls MPI beside the main thread: only under MPI_THREAD_MULTIPLE
        # (mpi4py's default); with a lower thread level the hooks poll instead
        threads_ok = MPI.Query_thread() >= MPI.THREAD_MULTIPLE
        self.poll_interval_s: float | None = 0.0005 if self.size > 1 and threads_ok else None
        self._poller: threading.Thread | None = None
        self._stop_polling = False
        self.handles = [p.register_post_accumulate_grad_hook(self._make_hook(i)) for i, p in enumerate(params)]

    def _add_bucket(self, members: list[int], dtype) -> None:
        off, rows = 0, []
        for i in members:
            n = self.params[i]._data.size
            rows.append((i, off, n))
            off += n
        b = _Bucket(len(self.buckets), rows, dtype)
        for i, o, n in rows:
            self.where[i] = (b, o, n)
        self.buckets.append(b)

    # ------------------------------------------------------------------ per iteration
    def prepare_for_backward(self, outputs) -> None:
        """Called after the forward: arm the hooks; with find_unused_parameters, find the parameters no output reaches."""
        self._join_poller()  # (left running only if the previous backward raised)
        for b in self.buckets:
            b.pending = len(b.members)
            b.request = None
            b.completed = False
        self.ready[:] = False
        self.used[:] = 0
        self.next_bucket = 0
        self.queued = False
        self.expect_hooks = True
        if self.find_unused:
            reached = _reachable_leaves(outputs)
            self.unused_at_forward = [i for i, p in enumerate(self.params) if id(p) not in reached]

    def ensure_prior_reduction_finished(self) -> None:
        """Called before a forward that will sync: torch's error if the last backward left parameters unreduced.

        As torch's reducer, it keeps failing: the replicas may already disagree.
        """
        if self.error is not None:
            raise RuntimeError(self.error)

    def _make_hook(self, i: int):
        def hook(param: Tensor) -> None:
            if not self.expect_hooks:
                return
            if not self.queued:
                self.queued = True
                queue_callback(self._finalize)
                # parameters the forward did not use will get no hook: ready now, contributing zeros
                for j in self.unused_at_forward:
                    self._mark_ready(j, used=False)
            self._mark_ready(i, used=True)
            if self._poller is None:
                self._progress()
        return hook

    def _mark_ready(self, i: int, used: bool) -> None:
        if self.ready[i]:
            return
        b, off, n = self.where[i]
        g = self.params[i].grad
        if g is None:
            b.buffer[off:off + n] = 0
        else:
            b.buffer[off:off + n] = g._data.reshape(-1)
        self.ready[i] = True
        if used:
            self.used[i] = 1
        b.pending -= 1
        while self.next_bucket < len(self.buckets) and self.buckets[self.next_bucket].pending == 0:
            self._launch(self.buckets[self.next_bucket])
            self.next_bucket += 1

    def _launch(self, b: _Bucket) -> None:
        if self.timeline is not None:
            self.timeline.append(("start", b.index, time.perf_counter()))
        b.request = self.comm.Iallreduce(self._MPI.IN_PLACE, [b.buffer, b.mpi_type], self._MPI.SUM)
        if self.poll_interval_s is not None and self._poller is None:
            self._stop_polling = False
            self._poller = threading.Thread(target=self._poll, name="ddp-allreduce-progress", daemon=True)
            self._poller.start()

    def _poll(self) -> None:
        # the only thread that touches in-flight requests until _finalize joins it (MPI forbids
        # two threads using one request at once); launching new ones on the communicator is fine
        # under MPI_THREAD_MULTIPLE, mpi4py's default
        while True:
            stop = self._stop_polling
            self._progress()
            if stop:
                return
            time.sleep(self.poll_interval_s)

    def _progress(self) -> None:
        # MPI advances nonblocking collectives only inside MPI calls: test the running ones
        for b in self.buckets[:self.next_bucket]:
            if b.request is not None and not b.completed and b.request.Test():
                b.completed = True
                if self.timeline is not None:
                    self.timeline.append(("done", b.index, time.perf_counter()))

    def _finalize(self) -> None:
        if self.timeline is not None:
            self.timeline.append(("backward_end", -1, time.perf_counter()))
        self.expect_hooks = False
        if self.find_unused:
            for i in np.flatnonzero(~self.ready):
                self._mark_ready(int(i), used=False)
        self._join_poller()  # from here on this thread alone touches the requests
        launched = [b.request for b in self.buckets if b.request is not None]
        if not self.ready.all():
            # torch reports this at the next forward; the started all-reduces are completed so
            # that MPI stays in step across ranks
            self._MPI.Request.Waitall(launched)
            missing = " ".join(str(int(i)) for i in np.flatnonzero(~self.ready))
            self.error = UNFINISHED.format(rank=self.rank, indices=missing)
            return
        used_req = None
        if self.find_unused:
            used_req = self.comm.Iallreduce(self._MPI.IN_PLACE, [self.used, self._MPI.INT32_T], self._MPI.SUM)
        for b in self.buckets:
            b.request.Wait()  # (a request already found complete by Test is null: returns at once)
            if self.timeline is not None:
                self.timeline.append(("waited", b.index, time.perf_counter()))
            b.request = None
        if used_req is not None:
            used_req.Wait()
        for b in self.buckets:
            if self.size > 1:
                b.buffer /= self.size
            for i, off, n in b.members:
                if self.find_unused and self.used[i] == 0:
                    continue  # unused on every rank: torch leaves its grad alone
                p = self.params[i]
                avg = b.buffer[off:off + n].reshape(p._data.shape)
                if p.grad is None:
                    p.grad = Tensor._wrap(avg.astype(p._data.dtype, copy=True), False, None, 0)
                else:
                    np.copyto(p.grad._data, avg, casting="unsafe")

    def _join_poller(self) -> None:
        if self._poller is not None:
            self._stop_polling = True
            self._poller.join()
            self._poller = None

    def remove_hooks(self) -> None:
        for h in self.handles:
            h.remove()


def _reachable_leaves(outputs) -> set:
    """ids of the leaf tensors whose AccumulateGrad a backward from ``outputs`` would reach."""
    tensors, stack = [], [outputs]
    while stack:  # the output structure: tensors inside tuples, lists, dicts
        o = stack.pop()
        if isinstance(o, Tensor):
            tensors.append(o)
        elif isinstance(o, (list, tuple)):
            stack.extend(o)
        elif isinstance(o, dict):
            stack.extend(o.values())
    found, seen = set(), set()
    nodes = []
    for t in tensors:
        if t.grad_fn is not None:
            nodes.append(t.grad_fn)
        elif t.requires_grad:
            found.add(id(t))
    while nodes:
        n = nodes.pop()
        if n is None or id(n) in seen:
            continue
        seen.add(id(n))
        if isinstance(n, AccumulateGrad):
            found.add(id(n.variable))
            continue
        nodes.extend(n._next)
    return found
