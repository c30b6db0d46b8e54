"""Tests of the conversion ops (src/retrograd/_ops/conversion.py), checked against PyTorch."""
from __future__ import annotations

import warnings

import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._elementwise_helpers import LIBS  # noqa: E402
from ._reduce_shape_helpers import _dt, _raises_same, _same  # noqa: E402
from .._error_compare import _err  # noqa: E402
from ._differential_helpers import assert_same_derivatives, assert_same_layout  # noqa: E402


# ====================================================================== casts with memory_format
@pytest.mark.parametrize("method", ["float", "double", "half", "int", "long", "short", "char", "byte", "bool",
                                    "bfloat16"])
def test_cast_methods_take_memory_format(method):
    out = []
    for L in LIBS:
        x = L.arange(120, dtype=L.float64).reshape(2, 3, 4, 5)
        y = getattr(x, method)(memory_format=L.channels_last)
        z = getattr(x.permute(0, 2, 3, 1), method)(memory_format=L.preserve_format)
        w = getattr(x.permute(0, 2, 3, 1), method)(memory_format=L.contiguous_format)
        out.append((y.stride(), z.stride(), w.stride(), w.is_contiguous(), y.double().sum().item()))
    assert out[0] == out[1]
    for L in LIBS:
        with pytest.raises(RuntimeError, match="required rank 4 tensor to use channels_last format"):
            getattr(L.ones(3), method)(memory_format=L.channels_last)


def test_resize_as_function():
    r = rg.resize_as_(rg.zeros(2, 3), rg.ones(3))
    t = torch.resize_as_(torch.zeros(2, 3), torch.ones(3))
    _same(r, t)
    _raises_same(lambda lib: lib.resize_as_(lib.ones(2, 3, requires_grad=True), lib.ones(3)))


# ------------------------------------------------------------------ Tensor.to argument forms
TO_CALLS = [
    lambda lib, x: x.to("cpu", lib.float64, True, True),
    lambda lib, x: x.to("cpu", lib.float64, False, True, memory_format=lib.preserve_format),
    lambda lib, x: x.to(lib.float64, True, True),
    lambda lib, x: x.to(lib.tensor(1, dtype=lib.int32), True, True),
    lambda lib, x: x.to(lib.float32, False, False),
    lambda lib, x: x.to("cpu", None, False, True),
    lambda lib, x: x.to(None, lib.int32),
    lambda lib, x: x.to(tensor=x, copy=True),
    lambda lib, x: x.to(True),
    lambda lib, x: x.to(2.0),
    lambda lib, x: x.to(lib.float64, True, True, lib.preserve_format),
    lambda lib, x: x.to("cpu", lib.float64, True, True, lib.preserve_format),
    lambda lib, x: x.to(lib.float64, "cpu"),
    lambda lib, x: x.to(lib.float64, dtype=lib.float32),
    lambda lib, x: x.to(lib.float64, 1, 0),
    lambda lib, x: x.to(other=x),
    lambda lib, x: x.to([1]),
]


@pytest.mark.parametrize("i", range(len(TO_CALLS)))
def test_to_positional_non_blocking_and_copy(i):
    outs = []
    for lib in (rg, torch):
        x = lib.tensor([1.0, 2.0])
        try:
            y = TO_CALLS[i](lib, x)
            outs.append((_dt(y), y is x, y.tolist()))
        except Exception as e:  # noqa: BLE001 - compared across libraries
            outs.append((type(e).__name__, str(e).replace("torch.", "").replace("retrograd.", "")))
    assert outs[0] == outs[1]


def test_resize():
    for lib in (retrograd, torch):
        x = lib.arange(6.)
        assert x.resize_(2, 2) is x and x.tolist() == [[0., 1.], [2., 3.]]
        x.resize_as_(lib.zeros(3))
        assert tuple(x.shape) == (3,) and x.tolist() == [0., 1., 2.]
        y = lib.arange(2.)
        y.resize_(4)
        assert tuple(y.shape) == (4,) and y[:2].tolist() == [0., 1.]


# ------------------------------------------------------------------ Tensor methods
def test_resize_and_resize_as():
    for lib in (retrograd, torch):
        x = lib.arange(6., requires_grad=True)
        with pytest.warns(UserWarning, match="non-inplace resize is deprecated"):
            y = x.resize(2, 3)
        assert tuple(y.shape) == (2, 3) and type(y.grad_fn).__name__ == "ResizeBackward"
        (y * lib.arange(6.).reshape(2, 3)).sum().backward()
        assert x.grad.tolist() == [0., 1., 2., 3., 4., 5.]
        with pytest.warns(UserWarning, match="non-inplace resize_as is deprecated"):
            assert tuple(x.detach().resize_as(lib.zeros(3, 2)).shape) == (3, 2)
    for args in ((2, 2), ((3, 2),), (7,)):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            r, t = _err(lambda: retrograd.arange(6.).resize(*args), lambda: torch.arange(6.).resize(*args))
        assert r == t


# ---- found by the differential fuzzer (tests/fuzz)
@pytest.mark.parametrize("overwrite", [lambda y: y.zero_(), lambda y: y.fill_(0.0), lambda y: y.copy_(y.detach() * 0),
                                       lambda y: y.fill_(rg.tensor(0.0) if isinstance(y, rg.Tensor) else torch.tensor(0.0))])
def test_overwritten_values_get_zero_gradient_not_nan(overwrite):
    # y = x * 1 overwritten by zeros, then sqrt: sqrt'(0) = inf reaches the overwrite's backward,
    # which must give x exact zeros (torch: zeros_like(grad)), not inf * 0 = NaN
    def f(L, x):
        y = x * 1
        overwrite(y)
        return y.sqrt()
    assert_same_derivatives(f, [1.0, 2.0])


def test_to_dtype_of_an_expanded_tensor_is_laid_out_as_torch():
    assert_same_layout(lambda L, x: x.to(L.float32))
