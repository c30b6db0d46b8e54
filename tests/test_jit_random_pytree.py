"""retrograd.jit (no-op TorchScript API), retrograd.random and retrograd.utils._pytree,
against torch.jit / torch.random / torch.utils._pytree."""
from __future__ import annotations

import collections
import warnings
from typing import Dict, List, Optional, Tuple

import numpy as np
import pytest

import retrograd
import retrograd.jit as rjit
import retrograd.random as rrandom
import retrograd.utils._pytree as rp

torch = pytest.importorskip("torch")
import torch.utils._pytree as tp  # noqa: E402

P = collections.namedtuple("P", "x y")


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


# ---------------------------------------------------------------------------- random
def test_random_seed_functions_delegate():
    g = rrandom.manual_seed(123)
    assert isinstance(g, retrograd.Generator)
    assert rrandom.initial_seed() == 123 == retrograd.initial_seed()
    a = retrograd.rand(3)
    rrandom.manual_seed(123)
    assert np.array_equal(retrograd.rand(3).numpy(), a.numpy())
    s = rrandom.seed()
    assert isinstance(s, int) and rrandom.initial_seed() == s
    state = rrandom.get_rng_state()
    assert state.dtype == retrograd.uint8
    b = retrograd.rand(4)
    rrandom.set_rng_state(state)
    assert np.array_equal(retrograd.rand(4).numpy(), b.numpy())
    assert rrandom.default_generator is retrograd.default_generator
    assert rrandom.Generator is retrograd.Generator


@pytest.mark.parametrize("lib", ["retrograd", "torch"])
def test_fork_rng_restores_the_state(lib):
    L = retrograd if lib == "retrograd" else torch
    L.random.manual_seed(5) if lib == "torch" else rrandom.manual_seed(5)
    fork = rrandom.fork_rng if lib == "retrograd" else torch.random.fork_rng
    expected = L.rand(2)
    (rrandom if lib == "retrograd" else torch.random).manual_seed(5)
    with fork():
        inner = L.rand(2)
    after = L.rand(2)
    assert np.array_equal(np.asarray(after.tolist()), np.asarray(expected.tolist()))
    assert np.array_equal(np.asarray(inner.tolist()), np.asarray(expected.tolist()))
    # restored on an exception too; enabled=False forks nothing
    (rrandom if lib == "retrograd" else torch.random).manual_seed(5)
    with pytest.raises(KeyError):
        with fork():
            L.rand(7)
            raise KeyError
    assert L.rand(2).tolist() == expected.tolist()
    (rrandom if lib == "retrograd" else torch.random).manual_seed(5)
    with fork(enabled=False):
        L.rand(2)
    assert L.rand(2).tolist() != expected.tolist()


# ---------------------------------------------------------------------------- pytree
TREES = [
    {"a": [1, (2, 3)], "b": None, "c": P(4, 5), "d": collections.OrderedDict(z=6)},
    (1, [2, 3]), 3, None, [], {}, (1,), [None, [None]],
    collections.defaultdict(list, {"a": 1, "b": [2]}), collections.deque([1, 2], maxlen=3),
    [[[[1]]], {"k": (2, [3, {"q": 4}])}],
]


@pytest.mark.parametrize("tree", TREES, ids=[str(i) for i in range(len(TREES))])
def test_flatten_unflatten_and_spec_match_torch(tree):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        leaves, spec = rp.tree_flatten(tree)
        tleaves, tspec = tp.tree_flatten(tree)
        assert leaves == tleaves
        assert repr(spec) == repr(tspec) and str(spec) == str(tspec)
        assert (spec.num_leaves, spec.num_nodes, spec.num_children) == \
            (tspec.num_leaves, tspec.num_nodes, tspec.num_children)
        assert spec.is_leaf() == tspec.is_leaf()
        assert rp.treespec_pprint(spec) == tp.treespec_pprint(tspec)
    rebuilt = rp.tree_unflatten(leaves, spec)
    assert rebuilt == tree and type(rebuilt) is type(tree)
    assert rp.tree_leaves(tree) == leaves and rp.tree_structure(tree) == spec
    assert list(rp.tree_iter(tree)) == leaves


