"""Scenarios distilled from running PyTorch tutorials and examples unchanged on retrograd.

Each test is a small piece of client code that once printed something different from
PyTorch (or failed) under ``retrograd.register_as_torch()``: values that must match
PyTorch's to the last bit because training loops print them, old-style call forms that
PyTorch still accepts, and module names that client code imports.
"""
from __future__ import annotations

import math
import subprocess
import sys
import warnings

import numpy as np
import pytest

import retrograd as rg
from retrograd._ops import _deprecated_overloads

torch = pytest.importorskip("torch")

from parity import assert_equal_to_torch_kernel  # noqa: E402


def _dt(lib, name):
    return getattr(lib, name)


# ------------------------------------------------------------------ linspace / arange values
# The polynomial-fitting tutorials start from linspace(-pi, pi, 2000); a last-bit difference in
# x changes every loss they print.
LINSPACE_CASES = [(-math.pi, math.pi, 2000), (0, 1, 5), (-3.7, 12.1, 31), (5, -2, 100), (0.1, 0.7, 4095),
                  (-1e5, 3, 1001), (3, 3, 7), (0, 1, 1), (0, 1, 0), (-7, 120, 33)]


@pytest.mark.parametrize("dtype,start,end,steps", [(d, *c) for d in ("float32", "float64", "float16")
                                                   for c in LINSPACE_CASES if d != "float16" or abs(c[0]) < 6e4])
def test_linspace_float_values_are_torchs(dtype, start, end, steps):
    t = torch.linspace(start, end, steps, dtype=_dt(torch, dtype)).numpy()
    r = rg.linspace(start, end, steps, dtype=_dt(rg, dtype)).numpy()
    assert r.dtype == t.dtype
    assert_equal_to_torch_kernel(r, t)


@pytest.mark.parametrize("dtype", ["int64", "int32", "int16", "uint8"])
@pytest.mark.parametrize("start,end,steps", [(0.9, 5.7, 4), (-0.9, -5.7, 4), (0, 100, 7), (-7, 120, 33), (3, 90, 1)])
def test_linspace_integer_values_are_torchs(dtype, start, end, steps):
    if dtype == "uint8" and start < 0:
        start, end = -start, -end
    t = torch.linspace(start, end, steps, dtype=_dt(torch, dtype)).numpy()
    r = rg.linspace(start, end, steps, dtype=_dt(rg, dtype)).numpy()
    assert r.dtype == t.dtype
    np.testing.assert_array_equal(r, t)


def test_linspace_default_dtype_and_tensor_bounds():
    t = torch.linspace(torch.tensor(-2.5), torch.tensor(1.25), 17)
    r = rg.linspace(rg.tensor(-2.5), rg.tensor(1.25), 17)
    assert str(r.dtype).split(".")[-1] == str(t.dtype).split(".")[-1]
    np.testing.assert_array_equal(r.numpy(), t.numpy())


@pytest.mark.parametrize("dtype,value", [("int8", 200), ("int16", -1e5), ("int32", 1e10), ("float32", 1e40),
                                         ("float16", 1e5)])
def test_linspace_out_of_range_bound_is_torchs_error(dtype, value):
    with pytest.raises(RuntimeError) as te:
        torch.linspace(0, value, 3, dtype=_dt(torch, dtype))
    with pytest.raises(RuntimeError) as re_:
        rg.linspace(0, value, 3, dtype=_dt(rg, dtype))
    assert str(re_.value) == str(te.value)


def test_full_int32_overflow_names_the_c_type_as_torch():
    with pytest.raises(RuntimeError) as te:
        torch.full((2,), 1e10, dtype=torch.int32)
    with pytest.raises(RuntimeError) as re_:
        rg.full((2,), 1e10, dtype=rg.int32)
    assert str(re_.value) == str(te.value)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("start,end,step", [(-math.pi, math.pi, 0.01), (0, 1, 0.1), (0.3, 100.7, 0.37),
                                            (-5, 5, 0.001), (10, -3, -0.7), (0, 2, 1 / 3), (0.5, 33.3, 1)])
def test_arange_float_values_are_torchs(dtype, start, end, step):
    t = torch.arange(start, end, step, dtype=_dt(torch, dtype)).numpy()
    r = rg.arange(start, end, step, dtype=_dt(rg, dtype)).numpy()
    assert r.shape == t.shape and r.dtype == t.dtype
    assert_equal_to_torch_kernel(r, t)


def test_polynomial_from_linspace_matches_torch():
    # polynomial_custom_function.py: P3(x) = 0.5 * (5 x^3 - 3 x) on linspace(-pi, pi, 2000)
    x = torch.linspace(-math.pi, math.pi, 2000)
    assert_equal_to_torch_kernel(rg.linspace(-math.pi, math.pi, 2000).numpy(), x.numpy())

    def p3(lib):
        # (from torch's x: where torch runs its DEFAULT kernels linspace may differ in the last
        # bit, checked above; the polynomial's own roundings are the same on every CPU)
        xs = lib.tensor(x.numpy()) if lib is rg else x
        return 0.5 * (5 * xs ** 3 - 3 * xs), 1.5 * (5 * xs ** 2 - 1)

    (tp, td), (rp, rd) = p3(torch), p3(rg)
    np.testing.assert_array_equal(rp.numpy(), tp.numpy())
    np.testing.assert_array_equal(rd.numpy(), td.numpy())


