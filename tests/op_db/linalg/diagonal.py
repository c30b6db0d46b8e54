"""Specs for the ops of ``retrograd._ops.linalg.diagonal``: ``torch.linalg.diagonal``: a view of the
diagonals over the last two dims (a primitive whose dual writes a diagonal back)."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("linalg.diagonal", [S(T((3, 3))), S(T((2, 3, 4)), offset=1), S(T((3, 4, 2)), offset=-1, dim1=0, dim2=1)]),
]
