"""Specs for the ops of ``retrograd._ops.conversion``: clone, to_dtype, copy_/zero_/fill_/fill,
resize_as_, is_same_size, is_nonzero."""
from ._spec import OpSpec, S, T


X = T((2, 3))


SPECS = [
    OpSpec("fill", [S(X, 2.5), S(X, T((), grad=False))], check_grad_fn=False, gradgrad=False),
    OpSpec("clone", [S(T((2, 3)))], method=True),
]
