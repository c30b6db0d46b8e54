"""The one backward engine.  Iterative everywhere: no recursion, any graph depth.

run_backward(roots, grads, ...):
  1. discover the nodes reachable from the roots (explicit stack, post-order);
  2. when ``inputs`` are given, keep only nodes from which an input can be reached;
  3. count each kept node's incoming edges;
  4. run ready nodes newest-first (a heap on creation order, as PyTorch does), feeding
     each produced gradient (validated once: shape summed back from broadcasting, dtype
     cast) into the input buffer of the node it flows to;
  5. AccumulateGrad nodes write leaves' ``.grad``; for ``autograd.grad`` the gradients
     arriving at the inputs are captured instead.
"""
from __future__ import annotations

import collections
import heapq
import itertools
import threading

import numpy as np

from . import grad_mode
from .anomaly_mode import anomaly_state, report_anomaly
from .graph import _RELEASED, AccumulateGrad, _saved_hooks_stack
from .profiler import _state as _prof_state

__all__ = ["run_backward", "accumulate_into_leaf", "current_run_id", "will_receive_grad", "edge_of"]

_run_ids = itertools.count(1)
_deque = collections.deque
_heappush, _heappop, _heappushpop = heapq.heappush, heapq.heappop, heapq.heappushpop


class _Local(threading.local):
    def __init__(self) -> None:
        self.stack: list = []  # active backward passes in this thread (reentrant ones nest)


_local = _Local()


class _Run:
    __slots__ = ("id", "deps", "fresh", "create_graph", "checkpoint_valid", "execute", "capture", "root_edges",
                 "targets", "current", "callbacks")

    def __init__(self, deps, create_graph, checkpoint_valid: bool = True) -> None:
        self.id = next(_run_ids)
        self.deps = deps
        # for the torch._C engine queries: what runs, the roots, and the node now running
        self.execute = deps
        self.capture = False
        self.root_edges = ()
        self.targets = None
        self.current = None
        self.callbacks = None  # queue_callback: run when this pass ends
        self.fresh: set = set()  # ids of arrays that must be copied before a leaf keeps them
        self.create_graph = create_graph
        # reentrant checkpoint needs a plain backward (no autograd.grad, no inputs=)
        self.checkpoint_valid = checkpoint_valid


def current_run_id() -> int | None:
    return _local.stack[-1].id if _local.stack else None


def will_receive_grad(t) -> bool:
    """Whether tensor ``t`` is on a path of the backward pass now running."""
    if not _local.stack:
        return False
    run = _local.stack[-1]
    node = t._grad_fn if t._grad_fn is not None else t._accum_node()
    return node is not None and node in run.deps


def edge_of(t) -> tuple:
    """(node, output_nr) where ``t``'s gradient enters the graph; (None, 0) if it needs none."""
    if t._grad_fn is not None:
        return t._grad_fn, t._output_nr
    if t._requires_grad:
        return t._grad_accumulator(), 0
    return None, 0


_edge = edge_of


