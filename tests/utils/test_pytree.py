"""retrograd.utils._pytree: flatten/unflatten, tree specs, tree_map and node registration, against torch."""
from __future__ import annotations

import collections
import warnings

import pytest

import retrograd
import retrograd.utils._pytree as rp

import torch.utils._pytree as tp


P = collections.namedtuple("P", "x y")


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
