"""Specs for the ops of ``retrograd._ops.scatter``: gather, take_along_dim,
scatter/scatter_add/scatter_reduce,
select_scatter/slice_scatter/diagonal_scatter/as_strided_scatter."""
from ._spec import OpSpec, S, T


X = T((3, 4))


def _idx(v):
    return T(kind="fixed", value=v)


IDX2 = _idx([[0, 1, 2, 0], [0, 0, 1, 2]])


SPECS = [
    OpSpec("as_strided_scatter", [S(T((6,), grad=False), T((3,)), (3,), (2,)),
                                  S(T((2, 3), grad=False), T((2, 2)), (2, 2), (3, 1), 1)],
           check_grad_fn=False),
    OpSpec("gather", [S(X, 1, _idx([[0, 1], [3, 3], [2, 0]])), S(X, 0, _idx([[0, 1, 2, 1]])),
                      S(T((3,)), 0, _idx([2, 0, 2])), S(X, -1, _idx([[3], [0], [1]]))], method=True),
    OpSpec("scatter", [S(X, 1, _idx([[0], [3], [2]]), T((3, 1))), S(X, 0, _idx([[0, 1, 2, 1]]), 2.5),
                       S(X, 1, _idx([[1, 0], [3, 2]]), value=-1.0)],
           method=True, inplace="scatter_"),
    OpSpec("scatter_add", [S(X, 0, IDX2, T((2, 4))), S(X, 1, _idx([[0, 0], [3, 1]]), T((2, 2)))],
           method=True, inplace="scatter_add_"),
    OpSpec("scatter_reduce", [S(X, 0, IDX2, T((2, 4)), "sum"), S(X, 0, IDX2, T((2, 4), low=0.5), "prod"),
                              S(X, 0, IDX2, T((2, 4)), "mean"), S(X, 0, IDX2, T((2, 4)), "amax"),
                              S(X, 1, _idx([[0, 0], [3, 1]]), T((2, 2)), "amin"),
                              S(X, 0, IDX2, T((2, 4)), "sum", include_self=False),
                              S(X, 0, IDX2, T((2, 4), low=0.5), "prod", include_self=False),
                              S(X, 0, IDX2, T((2, 4)), "mean", include_self=False),
                              S(X, 0, IDX2, T((2, 4)), "amax", include_self=False)],
           method=True, inplace="scatter_reduce_"),
    OpSpec("take_along_dim", [S(X, _idx([[0], [3], [1]]), 1), S(X, _idx([1, 7])), S(X, _idx([[0, 2, 1, 0]]), 0)],
           method=True),
    OpSpec("select_scatter", [S(T((3, 4)), T((4,)), 0, 1), S(T((3, 4)), T((3,)), 1, -1)], method=True),
    OpSpec("slice_scatter", [S(T((4, 3)), T((2, 3)), 0, 1, 3), S(T((3, 4)), T((3, 2)), 1, 0, None, 2)],
           method=True),
    OpSpec("diagonal_scatter", [S(T((3, 3)), T((3,))), S(T((3, 4)), T((3,)), 1), S(T((2, 3, 3)), T((2, 3)), 0, 1, 2)],
           method=True),
    OpSpec("msort", [S(T((4, 3)))], method=True),
]
