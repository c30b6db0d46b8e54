"""Regressions found by running PyTorch's test/test_torch.py (TestTorch) on retrograd.

Each test runs the same code on retrograd and on torch 2.13 (the oracle) and compares values,
exception types and messages.
"""
from __future__ import annotations

import copy
import importlib
import math
import sys
import unittest
import warnings

import numpy as np
import pytest

import retrograd as rg
from parity import same, same_error, same_repr

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ Tensor protocol
def test_contains_tensor_and_scalar():
    def scenario(T, log):
        x = T.arange(1, 10).view(3, 3)
        log(4 in x, 12 in x, T.arange(1, 4) in x, (T.arange(1, 4) + 10) in x, 2.0 in x, True in T.tensor([1]))
    same(scenario)


@pytest.mark.parametrize("bad", ["foo", [1, 2], None])
def test_contains_rejects_other_types(bad):
    same_error(lambda T: bad in T.arange(3))


def test_reversed_flips_dim0_and_keeps_0d():
    same_repr(lambda T: [reversed(T.arange(0, 10)), reversed(T.arange(1, 10).view(3, 3)), reversed(T.tensor(42))])
    x = rg.tensor(3.)
    assert reversed(x) is x  # a 0-d tensor is its own reverse, as in torch


def test_data_ptr_of_empty_tensors_is_zero():
    for T in (rg, torch):
        t = T.empty((2, 2))
        assert t.data_ptr() != 0
        assert t[0:0].view(0, 1).data_ptr() == 0
        t.resize_((0, 2))
        assert t.data_ptr() == 0


def test_apply_map_map2():
    def scenario(T, log):
        x = T.arange(1, 6)
        log(x.clone().apply_(lambda k: k + k), x.clone().apply_(lambda k: 2.7))
        a, b, c = T.ones(3, 3, dtype=T.float64), T.arange(3.).double(), T.full((1, 3), 2., dtype=T.float64)
        log(a.clone().map_(b, lambda u, v: u + v), a.clone().map2_(b, c, lambda u, v, w: u + v * w))
    same(scenario)


@pytest.mark.parametrize("case", ["int_str", "float_str", "map2_grad"])
def test_apply_map2_errors(case):
    def f(T):
        if case == "int_str":
            T.arange(1, 6).apply_(lambda k: "str")
        elif case == "float_str":
            T.ones(2).apply_(lambda k: "str")
        else:
            T.ones(3).map2_(T.ones(3), T.ones(3, requires_grad=True), lambda a, b, c: a)
    same_error(f)


def test_as_subclass_of_a_non_tensor_class():
    same_error(lambda T: T.tensor(0).as_subclass(int))


def test_pin_memory_without_accelerator_raises():
    same_error(lambda T: T.randn(3).pin_memory())


# ------------------------------------------------------------------ argument parsing
def test_size_accepts_numpy_and_tensor_integers():
    for size in [(np.array(3), np.int64(4)), (np.int64(3), np.array(4))]:
        assert tuple(rg.ones(size).shape) == tuple(torch.ones(size).shape) == (3, 4)
        assert tuple(rg.ones(*size).shape) == (3, 4)
    assert tuple(rg.ones(rg.tensor(3), rg.tensor(4)).shape) == (3, 4)


@pytest.mark.parametrize("args", [
    lambda T: ((T.tensor(3.), T.tensor(4)),), lambda T: ((3., T.tensor(4)),), lambda T: ((np.array(3.), 4),),
    lambda T: (2, "a"), lambda T: ((2, "a"),), lambda T: (3.,), lambda T: ("a",), lambda T: (True,)])
def test_size_errors(args):
    same_error(lambda T: T.ones(*args(T)))


def test_close_tolerances_given_as_tensors():
    same_repr(lambda T: [T.isclose(T.ones(2), T.ones(2) + 1, T.tensor(1), T.tensor(1)),
                         T.isclose(T.ones(2), T.ones(2) * 2, T.tensor(0.4), 0.1),
                         T.allclose(T.ones(2), T.ones(2), T.tensor(1.5), T.tensor(1.))])


@pytest.mark.parametrize("tols", [lambda T: (T.tensor(1.5), T.tensor(1., requires_grad=True)),
                                  lambda T: (T.tensor([1.5, 2.]), 1.), lambda T: ("a", 1.)])
def test_close_tolerance_errors(tols):
    same_error(lambda T: T.isclose(T.ones(2), T.ones(2), *tols(T)))


