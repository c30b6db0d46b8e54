"""Specs for the ops of ``retrograd._ops.nn.embedding``: embedding, embedding_bag."""
from .._spec import OpSpec, S, T


def _fixed(v):
    return T(kind="fixed", value=v)


IDX = _fixed([[0, 3], [2, 2]])


SPECS = [
    # padding rows and frequency scaling are not true derivatives (as in PyTorch): the samples avoid
    # the padding index and repeated indices so that gradcheck applies; tests/test_nn_* cover them.
    OpSpec("embedding", [S(T((5, 3)), IDX), S(T((5, 3)), IDX, 1), S(T((5, 3)), _fixed([[0, 3], [2, 4]]), -1, True)]),
]
