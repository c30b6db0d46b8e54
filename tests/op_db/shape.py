"""Specs for the ops of ``retrograd._ops.shape``:
reshape/view/transpose/permute/squeeze/unsqueeze/expand/select/narrow/movedim, broadcast_*,
meshgrid, atleast_*, ravel, unflatten, in-place t_/transpose_/squeeze_/unsqueeze_."""
from ._spec import OpSpec, S, T


X = T((2, 3))
X3 = T((2, 3, 2))
POS = dict(low=0.5, high=2.0)


def _on_clone(name):
    """call(lib, x, *args): ``x.clone().<name>(*args)`` (in-place ops on a non-leaf)."""
    return lambda lib, x, *a, **k: getattr(x.clone(), name)(*a, **k)


SPECS = [
    OpSpec("slice_inverse", [S(T((6,), grad=False))], grad=False,
           call=lambda lib, x: lib.slice_inverse(x[1:4], x, 0, 1, 4)),
    OpSpec("reshape", [S(T((2, 3)), (3, 2)), S(T((2, 3)), (-1,))], method=True),
    OpSpec("view", [S(T((2, 3)), 6), S(T((2, 3)), 3, -1)], call=lambda lib, x, *s: x.view(*s)),
    OpSpec("view_as", [S(T((2, 3)), T((3, 2), grad=False))], call=lambda lib, x, y: x.view_as(y)),
    OpSpec("reshape_as", [S(T((2, 3)), T((6,), grad=False))], call=lambda lib, x, y: x.reshape_as(y)),
    OpSpec("transpose", [S(T((2, 3)), 0, 1), S(T((2, 3, 4)), -1, 0)], method=True),
    OpSpec("swapaxes", [S(T((2, 3)), 0, 1)], method=True),
    OpSpec("swapdims", [S(T((2, 3)), 0, 1)], method=True),
    OpSpec("t", [S(T((2, 3))), S(T((3,)))], method=True),
    OpSpec("adjoint", [S(T((2, 3))), S(T((2, 3, 4)))], method=True),
    OpSpec("permute", [S(T((2, 3, 4)), (2, 0, 1))], method=True),
    OpSpec("movedim", [S(T((2, 3, 4)), 0, 2)], method=True),
    OpSpec("moveaxis", [S(T((2, 3, 4)), (0, 1), (2, 0))], method=True),
    OpSpec("expand", [S(T((3, 1)), 3, 4), S(T((3,)), (2, 3))], call=lambda lib, x, *s: x.expand(*s)),
    OpSpec("expand_as", [S(T((3, 1)), T((2, 3, 4), grad=False))], call=lambda lib, x, y: x.expand_as(y)),
    OpSpec("unsqueeze", [S(T((2, 3)), 1), S(T((2, 3)), -1)], method=True),
    OpSpec("squeeze", [S(T((2, 1, 3))), S(T((2, 1, 3)), 1), S(T((1, 2, 1)), (0, 2))], method=True),
    OpSpec("flatten", [S(T((2, 3, 2))), S(T((2, 3, 2)), 1)], method=True),
    OpSpec("contiguous", [S(T((2, 3)))], call=lambda lib, x: x.t().contiguous()),
    OpSpec("select", [S(T((2, 3)), 1, 2)], method=True),
    OpSpec("narrow", [S(T((4, 3)), 0, 1, 2)], method=True),
    OpSpec("unflatten", [S(T((2, 6)), 1, (2, 3)), S(T((6,)), 0, (-1, 2)), S(X, -1, (3, 1))], method=True),
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

SPECS += [
    OpSpec("t_", [S(T((2, 3))), S(T((3,)))], call=_on_clone("t_"), check_grad_fn=False),
    OpSpec("transpose_", [S(T((2, 3)), 0, 1), S(T((2, 3, 4)), -1, 0)], call=_on_clone("transpose_"),
           check_grad_fn=False),
    OpSpec("swapaxes_", [S(T((2, 3)), 0, 1)], call=_on_clone("swapaxes_"), check_grad_fn=False),
    OpSpec("swapdims_", [S(T((2, 3)), 1, 0)], call=_on_clone("swapdims_"), check_grad_fn=False),
    OpSpec("squeeze_", [S(T((2, 1, 3))), S(T((2, 1, 3)), 1)], call=_on_clone("squeeze_"), check_grad_fn=False),
    OpSpec("unsqueeze_", [S(T((2, 3)), 1), S(T((2, 3)), -1)], call=_on_clone("unsqueeze_"), check_grad_fn=False),
    OpSpec("as_strided", [S(T((2, 3)), (2, 2), (1, 2)), S(T((6,)), (3,), (2,), 1), S(T((4,)), (2, 2), (1, 1))],
           method=True),
    OpSpec("as_strided_", [S(T((2, 3)), (3, 2), (1, 3))], call=_on_clone("as_strided_"), check_grad_fn=False),
    OpSpec("clamp_min", [S(T((2, 3)), 0.1), S(T((2, 3)), -0.5)], method=True, inplace="clamp_min_",
           check_grad_fn=False),
    OpSpec("clamp_max", [S(T((2, 3)), 0.1), S(T((2, 3)), -0.5)], method=True, inplace="clamp_max_",
           check_grad_fn=False),
    OpSpec("put", [S(T((2, 3)), T(kind="fixed", value=[0, 5, -2]), T((3,))),
                   S(T((2, 3)), T(kind="fixed", value=[1, 1, 4]), T((3,)), True)],
           method=True, inplace="put_", check_grad_fn=False),
    OpSpec("index_reduce", [S(T((3, 2), **POS), 0, T(kind="fixed", value=[0, 2, 0]), T((3, 2), **POS), "prod"),
                            S(T((3, 2)), 0, T(kind="fixed", value=[0, 2, 0]), T((3, 2)), "amax",
                              include_self=False),
                            S(T((2, 3)), 1, T(kind="fixed", value=[1, 1]), T((2, 2)), "mean"),
                            S(T((2, 3)), 1, T(kind="fixed", value=[2, 0]), T((2, 2)), "amin",
                              include_self=False),
                            S(T(()), 0, T(kind="fixed", value=[0]), T(()), "prod")],
           method=True, inplace="index_reduce_"),
    OpSpec("unfold", [S(T((5,)), 0, 2, 1), S(T((2, 5)), 1, 3, 2), S(T((3, 4)), 0, 2, 1), S(T((4, 2)), -2, 1, 3)],
           call=lambda lib, x, *a: x.unfold(*a), note="Tensor method only, as torch"),
    OpSpec("resize_as_", [S(T((2, 3), grad=False), T((3,), grad=False)),
                          S(T((2,), grad=False), T((2, 2), grad=False))],
           call=lambda lib, x, y: lib.resize_as_(x.clone(), y).reshape(-1)[:2], grad=False,
           note="the grown part is uninitialised in torch: only the kept elements are compared"),
    OpSpec("is_same_size", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), T((3, 2)))], method=True, grad=False),
    OpSpec("is_nonzero", [S(T((1,))), S(T(()))], method=True, grad=False),
    OpSpec("conj", [S(T((2, 3)))], method=True),
    OpSpec("resolve_conj", [S(T((2, 3)))], method=True),
    OpSpec("resolve_neg", [S(T((2, 3)))], method=True),
    OpSpec("conj_physical", [S(T((2, 3)))], method=True),
    OpSpec("real", [S(T((2, 3)))]),
    OpSpec("split_with_sizes", [S(T((4, 3)), [1, 3]), S(T((2, 5)), [2, 3], 1)], method=True,
           check_grad_fn=False),
    OpSpec("unsafe_split", [S(T((5, 3)), 2), S(T((2, 5)), 3, 1)], method=True),
    OpSpec("unsafe_chunk", [S(T((5, 3)), 2), S(T((2, 6)), 3, 1)], method=True),
    OpSpec("unsafe_split_with_sizes", [S(T((5, 3)), [2, 3]), S(T((2, 5)), [1, 4], 1)], method=True),
    OpSpec("nonzero_static", [S(T((2, 3), kind="int", low=0, high=2), size=4),
                              S(T((3,), kind="int", low=0, high=2), size=1, fill_value=7)],
           method=True, grad=False),
    OpSpec("asarray", [S(T((2, 3))), S(T(kind="fixed", value=[1.0, 2.0]))], grad=False),
    OpSpec("range", [S(0, 1, 0.25), S(1, 4), S(2, -1, -0.5)], grad=False),
]
