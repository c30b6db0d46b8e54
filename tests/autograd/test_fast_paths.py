"""Every declared fast path (an op's ``fast=`` slot) computes exactly what the op's rules compute.

Rules written in retrograd ops define every derivative; a first-order backward (no graph
recorded) calls the op's declared NumPy fast path instead.  Over every op_db sample whose graph
holds an op with a fast path, in float32 and in float64, the first-order gradients (through the fast
paths) must equal those of ``create_graph=True`` (through the rules) bit for bit, with the same
dtypes, and the fast path must really have run (not fallen back to the rules) for every such op.
"""
from __future__ import annotations

import collections

import numpy as np
import pytest

import retrograd
from parity import assert_within_roundings
from retrograd._ops import OPS
from ..ops.test_op_db import GRAD_CASES, _call, _diff_outputs, _leaves, _weights

pytest.importorskip("torch")

FAST = sorted(name for name, op in OPS.items() if op.fast)
# Fused kernels whose fast path computes the rules' formula with its sums in another order (batch
# norm's dw and db are parts of dx's, summed by einsum): equal to within the roundings of those
# sums, bounded by 64 roundings of the largest gradient entry (the samples sum at most ~100 terms);
# lstm_layer's weight gradients are one GEMM over all time steps, the rules' a sum of per-step ones.
WITHIN_ROUNDINGS = {"native_batch_norm": 64, "lstm_layer": 64}
# Fused ops reached only through nn modules, not through an op_db sample: nn.LSTM is one lstm_layer
# node per layer in float32 (as PyTorch's oneDNN path), one lstm_step node per step otherwise.
MODULE_CASES = [("lstm_layer", "float32"), ("lstm_step", "float64"), ("gru_step", "float32"), ("gru_step", "float64")]
MODULE_ONLY = {name for name, _ in MODULE_CASES}


def _ops_in_graph(out) -> set:
    stack = [o.grad_fn for o in _diff_outputs(out, retrograd)]
    seen, names = set(), set()
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        op = getattr(node, "op", None)
        if op is not None:
            names.add(op.name)
        stack.extend(node._next)
    return names


def _samples_by_op() -> dict:
    """{fast op name: [(spec, i, dtype, order), ...]}: the op_db samples whose graph holds the op.

    Order 1: the forward's graph.  Ops that only appear in graphs of a backward (``expand_grad``,
    ``sum_to``: the gradients of reductions and broadcasts) are found in the graph that
    ``create_graph=True`` records; their samples are run as second derivatives (order 2)."""
    found = collections.defaultdict(list)
    for case in GRAD_CASES:
        spec, i = case.values
        for dtype in ("float32", "float64"):
            try:
                _, _, out = _call(retrograd, spec, i, dtype, want_grad=True)
            except Exception:  # (a sample that raises is op_db's own test's business)
                continue
            for name in _ops_in_graph(out) & set(FAST):
                found[name].append((spec, i, dtype, 1))
    missing = set(FAST) - set(found)
    for case in GRAD_CASES:
        spec, i = case.values
        if not (missing and spec.gradgrad):
            continue
        try:
            g1 = _grads(spec, i, "float64", create_graph=True)
        except Exception:
            continue
        for name in _ops_in_graph([g for g in g1 if g is not None]) & missing:
            found[name].append((spec, i, "float64", 2))
            if len(found[name]) >= 8:
                missing.discard(name)
    return found


def _grads(spec, i, dtype, create_graph, order=1):
    args, kwargs, out = _call(retrograd, spec, i, dtype, want_grad=True)
    leaves = _leaves(args, kwargs)
    outs = _diff_outputs(out, retrograd)
    ws = _weights(outs)
    loss = sum((o * retrograd.tensor(w, dtype=o.dtype)).sum() for o, w in zip(outs, ws))
    if order == 2:  # (the first derivative's graph, then its gradient: the fast paths run in that one)
        g1 = retrograd.autograd.grad(loss, leaves, create_graph=True, allow_unused=True)
        rng = np.random.default_rng(11)
        loss = sum((g * retrograd.tensor(rng.uniform(0.5, 1.5, tuple(g.shape)), dtype=g.dtype)).sum()
                   for g in g1 if g is not None and g.requires_grad)
    return retrograd.autograd.grad(loss, leaves, create_graph=create_graph, allow_unused=True)


