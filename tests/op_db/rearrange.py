"""Specs for the ops of ``retrograd._ops.rearrange``: flip/fliplr/flipud, roll, rot90, repeat, tile,
repeat_interleave."""
from ._spec import OpSpec, S, T


X = T((2, 3))
X3 = T((2, 3, 2))


def _idx(v):
    return T(kind="fixed", value=v)


def _method(name):
    return lambda lib, x, *a, **k: getattr(x, name)(*a, **k)


SPECS = [
    OpSpec("repeat", [S(X, 2, 1), S(X, (1, 2, 2)), S(T((3,)), 2, 2)], call=_method("repeat")),
    OpSpec("repeat_interleave", [S(X, 2), S(X, 2, 0), S(X, _idx([1, 0, 2]), 1), S(T((3,)), _idx([2]), 0)],
           method=True),
    OpSpec("tile", [S(X, (2,)), S(X, (2, 1, 2)), S(T((3,)), (2, 2))], method=True),
    OpSpec("flip", [S(X, (0,)), S(X, (0, 1)), S(X3, [-1])], method=True),
    OpSpec("fliplr", [S(X), S(X3)], method=True),
    OpSpec("flipud", [S(X), S(T((4,)))], method=True),
    OpSpec("roll", [S(X, 1), S(X, 1, 0), S(X, (1, -1), (0, 1)), S(X3, -2, -1)], method=True),
    OpSpec("rot90", [S(X), S(X, 2), S(X, -1, (1, 0)), S(X3, 1, (0, 2)), S(X, 0)], method=True),
]
