"""Specs for the ops of ``retrograd._ops.diagonal``: diagonal, diag, diag_embed, diagflat,
tril/triu, tril_indices/triu_indices."""
from ._spec import OpSpec, S, T


X = T((2, 3))


SPECS = [
    OpSpec("tril_indices", [S(3, 3), S(4, 3, 1), S(3, 5, -1)], grad=False),
    OpSpec("triu_indices", [S(3, 3), S(4, 3, 1), S(3, 5, -1)], grad=False),
    OpSpec("tril", [S(T((3, 4))), S(T((3, 4)), 1), S(T((2, 3, 3)), -1)], method=True, inplace="tril_"),
    OpSpec("triu", [S(T((3, 4))), S(T((3, 4)), -1), S(T((2, 3, 3)), 1)], method=True, inplace="triu_"),
    OpSpec("diag", [S(T((3,))), S(T((3,)), 1), S(T((3, 4))), S(T((3, 4)), -1)], method=True),
    OpSpec("diagonal", [S(T((3, 4))), S(T((3, 4)), 1), S(T((2, 3, 4)), 0, 1, 2), S(T((2, 3, 4)), -1, -1, 0)],
           method=True),
    OpSpec("diag_embed", [S(T((3,))), S(X, 1), S(X, 0, 0, 2), S(X, -1)], method=True),
    OpSpec("diagflat", [S(T((3,))), S(T((2, 2)), -1)], method=True),
]
