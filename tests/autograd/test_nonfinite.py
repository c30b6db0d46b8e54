"""set_detect_nan: NaN / inf traced to the first forward op and backward node that made them.

The error's first line is PyTorch's anomaly-mode message (checked against torch running the
same code under detect_anomaly); the added lines name this file's lines.
"""
import sys
import warnings

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")
HERE = __file__


def _line() -> int:
    return sys._getframe(1).f_lineno


@pytest.fixture
def detect_nan():
    rg.autograd.set_detect_nan(True)
    try:
        yield
    finally:
        rg.autograd.set_detect_nan(False)


def _error(T, fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        if T is torch:
            with torch.autograd.detect_anomaly():
                with pytest.raises(RuntimeError) as info:
                    fn(T)
        else:
            with pytest.raises(RuntimeError) as info:
                fn(T)
    return str(info.value)


def test_where_masking_pattern_is_recognized(detect_nan):
    lines = {}

    def mistake(T):
        x = T.tensor([4., -1., 9.], requires_grad=True)
        y = T.where(x > 0, x.sqrt(), 0.); lines["sqrt"] = _line()  # noqa: E702
        y.sum().backward()

    theirs = _error(torch, mistake)
    ours = _error(rg, mistake)
    assert theirs == "Function 'SqrtBackward0' returned nan values in its 0th output."
    assert ours.split("\n  ") == [
        theirs,
        f"SqrtBackward0 was created at {HERE}:{lines['sqrt']}; its gradient for input 0 has 1 non-finite of 3 "
        "elements, although the gradient coming in is finite.",
        "Its forward result was already non-finite (nan from finite inputs): the first such op in its graph.",
        "The gradient coming into SqrtBackward0 is 0 at exactly those elements: its result was not used there "
        "(masked, e.g. by torch.where(cond, x.sqrt(), 0)), but its local derivative is infinite or NaN there, and "
        "0 * inf = nan.",
        "Fix: keep the branch that is not selected finite as well, e.g. torch.where(x > 0, torch.where(x > 0, x, "
        "1).sqrt(), 0), or x.clamp(min=eps) before the op.",
    ]


def test_origin_upstream_of_the_failing_node(detect_nan):
    lines = {}

    def mistake(T):
        x = T.tensor([-1., 4.], requires_grad=True)
        y = x.sqrt(); lines["sqrt"] = _line()  # noqa: E702
        z = y * y; lines["mul"] = _line()  # noqa: E702
        z.sum().backward()

    theirs = _error(torch, mistake)
    ours = _error(rg, mistake).split("\n  ")
    assert ours[0] == theirs == "Function 'MulBackward0' returned nan values in its 0th output."
    assert ours[1:] == [
        f"MulBackward0 was created at {HERE}:{lines['mul']}; its gradient for input 0 has 1 non-finite of 2 "
        "elements, although the gradient coming in is finite.",
        f"The first op in its forward graph that made a non-finite value from finite inputs: SqrtBackward0 at "
        f"{HERE}:{lines['sqrt']} (nan).",
    ]


def test_forward_origin_warns_at_the_users_line(detect_nan):
    x = rg.tensor([0., 1.], requires_grad=True)
    with pytest.warns(UserWarning) as record:
        x.log(); line = _line()  # noqa: E702
    w = [r for r in record if "set_detect_nan" in str(r.message)]
    assert str(w[0].message) == f"log produced inf values from finite inputs at {HERE}:{line} " \
                                "(torch.autograd.set_detect_nan)"
    assert (w[0].filename, w[0].lineno) == (HERE, line)


def test_inf_gradient_is_reported_too(detect_nan):
    x = rg.tensor([0., 2.], requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        y = 1 / x; line = _line()  # noqa: E702
    with pytest.raises(RuntimeError) as info:
        y.sum().backward()
    first, second = str(info.value).split("\n  ")[:2]
    assert first == "Function 'ReciprocalBackward0' returned inf values in its 0th output."
    assert second == (f"ReciprocalBackward0 was created at {HERE}:{line}; its gradient for input 0 has 1 non-finite "
                      "of 2 elements, although the gradient coming in is finite.")


def test_off_by_default_gradients_are_torchs():
    assert not rg.autograd.is_detect_nan_enabled()
    x = rg.tensor([4., -1.], requires_grad=True)
    rg.where(x > 0, x.sqrt(), 0.).sum().backward()
    tx = torch.tensor([4., -1.], requires_grad=True)
    torch.where(tx > 0, tx.sqrt(), 0.).sum().backward()
    assert str(x.grad.tolist()) == str(tx.grad.tolist())  # ([0.25, nan] in both)


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_both_engines_report(detect_nan, engine):
    prev = rg.autograd.get_backward_engine()
    rg.autograd.set_backward_engine(engine)
    try:
        x = rg.tensor([-1.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = x.sqrt() * 0
        with pytest.raises(RuntimeError, match="SqrtBackward0' returned nan"):
            y.sum().backward()
    finally:
        rg.autograd.set_backward_engine(prev)
