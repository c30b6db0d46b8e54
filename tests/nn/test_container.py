"""nn containers (Sequential, ...), against torch."""

import pytest

import retrograd as R

torch = pytest.importorskip("torch")

from ._module_helpers import _both  # noqa: E402
from ._lazy_helpers import tnn  # noqa: E402


@pytest.mark.parametrize("expr", ["2 * s", "s * 2", "s.__imul__(2)", "s * 0", "s * 1.5", "s.__imul__(0)"])
def test_sequential_mul(expr):
    def run(T):
        s = T.nn.Sequential(T.nn.Linear(1, 1), T.nn.ReLU())
        out = eval(expr, {"s": s})
        return repr(out), out is s, [n for n, _ in out.named_modules(remove_duplicate=False)]
    a, b = _both(run)
    assert a == b


# ----------------------------------------------------------------------------- Container, CrossMapLRN2d
def test_container():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = R.nn.Container(a=R.nn.Linear(2, 3))
    with pytest.warns(FutureWarning):
        tc = tnn.Container(a=tnn.Linear(2, 3))
    assert repr(c) == repr(tc) and [n for n, _ in c.named_children()] == ["a"]