def test_dim_given_as_integer_tensor():
    same_repr(lambda T: T.cumsum(T.ones(3, 3), T.tensor(0)))
    for T in (rg, torch):
        with pytest.raises(TypeError):
            T.cumsum(T.ones(5, 5), T.tensor(0.))


@pytest.mark.parametrize("case", ["zero_dim", "ambiguous", "str_dim", "empty_sizes", "not_multiply"])
def test_unflatten_errors(case):
    calls = {"zero_dim": lambda T: T.tensor(1).unflatten(0, [0]),
             "ambiguous": lambda T: T.randn(2, 0).unflatten(1, (2, -1, 0)),
             "str_dim": lambda T: T.tensor([1]).unflatten("A", (1, 1)),
             "empty_sizes": lambda T: T.tensor([1]).unflatten(0, []),
             "not_multiply": lambda T: T.tensor([1]).unflatten(0, [2, 2])}
    theirs = type_and_first_lines(torch, calls[case])
    assert type_and_first_lines(rg, calls[case]) == theirs


def type_and_first_lines(T, f):
    """Exception type and message without torch's C++ backtrace (it follows "Exception raised from")."""
    try:
        f(T)
    except Exception as e:  # noqa: BLE001 - compared across libraries
        return type(e).__name__, str(e).split("\nException raised from")[0]
    return None


def test_unflatten_with_inferred_size_of_empty_dim():
    same_repr(lambda T: T.randn(2, 0).unflatten(1, (2, -1)).shape)


# ------------------------------------------------------------------ devices, memory formats, settings
@pytest.mark.parametrize("spec", ["cpu:-1", "cuda:-1", "cuda:2 ", "cuda: 2", "cuda:2 2", "cuda:2.", "cuda:?2",
                                  "cuda:", "cuda:2.232", "cuda:2cuda:3", "cuda:01", " cpu", "other", "CPU"])
def test_invalid_device_strings(spec):
    same_error(lambda T: T.device(spec))


@pytest.mark.parametrize("args", [(-1,), (0,), ("cpu", -1), ("cpu:0", 1)])
def test_device_index_errors(args):
    same_error(lambda T: T.device(*args))


def test_valid_device_strings():
    for spec in ["cpu", "cpu:0", "cuda", "cuda:1", "cuda:90", "meta"]:
        assert repr(rg.device(spec)) == repr(torch.device(spec)) and str(rg.device(spec)) == spec


@pytest.mark.parametrize("shape,fmt", [((4, 3, 2, 5), "channels_last"), ((2, 3, 1, 1), "channels_last"),
                                       ((2, 3, 4, 1, 2), "channels_last_3d"), ((3, 3), "contiguous_format")])
def test_empty_with_memory_format(shape, fmt):
    ours, theirs = rg.empty(shape, memory_format=getattr(rg, fmt)), torch.empty(shape, memory_format=getattr(torch, fmt))
    assert ours.stride() == theirs.stride()
    assert ours.is_contiguous(memory_format=getattr(rg, fmt))


@pytest.mark.parametrize("shape,fmt", [((3, 3), "channels_last"), ((3, 3, 3), "channels_last_3d"),
                                       ((3, 3), "preserve_format")])
def test_empty_with_memory_format_errors(shape, fmt):
    same_error(lambda T: T.empty(shape, memory_format=getattr(T, fmt)))


def test_deterministic_flag_round_trip():
    before = (rg.are_deterministic_algorithms_enabled(), rg.is_deterministic_algorithms_warn_only_enabled())
    try:
        for det in (True, False):
            for warn_only in (True, False):
                rg.use_deterministic_algorithms(det, warn_only=warn_only)
                assert rg.are_deterministic_algorithms_enabled() is det
                assert rg.is_deterministic_algorithms_warn_only_enabled() is warn_only
                assert rg.get_deterministic_debug_mode() == (0 if not det else 1 if warn_only else 2)
    finally:
        rg.use_deterministic_algorithms(before[0], warn_only=before[1])


@pytest.mark.parametrize("call", [lambda T: T.use_deterministic_algorithms(1),
                                  lambda T: T.use_deterministic_algorithms(False, warn_only=1)])
def test_deterministic_flag_type_errors(call):
    same_error(call)


def test_check_functions():
    for name, err in [("_check", RuntimeError), ("_check_index", IndexError), ("_check_value", ValueError),
                      ("_check_type", TypeError), ("_check_not_implemented", NotImplementedError)]:
        getattr(rg, name)(True)
        for args in [(False,), (False, lambda: "message"), (False, lambda: f"x {rg.arange(3)}")]:
            with pytest.raises(err) as ours:
                getattr(rg, name)(*args)
            with pytest.raises(err) as theirs:
                getattr(torch, name)(*[a if not callable(a) else (lambda: a().replace("retrograd", "torch"))
                                       for a in args])
            assert str(ours.value) == str(theirs.value)
        same_error(lambda T: getattr(T, name)("wrong type"))
        with pytest.raises(TypeError, match="cond must be a bool"):
            getattr(rg, name)(rg.tensor(True))


