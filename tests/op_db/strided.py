"""Specs for the ops of ``retrograd._ops.strided``: views with explicit strides:
as_strided/as_strided_, unfold, and empty_permuted."""
from ._spec import OpSpec, S, T


IMG = T((2, 3, 5, 4))


SPECS = [
    OpSpec("empty_permuted", [S((2, 3, 4), (0, 2, 1)), S((2, 3), (1, 0))], grad=False, nondeterministic=True),
    OpSpec("nn.functional.unfold", [S(IMG, (2, 2), 1, 1, 2)]),
]
