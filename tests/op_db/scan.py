"""Specs for the ops of ``retrograd._ops.scan``: cumsum/cumprod (+ in-place), cummax/cummin,
logcumsumexp."""
from ._spec import OpSpec, S, T


X = T((2, 3))


SPECS = [
    OpSpec("logcumsumexp", [S(T((3, 4)), 0), S(T((5,)), -1), S(T(()), 0)], method=True),
    OpSpec("signbit", [S(T((2, 3))), S(T((3,), kind="int", low=-2, high=2))], method=True, grad=False),
    OpSpec("cumsum", [S(X, 1), S(X, 0), S(T((4,)), 0), S(T(()), 0)], method=True, inplace="cumsum_"),
    OpSpec("cumprod", [S(X, 1), S(T((4,)), 0), S(X, 0)], method=True, inplace="cumprod_"),
    OpSpec("cumprod_zeros", [S(T((4,)), 0), S(X, 1)], torch_name="cumprod", note="alias of cumprod",
           call=lambda lib, x, d: lib.cumprod(x * lib.tensor([0., 1., 1., 0.] if x.ndim == 1 else
                                                               [[1., 0., 1.], [0., 0., 1.]], dtype=x.dtype), d)),
    OpSpec("cummax", [S(X, 1), S(T((4,)), 0)], method=True),
    OpSpec("cummin", [S(X, 1), S(X, 0)], method=True),
]
