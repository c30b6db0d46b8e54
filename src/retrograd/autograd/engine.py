"""The reference backward engine: the whole algorithm, written to be read.

``run_backward(outputs, grads, ...)`` backpropagates ``grads`` from ``outputs``:

1. roots: the edge (node, output_nr) where each output's gradient enters the graph;
2. discovery (``discover``): the nodes reachable from the roots, walked with an explicit
   stack (never recursion: a 1,000,000-node chain works), each with the number of edges
   coming into it; with ``inputs=`` only the nodes from which an input can be reached;
3. a ready queue: a node is ready once every edge into it has delivered.  Ready nodes run
   newest first (a heap on creation number, as PyTorch orders them), except leaves'
   AccumulateGrad sinks, which run as soon as they are ready, first ready first;
4. each node: its tensors' hooks and retain_grad, its pre-hooks, its rules
   (``node.apply``, under grad mode = ``create_graph``, so rules record a graph exactly
   when asked), its post-hooks; then its saved tensors are released unless ``retain_graph``;
5. each gradient a node produces is validated once (summed back to its input's shape
   when it was broadcast, cast to its dtype) and added into the buffer of the node it
   flows to;
6. AccumulateGrad writes a leaf's ``.grad`` (then its post-accumulate hooks); for
   ``autograd.grad`` the gradients reaching the inputs are captured instead.

``fast_engine.py`` runs this same algorithm with the hot paths inlined; ``run_backward``
calls the one chosen by ``set_backward_engine`` (or ``RETROGRAD_ENGINE`` at import).
"""
from __future__ import annotations

import collections
import heapq
import os

import numpy as np

from . import grad_mode
from ._pass_state import (MAX_REENTRANT_DEPTH, _local, _Run, current_run_id, execution_engine,  # noqa: F401
                          execution_order, pass_environment, queue_callback, run_final_callbacks, run_on_fresh_thread,
                          will_receive_grad)
from ._error_details import root_error
from ._nonfinite import check_gradients
from .anomaly_mode import anomaly_state, report_anomaly
from .graph import (AccumulateGrad, _saved_hooks_stack, accumulate_into_leaf, accumulate_leaf,  # noqa: F401
                    checked_hook_value, checked_hook_values)
from .profiler import _state as _prof_state

__all__ = ["run_backward", "set_backward_engine", "get_backward_engine", "accumulate_into_leaf", "edge_of"]


# ---- entry point and engine choice -------------------------------------------------------
def run_backward(outputs, grads, retain_graph: bool, create_graph: bool, inputs=None,
                 allow_unused: bool = True, capture: bool = False):
    """Backpropagate ``grads`` from ``outputs`` with the chosen engine.

    With ``capture`` (``autograd.grad``) returns the gradients w.r.t. ``inputs`` and
    leaves ``.grad`` alone; otherwise accumulates into ``.grad`` of the leaves (or of
    ``inputs`` only, when given) and returns None.  (``allow_unused`` and
    ``materialize_grads`` act on the captured list: ``autograd.grad`` applies them.)
    """
    if len(_local.stack) >= MAX_REENTRANT_DEPTH:  # (deep reentrant backward: see _pass_state)
        return run_on_fresh_thread(run_backward, outputs, grads, retain_graph, create_graph, inputs, allow_unused,
                                   capture)
    with pass_environment():  # (NumPy's error state and the garbage collector, once per pass)
        if _chosen[0] == "fast":
            return fast_engine.run_fast(outputs, grads, retain_graph, create_graph, inputs, capture)
        return run_reference(outputs, grads, retain_graph, create_graph, inputs, capture)


def set_backward_engine(name: str) -> None:
    """Choose the engine ``backward()`` and ``autograd.grad`` use: "fast" (the default) or "reference".

    Both compute the same gradients in the same order; "reference" is this module,
    "fast" is ``autograd/fast_engine.py``.  ``RETROGRAD_ENGINE`` sets it at import.

    >>> import retrograd as torch
    >>> before = torch.autograd.get_backward_engine()
    >>> torch.autograd.set_backward_engine("reference")
    >>> x = torch.tensor(3., requires_grad=True)
    >>> (x * x).backward(); x.grad
    tensor(6.)
    >>> torch.autograd.set_backward_engine(before)
    """
    if name not in ("fast", "reference"):
        raise ValueError(f"backward engine must be 'fast' or 'reference', not {name!r}")
    _chosen[0] = name


def get_backward_engine() -> str:
    """The name of the engine in use: "fast" or "reference"."""
    return _chosen[0]


