"""Specs for the ops of ``retrograd._ops.index_dim``: index_select, index_add, index_copy,
index_fill, index_reduce (indexing along one dim)."""
from ._spec import OpSpec, S, T


X = T((3, 4))


def _idx(v):
    return T(kind="fixed", value=v)


SPECS = [
    OpSpec("index_select", [S(X, 0, _idx([2, 0, 2])), S(X, 1, _idx([1])), S(T((3,)), 0, _idx([1, 1])),
                            S(X, -1, _idx(3))], method=True),
    OpSpec("index_add", [S(X, 0, _idx([0, 2, 0]), T((3, 4))), S(X, 1, _idx([1, 3]), T((3, 2)), alpha=2.0)],
           method=True, inplace="index_add_"),
    OpSpec("index_copy", [S(X, 0, _idx([2, 0]), T((2, 4))), S(X, 1, _idx([3]), T((3, 1)))],
           method=True, inplace="index_copy_"),
    OpSpec("index_fill", [S(X, 1, _idx([0, 2]), -1.0), S(X, 0, _idx([1]), T(()))],
           method=True, inplace="index_fill_"),
]
