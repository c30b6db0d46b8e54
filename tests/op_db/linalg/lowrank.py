"""Specs for the ops of ``retrograd._ops.linalg.lowrank``: svd_lowrank, pca_lowrank."""
from .._spec import OpSpec, S, T


SPECS = [
    OpSpec("svd_lowrank", [S(T((6, 4)), q=3), S(T((3, 5)), q=2), S(T((2, 5, 4)), q=2)], nondeterministic=True,
           grad=False, note="random factors: shapes only here; values and grads in tests/ops/linalg/test_lowrank.py"),
    OpSpec("pca_lowrank", [S(T((6, 4)), q=3), S(T((4, 5)))], nondeterministic=True, grad=False,
           note="random factors: shapes only here; values and grads in tests/ops/linalg/test_lowrank.py"),
]
