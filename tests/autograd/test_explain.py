"""torch.autograd.explain(tensor, wrt=None): why .grad is None or zero, naming this file's lines.

explain() is retrograd's own (PyTorch has none), so these tests check its report line by line;
where a report states a fact about autograd (the tensor is not a leaf, does not require grad,
its .grad is None), the fact is checked in torch too.
"""
import sys

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

HERE = __file__
explain = rg.autograd.explain


def _line() -> int:
    return sys._getframe(1).f_lineno


def at(n: int) -> str:
    return f"{HERE}:{n}"


def test_not_a_leaf_after_a_dtype_conversion():
    w = rg.randn(3, requires_grad=True).double(); made = _line()  # noqa: E702
    (w * 2).sum().backward()
    tw = torch.randn(3, requires_grad=True).double()
    (tw * 2).sum().backward()
    assert w.grad is None and tw.grad is None and not tw.is_leaf  # (the fact the report states, in torch)
    assert explain(w).splitlines() == [
        f".grad is None: this tensor is not a leaf: it was made by ToCopyBackward0 (from .to() / .float() / "
        f".double() / .half() / .cuda() / .cpu() / .type()) at {at(made)}.",
        "requires_grad=True was set on the tensor before that conversion, so the leaf that receives the gradient "
        "is the tensor before it; this one is a result computed from it.",
        "Fix: convert first and then require grad (torch.randn(3, dtype=torch.float64, requires_grad=True), or "
        "x = x.double().detach().requires_grad_()), or read the gradient from the original tensor.",
    ]


def test_intermediate_result_suggests_retain_grad():
    x = rg.ones(2, requires_grad=True)
    h = x * 3; made = _line()  # noqa: E702
    lines = explain(h).splitlines()
    assert lines[0] == f".grad is None: this tensor is not a leaf: it was made by MulBackward0 at {at(made)}."
    assert "retain_grad()" in lines[1]


def test_requires_grad_false():
    x = rg.ones(2)
    assert explain(x).splitlines() == [
        ".grad is None: it does not require grad, so no backward pass writes to it.",
        "It was computed only from tensors that do not require grad (or created without requires_grad=True).",
    ]


@pytest.mark.parametrize("how", ["detach()", ".data", "torch.tensor(t)"])
def test_cut_from_the_graph(how):
    x = rg.ones(2, requires_grad=True)
    if how == "detach()":
        d = x.detach(); line = _line()  # noqa: E702
    elif how == ".data":
        d = x.data; line = _line()  # noqa: E702
    else:
        with pytest.warns(UserWarning):
            d = rg.tensor(x); line = _line()  # noqa: E702
    loss = (d * 2).sum()
    assert explain(d).splitlines()[1:] == [
        f"It was cut from the graph by {how} at {at(line)}: the result shares the values but not the history.",
        f"Fix: use the tensor itself instead of its {how} where gradients must flow.",
    ]
    assert explain(x, wrt=loss).splitlines() == [
        "wrt does not depend on this tensor: wrt does not require grad and has no grad_fn, so it has no graph "
        "at all.",
        f"A value computed from it was cut from the graph by {how} at {at(line)}.",
    ]


def test_item_of_a_temporary_is_named():
    x = rg.ones(2, requires_grad=True)
    v = (x * x).sum().item(); line = _line()  # noqa: E702
    loss = rg.tensor(v) * 2
    assert explain(x, wrt=loss).splitlines()[1] == (
        f"A value computed from it left the graph as a Python number or NumPy array by .item() at {at(line)}: "
        "arithmetic on that value is not recorded (use tensor ops instead).")


def test_created_under_no_grad():
    x = rg.ones(2, requires_grad=True)
    block = _line() + 1
    with rg.no_grad():
        y = x * 3
    assert explain(y).splitlines()[1] == (
        f"It was computed (by mul) from tensors that require grad, but inside the torch.no_grad() block entered "
        f"at {at(block)}, so no graph was recorded.")


def test_created_under_a_no_grad_decorated_function():
    x = rg.ones(2, requires_grad=True)

    defined = _line() + 1  # (a decorated function's code starts at its first decorator)
    @rg.no_grad()
    def evaluate(t):
        return t * 3

    y = evaluate(x)
    assert f"inside the @torch.no_grad() block entered at {at(defined)}" in explain(y)


def test_created_under_inference_mode():
    x = rg.ones(2, requires_grad=True)
    block = _line() + 1
    with rg.inference_mode():
        y = x * 3
    assert f"inside the torch.inference_mode() block entered at {at(block)}" in explain(y)


def test_integer_dtype():
    assert explain(rg.tensor([1, 2])).splitlines()[0] == (
        ".grad is None: it has an integer dtype (int64), and only floating point (and complex) tensors can require "
        "gradients.")


def test_reset_by_zero_grad():
    w = rg.ones(2, requires_grad=True)
    opt = rg.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(); line = _line()  # noqa: E702
    assert explain(w).splitlines() == [
        f".grad is None: zero_grad() at {at(line)} set it to None, and no backward pass has run since."]
    (rg.ones(1, requires_grad=True) * 2).sum().backward()  # a backward that does not reach w
    assert explain(w).splitlines()[0] == (f".grad is None: zero_grad() at {at(line)} set it to None, and none of "
                                          "the 1 backward pass(es) since then reached it.")


def test_leaf_never_used():
    w = rg.ones(2, requires_grad=True); born = _line()  # noqa: E702
    assert explain(w).splitlines() == [
        ".grad is None: it is a leaf that requires grad, but no backward pass has reached it yet.",
        f"No graph alive now was computed from it (it was made to require grad at {at(born)}): the results "
        "computed from it were made without a graph, or are gone. Pass wrt=<your loss> to see how the loss was "
        "computed.",
    ]


def test_zeroed_by_zero_grad_without_set_to_none():
    w = rg.ones(2, requires_grad=True)
    opt = rg.optim.SGD([w], lr=0.1)
    (w * w).sum().backward()
    opt.zero_grad(set_to_none=False); line = _line()  # noqa: E702
    assert explain(w).splitlines() == [
        f".grad is zero: zero_grad(set_to_none=False) at {at(line)} filled it with zeros, and no backward pass has "
        "run since."]


def test_hook_that_returned_zeros():
    z = rg.ones(2, requires_grad=True)

    def silence(g):
        return g * 0
    defined = _line() - 2
    z.register_hook(silence)
    (z * 3).sum().backward()
    assert explain(z).splitlines() == [
        f"A hook registered on it, silence (defined at {at(defined)}), returned zeros in place of a non-zero "
        "gradient."]


def test_not_reachable_from_the_loss():
    a = rg.ones(2, requires_grad=True)
    b = rg.ones(2, requires_grad=True)
    other = (b * 3).sum()  # noqa: F841  (b is used, but not by the loss)
    loss = (a * 2).sum()
    assert explain(b, wrt=loss).splitlines() == [
        "wrt does not depend on this tensor: it is not reachable from wrt's graph.",
        "It was not used in computing wrt (or the results computed from it were replaced before wrt was "
        "computed).",
    ]


def test_reachable_names_the_path():
    a = rg.ones(2, requires_grad=True)
    h = a * 2; l1 = _line()  # noqa: E702
    loss = h.sum(); l2 = _line()  # noqa: E702
    assert explain(a, wrt=loss).splitlines() == [
        f"wrt depends on this tensor, through SumBackward0 ({at(l2)}) -> MulBackward0 ({at(l1)})."]


def test_bad_arguments():
    with pytest.raises(TypeError):
        explain([1.0])
    with pytest.raises(TypeError):
        explain(rg.ones(1), wrt=3)