def run_backward(outputs, grads, retain_graph: bool, create_graph: bool, inputs=None,
                 allow_unused: bool = True, capture: bool = False):
    """Backpropagate ``grads`` from ``outputs``.

    With ``capture`` (``autograd.grad``) returns the gradients w.r.t. ``inputs`` and
    leaves ``.grad`` alone; otherwise accumulates into ``.grad`` of the leaves (or of
    ``inputs`` only, when given: non-leaf inputs retain their grad) and returns None.
    """
    if len(_local.stack) >= _MAX_REENTRANT_DEPTH:
        # A backward started from inside a backward (a Function's backward calling backward)
        # nests Python frames; deep chains would exhaust the interpreter's recursion limit,
        # so past this depth the pass runs on a fresh thread (its own frame stack), as
        # PyTorch's engine hands deep reentrant work to other threads.
        return _run_on_fresh_thread(outputs, grads, retain_graph, create_graph, inputs, allow_unused, capture)
    # ---- roots ----
    root_edges = []
    for i, t in enumerate(outputs):
        node, nr = _edge(t)
        if node is None:
            raise RuntimeError(f"element {i} of tensors does not require grad and does not have a grad_fn")
        root_edges.append((node, nr))

    # ---- targets: where gradients are captured (or the only leaves written) ----
    targets = None  # {node: {output_nr: [input positions]}}
    if inputs is not None:
        targets = {}
        for pos, t in enumerate(inputs):
            if t._grad_fn is not None:
                node, nr = t._grad_fn, t._output_nr
            else:
                node, nr = t._grad_accumulator(), 0
            targets.setdefault(node, {}).setdefault(nr, []).append(pos)

    if targets is None:
        # Every reachable node runs: one pass counts each node's incoming edges.
        deps = {}
        stack = []
        for node, _ in root_edges:
            if node not in deps:
                deps[node] = 0
                stack.append(node)
        while stack:
            for child in stack.pop()._next:
                if child is None:
                    continue
                d = deps.get(child)
                if d is None:
                    deps[child] = 1
                    stack.append(child)
                else:
                    deps[child] = d + 1
        reach = execute = deps
    else:
        reach, execute, deps = _prune(root_edges, targets, capture)

    captured = [None] * len(inputs) if capture else None
    run = _Run(deps, create_graph, inputs is None)
    run.execute, run.capture, run.root_edges, run.targets = execute, capture, root_edges, targets
    fresh = run.fresh
    buffers: dict = {}
    if len(root_edges) == 1:  # (``loss.backward()``)
        (node, nr), = root_edges
        g = grads[0]
        fresh.add(id(g._data))
        buf = buffers[node] = [None] * (node._n_fixed or node._num_outputs())
        buf[nr] = g
        roots = (node,)
    else:
        for (node, nr), g in zip(root_edges, grads):
            fresh.add(id(g._data))
            _add_to_buffer(buffers, node, nr, g)
        roots = dict.fromkeys([n for n, _ in root_edges])  # each root once

    # Ready nodes run newest first (a heap on -creation number, unique per node) except
    # leaves' AccumulateGrad sinks, which PyTorch runs as soon as they are ready, first
    # ready first: they wait in ``sinks`` (FIFO), checked before the heap.
    ready = []
    sinks = _deque()
    heappush = _heappush
    _AccumulateGrad = AccumulateGrad
    for node in roots:
        if deps.get(node, 0) == 0 and node in buffers:
            if type(node) is _AccumulateGrad:
                sinks.append(node)
            else:
                heappush(ready, (-node._seq, node))
    _local.stack.append(run)
    hooks_stack = _saved_hooks_stack[:] if _saved_hooks_stack else None
    mode = grad_mode.state
    prev_mode = mode.enabled
    mode.enabled = create_graph
    check_anomaly = anomaly_state.enabled
    profiling = _prof_state.on
    # Chain fast path: the node that became ready last is held in ``pending`` instead of
    # the heap; it runs next exactly when it sorts before the heap's head (same keys as
    # the heap, so the order is PyTorch's either way).
    pending = None
    heappop, heappushpop = _heappop, _heappushpop
    accumulate = accumulate_into_leaf
    buffers_pop = buffers.pop
    buffers_get = buffers.get
    sinks_pop = sinks.popleft
    has_targets = targets is not None
    deps_get = deps.get
    # Gradient sums the engine made itself ({node: {output_nr: Tensor}}, dropped when the
    # node runs): later gradients for the same buffer are added into them instead of
    # allocating a new Tensor per addition.  Not while recording a graph (create_graph)
    # or profiling.
    owned: dict = {}
    sum_in_place = not create_graph and not profiling
    plain_sinks = not has_targets and not profiling  # (sinks that may run inline, see the routing loop)
    array_path = not create_graph  # (profiling and anomaly mode take the branch above)
    try:
        while True:
            if sinks:
                node = sinks_pop()
            elif pending is not None:
                node = (heappushpop(ready, pending) if ready else pending)[1]
                pending = None
            elif ready:
                node = heappop(ready)[1]
            else:
                break
            run.current = node
            gbuf = buffers_pop(node, None)
            if gbuf is None:
                gbuf = [None] * node._num_outputs()
            elif owned:  # this node's sums are complete now: no more adding into them in place
                owned.pop(node, None)
            if has_targets:
                runs = node in execute
                if node in targets:
                    if not runs:
                        gbuf = _run_tensor_pre_hooks(node, gbuf)
                    # PyTorch captures a node it goes on to run *before* that node's tensor hooks
                    if capture:
                        for nr, positions in targets[node].items():
                            for pos in positions:
                                captured[pos] = gbuf[nr]
                if not runs:  # (a root from which no input can be reached: never run)
                    continue
            hooked = node._hooked
            if hooked:
                if node._tensor_pre_hooks or node._retains:
                    gbuf = _run_tensor_pre_hooks(node, gbuf)
                if node._pre_hooks:
                    for hook in list(node._pre_hooks.values()):
                        res = hook(tuple(gbuf))
                        if res is not None:
                            gbuf = _checked_hook_values(hook, res, gbuf)
            if type(node) is _AccumulateGrad:
                g = gbuf[0]
                if g is not None:
                    if profiling:
                        t0 = _prof_begin()
                        _accumulate_leaf(node, g, run)
                        _prof_end(node, t0)
                    elif node._post_acc_hooks is None:
                        accumulate(node.variable, g, run)
                    else:
                        _accumulate_leaf(node, g, run)
                if hooked and node._post_hooks:
                    for hook in list(node._post_hooks.values()):
                        hook((), tuple(gbuf))
                continue
            nf = node._next
            mask = tuple(c is not None and c in reach for c in nf) if has_targets else None
            if (gbuf[0] is None if len(gbuf) == 1 else all(g is None for g in gbuf)) and not node._call_on_none:
                grads_in = [None] * len(nf)
            elif profiling or check_anomaly:
                t0 = _prof_begin() if profiling else None
                try:
                    if check_anomaly:
                        grads_in = _apply_with_anomaly(node, gbuf, mask)
                    else:
                        grads_in = node.apply(gbuf, mask)
                finally:
                    if t0 is not None:
                        _prof_end(node, t0)
            else:
                # (OpNode.apply's array path called directly: one call less per node)
                ab = node._array_backward if array_path else None
                if ab is not None and node.saved is not _RELEASED:
                    grads_in = ab(node, gbuf[0], mask)
                    if grads_in is None:
                        grads_in = node.apply(gbuf, mask)
                else:
                    grads_in = node.apply(gbuf, mask)
            if node._hooked and node._post_hooks:
                # (re-read: a hook registered while the node ran, e.g. by an unpack hook, runs too;
                # PyTorch keeps the incoming grads for post hooks only if it had some beforehand)
                kept = tuple(gbuf) if hooked else (None,) * len(gbuf)
                for hook in list(node._post_hooks.values()):
                    res = hook(tuple(grads_in), kept)
                    if res is not None:
                        grads_in = _checked_hook_values(hook, res, grads_in)
            if not retain_graph:
                if node._releases_saved:  # (OpNode.release inlined)
                    if node.saved:
                        node.saved = _RELEASED
                else:
                    node.release()
            meta = node._in_meta
            nrs = node._next_nr
            n_in = len(grads_in)
            i = -1
            for child in nf:
                i += 1
                # deps has exactly the reached nodes as keys (never None): one lookup
                # stands for "child is None or child not in reach"
                d = deps_get(child)
                if d is None:
                    continue
                g = grads_in[i] if i < n_in else None
                if g is not None:
                    if meta:
                        m = meta[i]
                        gd = g._data
                        if gd.shape != m[0] or gd.dtype != m[1]:
                            g = _validate(node, i, g, m)
                    if d == 1 and type(child) is _AccumulateGrad and plain_sinks and not child._hooked \
                            and child._post_acc_hooks is None and child not in buffers:
                        # A leaf's sink with this as its only gradient: accumulate now.  Queued, it
                        # would run right after this loop, before any other node (sinks go first),
                        # and routing the remaining gradients has no side effects: same order.
                        deps[child] = 0
                        accumulate(child.variable, g, run)
                        continue
                    nr = nrs[i]
                    buf = buffers_get(child)  # (inlined _add_to_buffer: the hot loop)
                    if buf is None:
                        buf = buffers[child] = [None] * (child._n_fixed or child._num_outputs())
                        buf[nr] = g
                    else:
                        cur = buf[nr]
                        if cur is None:
                            buf[nr] = g
                        elif sum_in_place:
                            buf[nr] = _sum_into(cur, g, owned, child, nr)
                        else:
                            buf[nr] = cur + g
                d -= 1
                deps[child] = d
                if d == 0:
                    if type(child) is _AccumulateGrad:
                        sinks.append(child)
                    elif pending is None:
                        pending = (-child._seq, child)
                    else:
                        heappush(ready, (-child._seq, child))
        if run.callbacks:
            _run_final_callbacks(run)
    finally:
        mode.enabled = prev_mode
        _local.stack.pop()
        run.current = None
        # (hooks entered or exited inside the pass, e.g. by an unpack hook, do not outlive it)
        if hooks_stack is not None or _saved_hooks_stack:
            _saved_hooks_stack[:] = hooks_stack or ()

    if capture:
        return captured
    return None


