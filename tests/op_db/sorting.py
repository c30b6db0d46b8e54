"""Specs for the ops of ``retrograd._ops.sorting``: sort/argsort/msort, topk, kthvalue,
median/nanmedian, mode, unique/unique_consecutive, searchsorted, bucketize."""
from ._spec import OpSpec, S, T


def _idx(v):
    return T(kind="fixed", value=v)


X = T((2, 3))


def _nan_at(fn, mask):
    """call(lib, x, *a): ``fn(lib, x with NaN where mask, *a)``."""
    return lambda lib, x, *a, **k: fn(lib, lib.where(lib.tensor(mask), float("nan"), x), *a, **k)


SPECS = [
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
]
