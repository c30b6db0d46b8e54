"""Parity tests: retrograd._printing must reproduce torch's tensor repr byte for byte."""

from __future__ import annotations

import math

import numpy as np
import pytest

import retrograd as rg
from retrograd._printing import format_tensor, get_printoptions, set_printoptions

torch = pytest.importorskip("torch")

_NP_TO_TORCH_NAME = {
    np.dtype(np.float16): "float16",
    np.dtype(np.float32): "float32",
    np.dtype(np.float64): "float64",
    np.dtype(np.int8): "int8",
    np.dtype(np.int16): "int16",
    np.dtype(np.int32): "int32",
    np.dtype(np.int64): "int64",
    np.dtype(np.uint8): "uint8",
    np.dtype(np.bool_): "bool",
}


def _expected(arr: np.ndarray, requires_grad: bool = False) -> str:
    """torch's repr of the same data, with the module name swapped."""
    t = torch.from_numpy(np.array(arr, copy=True))
    if requires_grad:
        t.requires_grad_()
    return repr(t)


def _actual(arr: np.ndarray, requires_grad: bool = False) -> str:
    return format_tensor(
        arr,
        _NP_TO_TORCH_NAME[arr.dtype],
        is_default_float=arr.dtype == np.float32,
        suffixes=["requires_grad=True"] if requires_grad else None,
    )


