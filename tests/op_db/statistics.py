"""Specs for the ops of ``retrograd._ops.statistics``: var/std/var_mean/std_mean, cov, corrcoef,
quantile/nanquantile, bincount, histc, histogram, histogramdd."""
from ._spec import OpSpec, S, T


NG = dict(check_grad_fn=False)
X = T((2, 3))
X3 = T((2, 3, 2))


SPECS = [
    OpSpec("histogramdd", [S(T((6, 2)), bins=[2, 3]), S(T((5, 3)), bins=2, range=[-2., 2., -2., 2., -1., 1.]),
                           S(T((6, 2)), bins=[2, 2], weight=T((6,), grad=False), density=True)], grad=False),
    OpSpec("cov", [S(T((2, 5))), S(T((5,))), S(T((3, 4)), correction=0),
                   S(T((2, 4)), fweights=T((4,), kind="fixed", value=[1, 2, 1, 3]),
                     aweights=T((4,), kind="float", low=0.5, high=1.5, grad=False))], method=True),
    OpSpec("corrcoef", [S(T((3, 5)))], method=True),
    OpSpec("quantile", [S(T((7,)), 0.3), S(T((3, 5)), 0.6, 1), S(T((3, 5)), 0.25, 0, True),
                        S(T((4, 5)), T((3,), low=0.05, high=0.95, grad=False), 1),
                        S(T((6,)), 0.4, interpolation="lower"), S(T((6,)), 0.4, interpolation="higher"),
                        S(T((6,)), 0.3, interpolation="midpoint"), S(T((6,)), 0.33, interpolation="nearest")],
           method=True, **NG),
    OpSpec("nanquantile", [S(T((7,)), 0.3), S(T((3, 5)), 0.6, 1, keepdim=True)], method=True, **NG),
    OpSpec("bincount", [S(T((8,), kind="int", low=0, high=5)), S(T((8,), kind="int", low=0, high=5), minlength=7),
                        S(T((4,), kind="fixed", value=[0, 2, 2, 1]), T((4,), grad=False))],
           method=True, grad=False),
    OpSpec("histc", [S(T((10,)), 4), S(T((10,)), 5, -1, 1)], method=True, grad=False),
    OpSpec("histogram", [S(T((10,)), 4), S(T((10,)), 3, range=(-1.0, 1.0))],
           method=True, grad=False),
    OpSpec("var", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True), S(X, 1, correction=0), S(X, 0, False),
                   S(X, False)], method=True),
    OpSpec("std", [S(X), S(X, 1), S(X3, (0, 2), keepdim=True), S(X, 0, correction=0), S(X, False)], method=True),
    OpSpec("var_mean", [S(X), S(X, 1, keepdim=True), S(X, 0, correction=0)]),
    OpSpec("std_mean", [S(X), S(X, 1, keepdim=True), S(X3, (0, 1), correction=0)]),
]