_MAX_REENTRANT_DEPTH = 60


def _run_on_fresh_thread(*args):
    """run_backward(*args) on a new thread carrying this thread's grad and anomaly modes; waits for it."""
    from .anomaly_mode import anomaly_state as anomaly

    modes = (grad_mode.state.enabled, grad_mode.state.inference, anomaly.enabled, anomaly.check_nan,
             anomaly.current_node)
    box: dict = {}

    def target() -> None:
        (grad_mode.state.enabled, grad_mode.state.inference, anomaly.enabled, anomaly.check_nan,
         anomaly.current_node) = modes
        try:
            box["result"] = run_backward(*args)
        except BaseException as exc:  # re-raised in the waiting thread
            box["error"] = exc

    worker = threading.Thread(target=target, name="retrograd-reentrant-backward")
    worker.start()
    worker.join()
    if "error" in box:
        raise box["error"]
    return box.get("result")


def _run_final_callbacks(run: _Run) -> None:
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
    if run.targets is None:
        deps: dict = {}
        stack = []
        for node, _ in run.root_edges:
            if node not in deps:
                deps[node] = 0
                stack.append(node)
        while stack:
            for child in stack.pop()._next:
                if child is not None:
                    if child in deps:
                        deps[child] += 1
                    else:
                        deps[child] = 1
                        stack.append(child)
        execute = deps
    else:
        _, execute, deps = _prune(run.root_edges, run.targets, run.capture)
    ready: list = []
    sinks = _deque()
    for node in dict.fromkeys(n for n, _ in run.root_edges):
        if deps.get(node, 0) == 0:
            if type(node) is AccumulateGrad:
                sinks.append(node)
            else:
                _heappush(ready, (-node._seq, node))
    order = []
    while sinks or ready:
        node = sinks.popleft() if sinks else _heappop(ready)[1]
        order.append(node)
        if node not in execute or type(node) is AccumulateGrad:
            continue
        for child in node._next:
            d = deps.get(child)
            if d is None:
                continue
            deps[child] = d = d - 1
            if d == 0:
                if type(child) is AccumulateGrad:
                    sinks.append(child)
                else:
                    _heappush(ready, (-child._seq, child))
    return order


