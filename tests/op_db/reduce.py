"""Specs for the reductions of issue 4 (prod, max/min families, var/std, norm, cumulative ops,
order statistics, logical and NaN-aware reductions).  Random samples have no ties; ties are
tested in tests/test_reductions_extra.py."""
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


SPECS = [
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
    OpSpec("var", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True), S(X, 1, correction=0), S(X, 0, False),
                   S(X, False)], method=True),
    OpSpec("std", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True), S(X, 0, correction=0), S(X, False)], method=True),
    OpSpec("var_mean", [S(X), S(X, 1, keepdim=True), S(X, 0, correction=0)]),
    OpSpec("std_mean", [S(X), S(X, 1, keepdim=True), S(X3, (0, 1), correction=0)]),
    OpSpec("norm", [S(X), S(X, 1), S(X, 3, 1), S(X, float("inf")), S(X, 1, (0, 1), True), S(X, 0.5, 1),
                    S(X, float("-inf"), 0), S(X, "fro", (0, 1)), S(X, 1.5)], method=True),
    OpSpec("logsumexp", [S(X, 1), S(X3, (0, 2), True), S(X, -1), S(T(()), 0)], method=True),
    OpSpec("cumsum", [S(X, 1), S(X, 0), S(T((4,)), 0), S(T(()), 0)], method=True, inplace="cumsum_"),
    OpSpec("cumprod", [S(X, 1), S(T((4,)), 0), S(X, 0)], method=True, inplace="cumprod_"),
    OpSpec("cumprod_zeros", [S(T((4,)), 0), S(X, 1)], torch_name="cumprod", note="alias of cumprod",
           call=lambda lib, x, d: lib.cumprod(x * lib.tensor([0., 1., 1., 0.] if x.ndim == 1 else
                                                               [[1., 0., 1.], [0., 0., 1.]], dtype=x.dtype), d)),
    OpSpec("cummax", [S(X, 1), S(T((4,)), 0)], method=True),
    OpSpec("cummin", [S(X, 1), S(X, 0)], method=True),
    OpSpec("all", [S(B), S(B, 1), S(X, 0, keepdim=True), S(I01, (0, 1)), S(T((3,), kind="int", low=0, high=2,
                                                                          dtype="uint8"))],
           method=True, grad=False),
    OpSpec("any", [S(B), S(B, 1), S(X, 0, keepdim=True), S(I01, (0, 1))], method=True, grad=False),
    OpSpec("median", [S(X), S(X, 1), S(T((2, 4)), 1, True), S(T((4,)), 0)], method=True),
    OpSpec("nanmedian", [S(X), S(X, 1), S(T((2, 4)), 0, True)], method=True),
    OpSpec("nanmedian_nan", [S(X), S(X, 1)], torch_name="nanmedian", note="alias of nanmedian",
           call=_nan_at(lambda lib, x, *a: lib.nanmedian(x, *a), [[True, False, False], [False, False, True]])),
    OpSpec("mode", [S(X), S(X, 0), S(X, 1, True)], method=True),
    OpSpec("sort", [S(X), S(X, 0), S(X, descending=True), S(X, dim=1, descending=True, stable=True)], method=True),
    OpSpec("argsort", [S(X), S(X, 0, True), S(X, stable=True)], method=True, grad=False),
    OpSpec("topk", [S(T((2, 4)), 2), S(T((2, 4)), 1, 0), S(T((2, 4)), 2, largest=False), S(T((5,)), 3)],
           method=True),
    OpSpec("kthvalue", [S(T((2, 4)), 2), S(T((2, 4)), 1, 0, True), S(T((5,)), 3)], method=True),
    OpSpec("count_nonzero", [S(I01), S(I01, 1), S(I01, (0, 1))], method=True, grad=False),
    OpSpec("nansum", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True)], method=True),
    OpSpec("nansum_nan", [S(X), S(X, 0)], torch_name="nansum", note="alias of nansum",
           call=_nan_at(lambda lib, x, *a: lib.nansum(x, *a), [[True, False, False], [False, False, True]])),
    OpSpec("nanmean", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True)], method=True),
    OpSpec("nanmean_nan", [S(X), S(X, 0)], torch_name="nanmean", note="alias of nanmean",
           call=_nan_at(lambda lib, x, *a: lib.nanmean(x, *a), [[True, False, False], [False, False, True]])),
    OpSpec("aminmax", [S(X), S(X, dim=1), S(X, dim=0, keepdim=True)], method=True),
]
