"""``retrograd.utils._pytree``: flatten nested containers to a list of leaves and back.

The subset of ``torch.utils._pytree`` that client code uses: tuples, lists, dicts,
OrderedDicts, defaultdicts, deques and namedtuples are nodes; anything else (None, numbers,
Tensors) is a leaf.  ``register_pytree_node`` adds node types.  A :class:`TreeSpec` records the
structure and prints as PyTorch's does.

>>> from retrograd.utils import _pytree as pytree
>>> leaves, spec = pytree.tree_flatten({"a": [1, 2], "b": (3,)})
>>> leaves
[1, 2, 3]
>>> pytree.tree_unflatten([x * 10 for x in leaves], spec)
{'a': [10, 20], 'b': (30,)}
"""
from __future__ import annotations

import dataclasses
from collections import OrderedDict, defaultdict, deque, namedtuple
from typing import Any, Callable, Iterable

__all__ = ["TreeSpec", "LeafSpec", "NodeDef", "SUPPORTED_NODES", "register_pytree_node", "tree_flatten",
           "tree_unflatten", "tree_leaves", "tree_structure", "tree_map", "tree_map_", "tree_map_only",
           "tree_all", "tree_any", "tree_all_only", "tree_any_only", "tree_iter", "tree_is_leaf",
           "is_namedtuple", "is_namedtuple_class", "is_namedtuple_instance", "treespec_pprint"]

PyTree = Any
FlattenFunc = Callable[[PyTree], tuple[list, Any]]
UnflattenFunc = Callable[[Iterable, Any], PyTree]


@dataclasses.dataclass(frozen=True)
class NodeDef:
    """How one container type splits into (children, context) and is rebuilt from them."""

    type: type
    flatten_fn: FlattenFunc
    unflatten_fn: UnflattenFunc


SUPPORTED_NODES: dict[type, NodeDef] = {}


def register_pytree_node(cls: type, flatten_fn: FlattenFunc, unflatten_fn: UnflattenFunc, *,
                         serialized_type_name: str | None = None, to_dumpable_context: Callable | None = None,
                         from_dumpable_context: Callable | None = None,
                         flatten_with_keys_fn: Callable | None = None) -> None:
    """Make ``cls`` a pytree node: ``flatten_fn(obj) -> (children, context)``,
    ``unflatten_fn(children, context) -> obj``.  (The serialization keywords are accepted
    and ignored: retrograd has no treespec serialization.)

    >>> from retrograd.utils import _pytree as pytree
    >>> class Pair:
    ...     def __init__(self, a, b): self.a, self.b = a, b
    >>> pytree.register_pytree_node(Pair, lambda p: ([p.a, p.b], None), lambda xs, _: Pair(*xs))
    >>> pytree.tree_leaves(Pair(1, [2, 3]))
    [1, 2, 3]
    """
    if cls in SUPPORTED_NODES:
        raise ValueError(f"{cls} is already registered as pytree node.")
    SUPPORTED_NODES[cls] = NodeDef(cls, flatten_fn, unflatten_fn)


def _dict_flatten(d):
    return list(d.values()), list(d.keys())


register_pytree_node(tuple, lambda t: (list(t), None), lambda xs, _: tuple(xs))
register_pytree_node(list, lambda t: (list(t), None), lambda xs, _: list(xs))
register_pytree_node(dict, _dict_flatten, lambda xs, keys: dict(zip(keys, xs)))
register_pytree_node(OrderedDict, _dict_flatten, lambda xs, keys: OrderedDict(zip(keys, xs)))
register_pytree_node(defaultdict, lambda d: (list(d.values()), [d.default_factory, list(d.keys())]),
                     lambda xs, ctx: defaultdict(ctx[0], zip(ctx[1], xs)))
register_pytree_node(deque, lambda d: (list(d), d.maxlen), lambda xs, maxlen: deque(xs, maxlen=maxlen))
# namedtuples share one entry, keyed by the ``namedtuple`` factory; the context is the class
register_pytree_node(namedtuple, lambda t: (list(t), type(t)), lambda xs, cls: cls(*xs))  # type: ignore[arg-type]


def is_namedtuple_class(cls: type) -> bool:
    """Whether ``cls`` is a namedtuple class (a tuple subclass with ``_fields``)."""
    return isinstance(cls, type) and issubclass(cls, tuple) and isinstance(getattr(cls, "_fields", None), tuple)


def is_namedtuple_instance(obj) -> bool:
    """Whether ``obj`` is an instance of a namedtuple class."""
    return is_namedtuple_class(type(obj))


