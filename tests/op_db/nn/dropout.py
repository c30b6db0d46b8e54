"""Specs for the ops of ``retrograd.nn._native`` and ``retrograd.nn._top_level``: native_dropout, alpha_dropout,
feature_alpha_dropout, feature_dropout."""
from .._spec import OpSpec, S, T


X = T((2, 3))


SPECS = [
    OpSpec("alpha_dropout", [S(X, 0.5, False)], check_grad_fn=False),
    OpSpec("feature_alpha_dropout", [S(T((2, 3, 2)), 0.5, False)], check_grad_fn=False),
    OpSpec("feature_dropout", [S(T((2, 3, 2)), 0.5, False)], check_grad_fn=False),
]
