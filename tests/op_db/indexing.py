"""Specs for the ops of ``retrograd._ops.indexing``: getitem/setitem/index_put(_),
nonzero/nonzero_static, argwhere, take, put, unravel_index."""
from ._spec import OpSpec, S, T


X = T((3, 4))


def _idx(v):
    return T(kind="fixed", value=v)


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
    OpSpec("getitem_basic", [S(T((4, 3)))], call=lambda lib, x: x[1:, 0], note="alias of getitem"),
    OpSpec("getitem_steps", [S(T((5, 4)))], call=lambda lib, x: x[::2, None, ..., -1], note="alias of getitem"),
    OpSpec("getitem_adv", [S(T((4, 3)))], call=lambda lib, x: x[[0, 2, 2]], note="alias of getitem"),
    OpSpec("getitem_mask", [S(T((4, 3)))], call=lambda lib, x: x[x > 0], note="alias of getitem"),
    OpSpec("take", [S(X, _idx([[0, 11], [5, -1]])), S(X, _idx([3]))], method=True),
    OpSpec("index_put", [S(X, _idx([0, 2]), T((2, 4))), S(X, _idx([1, 1]), T((4,)), True)],
           call=lambda lib, x, i, v, *a: x.index_put((i,), v, *a)),
    OpSpec("argwhere", [S(T((3, 4), kind="int", low=0, high=2)), S(T((), kind="int", low=1, high=2))],
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
    OpSpec("unravel_index", [S(T((4,), kind="fixed", value=[0, 5, 11, -1]), (3, 4)),
                             S(T((), kind="fixed", value=7), (2, 2, 2))],
           grad=False),
]

SPECS.append(OpSpec("nonzero", [S(T((3, 4), kind="int", low=0, high=2)), S(T((5,), kind="int", low=0, high=2))],
                    method=True, grad=False))
