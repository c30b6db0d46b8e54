"""Node recording: ``_record`` and the unrolled recorders generated from it record the same graph.

Ops with 1-3 inputs are recorded by ``_record`` with its loops over the inputs written out
(``_registry._unrolled``).  Over every op_db sample, the graph recorded that way must equal
the one the written-out ``_record`` records: node types, edges, output numbers, input
metadata, what is saved, static arguments.
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
from retrograd._ops import OPS, _registry
from .test_op_db import CASES, _call

pytest.importorskip("torch")


def test_unrolled_recorders_exist_for_one_to_three_inputs():
    for n in (1, 2, 3):
        assert _registry._RECORDERS[n].__name__ == f"_record_{n}"
    by_inputs = {len(op.inputs): op.record for op in OPS.values()}
    assert by_inputs[2] is _registry._RECORDERS[2]
    assert any(len(op.inputs) > 3 and op.record is _registry._record for op in OPS.values())


def _graph(out) -> list:
    """Every node reachable from the tensors in ``out``, described field by field (iterative walk)."""
    outs = [o for o in (out if isinstance(out, (tuple, list)) else [out]) if isinstance(o, retrograd.Tensor)]
    stack = [o.grad_fn for o in outs if o.grad_fn is not None]
    seen: dict = {}
    desc = []
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen[id(node)] = len(seen)
        desc.append(_describe(node))
        stack.extend(node._next)
    return desc


def _describe(node) -> tuple:
    saved = getattr(node, "saved", None)
    items = []
    for v in saved or ():
        if isinstance(v, retrograd.Tensor):
            items.append(("tensor", v.detach().numpy().tobytes(), v.dtype))
        else:
            items.append(type(v).__name__ if not isinstance(v, (int, type(None))) else v)
    static = getattr(node, "static", None)
    return (type(node).__name__, tuple(type(c).__name__ for c in node._next), node._next_nr, node._in_meta,
            tuple(items), repr(static), getattr(node, "out_meta", None))


@pytest.mark.parametrize("spec,i", CASES)
def test_unrolled_record_equals_written_out_record(spec, i):
    retrograd.manual_seed(0)  # (random ops draw the same numbers both times)
    _, _, unrolled = _call(retrograd, spec, i, "float64", want_grad=True)
    recorders = {op: op.record for op in OPS.values()}
    try:
        for op in recorders:
            op.record = _registry._record
        retrograd.manual_seed(0)
        _, _, general = _call(retrograd, spec, i, "float64", want_grad=True)
    finally:
        for op, record in recorders.items():
            op.record = record
    a, b = _graph(unrolled), _graph(general)
    assert len(a) == len(b)
    for x, y in zip(a, b):
        assert x[:4] == y[:4] and x[5:] == y[5:]
        assert len(x[4]) == len(y[4])
        for p, q in zip(x[4], y[4]):
            assert (p == q) if not isinstance(p, tuple) else (p[0] == q[0] and np.array_equal(p[1], q[1]))
