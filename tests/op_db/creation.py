"""Specs for the ops of ``retrograd._ops.creation``: op-table parts of tensor creation: asarray,
range, vander, window functions (hann_window ...)."""
from ._spec import OpSpec, S, T


def _win(name):
    return lambda lib, *a, **k: getattr(lib, name)(*a, dtype=lib.float64, **k)


SPECS = [
    OpSpec("hann_window", [S(0), S(1), S(5), S(6, False)], call=_win("hann_window"), grad=False),
    OpSpec("hamming_window", [S(1), S(5), S(6, False), S(5, True, 0.3, 0.7)], call=_win("hamming_window"),
           grad=False),
    OpSpec("blackman_window", [S(1), S(5), S(6, False)], call=_win("blackman_window"), grad=False),
    OpSpec("bartlett_window", [S(1), S(5), S(6, False)], call=_win("bartlett_window"), grad=False),
    OpSpec("kaiser_window", [S(1), S(5), S(6, False, 3.0)], call=_win("kaiser_window"), grad=False),
    # torch's own vander backward fails (its cumprod is modified in place); tests/ops/test_creation.py gradchecks ours
    OpSpec("vander", [S(T((3,))), S(T((3,)), 4, True), S(T((3,), kind="int", low=-3, high=3))], grad=False),
]