# ---- the algorithm -----------------------------------------------------------------------
def run_reference(outputs, grads, retain_graph: bool, create_graph: bool, inputs=None, capture: bool = False):
    """The backward pass, step by step (see the module docstring)."""
    roots = [_root_edge(i, t) for i, t in enumerate(outputs)]
    targets = input_targets(inputs)
    reach, execute, deps = discover(roots, targets, capture)
    run = _Run(deps, create_graph, inputs is None)
    run.execute, run.capture, run.root_edges, run.targets = execute, capture, roots, targets
    buffers: dict = {}  # {node: [gradient of each of its outputs, None until one arrives]}
    for (node, nr), g in zip(roots, grads):
        run.fresh.add(id(g._data))  # (the caller's array: a leaf's .grad gets a copy)
        add_to_buffer(buffers, node, nr, g)
    ready: list = []
    sinks: collections.deque = collections.deque()
    for node in dict.fromkeys(n for n, _ in roots):
        if deps.get(node, 0) == 0:
            schedule(node, ready, sinks)
    captured = [None] * len(inputs) if capture else None
    hooks_stack, prev_mode = _saved_hooks_stack[:], grad_mode.state.enabled
    _local.stack.append(run)
    grad_mode.state.enabled = create_graph
    try:
        while sinks or ready:
            node = run.current = pop_ready(ready, sinks)
            gbuf = buffers.pop(node, None) or [None] * node._num_outputs()
            if targets is not None and node in targets:
                if node not in execute:
                    gbuf = run_tensor_pre_hooks(node, gbuf)
                if capture:  # (a node that runs is captured before its tensor hooks, as in PyTorch)
                    for nr, positions in targets[node].items():
                        for pos in positions:
                            captured[pos] = gbuf[nr]
            if node not in execute:
                continue  # (reached, but no input lies beyond it)
            mask = None if targets is None else tuple([c in reach for c in node._next])  # (None never is)
            grads_in = run_node(node, gbuf, mask, run)
            if not retain_graph:
                node.release()
            for i, child in enumerate(node._next):
                d = deps.get(child)  # (None: no input, or not on a path to one)
                if d is None:
                    continue
                g = grads_in[i] if i < len(grads_in) else None
                if g is not None:
                    if node._in_meta:
                        g = validate(node, i, g, node._in_meta[i])
                    add_to_buffer(buffers, child, node._next_nr[i], g)
                deps[child] = d - 1
                if d == 1:
                    schedule(child, ready, sinks)
        if run.callbacks:
            run_final_callbacks(run)
    finally:
        grad_mode.state.enabled = prev_mode
        _local.stack.pop()
        run.current = None
        _saved_hooks_stack[:] = hooks_stack  # (hooks a pass enters or leaves, e.g. in an unpack hook, end with it)
    return captured


def run_node(node, gbuf: list, mask, run: _Run) -> list:
    """Run one node with its hooks; the gradients for its inputs (one per edge)."""
    hooked = node._hooked  # (whether it had hooks before it ran: only then do post-hooks see its grads)
    if hooked:
        gbuf = run_tensor_pre_hooks(node, gbuf)
        for hook in list((node._pre_hooks or {}).values()):
            res = hook(tuple(gbuf))
            if res is not None:
                gbuf = checked_hook_values(hook, res, gbuf)
    if type(node) is AccumulateGrad:
        if gbuf[0] is not None:
            t0 = _prof_state.begin() if _prof_state.on else None
            accumulate_leaf(node, gbuf[0], run)
            if t0 is not None:
                _prof_state.end_node(node.name(), t0)
        for hook in list((node._post_hooks or {}).values()) if hooked else ():
            hook((), tuple(gbuf))
        return []
    if all(g is None for g in gbuf) and not node._call_on_none:
        grads_in = [None] * len(node._next)
    else:
        grads_in = call_rules(node, gbuf, mask)
    for hook in list((node._post_hooks or {}).values()):  # (re-read: one added while it ran runs too)
        res = hook(tuple(grads_in), tuple(gbuf) if hooked else (None,) * len(gbuf))
        if res is not None:
            grads_in = checked_hook_values(hook, res, grads_in)
    return grads_in


def call_rules(node, gbuf: list, mask) -> list:
    """``node.apply``: timed when the profiler records; in anomaly mode, a failure reports the
    forward's traceback and (with check_nan) a NaN gradient is an error, as is any non-finite
    gradient with set_detect_nan."""
    t0 = _prof_state.begin() if _prof_state.on else None
    prev = anomaly_state.current_node
    try:
        if not anomaly_state.watching:
            return node.apply(gbuf, mask)
        anomaly_state.current_node = node
        grads_in = node.apply(gbuf, mask)
        check_gradients(node, gbuf, grads_in)  # (NaN / inf: anomaly mode's check, set_detect_nan's; _nonfinite.py)
        return grads_in
    except Exception:
        if anomaly_state.enabled:
            report_anomaly(node)
        raise
    finally:
        anomaly_state.current_node = prev
        if t0 is not None:
            _prof_state.end_node(node.name(), t0)


def schedule(node, ready: list, sinks: collections.deque) -> None:
    """Queue a ready node: a leaf's sink in FIFO order, any other newest first."""
    if type(node) is AccumulateGrad:
        sinks.append(node)
    else:
        heapq.heappush(ready, (-node._seq, node))


