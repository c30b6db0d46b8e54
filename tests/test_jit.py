"""retrograd.jit (the no-op TorchScript API), against torch."""
from __future__ import annotations

import warnings
from typing import Dict, List, Optional, Tuple

import pytest

import retrograd
import retrograd as rg
import retrograd.jit as rjit

torch = pytest.importorskip("torch")


# ---------------------------------------------------------------------------- jit
def test_script_and_trace_return_their_argument_and_keep_gradients():
    m = retrograd.nn.Linear(3, 2)
    assert rjit.script(m) is m
    assert rjit.trace_module(m, {"forward": retrograd.ones(1, 3)}) is m
    assert rjit.freeze(m.eval()) is m
    assert rjit.optimize_for_inference(m) is m

    def f(x):
        return (x * x).sum() if x.sum() > 0 else -x.sum()  # data-dependent control flow survives

    traced = rjit.trace(f, retrograd.ones(2))
    x = retrograd.tensor([1.0, 2.0], requires_grad=True)
    traced(x).backward()
    assert x.grad.tolist() == [2.0, 4.0]
    assert rjit.script(f) is f


def test_decorators_and_flags():
    @rjit.ignore
    def a(x):
        return x + 1

    @rjit.ignore(drop=True)
    def b(x):
        return x + 2

    assert (a(1), b(1)) == (2, 3)
    for deco in (rjit.unused, rjit.export, rjit.interface, rjit.script_if_tracing, rjit.script_method,
                 rjit._overload, rjit._overload_method):
        assert deco(a) is a
    assert rjit.is_scripting() is torch.jit.is_scripting() is False
    assert rjit.is_tracing() is torch.jit.is_tracing() is False
    assert rjit.annotate(List[int], []) == torch.jit.annotate(List[int], []) == []
    assert rjit.Final is torch.jit.Final
    assert rjit.Attribute(3, int) == 3


def test_fork_wait():
    fut = rjit.fork(lambda a, b=0: a * 10 + b, 4, b=2)
    assert fut.done() and rjit.wait(fut) == 42 == fut.value()
    tfut = torch.jit.fork(lambda a, b=0: a * 10 + b, 4, b=2)
    assert torch.jit.wait(tfut) == rjit.wait(fut)


@pytest.mark.parametrize("obj,typ", [([1, 2], List[int]), ([1, "a"], List[int]), ({"a": 1}, Dict[str, int]),
                                     ({"a": "b"}, Dict[str, int]), (None, Optional[int]), (3, Optional[int]),
                                     ((1, "a"), Tuple[int, str]), ((1, 2), Tuple[int, str]), (1.5, float)])
def test_jit_isinstance_matches_torch(obj, typ):
    assert rjit.isinstance(obj, typ) == torch.jit.isinstance(obj, typ)


def test_script_module_is_a_module_and_save_load_refuse(tmp_path):
    assert issubclass(rjit.ScriptModule, retrograd.nn.Module)
    assert isinstance(rjit.ScriptFunction, type)
    with pytest.raises(RuntimeError, match="retrograd.save\\(model.state_dict\\(\\), f\\)"):
        rjit.save(retrograd.nn.Linear(1, 1), str(tmp_path / "m.pt"))
    with pytest.raises(RuntimeError, match="TorchScript archives are not supported"):
        rjit.load(str(tmp_path / "m.pt"))
    assert issubclass(rjit.Error, RuntimeError)


def test_jit_context_managers_and_settings():
    with rjit.optimized_execution(False), rjit.fuser("fuser1"), rjit.strict_fusion():
        pass
    old = rjit.set_fusion_strategy([("DYNAMIC", 3)])
    assert rjit.set_fusion_strategy(old) == [("DYNAMIC", 3)]
    assert rjit.onednn_fusion_enabled() is torch.jit.onednn_fusion_enabled() is False
    rjit.enable_onednn_fusion(True)
    assert rjit.onednn_fusion_enabled()
    rjit.enable_onednn_fusion(False)


def test_jit_warnings_are_attributed_to_retrograd_so_hidden_by_default():
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        rg.jit.script(lambda x: x)
    assert w[0].filename.endswith("jit.py")
