"""The same algorithm as engine.py, with the hot paths inlined.

``engine.run_reference`` is the definition: read it first.  ``run_fast`` does exactly the
same steps in the same order (same hooks, same errors, same gradients) and differs only
where measuring showed the reference's helper calls cost time on small tensors
(bench/bench_scalar_graph.py, bench/bench_mlp.py; figures in bench/README.md):

* one loop with the helpers inlined (ready queue, buffer addition, release, validation
  only when a gradient's shape or dtype differs), locals bound once per pass;
* the node that became ready last waits in ``pending`` instead of the heap: a chain
  runs without a heap push and pop per node;
* a leaf's sink whose only gradient has just arrived accumulates at once;
* gradient sums the engine made itself are added into in place, not reallocated;
* an op node with a declared fast path (``_fast_backward``, compiled from the op's ``fast=``
  slot) is called directly, one call less per node.

The op suite runs against both engines (``RETROGRAD_ENGINE=reference``, see tests/conftest.py).
"""
from __future__ import annotations

import collections
import heapq

import numpy as np

from . import grad_mode
from ._pass_state import _local, _Run, run_final_callbacks
from .anomaly_mode import anomaly_state
from .engine import _root_edge, add_to_buffer, call_rules, discover, input_targets, run_tensor_pre_hooks, validate
from .graph import AccumulateGrad, _saved_hooks_stack, accumulate_into_leaf, accumulate_leaf, \
    checked_hook_values
from .profiler import _state as _prof_state

__all__ = ["run_fast"]


def run_fast(outputs, grads, retain_graph: bool, create_graph: bool, inputs=None, capture: bool = False):
    """``engine.run_reference`` with the hot paths inlined (see the module docstring)."""
    root_edges = [_root_edge(i, t) for i, t in enumerate(outputs)]
    targets = input_targets(inputs)
    reach, execute, deps = discover(root_edges, targets, capture)
    captured = [None] * len(inputs) if capture else None
    run = _Run(deps, create_graph, inputs is None)
    run.execute, run.capture, run.root_edges, run.targets = execute, capture, root_edges, targets
    fresh, freed = run.fresh, run.freed
    buffers: dict = {}
    for (node, nr), g in zip(root_edges, grads):
        fresh.add(id(g._data))
        add_to_buffer(buffers, node, nr, g)
    ready: list = []
    sinks = collections.deque()
    heappush, heappop, heappushpop = heapq.heappush, heapq.heappop, heapq.heappushpop
    _AccumulateGrad = AccumulateGrad
    for node in dict.fromkeys([n for n, _ in root_edges]):
        if deps.get(node, 0) == 0:
            if type(node) is _AccumulateGrad:
                sinks.append(node)
            else:
                heappush(ready, (-node._seq, node))
    _local.stack.append(run)
    hooks_stack = _saved_hooks_stack[:] if _saved_hooks_stack else None
    mode = grad_mode.state
    prev_mode = mode.enabled
    mode.enabled = create_graph
    slow_calls = anomaly_state.watching or _prof_state.on  # (then call_rules times and watches each node)
    profiling = _prof_state.on
    # The node that became ready last waits in ``pending`` instead of the heap; it runs next
    # exactly when it sorts before the heap's head (the heap's own key), so the order is the same.
    pending = None
    accumulate = accumulate_into_leaf
    buffers_pop, buffers_get, sinks_pop, deps_get = buffers.pop, buffers.get, sinks.popleft, deps.get
    has_targets = targets is not None
    # Gradient sums the engine made itself ({node: {output_nr: Tensor}}, dropped when the node
    # runs): later gradients for the same buffer are added into them.  Not while recording a
    # graph (create_graph) or profiling.
    owned: dict = {}
    sum_in_place = not create_graph and not profiling
    plain_sinks = not has_targets and not profiling  # (sinks that may run inline, see the routing loop)
    array_path = not create_graph
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
                        gbuf = run_tensor_pre_hooks(node, gbuf)
                    if capture:  # (a node that runs is captured before its tensor hooks, as in PyTorch)
                        for nr, positions in targets[node].items():
                            for pos in positions:
                                captured[pos] = gbuf[nr]
                if not runs:
                    continue
            hooked = node._hooked
            if hooked:
                gbuf = run_tensor_pre_hooks(node, gbuf)
                if node._pre_hooks:
                    for hook in list(node._pre_hooks.values()):
                        res = hook(tuple(gbuf))
                        if res is not None:
                            gbuf = checked_hook_values(hook, res, gbuf)
            if type(node) is _AccumulateGrad:
                g = gbuf[0]
                if g is not None:
                    if profiling:
                        t0 = _prof_state.begin()
                        accumulate_leaf(node, g, run)
                        _prof_state.end_node(node.name(), t0)
                    elif node._post_acc_hooks is None:
                        accumulate(node.variable, g, run)
                    else:
                        accumulate_leaf(node, g, run)
                if hooked and node._post_hooks:
                    for hook in list(node._post_hooks.values()):
                        hook((), tuple(gbuf))
                continue
            nf = node._next
            mask = tuple([c in reach for c in nf]) if has_targets else None  # (None is never in reach)
            if (gbuf[0] is None if len(gbuf) == 1 else all(g is None for g in gbuf)) and not node._call_on_none:
                grads_in = [None] * len(nf)
            elif slow_calls:
                grads_in = call_rules(node, gbuf, mask)
            else:
                ab = node._fast_backward if array_path else None
                if ab is not None and (node.saved or node.saved is None):  # (not freed: freed is falsy)
                    grads_in = ab(node, gbuf, mask)
                    if grads_in is None:
                        grads_in = node.apply(gbuf, mask)
                else:
                    grads_in = node.apply(gbuf, mask)
            if node._hooked and node._post_hooks:
                # (re-read: a hook registered while the node ran runs too; it sees the incoming
                # grads only if the node had hooks beforehand, as in PyTorch)
                kept = tuple(gbuf) if hooked else (None,) * len(gbuf)
                for hook in list(node._post_hooks.values()):
                    res = hook(tuple(grads_in), kept)
                    if res is not None:
                        grads_in = checked_hook_values(hook, res, grads_in)
            if not retain_graph:
                if node._releases_saved:  # (OpNode.release inlined)
                    if node.saved:
                        node.saved = freed
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
                            g = validate(node, i, g, m)
                    if d == 1 and type(child) is _AccumulateGrad and plain_sinks and not child._hooked \
                            and child._post_acc_hooks is None and child not in buffers:
                        # A leaf's sink with this as its only gradient: accumulate now.  Queued, it
                        # would run right after this loop, before any other node (sinks go first),
                        # and routing the remaining gradients has no side effects: same order.
                        deps[child] = 0
                        accumulate(child.variable, g, run)
                        continue
                    nr = nrs[i]
                    buf = buffers_get(child)
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
            run_final_callbacks(run)
    finally:
        mode.enabled = prev_mode
        _local.stack.pop()
        run.current = None
        # (hooks entered or exited inside the pass, e.g. by an unpack hook, do not outlive it)
        if hooks_stack is not None or _saved_hooks_stack:
            _saved_hooks_stack[:] = hooks_stack or ()
    return captured


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


def _wrap(data, requires_grad, grad_fn, output_nr):
    global _wrap
    from .._tensor import Tensor

    _wrap = Tensor._wrap  # (bound on first use: the Tensor module imports this one)
    return _wrap(data, requires_grad, grad_fn, output_nr)