def pop_ready(ready: list, sinks: collections.deque):
    return sinks.popleft() if sinks else heapq.heappop(ready)[1]


# ---- discovery ---------------------------------------------------------------------------
def edge_of(t) -> tuple:
    """(node, output_nr) where ``t``'s gradient enters the graph; (None, 0) if it needs none."""
    if t._grad_fn is not None:
        return t._grad_fn, t._output_nr
    if t._requires_grad:
        return t._grad_accumulator(), 0
    return None, 0


def _root_edge(i: int, t) -> tuple:
    edge = edge_of(t)
    if edge[0] is None:
        raise root_error(i, t)
    return edge


def input_targets(inputs) -> dict | None:
    """{node: {output_nr: [positions in inputs]}}: where gradients are captured (or the only leaves written)."""
    if inputs is None:
        return None
    targets: dict = {}
    for pos, t in enumerate(inputs):
        node, nr = (t._grad_fn, t._output_nr) if t._grad_fn is not None else (t._grad_accumulator(), 0)
        targets.setdefault(node, {}).setdefault(nr, []).append(pos)
    return targets


def discover(root_edges, targets, capture: bool) -> tuple:
    """(reach, execute, deps): the nodes a pass visits, those whose function runs, and the
    number of edges into each visited node from other visited nodes."""
    if targets is None:  # every reachable node runs: one walk counts the edges
        deps: dict = {}
        stack = []
        for node, _ in root_edges:
            if node not in deps:
                deps[node] = 0
                stack.append(node)
        while stack:
            for child in stack.pop()._next:
                if child is not None:
                    if child not in deps:
                        stack.append(child)
                    deps[child] = deps.get(child, 0) + 1
        return deps, deps, deps
    # With inputs: a post-order walk (children first), then keep a node if an input lies beyond it.
    order, seen, stack = [], set(), []
    for root, _ in root_edges:
        if root in seen:  # (one root's walk ends before the next starts: a root inside another's
            continue      # graph must still come after its parents in the order)
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
                order.append(stack.pop()[0])
    reach, execute = set(), set()
    for node in order:
        if type(node) is not AccumulateGrad and not reach.isdisjoint(node._next):  # (an edge into reach)
            reach.add(node)
            execute.add(node)
        elif node in targets:
            reach.add(node)
            if not capture:  # backward(inputs=): PyTorch runs an input's node too (its hooks, retain_grad)
                execute.add(node)
    deps = {node: 0 for node in order if node in reach}
    for node in deps:
        for child in node._next:
            if child in deps:  # (None never is)
                deps[child] += 1
    return reach, execute, deps


# ---- gradients: hooks, validation, buffers, leaves ---------------------------------------
def run_tensor_pre_hooks(node, gbuf: list) -> list:
    """Hooks registered on this node's output tensors, then retain_grad, in PyTorch's order."""
    if node._tensor_pre_hooks:
        gbuf = list(gbuf)
        for nr, hooks in node._tensor_pre_hooks.items():
            for fn in list(hooks.values()):
                res = fn(gbuf[nr])  # (called with None when this output got no gradient, as in PyTorch)
                if res is not None:
                    if gbuf[nr] is None:
                        raise RuntimeError("can't replace a None gradient with a non-None value")
                    gbuf[nr] = checked_hook_value(fn, res, gbuf[nr])
    for nr, ref in (node._retains or {}).items():
        t = ref()
        if t is not None and gbuf[nr] is not None:
            t._grad = gbuf[nr].clone() if t._grad is None else t._grad + gbuf[nr]
    return gbuf


def validate(node, i: int, g, meta: tuple):
    """Input ``i``'s gradient summed back to the input's shape (if it was broadcast) and cast to its dtype."""
    shape, dtype = meta
    gshape = g._data.shape
    if gshape != shape:
        try:
            ok = len(gshape) >= len(shape) and np.broadcast_shapes(shape, gshape) == gshape
        except ValueError:
            ok = False
        if not ok:
            raise RuntimeError(
                f"Function {node.name()} returned an invalid gradient at index {i} - got "
                f"[{', '.join(map(str, gshape))}] but expected shape compatible with "
                f"[{', '.join(map(str, shape))}]")
        from .._ops import sum_to

        g = sum_to(g, shape)
    if g._data.dtype != dtype:
        from .._dtype import from_numpy_dtype

        g = g.to(from_numpy_dtype(dtype))
    return g


def add_to_buffer(buffers: dict, node, nr: int, g) -> None:
    """Add ``g`` to the gradient of output ``nr`` of ``node`` (out of place: a graph may be recording)."""
    buf = buffers.get(node)
    if buf is None:
        buf = buffers[node] = [None] * node._num_outputs()
    buf[nr] = g if buf[nr] is None else buf[nr] + g


# The engines run_backward may call; RETROGRAD_ENGINE chooses at import (fast by default).
from . import fast_engine  # noqa: E402

_chosen = [os.environ.get("RETROGRAD_ENGINE", "fast")]
set_backward_engine(_chosen[0])