def _cases() -> list[tuple[str, np.ndarray, bool]]:
    """(id, array, requires_grad) triples covering the formatting rules."""
    rng = np.random.default_rng(1234)
    f32, f64, f16 = np.float32, np.float64, np.float16
    c: list[tuple[str, np.ndarray, bool]] = []

    def add(name: str, arr: np.ndarray, rg: bool = False) -> None:
        c.append((name, np.asarray(arr), rg))

    # 0-d
    add("0d_float_int", np.array(7.0, f32))
    add("0d_float_frac", np.array(3.14159, f32))
    add("0d_float64", np.array(-2.5, f64))
    add("0d_int", np.array(3, np.int64))
    add("0d_int32", np.array(-3, np.int32))
    add("0d_bool", np.array(True))
    add("0d_nan", np.array(np.nan, f32))
    add("0d_tiny", np.array(1e-7, f32))
    add("0d_negzero", np.array(-0.0, f32))
    add("0d_requires_grad", np.array(2.0, f32), True)
    # empty
    add("empty_1d_f32", np.zeros((0,), f32))
    add("empty_1d_i64", np.zeros((0,), np.int64))
    add("empty_1d_bool", np.zeros((0,), bool))
    add("empty_2d", np.zeros((0, 3), f32))
    add("empty_3d_f64", np.zeros((2, 0, 4), f64))
    add("empty_rg", np.zeros((0,), f32), True)
    # 1-d floats
    add("ints_as_floats", np.array([1.0, 2.0], f32))
    add("neg_ints_as_floats", np.array([-1.0, 20.0, 300.0], f32))
    add("fractions", np.array([0.5, -1.25, 3.3333333], f32))
    add("sci_small_large", np.array([1e-5, 1e5], f32))
    add("sci_ratio", np.array([1.0, 1001.0], f32))
    add("sci_huge", np.array([1e9, 2e9], f64))
    add("sci_extreme", np.array([1e-300, 1e300, -5e150], f64))
    add("nan_inf", np.array([np.nan, np.inf, -np.inf], f32))
    add("nan_inf_mixed", np.array([1.5, np.nan, -np.inf, 2.0], f32))
    add("nan_inf_intmode", np.array([1.0, np.nan, np.inf, 100.0], f32))
    add("nan_sci", np.array([1e-8, np.nan, 3.0], f32))
    add("zeros", np.zeros(4, f32))
    add("neg_zero_mixed", np.array([-0.0, 0.0, 1.0], f32))
    add("neg_zero_frac", np.array([-0.0, 0.25], f32))
    add("neg_zero_sci", np.array([-0.0, 1e-6], f32))
    add("rounding_to_ten", np.array([9.99999, 0.1], f64))
    add("float16", np.array([0.1, 1.5, -65504.0, 6e-5], f16))
    add("float16_ints", np.array([1.0, 2048.0], f16))
    add("float64_vec", rng.standard_normal(7))
    add("float32_rg", np.array([1.0, 2.0], f32), True)
    add("float64_rg", np.array([1.0, 2.0], f64), True)
    add("float64_rg_wide", rng.standard_normal(23), True)
    add("float64_rg_wrap_edge", rng.standard_normal(7).astype(f64), True)
    # integers, bool
    add("int64_neg", np.array([-5, 10, 12345], np.int64))
    add("int64_large", np.array([2**62, -(2**63), 7], np.int64))
    add("int8", np.array([-128, 0, 127], np.int8))
    add("int16", np.arange(-4, 5, dtype=np.int16))
    add("int32", np.array([[1, -2], [300, 4]], np.int32))
    add("uint8", np.array([0, 255, 17], np.uint8))
    add("bool_1d", np.array([True, False]))
    add("bool_2d", np.array([[True, False, True], [False, False, True]]))
    # 2-d, 3-d, 4-d
    add("mat_f32", rng.standard_normal((3, 4)).astype(f32))
    add("mat_f64_sci", (rng.standard_normal((2, 3)) * 1e6).astype(f64))
    add("mat_int", rng.integers(-1000, 1000, (4, 3)))
    add("mat_single_col", np.arange(5, dtype=f32).reshape(5, 1))
    add("t3_f32", rng.standard_normal((2, 3, 4)).astype(f32))
    add("t3_int32", rng.integers(0, 50, (3, 2, 2)).astype(np.int32))
    add("t4_f64", rng.standard_normal((2, 2, 2, 3)))
    add("t4_bool", rng.integers(0, 2, (2, 1, 2, 2)).astype(bool))
    add("t3_rg", rng.standard_normal((2, 2, 3)).astype(f32), True)
    # wide rows wrap at linewidth
    add("wide_vec_f32", rng.standard_normal(40).astype(f32))
    add("wide_vec_int", np.arange(100, dtype=np.int64))
    add("wide_mat", rng.standard_normal((3, 30)).astype(f32))
    add("wide_t3_f64", rng.standard_normal((2, 2, 25)))
    add("wide_sci", (rng.standard_normal(20) * 1e-6).astype(f32))
    # summarisation (> 1000 elements)
    add("big_vec", np.arange(2000, dtype=f32))
    add("big_vec_int", np.arange(1001, dtype=np.int64))
    add("big_mat", rng.standard_normal((50, 50)).astype(f32))
    add("big_mat_narrow", rng.standard_normal((1001, 1)))
    add("big_mat_short_rows", rng.standard_normal((4, 400)).astype(f32))
    add("big_t3", rng.integers(-9, 9, (10, 11, 12)).astype(np.int32))
    add("big_t4_bool", rng.integers(0, 2, (5, 5, 5, 10)).astype(bool))
    add("big_hidden_outlier", np.concatenate([np.ones(600), [1e9], np.ones(600)]).astype(f32))
    add("big_rg", rng.standard_normal((40, 40)).astype(f32), True)
    # random fuzz over dtypes, shapes and magnitudes
    shapes = [(), (1,), (5,), (2, 3), (3, 1, 4), (2, 2, 2, 2), (13, 9)]
    float_types = [f16, f32, f64]
    for i in range(24):
        shape = shapes[i % len(shapes)]
        kind = i % 4
        if kind == 0:
            arr = rng.standard_normal(shape) * 10.0 ** rng.integers(-6, 7)
            arr = arr.astype(float_types[i % 3])
        elif kind == 1:
            arr = np.round(rng.standard_normal(shape) * 100).astype(float_types[i % 3])
        elif kind == 2:
            int_types = [np.int8, np.int16, np.int32, np.int64, np.uint8]
            arr = rng.integers(0, 100, shape).astype(int_types[i % 5])
        else:
            arr = rng.standard_normal(shape).astype(float_types[i % 3])
            arr[(rng.random(shape) < 0.3)] = np.nan
        add(f"fuzz{i}", arr, kind == 3 and arr.dtype != f16 and i % 8 == 3)
    return c


CASES = _cases()


@pytest.fixture
def restore_print_options():
    """Reset both libraries to torch's defaults even if a test fails."""
    yield
    torch.set_printoptions(profile="default")
    set_printoptions(profile="default")


def test_case_count():
    assert len(CASES) >= 60


@pytest.mark.parametrize(("arr", "requires_grad"), [c[1:] for c in CASES], ids=[c[0] for c in CASES])
def test_repr_matches_torch(arr, requires_grad):
    assert _actual(arr, requires_grad) == _expected(arr, requires_grad)


