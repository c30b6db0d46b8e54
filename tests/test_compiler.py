"""torch.compiler / torch._dynamo entry points: code that opts in or out of compilation runs as written."""
from __future__ import annotations

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


@pytest.mark.parametrize("lib", [rg, torch], ids=["retrograd", "torch"])
def test_decorators_leave_functions_callable_and_queries_say_not_compiling(lib):
    @lib._dynamo.disable
    def f(x):
        return x * 2

    @lib.compiler.disable(recursive=False)
    def g(x):
        return x + 1

    @lib.compiler.allow_in_graph
    def h(x):
        return x - 1

    x = lib.tensor([1.0, 2.0])
    assert f(x).tolist() == [2.0, 4.0] and g(x).tolist() == [2.0, 3.0] and h(x).tolist() == [0.0, 1.0]
    assert lib.compiler.is_compiling() is False and lib._dynamo.is_compiling() is False
    assert lib.compiler.is_exporting() is False and lib.compiler.is_dynamo_compiling() is False
    assert lib.compiler.reset() is None and lib._dynamo.reset() is None
    with lib.compiler.set_stance("force_eager"):
        assert f(x).tolist() == [2.0, 4.0]


def test_compile_returns_a_working_model():
    m = rg.nn.Linear(2, 1)
    cm = rg.compiler.compile(m)
    x = rg.ones(1, 2)
    assert cm(x).tolist() == m(x).tolist()
