"""Specs for the ops of ``retrograd._ops.masked``: masked_fill/masked_select/masked_scatter,
where."""
from ._spec import OpSpec, S, T


X = T((3, 4))
M = T((3, 4), kind="bool")


SPECS = [
    OpSpec("where", [S(T((2, 3), kind="bool"), T((2, 3)), T((2, 3))), S(T((3,), kind="bool"), T((2, 3)), 0.0)]),
    OpSpec("masked_fill", [S(X, M, 0.5), S(X, T((4,), kind="bool"), T(())), S(T((4,)), M, 1.0)],
           method=True, inplace="masked_fill_"),
    OpSpec("masked_select", [S(X, M), S(T((4,)), M)], method=True),
    OpSpec("masked_scatter", [S(X, M, T((12,))), S(X, T((4,), kind="bool"), T((3, 5)))],
           method=True, inplace="masked_scatter_"),
]