def test_debug_has_internal_overlap():
    def scenario(T, log):
        log([T._debug_has_internal_overlap(x) for x in (
            T.randn(3, 3), T.randn(1, 3).expand(4, 3), T.randn(10).as_strided([2, 1, 5], [1, 0, 2]),
            T.randn(2, 1, 10)[::2].as_strided((2, 1, 5), (10, 0, 2)), T.randn(4, 5).t(), T.randn(4, 6)[:, ::2],
            T.randn(0, 3), T.randn(3, 1).expand(3, 0), T.randn(2, 3, 4).permute(2, 0, 1), T.tensor(1.))])
    same(scenario)


@pytest.mark.parametrize("value", [[], [0, 0], 0, 0.0, False])
def test_assert_async_errors(value):
    same_error(lambda T: T._assert_async(T.tensor(value)))


def test_assert_async_passes():
    for v in (1, 0.1, -0.1, True):
        rg._assert_async(rg.tensor(v))


# ------------------------------------------------------------------ legacy constructors and dtypes
def test_tensor_new_variants():
    def scenario(T, log):
        x, y = T.tensor([]), T.randn(4, 4)
        z = T.IntTensor([1, 2, 3])
        log(x.new().shape, x.new(1, 2).shape, x.new(T.Size([3, 4])).shape, x.new([3, 4]).tolist(),
            x.new((3, 4)).tolist(), x.new([np.int32(3), np.float64(4)]).tolist(), x.new(np.array((3, 4))).tolist(),
            x.new([z[2], z[0] + 3]).tolist(), x.new(size=(3, 4)).shape, x.new(()).shape)
        log(x.new(y).data_ptr() == y.data_ptr(), x.new(y) is y)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            log(x.new(y.storage()).data_ptr() == y.data_ptr())
    same(scenario)


def test_tensor_new_dtype_errors():
    with pytest.raises(TypeError):
        rg.tensor([]).new(rg.IntTensor([1, 2]))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda T: T.tensor([]).new(T.IntTensor([1]).storage()))
        same_error(lambda T: T.LongTensor(T.IntTensor([1]).storage()))
        same_error(lambda T: T.tensor([1.]).set_(T.randn(2, dtype=T.float64).storage()))
        same_error(lambda T: T.tensor([1], dtype=T.int16).set_(T.randn(2, dtype=T.float64).storage()))


def test_legacy_classes_cannot_be_subclassed():
    def f(T):
        class Foo(T.FloatTensor):
            pass
    same_error(f)


def test_cuda_legacy_classes_and_default_type():
    same_error(lambda T: T.cuda.FloatTensor())
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        same_error(lambda T: T.set_default_tensor_type(T.cuda.FloatTensor))
    assert rg.get_default_dtype() is rg.float32


@pytest.mark.parametrize("name", ["quint8", "qint8", "qint32"])
def test_quantized_dtype_is_signed_raises(name):
    same_error(lambda T: getattr(T, name).is_signed)


def test_is_signed_of_other_dtypes():
    for name in ["float32", "float64", "float16", "bfloat16", "int8", "uint8", "int64", "bool", "complex64"]:
        assert getattr(rg, name).is_signed == getattr(torch, name).is_signed


def test_copy_of_dtypes_is_the_same_object():
    for d in (rg.float32, rg.int64, rg.bool, rg.complex64):
        assert copy.deepcopy(d) is d


def test_return_types_repr_names_torch():
    same_repr(lambda T: T.arange(250).reshape(5, 5, 10).max(1))
    same_error(lambda T: T.return_types.max((1,)))


def test_conv_dtype_mismatch_message():
    F = "nn.functional"
    for xd, wd in [("long", "double"), ("float", "double"), ("double", "float"), ("int", "double")]:
        same_error(lambda T: importlib.import_module(f"{T.__name__}.{F}").conv2d(
            T.zeros(1, 1, 1, 6, dtype=getattr(T, xd)), T.zeros(1, 1, 1, 3, dtype=getattr(T, wd))))


