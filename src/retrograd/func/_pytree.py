"""A small pytree toolkit for the function transforms (private).

Containers are tuples, lists, dicts (in insertion order, as PyTorch's pytree keeps them),
OrderedDicts and namedtuples; everything else, ``None`` included, is a leaf.  ``TreeSpec``
prints the way PyTorch's does, because torch's transform errors quote tree structures.
"""
from __future__ import annotations

from collections import OrderedDict
from typing import Any, Callable

__all__ = ["TreeSpec", "LEAF", "tree_flatten", "tree_unflatten", "tree_map", "broadcast_prefix", "pprint_spec"]


def _is_namedtuple(x) -> bool:
    return isinstance(x, tuple) and hasattr(type(x), "_fields")


class TreeSpec:
    """The shape of a pytree: a container type, its context (dict keys) and child specs."""

    __slots__ = ("type", "context", "children", "num_leaves")

    def __init__(self, typ, context, children: list) -> None:
        self.type = typ
        self.context = context
        self.children = children
        self.num_leaves = 1 if typ is None else sum(c.num_leaves for c in children)

    def is_leaf(self) -> bool:
        return self.type is None

    def __eq__(self, other) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type is other.type and self.context == other.context
                and self.children == other.children)

    def __hash__(self) -> int:  # (specs are compared, never hashed in practice)
        return id(self)

    def __repr__(self, indent: int = 0) -> str:
        if self.type is None:
            return "*"
        name = "namedtuple" if self.context is not None and isinstance(self.context, type) else self.type.__name__
        body = ""
        if self.children:
            indent += 2
            body = self.children[0].__repr__(indent)
            if len(self.children) > 1:
                body += ","
            body += ",".join("\n" + " " * indent + c.__repr__(indent) for c in self.children[1:])
        return f"TreeSpec({name}, {self.context}, [{body}])"


LEAF = TreeSpec(None, None, [])


def _children(x) -> tuple[Any, Any, list] | None:
    """(type, context, children) of a container, None for a leaf."""
    if _is_namedtuple(x):
        return tuple, type(x), list(x)
    t = type(x)
    if t is tuple or t is list:
        return t, None, list(x)
    if isinstance(x, OrderedDict):
        return OrderedDict, list(x.keys()), list(x.values())
    if t is dict:
        return dict, list(x.keys()), list(x.values())
    return None


def tree_flatten(tree) -> tuple[list, TreeSpec]:
    """Leaves in order, and the spec that rebuilds the tree from them."""
    leaves: list = []

    def go(x) -> TreeSpec:
        c = _children(x)
        if c is None:
            leaves.append(x)
            return LEAF
        typ, ctx, kids = c
        return TreeSpec(typ, ctx, [go(k) for k in kids])

    spec = go(tree)
    return leaves, spec


def tree_unflatten(leaves, spec: TreeSpec):
    """The inverse of ``tree_flatten``."""
    it = iter(leaves)

    def go(s: TreeSpec):
        if s.type is None:
            return next(it)
        kids = [go(c) for c in s.children]
        if s.type is tuple:
            return s.context(*kids) if isinstance(s.context, type) else tuple(kids)
        if s.type is list:
            return kids
        return s.type(zip(s.context, kids))

    return go(spec)


def tree_map(fn: Callable, tree):
    leaves, spec = tree_flatten(tree)
    return tree_unflatten([fn(x) for x in leaves], spec)


def broadcast_prefix(prefix, spec: TreeSpec) -> list | None:
    """``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``) spread out to one
    value per leaf of ``spec``; None when ``prefix`` is not a prefix of that structure."""
    out: list = []

    def go(p, s: TreeSpec) -> bool:
        c = _children(p)
        if c is None:
            out.extend([p] * s.num_leaves)
            return True
        typ, ctx, kids = c
        s_ctx = s.context
        if s.type is None or typ is not s.type or ctx != s_ctx or len(kids) != len(s.children):
            return False
        return all(go(k, cs) for k, cs in zip(kids, s.children))

    return out if go(prefix, spec) else None


class _Star:
    def __repr__(self) -> str:
        return "*"


def pprint_spec(spec: TreeSpec) -> str:
    """The spec as a tree of ``*`` leaves (PyTorch's ``treespec_pprint``)."""
    return repr(tree_unflatten([_Star()] * spec.num_leaves, spec))
