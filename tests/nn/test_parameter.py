"""Tests of retrograd.nn.parameter, checked against PyTorch."""

import copy

import pytest


torch = pytest.importorskip("torch")

from ._module_helpers import LIBS, _both  # noqa: E402


@pytest.mark.parametrize("data", ["list", "int", "int_tensor", "int_tensor_nograd"])
def test_parameter_construction_errors(data):
    def run(T):
        d = {"list": [1.0], "int": 3, "int_tensor": T.tensor([1, 2]),
             "int_tensor_nograd": T.tensor([1, 2])}[data]
        p = T.nn.Parameter(d, requires_grad=data != "int_tensor_nograd")
        return repr(p)
    a, b = _both(run)
    assert a == b


def test_parameter_deepcopy_drops_grad():
    for T in LIBS:
        p = T.nn.Parameter(T.ones(2))
        p.grad = T.ones(2)
        q = copy.deepcopy(p)
        assert type(q).__name__ == "Parameter" and q.grad is None and q.requires_grad
        m = T.nn.Linear(1, 1)
        m(T.ones(1, 1)).sum().backward()
        assert copy.deepcopy(m).weight.grad is None