# ------------------------------------------------------------------ storages
def test_storage_identity_after_set_and_sizeof():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t1, t2 = rg.tensor([]), rg.empty(3, 4).uniform_()
        t1.set_(t2)
        assert t1.storage()._cdata == t2.storage()._cdata
        assert rg.zeros(3).storage()._cdata != rg.zeros(3).storage()._cdata
        sizes = [rg.randn(n).storage().__sizeof__() for n in (0, 10, 100)]
        assert (sizes[2] - sizes[0]) // (sizes[1] - sizes[0]) == 10


def test_storage_module_warning_switches():
    from retrograd.testing._internal.common_utils import AlwaysWarnTypedStorageRemoval

    assert rg.storage._dtype_to_storage_type_map()[rg.float32] == "FloatStorage"
    with AlwaysWarnTypedStorageRemoval(True):
        for _ in range(2):
            with warnings.catch_warnings(record=True) as w:
                warnings.simplefilter("always")
                rg.randn(2).storage()
            assert len(w) == 1 and str(w[0].message).startswith("TypedStorage is deprecated")
    assert rg.storage._get_always_warn_typed_storage_removal() is False


# ------------------------------------------------------------------ torch.cuda / torch.backends / misc modules
def test_cuda_package_answers_like_a_cpu_build():
    import retrograd.cuda

    assert retrograd.cuda is rg.cuda and not rg.cuda.is_available() and rg.cuda.device_count() == 0
    for name in ["current_device", "get_device_name", "get_device_capability", "get_sync_debug_mode"]:
        same_error(lambda T: getattr(T.cuda, name)())
    same_error(lambda T: T.cuda.Event())
    assert rg.cuda.memory_allocated() == torch.cuda.memory_allocated() == 0


def test_backends_submodules_import():
    for sub in ["cuda", "cudnn", "mps", "cpu", "quantized", "mkldnn"]:
        mod = importlib.import_module(f"retrograd.backends.{sub}")
        assert getattr(rg.backends, sub) is mod
    assert rg.backends.cuda.is_built() is torch.backends.cuda.is_built() is False
    assert isinstance(rg.backends.cpu.get_cpu_capability(), str)
    q = rg.backends.quantized
    old = q.engine
    for e in q.supported_engines:
        q.engine = e
        assert q.engine == e
    q.engine = old
    with pytest.raises(RuntimeError):
        q.engine = "no-such-engine"
    with rg.backends.cudnn.flags(enabled=False):
        assert rg.backends.cudnn.enabled is False
    assert rg.backends.cudnn.enabled is True


def test_multiprocessing_config_and_c_warnings():
    import retrograd.multiprocessing as mp

    assert mp.Pool is __import__("multiprocessing").Pool
    assert rg.__config__.parallel_info().startswith("ATen/Parallel:")
    assert isinstance(rg.__config__.show(), str)
    for fn, cat, text in [(rg._C._warn, UserWarning, "Test message for TORCH_WARN"),
                          (rg._C._warn_deprecation, DeprecationWarning, "Test message for TORCH_WARN_DEPRECATION")]:
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            fn()
        assert len(w) == 1 and w[0].category is cat and text in str(w[0].message)


def test_testing_internal_helpers():
    from retrograd.testing._internal import common_device_type as cdt
    from retrograd.testing._internal import common_utils as cu

    # (torch's own common_utils needs the expecttest package, which the test extras do not
    # install: the bytes are read back with NumPy, little-endian as torch reads them)
    for dtype in ["int8", "uint8", "int16", "int32", "int64", "bool", "float32", "float64"]:
        size = getattr(rg, dtype).itemsize
        raw = [1] + [0] * (size - 1) if dtype != "float64" else list(np.float64(2.5).tobytes())
        ours = cu.bytes_to_scalar(raw, getattr(rg, dtype), "cpu")
        expected = np.frombuffer(bytes(raw), dtype=np.dtype(dtype).newbyteorder("<")).item()
        assert ours.item() == expected and ours.dtype.itemsize == size and ours.dim() == 0
    assert cu.NO_MULTIPROCESSING_SPAWN is False and cdt.PYTORCH_CUDA_MEMCHECK in (True, False)
    importlib.import_module("retrograd.testing._internal.data")

    class T(unittest.TestCase):
        @cu.skipIfNotRegistered("LayerNorm", "no caffe2")
        def test_x(self):
            raise AssertionError("runs")

    result = unittest.TestResult()
    T("test_x").run(result)
    assert len(result.skipped) == 1 and not result.failures
    with pytest.raises(AssertionError, match="Torch not compiled with CUDA enabled"):
        with cu.CudaSyncGuard(0):
            pass


def test_math_constants_unchanged():
    assert rg.pi == math.pi and rg.e == math.e and math.isinf(rg.inf)
    assert "retrograd" in sys.modules
