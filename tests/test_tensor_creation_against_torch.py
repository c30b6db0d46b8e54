"""Differential checks of tensor creation, dtypes, promotion, conversion and printing against torch.

Each case is an expression run with ``torch`` bound to real torch and to retrograd; the results
(repr, dtype, shape, requires_grad, or exception type and message) must agree once
'retrograd.' reads 'torch.'.  Random functions are compared on dtype/shape/errors only.
"""
from __future__ import annotations

import math
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import retrograd  # noqa: E402

U8 = "torch.tensor([1, 200, 0], dtype=torch.uint8)"
I8 = "torch.tensor([5, -7, 0], dtype=torch.int8)"
CASES = [
    # uint8 / int8 with Python ints they cannot hold: the true value reaches float ops
    f"{U8} / -2", f"torch.div({U8}, -300)", f"{U8} / 300", f"torch.copysign({U8}, -2)", f"torch.xlogy({U8}, -2)",
    f"torch.xlogy({U8}, 300)", f"{I8} / 300", f"-2 / {U8}", f"{U8} + (-2)", f"{U8} * -3", f"{U8} - 300", f"{U8} // -2",
    f"{U8} < -2", f"{U8}.mul_(-1)", f"{U8}.fill_(-1)", f"{U8}.fill_(-255)", f"{U8}.fill_(-256)", f"{I8}.fill_(200)",
    f"{U8}.fill_(float('nan'))", f"{U8}.fill_(-1.5)",
    # full: checked conversion, argument errors
    "torch.full((2,), -1, dtype=torch.uint8)", "torch.full((2,), 300, dtype=torch.uint8)",
    "torch.full((2,), -129, dtype=torch.uint8)", "torch.full((2,), float('inf'), dtype=torch.int8)",
    "torch.full((2,), 1e40)", "torch.full((2,), 2**63)", "torch.full((2,), float('inf'))",
    "torch.full(2, 1)", "torch.full((2,), 'a')", "torch.full((2,), None)", "torch.full((2,), torch.tensor([1.]))",
    "torch.full((2,), torch.tensor(1))", "torch.full((2,), True)", "torch.full((2,), 1.5, dtype=torch.int64)",
    # tensor(): overflow, wrapping, strings
    "torch.tensor([-1], dtype=torch.uint8)", "torch.tensor([300], dtype=torch.uint8)", "torch.tensor(2**63)",
    "torch.tensor([2**64])", "torch.tensor('a')", "torch.tensor([float('nan')], dtype=torch.int64)",
    "torch.tensor([1, 2.5, True])", "torch.tensor([])", "torch.tensor([[1, 2], [3]])", "torch.tensor([1, 2], requires_grad=True)",
    "torch.from_numpy(np.array(['a']))", "torch.from_numpy(np.array([1], dtype=object))",
    "torch.from_numpy(np.arange(4.)[::-1])",
    # shapes given wrongly
    "torch.zeros(2.5)", "torch.ones('a')", "torch.zeros((2, 3), 4)", "torch.empty(2.5)",
    # arange
    "torch.arange(True)", "torch.arange(5, 0)", "torch.arange(0, 5, -1)", "torch.arange(0, float('inf'))",
    "torch.arange(0, float('nan'))", "torch.arange(3, dtype=torch.bool)", "torch.arange(0, 1, 0.1, dtype=torch.int64)",
    "torch.arange(0, 1, 0.1)", "torch.arange(10, 0, -3)", "torch.arange(0.5, 3)", "torch.arange('a')",
    "torch.linspace(0, 1, 5, dtype=torch.bool)",
    # random functions: signatures and errors
    "torch.rand(2, dtype=torch.int32)", "torch.randn(2, dtype=torch.uint8)", "torch.rand_like(torch.tensor([1, 2]))",
    "torch.randn(2.5)", "torch.randint(10, (3,), dtype=torch.bool)", "torch.randint(10, 3)", "torch.randint(1.5, (3,))",
    "torch.randperm(-1)", "torch.randperm(2.5)", "torch.normal(0., -1., (3,))", "torch.normal(torch.zeros(3), torch.ones(2))",
    "torch.normal(torch.zeros(3, dtype=torch.int64), 1.)", "torch.normal(0., 1., (3,), dtype=torch.float64)",
    "torch.normal(torch.zeros(3, requires_grad=True), 1.)", "torch.bernoulli(torch.full((3,), 2.))",
    "torch.bernoulli(torch.zeros(3, dtype=torch.int64))", "torch.multinomial(torch.tensor([0., 1., 0.]), 2)",
    "torch.multinomial(torch.tensor([-1., 1.]), 1)", "torch.multinomial(torch.tensor([1, 2]), 1)",
    "torch.multinomial(torch.tensor([1., float('nan')]), 1)", "torch.multinomial(torch.tensor(1.), 1)",
    "torch.multinomial(torch.tensor([1., 1.]), 0)", "torch.multinomial(torch.tensor([]), 1)",
    "torch.multinomial(torch.tensor([0., 0.]), 1)", "torch.multinomial(torch.tensor([1., 1.]), 3)",
    # dtypes, info, Size
    "torch.bfloat16.itemsize", "torch.set_default_dtype(float)", "torch.set_default_dtype(torch.int64)",
    "torch.finfo('float32')", "torch.iinfo(torch.bool)", "torch.finfo(torch.int32)",
    "(4,) + torch.Size([2, 3])", "torch.Size([2, 3]) * 2", "2 * torch.Size([2])", "torch.Size([2.5])",
    "torch.Size([torch.tensor(3)])", "torch.Size([2, 3])[1:]", "torch.Size([2]) + [3]",
    "torch.result_type(torch.tensor([1], dtype=torch.uint8), -2)", "torch.promote_types(torch.uint8, torch.int8)",
    # printing
    "torch.tensor([1e-5, 1.])", "torch.tensor([1., 1001.])", "torch.tensor([-0., float('nan'), float('inf')])",
    "torch.arange(2000) - 1000", "torch.arange(3000.).reshape(3, 1000)", "torch.tensor([1., 2.], requires_grad=True) * 2",
    "torch.zeros(0, 3, dtype=torch.int32)", "torch.tensor([True, False])", "torch.tensor(3.5, dtype=torch.float64)",
]
RANDOM = ("rand", "randn", "randint", "randperm", "normal", "bernoulli", "multinomial")


