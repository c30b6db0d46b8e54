"""Specs for the ops of ``retrograd._ops.complex``: conj, conj_physical, resolve_conj, resolve_neg,
real, is_conj, is_neg."""
from ._spec import OpSpec, S, T


SPECS = [
    OpSpec("is_conj", [S(T((2,)))], grad=False),
    OpSpec("is_neg", [S(T((2,)))], grad=False),
]
