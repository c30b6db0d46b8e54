"""Specs for the ops of ``retrograd._ops.comparison``: eq/ne/lt/le/gt/ge, maximum/minimum/fmax/fmin,
isclose/allclose/equal, logical_*, isnan/isinf/isfinite..., isin."""
from ._spec import OpSpec, S, T


def _on_clone(name):
    """call(lib, x, *args): ``x.clone().<name>(*args)`` (in-place ops on a non-leaf)."""
    return lambda lib, x, *a, **k: getattr(x.clone(), name)(*a, **k)


SPECS = [
    OpSpec("isin", [S(T((6,), kind="int", low=0, high=6), T((3,), kind="int", low=0, high=6)),
                    S(T((2, 3), kind="int", low=0, high=4), 2),
                    S(T((5,), kind="int", low=0, high=5), T((2,), kind="int", low=0, high=5), invert=True)],
           grad=False),
]

for _n in ("eq", "ne", "lt", "le", "gt", "ge"):
    SPECS.append(OpSpec(_n, [S(T((2, 3)), T((2, 3))), S(T((2, 3)), 0.0)], method=True, grad=False, broadcast=False))

for _n, _a in (("greater", "gt"), ("greater_equal", "ge"), ("less", "lt"), ("less_equal", "le"),
               ("not_equal", "ne")):
    SPECS.append(OpSpec(_n, [S(T((2, 3)), T((2, 3)))], method=True, grad=False))

for _n in ("eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal", "not_equal"):
    SPECS.append(OpSpec(_n + "_", [S(T((2, 3)), T((2, 3))), S(T((2, 3)), 0.0)], call=_on_clone(_n + "_"),
                        grad=False))