SAMPLES = _samples_by_op()
CASES = [pytest.param(name, spec, i, dtype, order, id=f"{name}-{spec.name}-{i}-{dtype}" + ("-order2" if order == 2 else ""))
         for name in FAST for spec, i, dtype, order in SAMPLES[name]]


def _only(name: str, monkeypatch, calls: collections.Counter) -> None:
    """Leave only ``name``'s fast path on (others fall back to their rules), counting the calls that ran it."""
    for other in FAST:
        op = OPS[other]
        if other == name:
            def f(node, grads, needed, _f=op.fast_backward):
                r = _f(node, grads, needed)
                if r is not None:
                    calls[name] += 1
                return r
        else:
            def f(node, grads, needed):
                return None
        monkeypatch.setattr(op, "fast_backward", f)
        monkeypatch.setattr(op.node_cls, "_fast_backward", staticmethod(f))


def test_every_fast_path_is_covered_by_op_db():
    assert not [name for name in FAST if not SAMPLES[name] and name not in MODULE_ONLY], \
        "fast paths without an op_db sample"


@pytest.mark.parametrize("name,spec,i,dtype,order", CASES)
def test_fast_path_equals_rules(name, spec, i, dtype, order, monkeypatch):
    # only this op's fast path on: a difference is this op's
    calls = collections.Counter()
    _only(name, monkeypatch, calls)
    fast = _grads(spec, i, dtype, False, order)
    took_fast = calls[name]
    slow = _grads(spec, i, dtype, True, order)
    assert calls[name] == took_fast  # (create_graph never takes the fast path)
    _assert_equal(name, fast, slow)


@pytest.mark.parametrize("name", sorted(set(FAST) - MODULE_ONLY))
def test_each_fast_path_runs_on_its_samples(name, monkeypatch):
    # the comparison above means something only if the fast path ran instead of falling back
    calls = collections.Counter()
    _only(name, monkeypatch, calls)
    for spec, i, dtype, order in SAMPLES[name]:
        _grads(spec, i, dtype, False, order)
    assert calls[name] > 0, f"{name}: its fast path never ran on its op_db samples"


def _module_grads(name, dtype, create_graph):
    rng = np.random.default_rng(5)
    retrograd.manual_seed(0)
    m = retrograd.nn.LSTM(3, 4, num_layers=2) if name.startswith("lstm") else retrograd.nn.GRU(3, 4)
    m = m.to(getattr(retrograd, dtype))
    x = retrograd.tensor(rng.standard_normal((5, 2, 3)), dtype=getattr(retrograd, dtype), requires_grad=True)
    out = m(x)[0]
    loss = (out * retrograd.tensor(rng.uniform(0.5, 1.5, tuple(out.shape)), dtype=out.dtype)).sum()
    leaves = [x] + list(m.parameters())
    return retrograd.autograd.grad(loss, leaves, create_graph=create_graph)


@pytest.mark.parametrize("name,dtype", MODULE_CASES)
def test_module_only_fast_paths_equal_rules(name, dtype, monkeypatch):
    calls = collections.Counter()
    _only(name, monkeypatch, calls)
    fast = _module_grads(name, dtype, False)
    assert calls[name] > 0, f"{name}: the module did not reach its fast path"
    slow = _module_grads(name, dtype, True)
    _assert_equal(name, fast, slow)


def _assert_equal(name, fast, slow) -> None:
    for k, (f, s) in enumerate(zip(fast, slow)):
        assert (f is None) == (s is None), f"input {k}: a gradient one way only"
        if f is None:
            continue
        assert f.dtype == s.dtype, f"input {k}: dtype {f.dtype} vs {s.dtype}"
        expected = s.detach().numpy()
        if name in WITHIN_ROUNDINGS:
            assert_within_roundings(f.numpy(), expected, np.abs(expected).max(initial=0), WITHIN_ROUNDINGS[name],
                                    err_msg=f"{name}: input {k}")
        else:
            np.testing.assert_array_equal(f.numpy(), expected, err_msg=f"{name}: input {k}")


def test_number_of_declared_fast_paths():
    # (reported in issue 15's closing note; a change here is deliberate)
    assert len(FAST) >= 17
