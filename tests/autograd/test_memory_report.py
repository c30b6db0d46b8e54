"""torch.autograd.graph.memory_report: what a graph keeps alive for backward (retrograd's own).

Sizes are derived from the shapes each op saves (PyTorch saves the same: sin its input,
tanh its result, addmm its two matrix operands), so the expected bytes are computed here.
"""
import sys

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")
HERE = __file__
graph = rg.autograd.graph


def _line() -> int:
    return sys._getframe(1).f_lineno


def test_saved_tensors_per_node_and_total():
    x = rg.ones(1000, requires_grad=True)
    h = x * 2; l1 = _line()  # noqa: E702  (mul by a number saves nothing that needs grad)
    y = h.sin(); l2 = _line()  # noqa: E702
    z = y.tanh(); l3 = _line()  # noqa: E702
    # torch saves the same tensors: sin's input, tanh's result
    t = torch.ones(1000, requires_grad=True)
    tz = (t * 2).sin().tanh()
    assert tz.grad_fn._saved_result.shape == (1000,) and tz.grad_fn.next_functions[0][0]._saved_self.shape == (1000,)
    r = graph.memory_report(z)
    assert r.total_bytes == 2 * 4000
    d = r.as_dict()
    assert d["by_line"] == {f"{HERE}:{l2}": 4000, f"{HERE}:{l3}": 4000}
    nodes = {n["node"]: n for n in d["nodes"]}
    assert nodes["SinBackward0"]["saved"] == [{"name": "self", "shape": (1000,), "dtype": "float32", "bytes": 4000,
                                              "made_at": f"{HERE}:{l1}"}]
    assert nodes["TanhBackward0"]["saved"][0]["made_at"] == f"{HERE}:{l3}"
    text = str(r).splitlines()
    assert text[0] == "Saved for backward: 7.8 KiB in 2 tensors, held by 2 nodes."
    assert text[1:4] == ["By line:", f"     3.9 KiB  {HERE}:{l2}", f"     3.9 KiB  {HERE}:{l3}"]


def test_an_array_saved_twice_counts_once():
    x = rg.ones(10, dtype=rg.float64, requires_grad=True)
    y = x.sin() + x.cos()  # both save x
    r = graph.memory_report(y)
    assert r.total_bytes == 80
    assert sum(n["bytes"] for n in r.as_dict()["nodes"]) == 160


def test_freed_graph_holds_nothing():
    x = rg.ones(10, requires_grad=True)
    y = x.sin().sum()
    y.backward()
    assert graph.memory_report(y).total_bytes == 0


def test_grouped_by_module_path_when_tracked():
    nn = rg.nn
    model = nn.Sequential(nn.Linear(4, 8), nn.Tanh(), nn.Sequential(nn.Linear(8, 2)))
    graph.set_module_tracking(True)
    try:
        out = model(rg.randn(3, 4)).pow(2).sum()
    finally:
        graph.set_module_tracking(False)
    by_module = graph.memory_report(out, model).as_dict()["by_module"]
    # addmm saves its two matrix operands: input [3, 8] and weight [2, 8]; tanh its result [3, 8];
    # the first addmm only the weight-gradient operand [3, 4] (its weight's input needs no grad)
    assert by_module == {"2.0": (3 * 8 + 2 * 8) * 4, "1": 3 * 8 * 4, "0": 3 * 4 * 4, "<outside any module>": 3 * 2 * 4}


def test_untracked_modules_are_not_named():
    nn = rg.nn
    model = nn.Linear(2, 2)
    out = model(rg.ones(1, 2)).sum()
    assert set(graph.memory_report(out, model).as_dict()["by_module"]) == {"<outside any module>"}


def test_same_sizes_once_inference_mode_was_used():
    # (after inference_mode is first used, every save goes through SavedTensor: same report)
    with rg.inference_mode():
        pass
    x = rg.ones(1000, requires_grad=True)
    assert graph.memory_report((x * 2).sin()).total_bytes == 4000