def _render(lib, code: str) -> str:
    ns = {"torch": lib, "np": np, "math": math}
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r = eval(code, ns)  # noqa: S307 - our own expressions
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        out = f"EXC {type(e).__name__}: {e}"
    else:
        if isinstance(r, lib.Tensor):
            random = any(f"torch.{f}" in code for f in RANDOM)
            out = f"{'' if random else repr(r)} {r.dtype} {tuple(r.shape)} {r.requires_grad}"
        else:
            out = f"{type(r).__name__}:{r!r}"
    finally:
        lib.set_default_dtype(lib.float32)
    return out.replace("retrograd.", "torch.").replace("retrograd", "torch")


@pytest.mark.parametrize("code", CASES)
def test_matches_torch(code):
    assert _render(retrograd, code) == _render(torch, code)


@pytest.mark.parametrize("code", ["set_printoptions(precision=2)", "set_printoptions(sci_mode=True)",
                                  "set_printoptions(profile='short')", "set_printoptions(threshold=5, edgeitems=1)",
                                  "set_printoptions(linewidth=40)"])
def test_printoptions_match_torch(code):
    expr = "torch.arange(30.).reshape(3, 10) / 7"
    try:
        got = [_with(retrograd, code, expr), _with(torch, code, expr)]
    finally:
        retrograd.set_printoptions(profile="default")
        torch.set_printoptions(profile="default")
    assert got[0].replace("retrograd.", "torch.") == got[1]


def _with(lib, setup: str, expr: str) -> str:
    getattr(lib, setup.split("(")[0])(**eval("dict(" + setup.split("(", 1)[1]))  # noqa: S307
    return repr(eval(expr, {"torch": lib}))  # noqa: S307


def test_multinomial_without_replacement_draws_distinct():
    retrograd.manual_seed(0)
    r = retrograd.multinomial(retrograd.tensor([0., 1., 0., 3.]), 4)
    assert sorted(r.tolist()) == [0, 1, 2, 3]


def test_multinomial_invalid_weight_messages_like_torch():
    def run(T):
        out = []
        for w in ([1.0, -1.0], [1.0, float("nan")], [1.0, float("inf")]):
            for n, rep in ((1, True), (2, True), (2, False)):
                try:
                    T.multinomial(T.tensor(w), n, replacement=rep)
                    out.append("ok")
                except RuntimeError as e:
                    out.append(str(e))
        return out

    assert run(retrograd) == run(torch)
