"""Specs for the ops of ``retrograd._ops.copies``: the *_copy variants of view ops (view_copy,
expand_copy, ... as_strided_copy, detach_copy, narrow_copy), detach/detach_."""
from ._spec import OpSpec, S, T


X = T((2, 3))


SPECS = [
    OpSpec("alias_copy", [S(X)], check_grad_fn=False),
    OpSpec("diagonal_copy", [S(T((3, 4))), S(T((2, 3, 4)), 1, 0, 2)], check_grad_fn=False),
    OpSpec("expand_copy", [S(T((3, 1)), (3, 4)), S(T((3,)), (2, 3))], check_grad_fn=False),
    OpSpec("permute_copy", [S(T((2, 3, 4)), (2, 0, 1))], check_grad_fn=False),
    OpSpec("select_copy", [S(X, 0, 1), S(X, 1, -1)], check_grad_fn=False),
    OpSpec("slice_copy", [S(X), S(T((5, 2)), 0, 1, 4, 2), S(X, 1, -2)], check_grad_fn=False),
    OpSpec("split_copy", [S(T((5, 2)), 2), S(T((2, 5)), 3, 1)], check_grad_fn=False),
    OpSpec("split_with_sizes_copy", [S(T((5, 2)), [2, 3]), S(T((2, 5)), [1, 4], 1)], check_grad_fn=False),
    OpSpec("squeeze_copy", [S(T((2, 1, 3))), S(T((2, 1, 3)), 1)], check_grad_fn=False),
    OpSpec("t_copy", [S(X), S(T((3,)))], check_grad_fn=False),
    OpSpec("transpose_copy", [S(T((2, 3, 4)), 0, 2)], check_grad_fn=False),
    OpSpec("unbind_copy", [S(X), S(X, 1)], check_grad_fn=False),
    OpSpec("unfold_copy", [S(T((5,)), 0, 2, 1), S(T((2, 5)), 1, 3, 2)], check_grad_fn=False),
    OpSpec("unsqueeze_copy", [S(X, 1), S(X, -1)], check_grad_fn=False),
    OpSpec("view_copy", [S(X, (3, 2)), S(X, (-1,))], check_grad_fn=False),
    OpSpec("detach", [S(X)], grad=False),
    OpSpec("detach_", [S(X)], grad=False, call=lambda lib, x: lib.detach_(x.detach())),
    OpSpec("as_strided_copy", [S(T((6,)), (2, 2), (1, 2)), S(T((3, 4)), (2, 2), (4, 1), 1)], check_grad_fn=False),
    OpSpec("detach_copy", [S(T((2, 3)))], grad=False),
    OpSpec("narrow_copy", [S(T((4, 3)), 0, 1, 2), S(T((4, 3)), 1, 0, 2)], method=True),
]