def _prune(root_edges, targets, capture):
    """For ``inputs=``: (reach, execute, deps) over the nodes from which a target is reachable.

    ``reach`` = nodes visited; ``execute`` = those whose function runs (PyTorch's
    exec_info.needed_); ``deps`` = incoming edges among reached nodes.
    """
    order = []  # iterative post-order: children before parents
    seen = set()
    stack = []
    for root, _ in root_edges:
        # One root's walk finishes before the next starts: marking every root seen up
        # front would let a root that is also inside another root's graph (grad of
        # (y, f(y))) be ordered after its parents, and those parents then drop out of reach.
        if root in seen:
            continue
        seen.add(root)
        stack.append((root, iter(root._next)))
        while stack:
            node, it = stack[-1]
            for child in it:
                if child is not None and child not in seen:
                    seen.add(child)
                    stack.append((child, iter(child._next)))
                    break
            else:
                stack.pop()
                order.append(node)
    reach = set()
    execute = set()
    for node in order:
        through = False
        if type(node) is not AccumulateGrad:
            for child in node._next:
                if child is not None and child in reach:
                    through = True
                    break
        if through:
            reach.add(node)
            execute.add(node)
        elif node in targets:
            reach.add(node)
            if not capture:  # backward(inputs=): PyTorch runs an input's node too (its hooks, retain_grad)
                execute.add(node)
    deps = {}
    for node in order:
        if node not in reach:
            continue
        for child in node._next:
            if child is not None and child in reach:
                deps[child] = deps.get(child, 0) + 1
        deps.setdefault(node, 0)
    return reach, execute, deps


