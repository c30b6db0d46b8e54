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


# ---- 2. backward through a freed graph ----------------------------------------------------
FREED_FIX_TWICE = ("Fix: call backward() once, on the sum of the losses (or autograd.grad for several outputs at "
                   "once); if you do need a second pass through the same graph, pass retain_graph=True to every "
                   "backward call but the last.")


@pytest.mark.parametrize("engine", ["fast", "reference"])
def test_second_backward_names_the_freed_node_and_the_first_backward(engine):
    lines = {}

    def mistake(T):
        w = T.ones(3, requires_grad=True)
        loss = (w * w).sum(); lines["made"] = _line()  # noqa: E702
        loss.backward(); lines["first"] = _line()  # noqa: E702
        loss.backward()

    prev = rg.autograd.get_backward_engine()
    rg.autograd.set_backward_engine(engine)
    try:
        first, added = _split(mistake)
    finally:
        rg.autograd.set_backward_engine(prev)
    assert first.startswith("Trying to backward through the graph a second time")
    assert added == [
        f"The saved tensors of MulBackward0 (created at {HERE}:{lines['made']}) were freed by the backward call "
        f"at {HERE}:{lines['first']}.",
        FREED_FIX_TWICE,
    ]


def test_hidden_state_carried_across_iterations_suggests_detach_first():
    lines = {}

    def mistake(T):
        W = T.ones(3, 3, requires_grad=True)
        h = T.zeros(3)
        for _ in range(3):
            h = T.tanh(W @ h + 1); lines["step"] = _line()  # noqa: E702
            h.sum().backward(); lines["backward"] = _line()  # noqa: E702

    _, added = _split(mistake)
    step = f"{HERE}:{lines['step']}"
    assert added == [
        f"The saved tensors of TanhBackward0 (created at {step}) were freed by the backward call at "
        f"{HERE}:{lines['backward']}.",
        f"This backward's graph was built after that call, but MvBackward0 (created at {step}) uses a tensor "
        f"computed before it by TanhBackward0 (created at {step}), so in an earlier iteration of the loop: a "
        "state carried over from one iteration to the next.",
        "Fix: detach() that tensor where it is carried over (h = h.detach() at the start of each iteration), so "
        "that each backward stops there. retain_graph=True on the earlier backward would instead backpropagate "
        "through every earlier iteration again, in ever more time and memory.",
    ]


def test_output_reused_after_another_backward_suggests_detach():
    lines = {}

    def mistake(T):
        g = T.ones(2, requires_grad=True)
        fake = g.exp(); lines["fake"] = _line()  # noqa: E702
        d_loss = (fake * 2).sum()
        d_loss.backward(); lines["d"] = _line()  # noqa: E702
        g_loss = (fake * 3).sum(); lines["g"] = _line()  # noqa: E702
        g_loss.backward()

    _, added = _split(mistake)
    assert added[0] == (f"The saved tensors of ExpBackward0 (created at {HERE}:{lines['fake']}) were freed by the "
                        f"backward call at {HERE}:{lines['d']}.")
    assert added[1] == (f"This backward's graph was built after that call, but MulBackward0 (created at "
                        f"{HERE}:{lines['g']}) uses a tensor computed before it by ExpBackward0 (created at "
                        f"{HERE}:{lines['fake']}), for example a hidden state carried over from an earlier "
                        "iteration of a loop, or a model's output reused after another loss's backward.")
    assert added[2].startswith("Fix: detach() that tensor")


def test_custom_function_saved_tensors_freed_names_the_backward():
    lines = {}

    def mistake(T):
        class Square(T.autograd.Function):
            @staticmethod
            def forward(ctx, x):
                ctx.save_for_backward(x)
                return x * x

            @staticmethod
            def backward(ctx, g):
                (x,) = ctx.saved_tensors
                return 2 * x * g

        x = T.ones(2, requires_grad=True)
        y = Square.apply(x).sum()
        y.backward(); lines["first"] = _line()  # noqa: E702
        y.backward()

    _, added = _split(mistake)
    assert added[0].startswith("The saved tensors of SquareBackward (created at ")
    assert added[0].endswith(f"were freed by the backward call at {HERE}:{lines['first']}.")


# ---- 3. errors that name the offending input ----------------------------------------------
def test_root_without_grad_names_the_element_and_why():
    lines = {}

    def mistake(T):
        x = T.tensor(2., requires_grad=True)
        z = x * x
        gx = T.autograd.grad(z, x, retain_graph=True); lines["grad"] = _line()  # noqa: E702
        T.autograd.grad(gx, x)

    first, added = _split(mistake)
    assert first == "element 0 of tensors does not require grad and does not have a grad_fn"
    assert added == [
        "Element 0: shape [], float32.",
        f"It is a gradient computed at {HERE}:{lines['grad']} without create_graph=True, so it has no graph of "
        "its own.",
        "Fix: pass create_graph=True to that backward() / autograd.grad call to differentiate it again.",
    ]


def test_backward_of_a_detached_loss_names_the_cut():
    lines = {}

    def mistake(T):
        x = T.ones(2, requires_grad=True)
        loss = (x * x).sum().detach(); lines["cut"] = _line()  # noqa: E702
        loss.backward()

    _, added = _split(mistake)
    assert added[1] == (f"It was cut from the graph by detach() at {HERE}:{lines['cut']}: the result shares the "
                        "values but not the history.")


def test_unused_input_is_named():
    lines = {}

    def mistake(T):
        a = T.ones(2, requires_grad=True)
        b = T.ones(2, 3, requires_grad=True); lines["b"] = _line()  # noqa: E702
        T.autograd.grad((a * 2).sum(), [a, b])

    first, added = _split(mistake)
    assert first.startswith("The differentiated Tensor at index 1 appears to not have been used in the graph.")
    assert added == [
        f"The input at index 1: shape [2, 3], float32, a leaf made to require grad at {HERE}:{lines['b']}.",
        "The outputs' graph does not reach it: no output was computed from it through recorded ops.",
        "torch.autograd.explain(input, wrt=output) says more.",
    ]


def test_input_without_grad_is_named():
    def mistake(T):
        a = T.ones(2, requires_grad=True)
        T.autograd.grad((a * 2).sum(), [a, T.zeros(3)])

    first, added = _split(mistake)
    assert first == "One of the differentiated Tensors does not require grad"
    assert added[0] == "The input at index 1: shape [3], float32."
