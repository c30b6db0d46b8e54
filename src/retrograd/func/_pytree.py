"""The pytree helpers torch.func needs, on top of ``retrograd.utils._pytree``.

Flattening, rebuilding and printing structures come from ``utils._pytree`` (torch's
``torch.utils._pytree`` counterpart, so registered custom nodes work in func transforms too);
``broadcast_prefix`` is what ``vmap``'s ``in_dims`` / ``out_dims`` need on top.
"""
from __future__ import annotations

from ..utils._pytree import (SUPPORTED_NODES, TreeSpec, _node_type, tree_flatten, tree_map,  # noqa: F401
                             tree_unflatten)
from ..utils._pytree import treespec_pprint as pprint_spec  # noqa: F401

__all__ = ["TreeSpec", "tree_flatten", "tree_unflatten", "tree_map", "broadcast_prefix", "pprint_spec"]


def broadcast_prefix(prefix, spec: TreeSpec) -> list | None:
    """``prefix`` (a tree whose leaves stand for whole subtrees of ``spec``) spread out to one
    value per leaf of ``spec``; None when ``prefix`` is not a prefix of that structure."""
    out: list = []

    def go(p, s: TreeSpec) -> bool:
        node = _node_type(p)
        if node is None:
            out.extend([p] * s.num_leaves)
            return True
        kids, ctx = SUPPORTED_NODES[node].flatten_fn(p)
        if s.is_leaf() or node is not s.type or ctx != s.context or len(kids) != len(s.children_specs):
            return False
        return all(go(k, cs) for k, cs in zip(kids, s.children_specs))

    return out if go(prefix, spec) else None
