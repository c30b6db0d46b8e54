"""Argument checking shared by the ops: argument and overload type errors, dtype checks and the
messages, against torch (each case is an expression run in both libraries)."""
import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from ._expression_helpers import B, F, I, _same_error  # noqa: E402


def _first_line_same(fn_src):
    errs = []
    for lib in (torch, retrograd):
        with pytest.raises(Exception) as ei:
            eval(fn_src, {"T": lib})
        errs.append((ei.type, str(ei.value).splitlines()[0]))
    assert errs[0] == errs[1], (fn_src, errs)


# ---------------------------------------------------------------- 7/8. arguments that must be tuples / Tensors
@pytest.mark.parametrize("src", [
    f"T.flip({F}, 0)", "T.flip(T.tensor(1.), (0, 1))", f"T.tile({F}, 0)", f"T.take({F}, 0)", f"{F}.take(0)",
    f"{F}.put_(0, 0)", f"{F}.put_(T.tensor([0]), 0)", f"T.index_select({F}, 0, 0)", f"{F}.index_select(0, 0)",
    "T.ones(2, 3).sum_to_size(3, 2)", "T.tensor(1.).sum_to_size(2)", "T.ones(2, 3).sum_to_size(1, 2, 3)",
    f"T.cross({F}, 2.5)", f"T.cross(2.5, {F})", f"T.inner({F}, 2.5)", f"T.kron({F}, 2.5)", f"T.vdot({F}, 2.5)",
    f"T.dot({F}, 2.5)", f"T.dot(2.5, {F})", f"{F}.dot(2.5)", f"{F}.expand_as(2.5)", f"{F}.view_as(2)",
    f"{F}.reshape_as(2)", "T.conv_transpose1d(T.ones(1, 1, 3), 0.3)", f"T.prelu({F}, 0.3)",
    f"T.index_add({F}, 0, 0, 0)", f"T.index_copy({F}, 0, 0, 0)", f"{F}.index_add(0, 0, 0)",
    f"{F}.index_copy_(0, T.tensor([0]), 0)", f"T.gather({F}, 0, 0)", f"{F}.gather(0, 0)", f"T.matmul({F}, 2.5)",
    f"T.mvlgamma({F} + 5, float('inf'))", f"T.mvlgamma({F} + 5, True)", f"T.gcd({I}, 2)", f"T.lcm({I}, 2)",
    f"{I}.gcd(2)", f"T.ldexp({F}, 2)", f"{F}.ldexp_(2)",
])
def test_argument_type_errors(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    "T.conv1d(T.ones(1, 1, 3), 0.3)", "T.conv2d(T.ones(1, 1, 3, 3), 0.3)", f"T.index_fill({F}, 0, 0, .5)",
])
def test_overload_type_errors(src):
    _first_line_same(src)
    _same_error(src)


@pytest.mark.parametrize("src", [
    f"{F}.flip(0)", f"T.flip({F}, (0,))", "T.ones(2, 3).flip(1, 0)", f"{F}.tile(2)", f"T.tile({F}, (2,))",
    "T.ones(2, 3).tile(2, 1)", "T.ones(2, 1).sum_to_size(1, 1)", "T.ones(2, 3).sum_to_size(1, 3)",
    "T.ones(2, 3).sum_to_size((3,))", "T.ones(2).permute(0)", f"T.gcd({I}, T.tensor(4))",
])
def test_argument_forms_that_work(src):
    t = eval(src, {"T": torch})
    r = eval(src, {"T": retrograd})
    assert tuple(r.shape) == tuple(t.shape)
    np.testing.assert_allclose(r.numpy(), t.numpy())


# ---------------------------------------------------------------- 9. dtype checks
@pytest.mark.parametrize("src", [
    "T.gcd(T.tensor([1.]), T.tensor([2.]))", "T.lcm(T.tensor([True]), T.tensor([True]))",
    "T.gcd(T.tensor([1]), T.tensor([2.]))", "T.tensor([1]).gcd_(T.tensor([2.]))",
    "T.nextafter(T.tensor([1]), T.tensor([2]))", "T.nextafter(T.tensor([True]), T.tensor([True]))",
])
def test_dtype_errors(src):
    _same_error(src)


@pytest.mark.parametrize("src", [
    f"T.hardshrink({I})", f"T.hardshrink({B})", f"{I}.hardshrink()", f"T.threshold_({B}, 0.5, 1.)",
    f"T.threshold({B}, 0, 1)", f"T.nn.functional.threshold({B}, 0, 1)", f"T.igamma({I}, {I})",
    f"T.igamma({B}, {B})", f"T.igammac({I}, {I})", f"T.mvlgamma({B}, 1)", f"T.cov({B})", f"T.corrcoef({B})",
    f"T.gradient({B})", f"{B}.cumsum_(0)",
])
def test_dtype_refusals(src):
    _same_error(src)


# ---------------------------------------------------------------- 11. message-only fixes
@pytest.mark.parametrize("src", [
    "T.softmax(T.tensor([[1, 2], [3, 4]]), 0)", "T.softmax(T.tensor([[1, 2], [3, 4]]), -1)",
    "T.log_softmax(T.tensor([[1, 2], [3, 4]]), 0)", "T.softmax(T.tensor(1), 0)",
    "T.ones(2, 3, 4).t_()", "T.ones(2, 3).expand(3, 2)", "T.ones(2, 3).expand(4, 5)",
    "T.broadcast_to(T.ones(2, 3), (4, 5))", "T.gcd_(T.tensor([1, 2]), 2)", "T.ldexp_(T.tensor([1., 2.]), 2)",
])
def test_messages(src):
    _same_error(src)