# ------------------------------------------------------------------ deprecated scalar-first overloads
# char_rnn_generation: p.data.add_(-learning_rate, p.grad.data); old optimizers: addcmul_(value, a, b)
FORMS = ["a.clone().add_(-0.5, b)", "a.add(2, b)", "lib.add(a, 2, b)", "a.clone().sub_(2, b)", "a.sub(2, b)",
         "lib.sub(a, 2, b)", "a.addcmul(2, b, b)", "a.clone().addcmul_(2, b, b)", "lib.addcmul(a, 2, b, b)",
         "a.addcdiv(2, b, b + 1)", "a.clone().addcdiv_(0.5, b, b + 1)", "lib.addcdiv(a, 2, b, b + 1)",
         "a.add(2, 3)", "a.add(lib.tensor(2.), b)", "a.add(b, alpha=2)", "lib.add(a, b, alpha=-1.5)"]
BAD_FORMS = ["a.add(b, 2)", "lib.add(a, b, b)", "a.add(b, b)", "a.add_(b, 2)", "lib.addcmul(a, b, b, b)",
             "lib.add(a, 2, b, alpha=3)", "a.addcmul(b, b, b)", "a.clone().addcdiv_(b, b, b)"]


def _eval(lib, expr):
    a = lib.ones(3)
    b = lib.arange(3.)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return eval(expr, {"lib": lib, "a": a, "b": b})


@pytest.mark.parametrize("expr", FORMS)
def test_scalar_first_overloads_compute_torchs_values(expr):
    t, r = _eval(torch, expr), _eval(rg, expr)
    np.testing.assert_array_equal(r.numpy(), t.numpy())


@pytest.mark.parametrize("expr", BAD_FORMS)
def test_scalar_first_overloads_refuse_what_torch_refuses(expr):
    with pytest.raises(TypeError) as te:
        _eval(torch, expr)
    with pytest.raises(TypeError) as re_:
        _eval(rg, expr)
    assert str(re_.value) == str(te.value).split("\n")[0]


def test_scalar_first_overload_keeps_autograd():
    def grads(lib):
        x = lib.tensor([1., 2., 3.], requires_grad=True)
        w = lib.tensor([0.5, -1., 2.], requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            y = lib.addcmul(x, 3, w, x).add(-2, w * w)
        y.sum().backward()
        return x.grad, w.grad, type(y.grad_fn).__name__

    (tx, tw, tn), (rx, rw, rn) = grads(torch), grads(rg)
    np.testing.assert_array_equal(rx.numpy(), tx.numpy())
    np.testing.assert_array_equal(rw.numpy(), tw.numpy())
    assert rn == tn


_TORCH_WARNING = """
import warnings, torch
a, b = torch.ones(3), torch.arange(3.)
with warnings.catch_warnings(record=True) as w:
    warnings.simplefilter("always")
    {expr}
    {expr}
print(len(w))
print(str(w[0].message))
"""


@pytest.mark.parametrize("expr", ["a.clone().add_(-0.5, b)", "torch.add(a, 2, b)", "a.addcmul(2, b, b)"])
def test_scalar_first_overload_warns_once_with_torchs_text(expr, monkeypatch):
    # torch warns once per process: ask a fresh interpreter for its text
    out = subprocess.run([sys.executable, "-c", _TORCH_WARNING.format(expr=expr)], capture_output=True, text=True,
                         check=True).stdout
    count, text = out.split("\n", 1)
    monkeypatch.setattr(_deprecated_overloads, "_warned", [False])
    a, b = rg.ones(3), rg.arange(3.)
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        eval(expr, {"torch": rg, "a": a, "b": b})
        eval(expr, {"torch": rg, "a": a, "b": b})
    assert len(w) == int(count) == 1
    assert w[0].category is UserWarning and w[0].filename == "<string>"
    assert str(w[0].message) == text.rstrip("\n")


def test_subtract_has_no_scalar_first_overload():
    with pytest.raises(TypeError):
        torch.subtract(torch.ones(2), 2, torch.ones(2))
    with pytest.raises(TypeError):
        rg.subtract(rg.ones(2), 2, rg.ones(2))
    np.testing.assert_array_equal(rg.ones(2).subtract(rg.ones(2), alpha=2).numpy(),
                                  torch.ones(2).subtract(torch.ones(2), alpha=2).numpy())


# ------------------------------------------------------------------ torch.onnx
def test_onnx_module_names():
    assert rg.onnx.is_in_onnx_export() is torch.onnx.is_in_onnx_export() is False
    assert issubclass(rg.onnx.OnnxExporterError, RuntimeError)
    assert issubclass(torch.onnx.OnnxExporterError, RuntimeError)
    assert rg.onnx.errors.OnnxExporterError is rg.onnx.OnnxExporterError


def test_onnx_export_raises_a_runtime_error(tmp_path):
    with pytest.raises(RuntimeError, match="ONNX"):
        rg.onnx.export(rg.nn.Linear(2, 1), rg.zeros(1, 2), str(tmp_path / "m.onnx"))
    assert not (tmp_path / "m.onnx").exists()


def test_import_torch_onnx_under_the_alias():
    code = ("import retrograd; retrograd.register_as_torch()\n"
            "import torch.onnx as onnx, torch\n"
            "m = torch.nn.Linear(2, 2)\n"
            "with onnx.select_model_mode_for_export(m, False):\n"
            "    print(m.training)\n"
            "print(m.training, onnx.is_in_onnx_export(), onnx is retrograd.onnx)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True).stdout
    assert out.split() == ["False", "True", "False", "True"]