is_namedtuple = is_namedtuple_instance


def _node_type(obj) -> Any:
    """The SUPPORTED_NODES key of ``obj`` (None: a leaf)."""
    t = type(obj)
    if t in SUPPORTED_NODES and t is not namedtuple:
        return t
    if is_namedtuple_class(t):
        return namedtuple
    return None


def tree_is_leaf(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``tree`` is a leaf (not a registered container, or ``is_leaf`` says so).

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_is_leaf(None), pytree.tree_is_leaf([1])
    (True, False)
    """
    if is_leaf is not None and is_leaf(tree):
        return True
    return _node_type(tree) is None


class TreeSpec:
    """The structure of a pytree: node type, context (dict keys, namedtuple class ...) and children.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_structure((1, [2]))
    TreeSpec(tuple, None, [*,
      TreeSpec(list, None, [*])])
    """

    def __init__(self, type: Any, context: Any, children_specs: list[TreeSpec]) -> None:  # noqa: A002
        self.type = type
        self.context = context
        self.children_specs = list(children_specs)
        self.num_children = len(self.children_specs)
        if type is None:
            self.num_leaves, self.num_nodes = 1, 1
        else:
            self.num_leaves = sum(c.num_leaves for c in self.children_specs)
            self.num_nodes = 1 + sum(c.num_nodes for c in self.children_specs)

    def is_leaf(self) -> bool:
        return self.type is None

    def children(self) -> list[TreeSpec]:
        return list(self.children_specs)

    def child(self, index: int) -> TreeSpec:
        return self.children_specs[index]

    def __eq__(self, other) -> bool:
        if not isinstance(other, TreeSpec):
            return NotImplemented
        return (self.type is other.type and self.context == other.context
                and self.children_specs == other.children_specs)

    __hash__ = None  # mutable context (lists): not hashable, as in PyTorch

    def _repr(self, indent: int) -> str:
        if self.type is None:
            return "*"
        inner = indent + 2
        parts = [c._repr(inner) for c in self.children_specs]
        # first child on the opening line, the others each on its own line
        body = (",\n" + " " * inner).join(parts)
        return f"TreeSpec({self.type.__name__}, {self.context!r}, [{body}])"

    def __repr__(self) -> str:
        return self._repr(0)

    def flatten_up_to(self, tree: PyTree) -> list:
        """The subtrees of ``tree`` at this spec's leaves (``tree`` must have this structure above them)."""
        out: list = []
        stack = [(self, tree)]
        while stack:  # iterative: deep trees must not hit the recursion limit
            spec, sub = stack.pop()
            if spec.type is None:
                out.append(sub)
                continue
            got = _node_type(sub)
            if got is not spec.type:
                shown = type(sub) if got is not namedtuple else type(sub)
                raise ValueError(f"Node type mismatch; expected {spec.type}, but got {shown}.")
            children, context = SUPPORTED_NODES[got].flatten_fn(sub)
            if len(children) != spec.num_children:
                raise ValueError(f"Node arity mismatch; expected {spec.num_children}, but got {len(children)}.")
            if context != spec.context:
                if isinstance(sub, dict) and set(context) == set(spec.context):
                    children = [sub[k] for k in spec.context]  # same keys, other order: reorder
                else:
                    raise ValueError(f"Node context mismatch for node type {spec.type!r}; "
                                     f"expected {spec.context!r}, but got {context!r}.")
            stack.extend(reversed(list(zip(spec.children_specs, children))))
        return out

    def unflatten(self, leaves: Iterable) -> PyTree:
        """Rebuild a tree of this structure from ``leaves``."""
        leaves = list(leaves)
        if len(leaves) != self.num_leaves:
            raise ValueError(f"treespec.unflatten(leaves): `leaves` has length {len(leaves)} but the spec refers "
                             f"to a pytree that holds {self.num_leaves} items ({self}).")
        it = iter(leaves)
        return self._build(it)

    def _build(self, it) -> PyTree:
        if self.type is None:
            return next(it)
        children = [c._build(it) for c in self.children_specs]
        return SUPPORTED_NODES[self.type].unflatten_fn(children, self.context)


class LeafSpec(TreeSpec):
    """The spec of a single leaf (prints as ``*``)."""

    def __init__(self) -> None:
        super().__init__(None, None, [])


def tree_flatten(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> tuple[list, TreeSpec]:
    """(leaves in order, TreeSpec) of ``tree``.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_flatten([1, (2, None)])[0]
    [1, 2, None]
    """
    leaves: list = []

    def walk(node) -> TreeSpec:
        if tree_is_leaf(node, is_leaf):
            leaves.append(node)
            return LeafSpec()
        kind = _node_type(node)
        children, context = SUPPORTED_NODES[kind].flatten_fn(node)
        return TreeSpec(kind, context, [walk(c) for c in children])

    spec = walk(tree)
    return leaves, spec


def tree_unflatten(leaves: Iterable, treespec: TreeSpec) -> PyTree:
    """The inverse of :func:`tree_flatten`.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_unflatten([1, 2], pytree.tree_structure((0, [0])))
    (1, [2])
    """
    if not isinstance(treespec, TreeSpec):
        raise TypeError(f"tree_unflatten(leaves, treespec): Expected `treespec` to be instance of TreeSpec "
                        f"but got item of type {type(treespec)}.")
    return treespec.unflatten(leaves)


def tree_leaves(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> list:
    """The leaves of ``tree`` in flattening order.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_leaves({"x": 1, "y": [2, 3]})
    [1, 2, 3]
    """
    return tree_flatten(tree, is_leaf)[0]


def tree_iter(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None):
    """An iterator over the leaves of ``tree``.

    >>> from retrograd.utils import _pytree as pytree
    >>> list(pytree.tree_iter((1, [2])))
    [1, 2]
    """
    return iter(tree_leaves(tree, is_leaf))


def tree_structure(tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> TreeSpec:
    """The TreeSpec of ``tree``.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_structure(3)
    *
    """
    return tree_flatten(tree, is_leaf)[1]


def tree_map(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
             is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """Apply ``func`` to every leaf (and the matching leaves of ``rests``), keeping the structure.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_map(lambda a, b: a + b, [1, (2,)], [10, (20,)])
    [11, (22,)]
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    return spec.unflatten(func(*xs) for xs in zip(leaves, *others))


def tree_map_(func: Callable[..., Any], tree: PyTree, *rests: PyTree,
              is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """Like :func:`tree_map` for side effects only: calls ``func`` and returns ``tree`` itself.

    >>> from retrograd.utils import _pytree as pytree
    >>> seen = []
    >>> _ = pytree.tree_map_(seen.append, (1, [2]))
    >>> seen
    [1, 2]
    """
    leaves, spec = tree_flatten(tree, is_leaf)
    others = [spec.flatten_up_to(r) for r in rests]
    for xs in zip(leaves, *others):
        func(*xs)
    return tree


def _only(type_or_types, func):
    def f(x):
        return func(x) if isinstance(x, type_or_types) else x
    return f


def _pred_only(type_or_types, pred):
    def f(x):
        return pred(x) if isinstance(x, type_or_types) else None
    return f


def tree_map_only(type_or_types, func: Callable[[Any], Any], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> PyTree:
    """:func:`tree_map` applied only to leaves of the given type(s); others are kept.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_map_only(int, lambda x: x * 10, [1, "a", 2.5])
    [10, 'a', 2.5]
    """
    return tree_map(_only(type_or_types, func), tree, is_leaf=is_leaf)


def tree_all(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``pred`` holds for every leaf.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_all(lambda x: x > 0, (1, [2]))
    True
    """
    return all(map(pred, tree_leaves(tree, is_leaf)))


def tree_any(pred: Callable[[Any], bool], tree: PyTree, is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """Whether ``pred`` holds for some leaf.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_any(lambda x: x > 1, (1, [2]))
    True
    """
    return any(map(pred, tree_leaves(tree, is_leaf)))


def tree_all_only(type_or_types, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """:func:`tree_all` over the leaves of the given type(s).

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_all_only(int, lambda x: x > 0, [1, "a"])
    True
    """
    return all(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


def tree_any_only(type_or_types, pred: Callable[[Any], bool], tree: PyTree,
                  is_leaf: Callable[[PyTree], bool] | None = None) -> bool:
    """:func:`tree_any` over the leaves of the given type(s).

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.tree_any_only(int, lambda x: x > 1, [1, "a"])
    False
    """
    return any(pred(x) for x in tree_leaves(tree, is_leaf) if isinstance(x, type_or_types))


class _Star:
    def __repr__(self) -> str:
        return "*"


def treespec_pprint(treespec: TreeSpec) -> str:
    """The structure drawn as the container itself, with ``*`` for each leaf.

    >>> from retrograd.utils import _pytree as pytree
    >>> pytree.treespec_pprint(pytree.tree_structure((1, [2, 3])))
    '(*, [*, *])'
    """
    return repr(treespec.unflatten([_Star()] * treespec.num_leaves))