def test_leafspec_and_equality():
    assert repr(rp.LeafSpec()) == repr(tp.LeafSpec()) == "*"
    assert rp.tree_structure([1, 2]) == rp.tree_structure([5, 6])
    assert rp.tree_structure([1, 2]) != rp.tree_structure((1, 2))
    assert rp.tree_structure({"a": 1}) != rp.tree_structure({"b": 1})


def test_tree_map_family():
    tree = {"w": retrograd.ones(2), "n": 3, "s": "x", "l": [1.5, None]}
    out = rp.tree_map(lambda v: v * 2 if v is not None else v, {"n": 3, "l": [1.5, None]})
    assert out == {"n": 6, "l": [3.0, None]}
    assert rp.tree_map(lambda a, b: a + b, [1, (2,)], [10, (20,)]) == tp.tree_map(lambda a, b: a + b, [1, (2,)],
                                                                                   [10, (20,)])
    only = rp.tree_map_only(retrograd.Tensor, lambda t: t.sum().item(), tree)
    assert only == {"w": 2.0, "n": 3, "s": "x", "l": [1.5, None]}
    assert rp.tree_map_only((int, float), lambda v: -v, [1, "a", 2.0]) == tp.tree_map_only((int, float),
                                                                                            lambda v: -v, [1, "a", 2.0])
    seen = []
    assert rp.tree_map_(seen.append, (1, [2])) == (1, [2]) and seen == [1, 2]
    assert rp.tree_all(lambda v: v > 0, [1, (2,)]) and not rp.tree_all(lambda v: v > 1, [1, (2,)])
    assert rp.tree_any(lambda v: v > 1, [1, (2,)]) and not rp.tree_any(lambda v: v > 5, [1, (2,)])
    assert rp.tree_all_only(int, lambda v: v > 0, [1, "a"]) == tp.tree_all_only(int, lambda v: v > 0, [1, "a"])
    assert rp.tree_any_only(int, lambda v: v > 1, [1, "a"]) == tp.tree_any_only(int, lambda v: v > 1, [1, "a"])
    is_leaf = lambda v: isinstance(v, list) and len(v) == 1  # noqa: E731
    assert rp.tree_leaves([1, [2]], is_leaf=is_leaf) == tp.tree_leaves([1, [2]], is_leaf=is_leaf)


@pytest.mark.parametrize("call", [
    lambda m: m.tree_map(lambda a, b: a + b, [1, 2], [3, 4, 5]),
    lambda m: m.tree_map(lambda a, b: a + b, [1, 2], (3, 4)),
    lambda m: m.tree_unflatten([1, 2], m.tree_structure({"a": [1, 2], "b": 3})),
])
def test_pytree_errors_match_torch(call):
    with pytest.raises(Exception) as theirs:
        call(tp)
    with pytest.raises(type(theirs.value)) as ours:
        call(rp)
    assert str(ours.value) == str(theirs.value)


def test_register_pytree_node():
    class Pair:
        def __init__(self, a, b):
            self.a, self.b = a, b

    rp.register_pytree_node(Pair, lambda p: ([p.a, p.b], "ctx"), lambda xs, ctx: Pair(*xs))
    leaves, spec = rp.tree_flatten([Pair(1, (2, 3)), 4])
    assert leaves == [1, 2, 3, 4]
    assert repr(spec).startswith("TreeSpec(list, None, [TreeSpec(Pair, 'ctx', [*,")
    back = rp.tree_unflatten([10, 20, 30, 40], spec)
    assert isinstance(back[0], Pair) and back[0].b == (20, 30) and back[1] == 40
    with pytest.raises(ValueError, match="already registered"):
        rp.register_pytree_node(Pair, lambda p: ([], None), lambda xs, ctx: Pair(0, 0))
