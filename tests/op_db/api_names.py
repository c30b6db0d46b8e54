"""Specs for src/retrograd/_ops/api_names.py: view-copy / scatter variants, norm_except_dim,
empty_permuted, is_conj / is_neg, binomial (seeded: PyTorch's own draws) and histogramdd.
Copies are composed, so grad_fn names are not torch's ``..._copy`` nodes.  torch 2.13's
``as_strided_scatter`` backward for ``self`` keeps the gradient inside the scattered window and
zeroes it outside (the reverse of the derivative), so only ``src`` is differentiated here;
tests/test_api_names.py checks ``self``'s gradient against torch's clone + copy_ form.
"""
from ._spec import OpSpec, S, T


def _seeded(name):
    def call(lib, *a, **k):
        lib.manual_seed(0)
        return getattr(lib, name)(*a, **k)
    return call


SPECS = [
    OpSpec("as_strided_copy", [S(T((6,)), (2, 2), (1, 2)), S(T((3, 4)), (2, 2), (4, 1), 1)], check_grad_fn=False),
    OpSpec("detach_copy", [S(T((2, 3)))], grad=False),
    OpSpec("as_strided_scatter", [S(T((6,), grad=False), T((3,)), (3,), (2,)),
                                  S(T((2, 3), grad=False), T((2, 2)), (2, 2), (3, 1), 1)],
           check_grad_fn=False),
    OpSpec("slice_inverse", [S(T((6,), grad=False))], grad=False,
           call=lambda lib, x: lib.slice_inverse(x[1:4], x, 0, 1, 4)),
    OpSpec("norm_except_dim", [S(T((2, 3, 4)), 2, 0), S(T((2, 3, 4)), 3, 1), S(T((2, 3, 4)), 2, 2),
                               S(T((2, 3)), 2, -1), S(T((3, 2)))], check_grad_fn=False),
    OpSpec("empty_permuted", [S((2, 3, 4), (0, 2, 1)), S((2, 3), (1, 0))], grad=False, nondeterministic=True),
    OpSpec("is_conj", [S(T((2,)))], grad=False),
    OpSpec("is_neg", [S(T((2,)))], grad=False),
    OpSpec("binomial", [S(T(kind="fixed", value=[3., 20., 100., 7., 50., 0.]),
                          T(kind="fixed", value=[.3, .6, .5, .9, .1, .4]))], grad=False, call=_seeded("binomial")),
    OpSpec("histogramdd", [S(T((6, 2)), bins=[2, 3]), S(T((5, 3)), bins=2, range=[-2., 2., -2., 2., -1., 1.]),
                           S(T((6, 2)), bins=[2, 2], weight=T((6,), grad=False), density=True)], grad=False),
]
