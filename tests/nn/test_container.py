"""Tests of retrograd.nn.container, checked against PyTorch."""

import pytest
import retrograd
torch = pytest.importorskip("torch")
import retrograd as R


LIBS = [torch, retrograd]


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - compared between libraries
        return (type(e).__name__, str(e).replace("retrograd", "torch"))


def _both(fn):
    return [_outcome(lambda T=T: fn(T)) for T in LIBS]


@pytest.mark.parametrize("expr", ["2 * s", "s * 2", "s.__imul__(2)", "s * 0", "s * 1.5", "s.__imul__(0)"])
def test_sequential_mul(expr):
    def run(T):
        s = T.nn.Sequential(T.nn.Linear(1, 1), T.nn.ReLU())
        out = eval(expr, {"s": s})
        return repr(out), out is s, [n for n, _ in out.named_modules(remove_duplicate=False)]
    a, b = _both(run)
    assert a == b


tnn = torch.nn


# ----------------------------------------------------------------------------- Container, CrossMapLRN2d
def test_container():
    with pytest.warns(FutureWarning, match="`nn.Container` is deprecated"):
        c = R.nn.Container(a=R.nn.Linear(2, 3))
    with pytest.warns(FutureWarning):
        tc = tnn.Container(a=tnn.Linear(2, 3))
    assert repr(c) == repr(tc) and [n for n, _ in c.named_children()] == ["a"]
