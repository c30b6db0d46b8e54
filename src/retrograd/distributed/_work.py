"""``Work``: the handle an ``async_op=True`` collective or ``isend``/``irecv`` returns.

The examples are not run as doctests: they belong in processes started by ``mpiexec``
(``python -m retrograd.distributed.run -n 2 ...``), and the values shown are one rank's.
"""
from __future__ import annotations

from typing import Callable

from . import _mpi

__all__ = ["Work"]


class Work:
    """An operation that may still be running: ``wait()`` blocks until it has finished.

    Built on MPI's nonblocking requests; the tensors the operation writes hold its result only
    after ``wait()`` (or once ``is_completed()`` answers True).

    >>> import retrograd as torch, retrograd.distributed as dist
    >>> dist.init_process_group("mpi")                          # doctest: +SKIP
    >>> w = dist.all_reduce(torch.ones(2), async_op=True)       # doctest: +SKIP
    >>> w.wait()                                                # doctest: +SKIP
    True
    """

    def __init__(self, requests=(), finish: Callable[[], None] | None = None, result=(), source=None) -> None:
        self._requests = list(requests)
        self._finish = finish  # copies out of staging buffers, divides for AVG ...: once, after MPI is done
        self._result = list(result)
        self._source = source  # irecv: the request's status tells the sender
        self._done = False
        if not self._requests:
            self._complete()

    def _complete(self) -> None:
        finish, self._finish = self._finish, None
        self._done = True
        if finish is not None:
            finish()

    def wait(self, timeout=None) -> bool:
        """Block until the operation has finished; True (as torch's CPU backends return)."""
        if not self._done:
            if self._source is not None:  # irecv: one request, whose status names the sender
                status = _mpi.MPI().Status()
                self._requests[0].Wait(status)
                self._source.append(status.Get_source())
            else:
                _mpi.MPI().Request.Waitall(self._requests)
            self._complete()
        return True

    def is_completed(self) -> bool:
        """Whether the operation has finished (makes MPI progress; never blocks)."""
        if self._done:
            return True
        if self._source is not None:
            status = _mpi.MPI().Status()
            if self._requests[0].Test(status):
                self._source.append(status.Get_source())
                self._complete()
        elif _mpi.MPI().Request.Testall(self._requests):
            self._complete()
        return self._done

    def is_success(self) -> bool:
        return self.is_completed()

    def exception(self):
        return None

    def result(self) -> list:
        """The tensors the operation wrote, after waiting for it."""
        self.wait()
        return self._result

    def source_rank(self) -> int:
        """For ``irecv`` with no ``src``: the group rank of the sender (waits for the message)."""
        self.wait()
        if not self._source:
            raise RuntimeError("It is only supported for recv operations from any source")
        return self._source[-1]

    _source_rank = source_rank

    def get_future(self) -> "_Future":
        return _Future(self)

    def synchronize(self) -> None:
        self.wait()


class _Future:
    """The slice of ``torch.futures.Future`` that code waiting on a collective uses."""

    def __init__(self, work: Work) -> None:
        self._work = work

    def wait(self) -> list:
        return self._work.result()

    value = wait

    def done(self) -> bool:
        return self._work.is_completed()

    def then(self, callback):
        value = callback(self)
        done = Work()
        done._result = value if isinstance(value, list) else [value]
        return _Future(done)
