"""Tensor-op behaviours that PyTorch's own view / indexing / type-promotion / shape-op test files
exercise (see docs/compatibility.md, "PyTorch's tensor-op test files"), checked against torch.

Every check runs the same code on retrograd and on torch and compares values, dtypes, strides,
exception types and messages.
"""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from parity import assert_equal_to_torch_kernel  # noqa: E402

LIBS = (retrograd, torch)


def _np(t):
    return t.detach().numpy() if hasattr(t, "detach") else np.asarray(t)


def _name(d) -> str:
    return str(d).split(".")[-1]


def _outcome(fn):
    """(exception type name, message) or ("ok", value summary) of ``fn()``."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return type(e).__name__, str(e)
    if hasattr(r, "shape") and hasattr(r, "dtype"):
        return "ok", (tuple(r.shape), _name(r.dtype), _np(r).tolist())
    return "ok", r


def _same(make):
    """``make(lib)`` returns a thunk; both libraries must give the same outcome."""
    ours, theirs = (_outcome(make(lib)) for lib in LIBS)
    assert ours == theirs


# ---------------------------------------------------------------------------- view(dtype)
VIEW_INPUTS = {
    "contiguous": lambda lib, dt: lib.arange(4 * 4 * 8).reshape(4, 4, 8).to(dt),
    "permuted": lambda lib, dt: lib.arange(4 * 8 * 4).reshape(4, 8, 4).to(dt).permute(2, 0, 1),
    "sliced": lambda lib, dt: lib.arange(2 * 5 * 16).reshape(2, 5, 16).to(dt)[1:, 1:, 4:],
    "expanded": lambda lib, dt: lib.arange(5).reshape(1, 5, 1).to(dt).expand(3, 5, 8),
    "empty": lambda lib, dt: lib.zeros(0, 5, 8, dtype=dt),
    "scalar": lambda lib, dt: lib.tensor(3).to(dt),
}
VIEW_DTYPES = ["uint8", "int16", "int32", "int64", "float16", "float32", "float64", "bool"]


@pytest.mark.parametrize("src", ["int16", "int32", "float32", "float64", "uint8"])
@pytest.mark.parametrize("case", sorted(VIEW_INPUTS))
def test_view_dtype_matches_torch(case, src):
    for dst in VIEW_DTYPES:
        outs = []
        for lib in LIBS:
            a = VIEW_INPUTS[case](lib, getattr(lib, src))
            try:
                v = a.view(getattr(lib, dst))
            except RuntimeError as e:
                outs.append(("err", str(e)))
                continue
            assert v.data_ptr() == a.data_ptr() and not v.requires_grad
            # (bytes, not values: reinterpreted bits may be NaN)
            outs.append((tuple(v.shape), v.stride(), np.ascontiguousarray(_np(v)).tobytes()))
        assert outs[0] == outs[1], (case, src, dst)


def test_view_dtype_upsize_errors_and_element_size():
    for lib in LIBS:
        assert lib._utils._element_size(lib.float64) == 8 and lib._utils._element_size(lib.bfloat16) == 2
    _same(lambda lib: lambda: lib.zeros(4, 4, 3, dtype=lib.int16)[:, :, 1:].view(lib.int32))
    _same(lambda lib: lambda: lib.zeros(4, 4, 2, dtype=lib.int16).as_strided((4, 4, 2), (2, 1, 1)).view(lib.int32))


# ---------------------------------------------------------------------------- make_tensor
def test_make_tensor_scalar_noncontiguous_and_exclude_zero_match_torch():
    for kwargs in ({"dtype": "float32", "noncontiguous": True}, {"dtype": "int64", "noncontiguous": True,
                                                                 "exclude_zero": True, "low": -1, "high": 2},
                   {"dtype": "float64"}):
        outs = []
        for lib in LIBS:
            lib.manual_seed(3)
            kw = dict(kwargs, dtype=getattr(lib, kwargs["dtype"]))
            t = lib.testing.make_tensor((3, 4), device="cpu", **kw)
            outs.append((_np(t), t.is_contiguous(), t.stride()))
        assert outs[0][1:] == outs[1][1:]
        assert_equal_to_torch_kernel(outs[0][0], outs[1][0])  # (uniform(low, high): a multiply-add)
    for lib in LIBS:
        assert lib.testing.make_tensor((), dtype=lib.float32, device="cpu").shape == ()


# ---------------------------------------------------------------------------- keyword spellings
KW_CASES = {
    "zeros_size": lambda lib: lib.zeros(size=(2, 3)),
    "rand_size": lambda lib: lib.rand(size=(2,)).shape,
    "empty_size": lambda lib: lib.empty(size=(1, 2)).shape,
    "new_zeros_size": lambda lib: lib.ones(2).new_zeros(size=(2, 1)),
    "new_ones_size": lambda lib: lib.ones(2).new_ones(size=(3,)),
    "view_size": lambda lib: lib.arange(6).view(size=(3, 2)),
    "reshape_shape": lambda lib: lib.reshape(lib.arange(6), shape=(2, 3)),
    "permute_dims": lambda lib: lib.arange(6).view(2, 3).permute(dims=(1, 0)),
    "tpermute_dims": lambda lib: lib.permute(lib.arange(6).view(2, 3), dims=(1, 0)),
    "expand_size": lambda lib: lib.arange(3).view(1, 3).expand(size=(2, 3)),
    "repeat_repeats": lambda lib: lib.arange(3).repeat(repeats=(2, 1)),
    "flip_dims": lambda lib: lib.flip(lib.arange(6).view(2, 3), dims=(0,)),
    "flip_method_dims": lambda lib: lib.arange(6).view(2, 3).flip(dims=(0, 1)),
    "flip_missing": lambda lib: lib.arange(3).flip(),
    "tflip_missing": lambda lib: lib.flip(lib.arange(3)),
    "randint_high": lambda lib: lib.randint(high=3, size=(4,)).shape,
    "dtype_float": lambda lib: lib.zeros(2, dtype=float),
    "dtype_int": lambda lib: lib.arange(3, dtype=int),
    "dtype_bool": lambda lib: lib.tensor([1, 0], dtype=bool),
    "randn_float": lambda lib: _name(lib.randn(2, dtype=float).dtype),
    "to_float": lambda lib: lib.ones(2).to(float),
    "to_kw_int": lambda lib: lib.ones(2).to(dtype=int),
    "ones_like_float": lambda lib: lib.ones_like(lib.ones(2), dtype=float),
    "full_int": lambda lib: lib.full((2,), 3, dtype=int),
    "new_zeros_float": lambda lib: lib.ones(2).new_zeros(2, dtype=float),
}


@pytest.mark.parametrize("name", sorted(KW_CASES))
def test_keyword_and_python_type_arguments_match_torch(name):
    _same(lambda lib: lambda: KW_CASES[name](lib))


# ---------------------------------------------------------------------------- out= dtype rules
OUT_CASES = {
    "add_float_into_long": lambda lib: lib.add(lib.ones(3), lib.ones(3), out=lib.zeros(3, dtype=lib.long)),
    "add_float_into_double": lambda lib: lib.add(lib.ones(3), lib.ones(3), out=lib.zeros(3, dtype=lib.double)),
    "add_int_into_float": lambda lib: lib.add(lib.arange(3), 1, out=lib.zeros(3)),
    "true_divide_into_long": lambda lib: lib.true_divide(lib.arange(1, 4), 2, out=lib.zeros(3, dtype=lib.long)),
    "mul_into_bool": lambda lib: lib.mul(lib.arange(3), 2, out=lib.zeros(3, dtype=lib.bool)),
    "exp_into_long": lambda lib: lib.exp(lib.ones(3), out=lib.zeros(3, dtype=lib.long)),
    "exp_int_into_float": lambda lib: lib.exp(lib.zeros(3, dtype=lib.long), out=lib.zeros(3)),
    "sqrt_into_double": lambda lib: lib.sqrt(lib.ones(3), out=lib.zeros(3, dtype=lib.double)),
    "neg_into_double": lambda lib: lib.neg(lib.ones(3), out=lib.zeros(3, dtype=lib.double)),
    "abs_into_long": lambda lib: lib.abs(lib.ones(3), out=lib.zeros(3, dtype=lib.long)),
    "ceil_into_double": lambda lib: lib.ceil(lib.ones(3), out=lib.zeros(3, dtype=lib.double)),
    "round_int_into_float": lambda lib: lib.round(lib.arange(3), out=lib.zeros(3)),
    "clamp_into_long": lambda lib: lib.clamp(lib.ones(3), 0, 1, out=lib.zeros(3, dtype=lib.long)),
    "where_into_long": lambda lib: lib.where(lib.ones(3, dtype=lib.bool), lib.ones(3), lib.ones(3),
                                             out=lib.zeros(3, dtype=lib.long)),
    "lt_into_float": lambda lib: lib.lt(lib.ones(3), 2, out=lib.zeros(3)),
    "pow_into_long": lambda lib: lib.pow(lib.ones(3), 2, out=lib.zeros(3, dtype=lib.long)),
    "diagonal_copy_out": lambda lib: lib.diagonal_copy(lib.arange(4.).view(2, 2), out=lib.zeros(2)),
    "nonzero_tuple_out": lambda lib: lib.nonzero(lib.ones(2), as_tuple=True, out=lib.zeros(0, dtype=lib.long)),
}


@pytest.mark.parametrize("name", sorted(OUT_CASES))
def test_out_dtype_rules_match_torch(name):
    _same(lambda lib: lambda: OUT_CASES[name](lib))


# ---------------------------------------------------------------------------- views and storages
def test_expand_strides_match_torch():
    for make, size in ((lambda lib: lib.rand(5), (1, 1, 5)), (lambda lib: lib.rand(5), (1, 2, 5)),
                       (lambda lib: lib.rand(3, 1), (1, 3, 4)), (lambda lib: lib.tensor(5.), (3, 1)),
                       (lambda lib: lib.rand(4, 6)[:, ::2], (1, 4, 3))):
        ours, theirs = (make(lib).expand(*size).stride() for lib in LIBS)
        assert ours == theirs


def test_strided_views_share_the_base_storage():
    t = retrograd.ones(3, 3, 3)
    for v in (retrograd.diagonal(t, offset=1, dim1=1, dim2=2), t.expand(2, 3, 3, 3), t.view(-1).unfold(0, 3, 2)):
        assert v.untyped_storage().data_ptr() == t.untyped_storage().data_ptr()
        assert v.untyped_storage().nbytes() == t.untyped_storage().nbytes()


def test_set_views_a_storage_like_torch():
    outs = []
    for lib in LIBS:
        ref = lib.arange(0.0, 24).view(3, 8)
        s = lib.tensor(())
        s.set_(ref.untyped_storage(), 10, size=lib.Size([2, 2]), stride=[7, 1])
        s[0, 1] = -1
        s[lib.tensor([1]), lib.tensor([0])] = -2
        x = lib.ones(1, 4, 2, 2)
        x.set_(x.untyped_storage(), 0, x.size(), [20, 4, 2, 1])
        outs.append((_np(s).tolist(), s.stride(), _np(ref).ravel().tolist(), x.is_contiguous(), x.stride()))
    assert outs[0] == outs[1]
    _same(lambda lib: lambda: lib.tensor(()).set_(lib.arange(5.).untyped_storage(), 1, (2, 2), (1, 1)))
    _same(lambda lib: lambda: lib.tensor(()).set_(lib.arange(5.).untyped_storage(), 1, (3,)))


def test_resize_overflow_and_memory_format_match_torch():
    _same(lambda lib: lambda: lib.empty((), dtype=lib.float64).resize_([2, 4, 2 ** 29, 2 ** 29]))
    _same(lambda lib: lambda: lib.empty((), dtype=lib.float64).resize_([8, 8, 2 ** 29, 2 ** 29]))
    _same(lambda lib: lambda: lib.zeros(96).resize_((2, 3, 4, 4), memory_format=lib.channels_last).stride())
    for fmt in ("preserve_format", "contiguous_format"):
        _same(lambda lib: lambda: lib.zeros(96).resize_as_(lib.zeros(2, 3, 4, 4).contiguous(
            memory_format=lib.channels_last), memory_format=getattr(lib, fmt)).stride())
    _same(lambda lib: lambda: lib.zeros(96).resize_as_(
        lib.zeros(2, 3, 4, 4).contiguous(memory_format=lib.channels_last)).stride())
    _same(lambda lib: lambda: lib.empty(2, 3).t().resize_as_(lib.empty(2, 3).t()).stride())


# ---------------------------------------------------------------------------- indexing
INDEX_CASES = {
    "range_pair": lambda lib: lib.arange(16.).view(4, 4)[range(4), range(4)],
    "list_of_32_ranges": lambda lib: lib.arange(100.)[[range(i, i + 3) for i in range(32)]].shape,
    "list_of_31_ranges": lambda lib: lib.arange(100.)[[range(i, i + 3) for i in range(31)]],
    "index_fill_complex": lambda lib: lib.zeros(2, 2).index_fill_(1, lib.tensor([0]), 1 + 1j),
    "index_fill_uint8_wraps": lambda lib: lib.ones(2, dtype=lib.uint8).index_fill(0, lib.tensor([0]), -1),
    "index_fill_int8_overflow": lambda lib: lib.ones(2, dtype=lib.int8).index_fill(0, lib.tensor([0]), 300),
    "unravel_float_shape": lambda lib: lib.unravel_index(lib.tensor([1]), (1, 2, 2.0)),
    "unravel_negative": lambda lib: lib.unravel_index(lib.tensor(0), (2, -3)),
    "narrow_float_start": lambda lib: lib.arange(9).view(3, 3).narrow(0, lib.tensor(0.), 1),
    "narrow_1d_start": lambda lib: lib.arange(9).view(3, 3).narrow(0, lib.tensor([0]), 1),
    "narrow_0d_start": lambda lib: lib.arange(9).view(3, 3).narrow(0, lib.tensor(1), 1),
}


@pytest.mark.parametrize("name", sorted(INDEX_CASES))
def test_indexing_cases_match_torch(name):
    _same(lambda lib: lambda: INDEX_CASES[name](lib))


def test_uint8_masks_warn_once_per_index_like_torch():
    counts = []
    for lib in LIBS:
        m = lib.tensor([1, 0, 1], dtype=lib.uint8)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            a = lib.arange(3.)[m]
            b = lib.zeros(3, 3)[m, :, None]
            lib.zeros(3).index_put_((m,), lib.tensor([2., 3.]))
        counts.append((len([x for x in w if "uint8" in str(x.message)]), _np(a).tolist(), tuple(b.shape)))
    assert counts[0] == counts[1]


def test_deleting_items_is_a_type_error():
    msgs = []
    for lib in LIBS:
        x = lib.zeros(2)
        with pytest.raises(TypeError) as e:
            del x[0]
        msgs.append(str(e.value))
    assert msgs[0] == msgs[1]


# ---------------------------------------------------------------------------- shape ops
SHAPE_CASES = {
    "unfold_0d_empty": lambda lib: lib.tensor(0.5).unfold(0, 0, 1),
    "unfold_0d_one": lambda lib: lib.tensor(0.5).unfold(0, 1, 2),
    "trace_uint8": lambda lib: lib.full((3, 3), 200, dtype=lib.uint8).trace(),
    "trace_int8": lambda lib: lib.full((3, 3), 100, dtype=lib.int8).trace(),
    "broadcast_shapes_negative": lambda lib: lib.broadcast_shapes((1, -12)),
    "broadcast_shapes_negative_later": lambda lib: lib.broadcast_shapes((3, 5), (2, -4)),
    "broadcast_shapes_mismatch": lambda lib: lib.broadcast_shapes((3,), (5,)),
    "imag_of_real": lambda lib: lib.imag(lib.ones(2)),
    "imag_attr_of_real": lambda lib: lib.ones(2).imag,
    "view_as_real_of_real": lambda lib: lib.view_as_real(lib.ones(2)),
    "view_as_complex_0d": lambda lib: lib.view_as_complex(lib.tensor(2.)),
    "view_as_complex_last_3": lambda lib: lib.view_as_complex(lib.ones(2, 3)),
    "view_as_complex_stride": lambda lib: lib.view_as_complex(lib.ones(2, 2).t()),
    "view_as_complex_odd_stride": lambda lib: lib.view_as_complex(lib.ones(3, 3).as_strided((2, 2), (1, 1))),
    "view_as_complex_int": lambda lib: lib.view_as_complex(lib.ones(2, 2, dtype=lib.int32)),
    "sparse_dim": lambda lib: lib.ones(2, 3).sparse_dim(),
    "dense_dim": lambda lib: lib.ones(2, 3).dense_dim(),
}


@pytest.mark.parametrize("name", sorted(SHAPE_CASES))
def test_shape_cases_match_torch(name):
    _same(lambda lib: lambda: SHAPE_CASES[name](lib))


# ---------------------------------------------------------------------------- unsupported dtypes as names
@pytest.mark.parametrize("name", ["complex32", "complex64", "complex128", "cfloat", "cdouble", "chalf",
                                  "float8_e4m3fn", "float8_e5m2", "quint8", "qint8", "qint32"])
def test_unsupported_dtypes_exist_as_names_only(name):
    ours, theirs = getattr(retrograd, name), getattr(torch, name)
    assert _name(ours) == _name(theirs)
    assert (ours.is_complex, ours.is_floating_point, ours.itemsize) == \
           (theirs.is_complex, theirs.is_floating_point, theirs.itemsize)
    assert retrograd.ones(2).dtype != ours
    with pytest.raises(TypeError, match="retrograd does not support"):
        retrograd.zeros(2, dtype=ours)
    with pytest.raises(TypeError, match="retrograd does not support"):
        retrograd.ones(2).to(ours)


def test_device_tests_skip_variants_of_unsupported_dtypes():
    import unittest

    from retrograd.testing._internal.common_device_type import dtypes, instantiate_device_type_tests
    from retrograd.testing._internal.common_utils import TestCase

    class TestDtypeVariants(TestCase):
        @dtypes(retrograd.float32, retrograd.complex64)
        def test_it(self, device, dtype):
            self.assertIs(dtype, retrograd.float32)

    scope: dict = {"TestDtypeVariants": TestDtypeVariants}
    instantiate_device_type_tests(TestDtypeVariants, scope)
    cls = scope["TestDtypeVariantsCPU"]
    result = unittest.TestResult()
    unittest.defaultTestLoader.loadTestsFromTestCase(cls).run(result)
    assert result.testsRun == 2 and not result.failures and not result.errors
    assert [t.id().split(".")[-1] for t, _ in result.skipped] == ["test_it_cpu_complex64"]


def test_legacy_and_backend_test_names():
    from retrograd.testing._internal import common_device_type as ours_cdt
    from retrograd.testing._internal import common_utils as ours_cu

    # (torch's common_utils computes it so; importing that module needs expecttest)
    assert ours_cu.TEST_PRIVATEUSE1_DEVICE_TYPE == torch._C._get_privateuse1_backend_name()
    assert ours_cdt.onlyOnCPUAndCUDA is ours_cdt.onlyNativeDeviceTypes


# ---------------------------------------------------------------------------- torch.accelerator
@pytest.mark.parametrize("name", ["is_available", "device_count", "current_accelerator", "current_device_index",
                                  "synchronize", "current_stream", "memory_allocated", "empty_cache",
                                  "set_device_index"])
def test_accelerator_api_matches_torch_without_accelerator(name):
    _same(lambda lib: lambda: getattr(lib.accelerator, name)())


def test_accelerator_device_index_context():
    for lib in LIBS:
        with lib.accelerator.device_index(None):
            pass
        with pytest.raises(RuntimeError, match="none is available"):
            with lib.accelerator.device_index(0):
                pass
