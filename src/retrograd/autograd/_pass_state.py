"""The backward passes running in this thread, and what PyTorch code may ask about them.

Both engines (``engine.py``, the reference, and ``fast_engine.py``) push a ``_Run`` on
``_local.stack`` for the length of a pass.  The queries here read it: the pass id
(``torch._C._current_graph_task_id``), whether a tensor will receive a gradient
(``register_multi_grad_hook``), the execution order, and ``queue_callback`` (final
callbacks, run when the pass ends).
"""
from __future__ import annotations

import collections
import gc
import itertools
import threading

import numpy as np

from . import grad_mode

__all__ = ["current_run_id", "will_receive_grad", "queue_callback", "execution_engine", "execution_order"]

_run_ids = itertools.count(1)


class _Local(threading.local):
    def __init__(self) -> None:
        self.stack: list = []  # active backward passes in this thread (reentrant ones nest)


_local = _Local()


class _Run:
    """One backward pass: what it executes, its roots and targets, the node now running."""

    __slots__ = ("id", "deps", "fresh", "create_graph", "checkpoint_valid", "execute", "capture", "root_edges",
                 "targets", "current", "callbacks", "freed")

    def __init__(self, deps, create_graph, checkpoint_valid: bool = True) -> None:
        self.id = next(_run_ids)
        self.deps = deps  # {node: edges into it not yet delivered}: the nodes this pass reaches
        self.execute = deps  # the nodes whose function runs (PyTorch's exec_info)
        self.capture = False
        self.root_edges = ()
        self.targets = None
        self.current = None
        self.callbacks = None  # queue_callback: run when this pass ends
        self.fresh: set = set()  # ids of arrays that must be copied before a leaf keeps them
        self.create_graph = create_graph
        # reentrant checkpoint needs a plain backward (no autograd.grad, no inputs=)
        self.checkpoint_valid = checkpoint_valid
        # what the nodes this pass frees hold instead of their saved tensors: which backward call
        # freed them (its user line) and when (the creation number reached then); see graph._Released
        self.freed = _freed_by_this_pass()


def _freed_by_this_pass():
    from . import _sites
    from .graph import _Released, _seq

    marker = _Released()
    marker.site = _sites.here(3) if _sites.record_writes else None
    marker.seq = _seq.__reduce__()[1][0]  # (the next creation number, read without taking it)
    return marker


class pass_environment:
    """What a backward pass sets once for its whole length, not per op.

    NumPy's floating-point error state: fast paths compute on arrays, and PyTorch returns
    inf/NaN without a warning.  The cyclic garbage collector is paused: the graph holds no
    reference cycles, and a collection triggered by the pass's own allocations (a
    ``create_graph`` pass records nodes) would walk the whole graph.
    """

    __slots__ = ("collecting", "errstate")

    def __enter__(self) -> None:
        self.collecting = gc.isenabled()
        if self.collecting:
            gc.disable()
        self.errstate = np.errstate(divide="ignore", invalid="ignore", over="ignore")
        self.errstate.__enter__()

    def __exit__(self, *exc) -> bool:
        self.errstate.__exit__(*exc)
        if self.collecting:
            gc.enable()
        return False


def current_run_id() -> int | None:
    """The id of the backward pass running in this thread, or None."""
    return _local.stack[-1].id if _local.stack else None


def will_receive_grad(t) -> bool:
    """Whether tensor ``t`` is on a path of the backward pass now running."""
    if not _local.stack:
        return False
    run = _local.stack[-1]
    node = t._grad_fn if t._grad_fn is not None else t._accum_node()
    return node is not None and node in run.deps


def run_final_callbacks(run: _Run) -> None:
    """The callbacks queued during the pass, in order (one may queue more: they run too)."""
    run.current = None
    mode = grad_mode.state
    prev = mode.enabled
    mode.enabled = False  # (PyTorch runs them outside the pass's grad mode)
    try:
        i = 0
        while i < len(run.callbacks):
            run.callbacks[i]()
            i += 1
    finally:
        mode.enabled = prev


def queue_callback(callback) -> None:
    """Run ``callback()`` when the backward pass now running in this thread finishes."""
    if not _local.stack:
        raise RuntimeError("Final callbacks can only be installed during backward pass.")
    run = _local.stack[-1]
    if run.callbacks is None:
        run.callbacks = []
    run.callbacks.append(callback)


class _ExecutionEngine:
    """``Variable._execution_engine``: the engine object PyTorch code reaches for ``queue_callback``."""

    @staticmethod
    def queue_callback(callback) -> None:
        queue_callback(callback)

    @staticmethod
    def run_backward(tensors, grad_tensors, keep_graph, create_graph, inputs=(), allow_unreachable=True,
                     accumulate_grad=True):
        from . import backward, grad

        if accumulate_grad:
            return backward(tensors, grad_tensors, keep_graph, create_graph, inputs=inputs or None)
        return grad(tensors, inputs, grad_tensors, keep_graph, create_graph, allow_unused=allow_unreachable)


execution_engine = _ExecutionEngine()


def execution_order(run: _Run) -> list:
    """The order in which ``run`` visits its nodes (the engine's scheduling, replayed without computing)."""
    from .engine import discover, pop_ready, schedule

    _, execute, deps = discover(run.root_edges, run.targets, run.capture)
    ready: list = []
    sinks: collections.deque = collections.deque()
    for node in dict.fromkeys(n for n, _ in run.root_edges):
        if deps.get(node, 0) == 0:
            schedule(node, ready, sinks)
    order = []
    while sinks or ready:
        node = pop_ready(ready, sinks)
        order.append(node)
        if node not in execute:
            continue
        for child in node._next:
            d = deps.get(child)
            if d is not None:
                deps[child] = d - 1
                if d == 1:
                    schedule(child, ready, sinks)
    return order


# A backward started from inside a backward (a Function's backward calling backward) nests
# Python frames; past this depth the pass runs on a fresh thread (its own frame stack), as
# PyTorch's engine hands deep reentrant work to other threads.
MAX_REENTRANT_DEPTH = 60


def run_on_fresh_thread(fn, *args):
    """``fn(*args)`` on a new thread carrying this thread's grad and anomaly modes; waits for it."""
    from .anomaly_mode import anomaly_state as a

    g = grad_mode.state
    modes = (g.enabled, g.inference, a.enabled, a.check_nan, a.current_node, a.detect_nan)
    box: dict = {}

    def target() -> None:
        g.enabled, g.inference, a.enabled, a.check_nan, a.current_node, a.detect_nan = modes
        try:
            box["result"] = fn(*args)
        except BaseException as exc:  # re-raised in the waiting thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="retrograd-reentrant-backward")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")
