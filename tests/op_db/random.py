"""Specs for the ops of ``retrograd._ops.random``: in-place samplers (uniform_, normal_, bernoulli_,
random_, ...), binomial, poisson."""
from ._spec import OpSpec, S, T


def _seeded(name):
    def call(lib, *a, **k):
        lib.manual_seed(0)
        return getattr(lib, name)(*a, **k)
    return call


POS = dict(low=0.5, high=2.0)
NOGRAD = T((2, 3), grad=False)


def _on_clone(name):
    """call(lib, x, *args): ``x.clone().<name>(*args)`` (in-place ops on a non-leaf)."""
    return lambda lib, x, *a, **k: getattr(x.clone(), name)(*a, **k)


_RANDOM = [
    ("uniform_", [S(NOGRAD), S(NOGRAD, -0.1, 0.1)]),
    ("normal_", [S(NOGRAD), S(NOGRAD, 1.0, 0.5)]),
    ("bernoulli_", [S(NOGRAD), S(NOGRAD, 0.3)]),
    ("random_", [S(NOGRAD), S(NOGRAD, 5), S(NOGRAD, 2, 7)]),
    ("exponential_", [S(NOGRAD), S(NOGRAD, 2.0)]),
    ("geometric_", [S(NOGRAD, 0.4)]),
    ("cauchy_", [S(NOGRAD), S(NOGRAD, 1.0, 2.0)]),
    ("log_normal_", [S(NOGRAD), S(NOGRAD, 0.0, 0.5)]),
]


SPECS = [
    OpSpec("binomial", [S(T(kind="fixed", value=[3., 20., 100., 7., 50., 0.]),
                          T(kind="fixed", value=[.3, .6, .5, .9, .1, .4]))], grad=False, call=_seeded("binomial")),
    OpSpec("poisson", [S(T((3, 4), **POS, grad=False))], grad=False, nondeterministic=True),
]

SPECS += [OpSpec(n, s, call=_on_clone(n), grad=False, nondeterministic=True) for n, s in _RANDOM]
