"""Specs for the shape ops of issue 4: joining, splitting, flips/rolls, repeats, triangles,
diagonals and broadcasting helpers.  Views are checked for memory sharing in
tests/test_indexing_extra.py."""
from ._spec import OpSpec, S, T

X = T((2, 3))
X3 = T((2, 3, 2))


def _idx(v):
    return T(kind="fixed", value=v)


def _method(name):
    return lambda lib, x, *a, **k: getattr(x, name)(*a, **k)


SPECS = [
    OpSpec("unflatten", [S(T((2, 6)), 1, (2, 3)), S(T((6,)), 0, (-1, 2)), S(X, -1, (3, 1))], method=True),
    OpSpec("repeat", [S(X, 2, 1), S(X, (1, 2, 2)), S(T((3,)), 2, 2)], call=_method("repeat")),
    OpSpec("repeat_interleave", [S(X, 2), S(X, 2, 0), S(X, _idx([1, 0, 2]), 1), S(T((3,)), _idx([2]), 0)],
           method=True),
    OpSpec("tile", [S(X, (2,)), S(X, (2, 1, 2)), S(T((3,)), (2, 2))], method=True),
    OpSpec("flip", [S(X, (0,)), S(X, (0, 1)), S(X3, [-1])], method=True),
    OpSpec("fliplr", [S(X), S(X3)], method=True),
    OpSpec("flipud", [S(X), S(T((4,)))], method=True),
    OpSpec("roll", [S(X, 1), S(X, 1, 0), S(X, (1, -1), (0, 1)), S(X3, -2, -1)], method=True),
    OpSpec("rot90", [S(X), S(X, 2), S(X, -1, (1, 0)), S(X3, 1, (0, 2)), S(X, 0)], method=True),
    OpSpec("cat", [S([T((2, 3)), T((1, 3))]), S([T((2, 3)), T((2, 1))], 1), S([T((2,)), T((3,)), T((1,))]),
                   S([T((2,)), T((2,), kind="int", low=0, high=3)]), S([X, T((0,))], -1)]),
    OpSpec("concat", [S([T((2, 3)), T((2, 1))], dim=1)]),
    OpSpec("concatenate", [S([T((2, 3)), T((1, 3))], axis=0)]),
    OpSpec("stack", [S([X, X]), S([X, X, X], 2), S([T((3,)), T((3,))], -1)]),
    OpSpec("hstack", [S([X, T((2, 1))]), S([T((2,)), T((3,))])]),
    OpSpec("vstack", [S([X, T((1, 3))]), S([T((3,)), T((3,))])]),
    OpSpec("row_stack", [S([X, T((1, 3))]), S([T((3,)), T((3,))])]),
    OpSpec("dstack", [S([X, X]), S([T((3,)), T((3,))])]),
    OpSpec("column_stack", [S([T((3,)), T((3,))]), S([T((3, 2)), T((3,))])]),
    OpSpec("split", [S(T((5, 2)), 2), S(T((5, 2)), [1, 4]), S(T((2, 5)), 2, 1), S(T((4,)), 4)], method=True),
    OpSpec("chunk", [S(T((5, 2)), 2), S(T((2, 5)), 3, 1), S(T((6,)), 4)], method=True),
    OpSpec("unbind", [S(X), S(X, 1)], method=True),
    OpSpec("tensor_split", [S(T((5, 2)), 3), S(T((5, 2)), [1, 3]), S(T((2, 5)), _idx([1, 4]), 1),
                            S(T((5,)), [4, 2])], method=True),
    OpSpec("tril", [S(T((3, 4))), S(T((3, 4)), 1), S(T((2, 3, 3)), -1)], method=True, inplace="tril_"),
    OpSpec("triu", [S(T((3, 4))), S(T((3, 4)), -1), S(T((2, 3, 3)), 1)], method=True, inplace="triu_"),
    OpSpec("diag", [S(T((3,))), S(T((3,)), 1), S(T((3, 4))), S(T((3, 4)), -1)], method=True),
    OpSpec("diagonal", [S(T((3, 4))), S(T((3, 4)), 1), S(T((2, 3, 4)), 0, 1, 2), S(T((2, 3, 4)), -1, -1, 0)],
           method=True),
    OpSpec("diag_embed", [S(T((3,))), S(X, 1), S(X, 0, 0, 2), S(X, -1)], method=True),
    OpSpec("diagflat", [S(T((3,))), S(T((2, 2)), -1)], method=True),
    OpSpec("broadcast_to", [S(T((3,)), (2, 3)), S(T((3, 1)), (3, 4)), S(T((3, 1)), (2, -1, 2))], method=True),
    OpSpec("broadcast_tensors", [S(T((3,)), T((2, 1))), S(X, T((3,)), T((2, 1)))]),
    OpSpec("broadcast_shapes", [S((2, 3), (3,)), S((2, 1), (1, 4), (4,)), S(3, (2, 1))], grad=False),
    OpSpec("meshgrid", [S(T((2,)), T((3,)), indexing="ij"), S(T((2,)), T((3,)), T((2,)), indexing="xy"),
                        S(T((3,)), T(()), indexing="xy")]),
    OpSpec("atleast_1d", [S(T(())), S(T((3,))), S(T(()), T((2,)))]),
    OpSpec("atleast_2d", [S(T(())), S(T((3,))), S(X), S(T(()), T((2,)))]),
    OpSpec("atleast_3d", [S(T(())), S(T((3,))), S(X), S(X3)]),
    OpSpec("ravel", [S(X), S(X3)], method=True),
    OpSpec("ravel_noncontiguous", [S(X)], torch_name="ravel", note="alias of ravel", call=lambda lib, x: x.t().ravel()),
]
