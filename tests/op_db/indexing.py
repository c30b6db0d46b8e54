"""Specs for the indexing ops of issue 4 (gather/scatter families, index_* ops, masked ops,
take, search, unique) and for ``x[key]`` / ``x[key] = v`` cases where NumPy and PyTorch
differ.  Index samples have no duplicate targets where the result would be order-dependent."""
from ._spec import OpSpec, S, T

X = T((3, 4))
M = T((3, 4), kind="bool")


def _idx(v):
    return T(kind="fixed", value=v)


IDX2 = _idx([[0, 1, 2, 0], [0, 0, 1, 2]])


def _setitem(key):
    """call(lib, x, v): ``y = x * 1; y[key] = v; return y`` (differentiable in x and v)."""
    def call(lib, x, v):
        y = x * 1
        y[key(lib) if callable(key) else key] = v
        return y
    return call


def _getitem(key):
    return lambda lib, x: x[key(lib) if callable(key) else key]


SPECS = [
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
    OpSpec("index_select", [S(X, 0, _idx([2, 0, 2])), S(X, 1, _idx([1])), S(T((3,)), 0, _idx([1, 1])),
                            S(X, -1, _idx(3))], method=True),
    OpSpec("index_add", [S(X, 0, _idx([0, 2, 0]), T((3, 4))), S(X, 1, _idx([1, 3]), T((3, 2)), alpha=2.0)],
           method=True, inplace="index_add_"),
    OpSpec("index_copy", [S(X, 0, _idx([2, 0]), T((2, 4))), S(X, 1, _idx([3]), T((3, 1)))],
           method=True, inplace="index_copy_"),
    OpSpec("index_fill", [S(X, 1, _idx([0, 2]), -1.0), S(X, 0, _idx([1]), T(()))],
           method=True, inplace="index_fill_"),
    OpSpec("masked_fill", [S(X, M, 0.5), S(X, T((4,), kind="bool"), T(())), S(T((4,)), M, 1.0)],
           method=True, inplace="masked_fill_"),
    OpSpec("masked_select", [S(X, M), S(T((4,)), M)], method=True),
    OpSpec("masked_scatter", [S(X, M, T((12,))), S(X, T((4,), kind="bool"), T((3, 5)))],
           method=True, inplace="masked_scatter_"),
    OpSpec("take", [S(X, _idx([[0, 11], [5, -1]])), S(X, _idx([3]))], method=True),
    OpSpec("take_along_dim", [S(X, _idx([[0], [3], [1]]), 1), S(X, _idx([1, 7])), S(X, _idx([[0, 2, 1, 0]]), 0)],
           method=True),
    OpSpec("index_put", [S(X, _idx([0, 2]), T((2, 4))), S(X, _idx([1, 1]), T((4,)), True)],
           call=lambda lib, x, i, v, *a: x.index_put((i,), v, *a)),
    OpSpec("argwhere", [S(T((3, 4), kind="int", low=0, high=2)), S(T((), kind="int", low=1, high=2))],
           method=True, grad=False),
    OpSpec("searchsorted", [S(_idx([1, 3, 5, 7]), _idx([[0, 3], [6, 9]])),
                            S(_idx([1, 3, 5, 7]), _idx([3, 7]), right=True),
                            S(_idx([[1, 3, 5], [2, 4, 6]]), _idx([[3], [3]]), side="right"),
                            S(_idx([1, 3, 5]), 4), S(_idx([5, 1, 3]), _idx([3, 6]), sorter=_idx([1, 2, 0])),
                            S(_idx([1, 3, 5]), _idx([2, 6]), out_int32=True)], grad=False),
    OpSpec("bucketize", [S(_idx([3, 6, 1, 5]), _idx([1, 3, 5])), S(_idx([3, 6, 1, 5]), _idx([1, 3, 5]), right=True),
                         S(4, _idx([1, 3, 5]))], grad=False),
    OpSpec("unique", [S(_idx([3, 1, 2, 1, 3])), S(_idx([3, 1, 2, 1, 3]), return_inverse=True, return_counts=True),
                      S(_idx([[1, 2], [1, 2], [0, 1]]), dim=0, return_inverse=True, return_counts=True),
                      S(_idx([[2., 1.], [1., 0.5]]), return_inverse=True)], method=True, grad=False),
    OpSpec("unique_consecutive", [S(_idx([1, 1, 2, 2, 3, 1])),
                                  S(_idx([1, 1, 2, 2, 3, 1]), return_inverse=True, return_counts=True),
                                  S(_idx([[1, 2], [1, 2], [0, 1]]), dim=0, return_counts=True)],
           method=True, grad=False),
    # x[key] where PyTorch's rules (ints before slices applied first, sequences of sequences as tuples,
    # 0-d integer tensors as ints) differ from NumPy's.
    OpSpec("getitem_int_slice_list", [S(T((3, 4, 2)))], call=_getitem((0, slice(None), [1, 0])),
           note="alias of getitem"),
    OpSpec("getitem_list_none_list", [S(T((3, 4, 2)))], call=_getitem(([0, 2], None, [1, 0])),
           note="alias of getitem"),
    OpSpec("getitem_0d_tensor", [S(X)], call=_getitem(lambda lib: (lib.tensor(1), lib.tensor(-1))),
           note="alias of getitem"),
    OpSpec("getitem_nested_list", [S(X)], call=_getitem([[0, 2], [1, 3]]), note="alias of getitem"),
    OpSpec("getitem_ellipsis_only", [S(X)], call=_getitem(...), note="alias of getitem"),
    OpSpec("getitem_mask_and_int", [S(T((3, 4, 2)))],
           call=_getitem(lambda lib: (1, lib.tensor([True, False, True, True]))), note="alias of getitem"),
    OpSpec("getitem_slice_adv_slice", [S(T((2, 3, 4)))], call=_getitem((slice(None), [0, 2], slice(1, None, 2))),
           note="alias of getitem"),
    OpSpec("setitem_basic", [S(X, T((4,)))], call=_setitem((1,)), note="alias of setitem"),
    OpSpec("setitem_slice_step", [S(X, T((2, 2)))], call=_setitem((slice(None, None, 2), slice(1, None, 2))),
           note="alias of setitem"),
    OpSpec("setitem_advanced", [S(X, T((2, 4)))], call=_setitem(([2, 0],)), note="alias of setitem"),
    OpSpec("setitem_int_slice_list", [S(T((3, 4, 2)), T((4, 2)))], call=_setitem((0, slice(None), [1, 0])),
           note="alias of setitem"),
    OpSpec("setitem_mask", [S(X, T(()))], call=_setitem(lambda lib: lib.tensor([[True, False, True, False]] * 3)),
           note="alias of setitem"),
    OpSpec("setitem_leading_ones", [S(X, T((1, 1, 4)))], call=_setitem(([0, 2],)), note="alias of setitem"),
]
