"""Specs for the ops of ``retrograd._ops.linalg.distances``: dist, cdist."""
import math
from .._spec import OpSpec, S, T


INF = math.inf


SPECS = [
    OpSpec("cdist", [S(T((3, 2)), T((4, 2))), S(T((3, 2)), T((4, 2)), 1.0), S(T((3, 2)), T((4, 2)), 3.0),
                     S(T((3, 2)), T((4, 2)), 0.5), S(T((3, 2)), T((4, 2)), 1.5), S(T((2, 3, 2)), T((2, 4, 2)), INF),
                     S(T((3, 2)), T((4, 2)), 0.0), S(T((2, 1, 3, 2)), T((2, 4, 2)))],
           gradgrad=False, note="torch cannot differentiate _cdist_backward; ours can"),
    OpSpec("cdist_mm", [S(T((26, 2)), T((3, 2))), S(T((3, 2)), T((4, 2)), compute_mode="use_mm_for_euclid_dist")],
           torch_name="cdist", call=lambda lib, a, b, **k: lib.cdist(a, b, **k), note="alias of cdist"),
    OpSpec("dist", [S(T((2, 3)), T((2, 3))), S(T((3,)), T((3,)), 1), S(T((3,)), T((2, 3)), 3),
                    S(T((2, 3)), T((2, 3)), float("inf")), S(T((3,)), T((3,)), 1.5)],
           method=True),
]