def test_grad_fn_suffix():
    x = torch.tensor([1.5, -2.0, 3.25], dtype=torch.float64, requires_grad=True)
    y = x * 2
    arr = y.detach().numpy()
    got = format_tensor(arr, "float64", is_default_float=False, suffixes=["grad_fn=<MulBackward0>"])
    assert got == repr(y)


def test_suffix_wraps_to_new_line():
    # A last line close to the width forces the suffixes onto their own lines.
    y = torch.arange(11, dtype=torch.float64) * 1.5 - 3
    y = y.requires_grad_() * 1
    arr = y.detach().numpy()
    got = format_tensor(arr, "float64", is_default_float=False, suffixes=["grad_fn=<MulBackward0>"])
    assert got == repr(y)
    assert "\n" in got


def test_default_options_match():
    assert get_printoptions() == torch._tensor_str.get_printoptions()


OPTION_SETS = [
    {"precision": 2},
    {"precision": 7},
    {"sci_mode": False},
    {"sci_mode": True},
    {"linewidth": 40},
    {"linewidth": 120, "precision": 1},
    {"threshold": 10},
    {"threshold": 5, "edgeitems": 1},
    {"threshold": 5, "edgeitems": 0},
    {"profile": "full"},
    {"profile": "short"},
    {"profile": "short", "precision": 6, "sci_mode": True},
]


@pytest.mark.parametrize("options", OPTION_SETS, ids=[str(o) for o in OPTION_SETS])
def test_printoptions_parity(options, restore_print_options):
    torch.set_printoptions(**options)
    set_printoptions(**options)
    assert get_printoptions() == torch._tensor_str.get_printoptions()
    for name, arr, requires_grad in CASES:
        assert _actual(arr, requires_grad) == _expected(arr, requires_grad), name


def test_full_profile_has_infinite_threshold(restore_print_options):
    set_printoptions(profile="full")
    assert math.isinf(get_printoptions()["threshold"])
    text = format_tensor(np.arange(2000, dtype=np.int64), "int64", is_default_float=False)
    assert "..." not in text
    set_printoptions(profile="default")
    assert get_printoptions() == {
        "precision": 4,
        "threshold": 1000,
        "edgeitems": 3,
        "linewidth": 80,
        "sci_mode": None,
    }


def test_prefix_sets_continuation_indent():
    arr = np.arange(6, dtype=np.float32).reshape(2, 3)
    text = format_tensor(arr, "float32", is_default_float=True, prefix="Param(")
    assert text == "Param([[0., 1., 2.],\n       [3., 4., 5.]])"


def test_dtype_suffix_wraps_as_torch_does(restore_print_options):
    # "dtype=retrograd.float64" is 4 characters longer than torch's spelling;
    # the wrap decision must still follow torch's so outputs stay identical.
    arr = np.array([0.35, 0.82, 0.33, -1.30, 0.91, 0.45, -0.54])
    torch.set_printoptions(precision=2)
    set_printoptions(precision=2)
    got = format_tensor(arr, "float64", is_default_float=False)
    assert got == "tensor([ 0.35,  0.82,  0.33, -1.30,  0.91,  0.45, -0.54], dtype=torch.float64)"
    assert got == _expected(arr)


def test_printoptions_context_manager():
    from retrograd._printing import printoptions

    with printoptions(precision=1, sci_mode=False):
        assert get_printoptions()["precision"] == 1
        assert format_tensor(np.array([1.25], np.float32), "float32", is_default_float=True) == "tensor([1.2])"
    assert get_printoptions()["precision"] == 4
    assert get_printoptions()["sci_mode"] is None


# ---------------------------------------------------------------- 7. names, reprs, storage, operators
def test_size_and_device_classes_print_as_public_names():
    assert repr(type(rg.ones(2, 3).shape)) == repr(type(torch.ones(2, 3).shape)).replace("torch", "retrograd")
    assert repr(type(rg.device("cpu"))) == "<class 'retrograd.device'>"
    import pickle

    assert pickle.loads(pickle.dumps(rg.ones(2, 3).shape)) == (2, 3)


def test_tensor_subclass_repr_uses_the_class_name():
    def run(T):
        My = type("My", (T.Tensor,), {})
        x = T.ones(3, 4).as_subclass(My)
        return repr(x), repr(T.nn.Parameter(T.ones(2))), repr(T.ones(2, 2)), str(x)
    assert run(rg) == run(torch)