def _apply_with_anomaly(node, gbuf, mask):
    """node.apply with anomaly mode: forward traceback on failure, NaN check on success."""
    prev = anomaly_state.current_node
    anomaly_state.current_node = node
    try:
        grads_in = node.apply(gbuf, mask)
        if anomaly_state.check_nan:
            _check_nan(node, grads_in)
        return grads_in
    except Exception:
        report_anomaly(node)
        raise
    finally:
        anomaly_state.current_node = prev


def _run_tensor_pre_hooks(node, gbuf: list) -> list:
    """Tensor hooks registered on this node's outputs, then retain_grad, in PyTorch's order."""
    hooks = node._tensor_pre_hooks
    if hooks:
        gbuf = list(gbuf)
        for nr, d in hooks.items():
            for fn in list(d.values()):
                res = fn(gbuf[nr])  # (called with None when this output got no gradient, as in PyTorch)
                if res is not None:
                    if gbuf[nr] is None:
                        raise RuntimeError("can't replace a None gradient with a non-None value")
                    gbuf[nr] = _checked_hook_value(fn, res, gbuf[nr])
    retains = node._retains
    if retains:
        for nr, ref in retains.items():
            t = ref()
            if t is not None and gbuf[nr] is not None:
                _accumulate_retained(t, gbuf[nr])
    return gbuf


def _hook_name(hook) -> str:
    return getattr(hook, "__name__", type(hook).__name__)


def _checked_hook_value(hook, new, old):
    """A hook's replacement for gradient ``old``: a Tensor of the same dtype and shape (PyTorch's checks)."""
    T = _Tensor or _bind_tensor()
    if not isinstance(new, T):
        raise TypeError(f"expected Variable, but hook returned '{type(new).__name__}'")
    if new._data.dtype != old._data.dtype:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the type of value (was {old.type()} got "
                           f"{new.type()})")
    if new._data.shape != old._data.shape:
        raise RuntimeError(f"hook '{_hook_name(hook)}' has changed the size of value")
    return new


def _checked_hook_values(hook, res, old: list) -> list:
    """A node hook's replacement gradients: a tuple as long as ``old``, each checked as above."""
    if not isinstance(res, tuple):
        raise TypeError(f"expected tuple, but hook returned '{type(res).__name__}'")
    if len(res) != len(old):
        raise RuntimeError(f"hook '{_hook_name(hook)}' has returned an incorrect number of values (got {len(res)}, "
                           f"but expected {len(old)})")
    out = []
    for r, o in zip(res, old):
        if r is None:
            out.append(None)
        elif o is None:
            raise RuntimeError("can't replace a None gradient with a non-None value")
        else:
            out.append(_checked_hook_value(hook, r, o))
    return out


def _accumulate_retained(t, g) -> None:
    if t._grad is None:
        t._grad = g.clone()
    else:
        t._grad = t._grad + g


def _add_to_buffer(buffers: dict, node, nr: int, g) -> None:
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._num_outputs()
    cur = buf[nr]
    buf[nr] = g if cur is None else cur + g


def _sum_into(cur, g, owned: dict, node, nr: int):
    """``cur + g`` for a gradient buffer, reusing ``cur`` when it is a sum this run made.

    (Not while recording a graph: the caller checks.)  Same shape and dtype: NumPy
    directly; a big owned sum is added into in place, a small one rebound (NumPy's
    in-place add costs twice its plain add on tiny arrays).  Otherwise the Tensor op.
    """
    cd, gd = cur._data, g._data
    mine = owned.get(node)
    if cd.shape == gd.shape and cd.dtype == gd.dtype:
        if mine is not None and mine.get(nr) is cur:
            if cd.size > 64:
                cd += gd
            else:
                s = cd + gd
                cur._data = s if type(s) is np.ndarray else np.array(s)
            return cur
        s = _wrap(cd + gd, False, None, 0)
    else:
        s = cur + g
    if mine is None:
        owned[node] = {nr: s}
    else:
        mine[nr] = s
    return s


