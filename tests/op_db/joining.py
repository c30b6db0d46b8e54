"""Specs for the ops of ``retrograd._ops.joining``: cat/stack/hstack/vstack/dstack/column_stack,
split/chunk/unbind/tensor_split, hsplit/vsplit/dsplit, split_with_sizes, unsafe_split/chunk,
block_diag, cartesian_prod, combinations."""
from ._spec import OpSpec, S, T


X = T((2, 3))


def _idx(v):
    return T(kind="fixed", value=v)


SPECS = [
    OpSpec("cartesian_prod", [S(T((2,)), T((3,))), S(T((2,)), T((2,)), T((2,)))]),
    OpSpec("combinations", [S(T((4,))), S(T((4,)), 3), S(T((3,)), 2, True)]),
    OpSpec("block_diag", [S(T((2, 2)), T((1, 3)), T(())), S(T((3,)), T((2, 1)))]),
    OpSpec("hsplit", [S(T((2, 4)), 2), S(T((6,)), [1, 4])], method=True),
    OpSpec("vsplit", [S(T((4, 2)), 2), S(T((4, 2)), [3])], method=True),
    OpSpec("dsplit", [S(T((1, 2, 4)), 2), S(T((2, 1, 3)), [1])], method=True),
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
]
