"""Specs for the ops of ``retrograd._ops.reduction``: sum/mean, prod, amax/amin/aminmax, max/min,
argmax/argmin, logsumexp, norm, all/any, count_nonzero, nansum/nanmean."""
from ._spec import OpSpec, S, T


X = T((2, 3))
X3 = T((2, 3, 2))
B = T((2, 3), kind="bool")
I01 = T((2, 3), kind="int", low=0, high=2)


def _masked(fn, mask):
    """call(lib, x, *a): ``fn(lib, x * mask, *a)``, putting exact zeros into a float input."""
    return lambda lib, x, *a, **k: fn(lib, x * lib.tensor(mask, dtype=x.dtype), *a, **k)


def _nan_at(fn, mask):
    """call(lib, x, *a): ``fn(lib, x with NaN where mask, *a)``."""
    return lambda lib, x, *a, **k: fn(lib, lib.where(lib.tensor(mask), float("nan"), x), *a, **k)


def _alias(name, of, *samples, **kw):
    return OpSpec("special." + name, list(samples), note=f"alias of {of}", **kw)


SPECS = [
    OpSpec("sum", [S(T((2, 3))), S(T((2, 3)), 1), S(T((2, 3, 2)), (0, 2), keepdim=True), S(T((2, 3)), -1)], method=True),
    OpSpec("mean", [S(T((2, 3))), S(T((2, 3)), 0), S(T((2, 3, 2)), (1, 2), keepdim=True)], method=True),
    OpSpec("prod", [S(X), S(X, 1), S(X, 0, keepdim=True), S(T((4,)), 0)], method=True),
    OpSpec("prod_one_zero", [S(X), S(X, 1)], torch_name="prod", note="alias of prod",
           call=_masked(lambda lib, x, *a: lib.prod(x, *a), [[1., 0., 1.], [1., 1., 1.]])),
    OpSpec("prod_two_zeros", [S(X), S(X, 1), S(X, 0)], torch_name="prod", note="alias of prod",
           call=_masked(lambda lib, x, *a: lib.prod(x, *a), [[0., 1., 0.], [1., 1., 1.]])),
    OpSpec("amax", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True), S(X, -1, True)], method=True),
    OpSpec("amin", [S(X), S(X, 0), S(X3, (0, 2), keepdim=True)], method=True),
    OpSpec("max", [S(X), S(X, 1), S(X, 0, True), S(X, T((2, 3))), S(X, T((3,))), S(T(()), 0)], method=True),
    OpSpec("min", [S(X), S(X, 1), S(X, 0, keepdim=True), S(X, T((2, 1)))], method=True),
    OpSpec("argmax", [S(X), S(X, 1), S(X, 0, True), S(X, keepdim=True), S(I01, 1)], method=True, grad=False),
    OpSpec("argmin", [S(X), S(X, 1), S(X, -1, keepdim=True)], method=True, grad=False),
    OpSpec("norm", [S(X), S(X, 1), S(X, 3, 1), S(X, float("inf")), S(X, 1, (0, 1), True), S(X, 0.5, 1),
                    S(X, float("-inf"), 0), S(X, "fro", (0, 1)), S(X, 1.5)], method=True),
    OpSpec("logsumexp", [S(X, 1), S(X3, (0, 2), True), S(X, -1), S(T(()), 0)], method=True),
    OpSpec("all", [S(B), S(B, 1), S(X, 0, keepdim=True), S(I01, (0, 1)), S(T((3,), kind="int", low=0, high=2,
                                                                          dtype="uint8"))],
           method=True, grad=False),
    OpSpec("any", [S(B), S(B, 1), S(X, 0, keepdim=True), S(I01, (0, 1))], method=True, grad=False),
    OpSpec("count_nonzero", [S(I01), S(I01, 1), S(I01, (0, 1))], method=True, grad=False),
    OpSpec("nansum", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True)], method=True),
    OpSpec("nansum_nan", [S(X), S(X, 0)], torch_name="nansum", note="alias of nansum",
           call=_nan_at(lambda lib, x, *a: lib.nansum(x, *a), [[True, False, False], [False, False, True]])),
    OpSpec("nanmean", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True)], method=True),
    OpSpec("nanmean_nan", [S(X), S(X, 0)], torch_name="nanmean", note="alias of nanmean",
           call=_nan_at(lambda lib, x, *a: lib.nanmean(x, *a), [[True, False, False], [False, False, True]])),
    OpSpec("aminmax", [S(X), S(X, dim=1), S(X, dim=0, keepdim=True)], method=True),
    _alias("logsumexp", "logsumexp", S(X, 1), S(X, (0, 1), True)),
]