def _validate(node, i: int, g, meta):
    """Sum a broadcast gradient back to the input's shape and cast it to its dtype."""
    shape, dtype = meta
    gd = g._data
    if gd.shape != shape:
        from .._ops import sum_to

        try:
            np.broadcast_shapes(shape, gd.shape)
            ok = len(gd.shape) >= len(shape)
        except ValueError:
            ok = False
        if not ok or np.broadcast_shapes(shape, gd.shape) != gd.shape:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, gd.shape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]")
        g = sum_to(g, shape)
        gd = g._data
    if gd.dtype != dtype:
        g = g.to(_dtype_of(dtype))
    return g


def _dtype_of(npd):
    from .._dtype import from_numpy_dtype

    return from_numpy_dtype(npd)


def _accumulate_leaf(node: AccumulateGrad, g, run: _Run) -> None:
    var = node.variable
    accumulate_into_leaf(var, g, run)
    hooks = node._post_acc_hooks
    if hooks:
        for fn in list(hooks.values()):
            if fn(var) is not None:
                raise RuntimeError("Tensor post accumulate grad hooks should return None.")


def accumulate_into_leaf(var, g, run: _Run | None = None) -> None:
    """PyTorch's AccumulateGrad: first grad is stored (copied if shared), later ones added."""
    cur = var._grad
    if cur is None:
        if grad_mode.state.enabled and g._requires_grad:
            from .. import _creation

            # Building a graph: the stored grad is a differentiable copy (CopyBackwards).
            var._grad = _creation.empty(g.shape, dtype=var.dtype).copy_(g)
            return
        data = g._data
        # The gradient's array becomes .grad unless something else may hold or write it: a
        # view, a read-only array, one already handed to another leaf or passed in by the caller
        # (``run.fresh``), or a tensor sharing its version counter.
        if data.base is not None or (run is not None and id(data) in run.fresh) or g._base is not None \
                or g._shared_vc or not data.flags.writeable:
            data = data.copy()
        vd = var._data
        if data.strides != vd.strides and data.ndim > 1:
            # PyTorch: the grad of a dense leaf takes the leaf's layout (row-major, channels_last
            # ...), of a non-dense one row-major; np.empty_like's order 'K' gives exactly that
            want = np.empty_like(vd)
            if want.strides != data.strides:
                want[...] = data
                data = want
        if run is not None:
            run.fresh.add(id(data))
        var._grad = _wrap(data, False, None, 0) if type(g) is (_Tensor or _bind_tensor()) else g.detach()
        return
    if grad_mode.state.enabled:
        var._grad = cur + g
    else:
        if cur._data.flags.writeable and cur._data.shape == g._data.shape:
            cur._data += g._data
            cur._vcounter()[0] += 1
        else:
            var._grad = cur + g


def _check_nan(node, grads_in) -> None:
    for i, g in enumerate(grads_in):
        if g is not None and g._data.dtype.kind == "f" and np.isnan(g._data).any():
            raise RuntimeError(f"Function '{node.name()}' returned nan values in its {i}th output.")


def _prof_begin() -> float:
    return _prof_state.begin()


def _prof_end(node, t0) -> None:
    _prof_state.end_node(node.name(), t0)


def _wrap(data, requires_grad, grad_fn, output_nr):
    global _wrap
    from .._tensor import Tensor

    _wrap = Tensor._wrap  # (bound on first use: the Tensor module imports this one)
    return _wrap(data, requires_grad, grad_fn, output_nr)


_Tensor = None  # the Tensor class, bound on first use (the Tensor module imports this one)


def _bind_tensor():
    global _Tensor
    from .._tensor import Tensor

    _Tensor = Tensor
    return Tensor
