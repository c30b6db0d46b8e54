"""retrograd's error messages: PyTorch's message unchanged, then lines saying where and why.

Each test runs the mistake under retrograd and under torch: the message starts with exactly
torch's message, and the lines retrograd adds after it (each "\\n  ...") name this file's lines.
"""
import sys

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

HERE = __file__


def _line() -> int:
    """The caller's line number (written on the line a test wants to name)."""
    return sys._getframe(1).f_lineno


def _error(fn, lib):
    with pytest.raises(RuntimeError) as info:
        fn(lib)
    return str(info.value)


def _split(fn):
    """(torch's message, retrograd's added lines) after checking that retrograd's starts with torch's."""
    theirs = _error(fn, torch)
    ours = _error(fn, rg)
    assert ours.startswith(theirs + "\n  "), (ours, theirs)
    return theirs, [ln[2:] for ln in ours[len(theirs) + 1:].split("\n")]


# ---- 1. in-place writes to saved tensors --------------------------------------------------
def test_inplace_error_names_the_saving_node_and_the_write():
    lines = {}

    def mistake(T):
        x = T.ones(3, requires_grad=True)
        y = (x * 2).sigmoid(); lines["save"] = _line()  # noqa: E702
        y.mul_(2); lines["write"] = _line()  # noqa: E702
        y.sum().backward()

    first, added = _split(mistake)
    assert first.startswith("one of the variables needed for gradient computation has been modified by an "
                            "inplace operation: [torch.FloatTensor [3]], which is output 0 of Sigmoid")
    save, write = f"{HERE}:{lines['save']}", f"{HERE}:{lines['write']}"
    assert added == [
        f"It was saved for backward by SigmoidBackward0, created at {save}.",
        f"It was modified in place afterwards at {write} (the first write recorded, version 0 -> 1).",
        f"Fix: make the write at {write} out of place (x = x + 1 instead of x += 1 or x.add_(1); inplace=False "
        f"for nn layers), or give the op at {save} a .clone() of the tensor.",
    ]


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_inplace_error_on_a_saved_input_names_the_first_of_several_writes(engine):
    lines = {}

    def mistake(T):
        w = T.ones(2, requires_grad=True)
        a = w * 3
        b = a * w; lines["save"] = _line()  # noqa: E702
        a.add_(1); lines["write"] = _line()  # noqa: E702
        a.add_(1)
        b.sum().backward()

    prev = rg.autograd.get_backward_engine()
    rg.autograd.set_backward_engine(engine)
    try:
        _, added = _split(mistake)
    finally:
        rg.autograd.set_backward_engine(prev)
    assert added[0] == f"It was saved for backward by MulBackward0, created at {HERE}:{lines['save']}."
    assert added[1] == f"It was modified in place afterwards at {HERE}:{lines['write']} (the first write " \
                       "recorded, version 0 -> 1)."


def test_inplace_error_names_the_optimizer_step_that_wrote_a_saved_parameter():
    lines = {}

    def mistake(T):
        w = T.ones(2, requires_grad=True)
        opt = T.optim.SGD([w], lr=0.1)
        loss1 = (w * w).sum(); lines["save"] = _line()  # noqa: E702
        loss2 = (w * 3).sum()
        loss2.backward()
        opt.step(); lines["step"] = _line()  # noqa: E702
        loss1.backward()

    _, added = _split(mistake)
    assert added[:2] == [
        f"It was saved for backward by MulBackward0, created at {HERE}:{lines['save']}.",
        f"It was modified in place afterwards at {HERE}:{lines['step']} (the first write recorded, version 0 -> 1).",
    ]


def test_without_recorded_sites_the_message_says_so():
    def mistake(T):
        x = T.ones(3, requires_grad=True)
        y = x.exp()
        y.add_(1)
        y.sum().backward()

    rg.autograd.set_record_sites(False)
    try:
        _, added = _split(mistake)
    finally:
        rg.autograd.set_record_sites(True)
    assert added[0] == "It was saved for backward by ExpBackward0, created at <line not recorded>."
    assert added[1].startswith("The line of the in-place write was not recorded")


def test_strict_inplace_raises_at_the_write():
    lines = {}
    with rg.autograd.strict_inplace():
        x = rg.ones(3, requires_grad=True)
        y = x.exp(); lines["save"] = _line()  # noqa: E702
        with pytest.raises(RuntimeError) as info:
            lines["write"] = _line() + 1
            y.add_(1)
    msg = str(info.value).split("\n  ")
    assert msg[0].startswith("one of the variables needed for gradient computation has been modified by an "
                             "inplace operation: it is at version 1; expected version 0 instead.")
    assert msg[1] == f"It was saved for backward by ExpBackward0, created at {HERE}:{lines['save']}."
    assert msg[2].startswith(f"It was modified in place afterwards at {HERE}:{lines['write']} ")
    assert not rg.autograd.is_strict_inplace()


def test_strict_inplace_allows_writes_nothing_saved_and_writes_after_backward():
    with rg.autograd.strict_inplace():
        x = rg.ones(3, requires_grad=True)
        y = x * 2  # (mul saves x, not y)
        y.add_(1)
        z = y.exp()
        z.sum().backward()  # frees ExpBackward0's saved result
        z.add_(1)  # so writing it now invalidates nothing
        with rg.no_grad():
            x.add_(1)  # x was saved by MulBackward0, which backward freed too
    assert x.grad.tolist() == pytest.approx([2 * float(v) for v in rg.exp(rg.full((3,), 3.0)).tolist()])
