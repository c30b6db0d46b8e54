"""retrograd's ``torch.testing._internal.common_device_type``: device-generic test classes.

``instantiate_device_type_tests(TestFoo, globals())`` replaces the generic ``TestFoo`` by ``TestFooCPU``
(retrograd has only the CPU), whose tests receive ``device='cpu'`` and, under ``@dtypes(...)``, one
variant per ``dtype``, named as PyTorch names them: ``test_bar_cpu``, ``test_bar_cpu_float32``,
``test_baz_x_1_cpu_float64`` (parametrize suffix, then device, then dtype).

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_utils import TestCase
>>> from retrograd.testing._internal.common_device_type import instantiate_device_type_tests, dtypes
>>> class TestFoo(TestCase):
...     @dtypes(torch.float32, torch.float64)
...     def test_bar(self, device, dtype):
...         pass
>>> scope = {"TestFoo": TestFoo}
>>> instantiate_device_type_tests(TestFoo, scope)
>>> sorted(n for n in dir(scope["TestFooCPU"]) if n.startswith("test"))
['test_bar_cpu_float32', 'test_bar_cpu_float64']
"""
from __future__ import annotations

import copy
import functools
import inspect
import os
import threading
import unittest
from collections import namedtuple
from typing import Any, Callable, Iterable

import retrograd

from ._flags import NATIVE_DEVICES
from ._parametrize import compose_parametrize_fns, dtype_name
from ._test_case import TestCase

__all__ = [
    "DeviceTypeTestBase", "CPUTestBase", "instantiate_device_type_tests", "get_device_type_test_bases",
    "get_all_device_types", "dtypes", "dtypesIfCPU", "dtypesIfCUDA", "dtypesIfMPS", "dtypesIfXPU", "dtypesIfHPU",
    "onlyOn", "onlyCPU", "onlyCUDA", "onlyMPS", "onlyXPU", "onlyHPU", "onlyAccelerator", "onlyNativeDeviceTypes",
    "onlyNativeDeviceTypesAnd", "onlyCUDAAndPRIVATEUSE1", "skipIf", "skipCPUIf", "skipCUDAIf", "skipXPUIf",
    "skipMPSIf", "skipMetaIf", "skipGPUIf", "skipMeta", "skipMPS", "skipXLA", "skipXPU", "skipHPU", "skipLazy",
    "skipCPUIfNoLapack", "skipCPUIfNoFFT", "skipCPUIfNoMkl", "skipCUDAIfNoMagma", "skipCUDAIfRocm",
    "skipCUDAIfNoCudnn", "skipCUDAIfNoMagmaAndNoCusolver", "deviceCountAtLeast", "precisionOverride",
    "toleranceOverride", "tol", "largeTensorTest", "expectedFailure", "expectedFailureCPU", "expectedFailureCUDA",
    "expectedFailureMPS", "expectedFailureXPU", "expectedFailureMeta", "expectedFailureXLA", "disablecuDNN",
    "disableMkldnn", "OpDTypes", "ops",
]


def _dtype_test_suffix(dtypes) -> str:
    if isinstance(dtypes, (list, tuple)):
        return "" if not dtypes else "_" + "_".join(dtype_name(d) for d in dtypes)
    return f"_{dtype_name(dtypes)}" if dtypes else ""


def _update_param_kwargs(param_kwargs: dict, name: str, value: Any) -> None:
    """Set ``name`` (or its plural, for a list/tuple value), replacing either spelling."""
    param_kwargs.pop(name, None)
    param_kwargs.pop(f"{name}s", None)
    if isinstance(value, (list, tuple)):
        param_kwargs[f"{name}s"] = value
    elif value is not None:
        param_kwargs[name] = value


class DeviceTypeTestBase(TestCase):
    """Base of the per-device classes; ``device_type`` names the device the tests run on."""

    device_type: str = "generic_device_type"
    bypass_device_restrictions: bool = False
    _stop_test_suite = False
    # Overrides from @precisionOverride / @toleranceOverride are per test and per thread.
    _tls = threading.local()
    _tls.precision = TestCase._precision
    _tls.rel_tol = TestCase._rel_tol

    @property
    def precision(self) -> float:
        return getattr(self._tls, "precision", TestCase._precision)

    @precision.setter
    def precision(self, prec: float) -> None:
        self._tls.precision = prec

    @property
    def rel_tol(self) -> float:
        return getattr(self._tls, "rel_tol", TestCase._rel_tol)

    @rel_tol.setter
    def rel_tol(self, prec: float) -> None:
        self._tls.rel_tol = prec

    @classmethod
    def get_primary_device(cls) -> str:
        return cls.device_type

    @classmethod
    def get_all_devices(cls) -> list[str]:
        return [cls.get_primary_device()]

    @classmethod
    def _get_dtypes(cls, test):
        if not hasattr(test, "dtypes"):
            return None
        default = test.dtypes.get("all")
        if default is None:
            raise AssertionError(f"@dtypes is mandatory when using @dtypesIf however '{test.__name__}' "
                                 "didn't specify it")
        return test.dtypes.get(cls.device_type, default)

    def _apply_precision_override_for_test(self, test, param_kwargs: dict) -> None:
        dtype = param_kwargs.get("dtypes", param_kwargs.get("dtype"))
        if not dtype:
            return
        if hasattr(test, "precision_overrides"):
            self.precision = test.precision_overrides.get(dtype, self.precision)
        if hasattr(test, "tolerance_overrides"):
            self.precision, self.rel_tol = test.tolerance_overrides.get(dtype, tol(self.precision, self.rel_tol))

    @classmethod
    def instantiate_test(cls, name: str, test: Callable, *, generic_cls=None) -> None:
        """Add the concrete variants of one generic test to this device class."""

        def default_parametrize_fn(test, generic_cls, device_cls):
            yield test, "", {}, lambda _: []

        parametrize_fn = getattr(test, "parametrize_fn", default_parametrize_fn)
        dtypes = cls._get_dtypes(test)
        if dtypes is not None:
            def dtype_parametrize_fn(test, generic_cls, device_cls, dtypes=dtypes):
                for dtype in dtypes:
                    kwargs: dict = {}
                    _update_param_kwargs(kwargs, "dtype", dtype)
                    # the dtype goes after the device in the name
                    yield test, "", kwargs, _skip_if_unsupported_dtype(dtype)

            parametrize_fn = compose_parametrize_fns(dtype_parametrize_fn, parametrize_fn)

        for variant, suffix, param_kwargs, decorator_fn in parametrize_fn(test, generic_cls, cls):
            dtype_kwarg = param_kwargs.get("dtypes", param_kwargs.get("dtype"))
            test_name = (f"{name}{'_' + suffix if suffix else ''}_{cls.device_type}"
                         f"{_dtype_test_suffix(dtype_kwarg)}")
            cls._instantiate_one(test_name, variant, param_kwargs, decorator_fn)

    @classmethod
    def _instantiate_one(cls, name: str, test: Callable, param_kwargs: dict, decorator_fn) -> None:
        params = inspect.signature(test).parameters
        if "device" in params or "devices" in params:
            device_arg: Any = cls.get_all_devices() if hasattr(test, "num_required_devices") \
                else cls.get_primary_device()
            _update_param_kwargs(param_kwargs, "device", device_arg)
        for decorator in decorator_fn(param_kwargs):
            test = decorator(test)

        @functools.wraps(test)
        def instantiated_test(self, param_kwargs=param_kwargs):
            saved = self.precision, self.rel_tol
            try:
                self._apply_precision_override_for_test(test, param_kwargs)
                return test(self, **param_kwargs)
            finally:
                self.precision, self.rel_tol = saved

        if hasattr(cls, name):
            raise AssertionError(f"Redefinition of test {name}")
        instantiated_test.__name__ = name
        instantiated_test.__qualname__ = f"{cls.__qualname__}.{name}"
        setattr(cls, name, instantiated_test)


class CPUTestBase(DeviceTypeTestBase):
    device_type = "cpu"

    def _should_stop_test_suite(self) -> bool:
        return False


def get_device_type_test_bases() -> list[type]:
    """The device classes available: only CPU under retrograd."""
    return [CPUTestBase]


device_type_test_bases = get_device_type_test_bases()


def get_all_device_types() -> list[str]:
    return ["cpu"]


def _check_device_names(names, what: str) -> None:
    if names is not None and not isinstance(names, (list, tuple, set, str)):
        raise TypeError(f"{what} must be a list/tuple of device type strings")


def instantiate_device_type_tests(generic_test_class: type, scope: dict, except_for: Iterable[str] | None = None,
                                  only_for: Iterable[str] | None = None, include_lazy: bool = False,
                                  allow_mps: bool = False, allow_xpu: bool = False) -> None:
    """Replace ``generic_test_class`` in ``scope`` by ``<Name>CPU`` with device (and dtype) variants.

    ``only_for``/``except_for`` (a device type or a list of them) filter the device types, and the
    environment variables ``PYTORCH_TESTING_DEVICE_ONLY_FOR`` / ``..._EXCEPT_FOR`` (comma separated)
    are honoured as in PyTorch.  Only CPU exists, so at most one class is created.
    """
    _check_device_names(except_for, "except_for")
    _check_device_names(only_for, "only_for")
    del scope[generic_test_class.__name__]
    generic_members = set(generic_test_class.__dict__.keys())
    generic_tests = [m for m in generic_members if m.startswith("test")]

    for base in _desired_bases(except_for, only_for):
        class_name = generic_test_class.__name__ + base.device_type.upper()
        device_cls: Any = type(class_name, (base, generic_test_class), {})

        # setUpClass / tearDownClass of both the device base and the generic class run.
        @classmethod
        def _setUpClass(cls, base=base):
            base.setUpClass()
            generic_test_class.setUpClass.__func__(cls)

        @classmethod
        def _tearDownClass(cls, base=base):
            generic_test_class.tearDownClass.__func__(cls)
            base.tearDownClass()

        device_cls.setUpClass = _setUpClass
        device_cls.tearDownClass = _tearDownClass
        for name in sorted(generic_members):
            if name in generic_tests:
                device_cls.instantiate_test(name, copy.deepcopy(getattr(generic_test_class, name)),
                                            generic_cls=generic_test_class)
            elif name not in device_cls.__dict__:
                setattr(device_cls, name, getattr(generic_test_class, name))
        device_cls.__module__ = generic_test_class.__module__
        device_cls.__qualname__ = class_name
        scope[class_name] = device_cls

    for name in generic_tests:
        delattr(generic_test_class, name)


def _as_list(names) -> list[str]:
    return [names] if isinstance(names, str) else list(names)


def _desired_bases(except_for, only_for) -> list[type]:
    bases = get_device_type_test_bases()
    if except_for is not None and only_for is not None:
        raise AssertionError("Cannot specify both except_for and only_for")
    env_only = [s for s in os.getenv("PYTORCH_TESTING_DEVICE_ONLY_FOR", "").split(",") if s]
    env_except = [s for s in os.getenv("PYTORCH_TESTING_DEVICE_EXCEPT_FOR", "").split(",") if s]
    if except_for is not None:
        bases = [b for b in bases if b.device_type not in _as_list(except_for)]
    if only_for is not None:
        bases = [b for b in bases if b.device_type in _as_list(only_for)]
    if env_only:
        bases = [b for b in bases if b.device_type in env_only]
    if env_except:
        bases = [b for b in bases if b.device_type not in env_except]
    return bases


# --------------------------------------------------------------------------------------- dtypes
def _skip_if_unsupported_dtype(dtype) -> Callable:
    """The decorator_fn of a dtype variant: a variant naming a dtype retrograd only has as a name
    (complex, float8, quantized) is generated, so the test list matches PyTorch's, but skipped."""
    group = dtype if isinstance(dtype, (list, tuple)) else (dtype,)
    missing = [d for d in group if not retrograd._dtype.is_supported(d)]
    if not missing:
        return lambda _: []
    reason = f"retrograd has no {missing[0].name} tensors (complex, float8 and quantized dtypes are out of scope)"
    return lambda _: [unittest.skip(reason)]


class dtypes:
    """``@dtypes(torch.float32, torch.float64)``: one test variant per dtype (or per tuple of dtypes).

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_device_type import dtypes
    >>> dtypes(torch.float32)(lambda self, device, dtype: None).dtypes
    {'all': (torch.float32,)}
    """

    def __init__(self, *args, device_type: str = "all") -> None:
        if args and isinstance(args[0], (list, tuple)):
            for arg in args:
                if not isinstance(arg, (list, tuple)):
                    raise AssertionError("When one dtype variant is a tuple or list, all dtype variants must be. "
                                         f"Received non-list non-tuple dtype {arg}")
                if not all(isinstance(d, retrograd.dtype) for d in arg):
                    raise AssertionError(f"Unknown dtype in {arg}")
        elif not all(isinstance(d, retrograd.dtype) for d in args):
            raise AssertionError(f"Unknown dtype in {args}")
        self.args = args
        self.device_type = device_type

    def __call__(self, fn):
        d = getattr(fn, "dtypes", {})
        if self.device_type in d:
            raise AssertionError(f"dtypes redefinition for {self.device_type}")
        d[self.device_type] = self.args
        fn.dtypes = d
        return fn


def _device_dtypes(device_type: str) -> type:
    class _dtypesIf(dtypes):
        def __init__(self, *args) -> None:
            super().__init__(*args, device_type=device_type)

    _dtypesIf.__doc__ = f"``@dtypes`` used only for the {device_type!r} device type."
    return _dtypesIf


dtypesIfCPU = _device_dtypes("cpu")
dtypesIfCUDA = _device_dtypes("cuda")
dtypesIfMPS = _device_dtypes("mps")
dtypesIfXPU = _device_dtypes("xpu")
dtypesIfHPU = _device_dtypes("hpu")
for _cls, _name in ((dtypesIfCPU, "dtypesIfCPU"), (dtypesIfCUDA, "dtypesIfCUDA"), (dtypesIfMPS, "dtypesIfMPS"),
                    (dtypesIfXPU, "dtypesIfXPU"), (dtypesIfHPU, "dtypesIfHPU")):
    _cls.__name__ = _cls.__qualname__ = _name


class precisionOverride:
    """``@precisionOverride({torch.float32: 1e-4})``: the minimum atol of ``assertEqual`` for that dtype's variant."""

    def __init__(self, d: dict) -> None:
        if not isinstance(d, dict):
            raise AssertionError("precisionOverride not given a dtype : precision dict!")
        for dtype in d:
            if not isinstance(dtype, retrograd.dtype):
                raise AssertionError(f"precisionOverride given unknown dtype {dtype}")
        self.d = d

    def __call__(self, fn):
        fn.precision_overrides = self.d
        return fn


tol = namedtuple("tol", ["atol", "rtol"])


class toleranceOverride:
    """``@toleranceOverride({torch.float32: tol(atol=1e-2, rtol=1e-3)})``: minimum atol and rtol per dtype."""

    def __init__(self, d: dict) -> None:
        if not isinstance(d, dict):
            raise AssertionError("toleranceOverride not given a dtype : tol dict!")
        for dtype, prec in d.items():
            if not isinstance(dtype, retrograd.dtype):
                raise AssertionError(f"toleranceOverride given unknown dtype {dtype}")
            if not isinstance(prec, tol):
                raise AssertionError("toleranceOverride not given a dtype : tol dict!")
        self.d = d

    def __call__(self, fn):
        fn.tolerance_overrides = self.d
        return fn


# --------------------------------------------------------------------------------------- device filters
class skipIf:
    """Skip when ``dep`` (a bool, or the name of a truthy attribute of the test case) holds on ``device_type``."""

    def __init__(self, dep, reason: str, device_type=None) -> None:
        self.dep, self.reason, self.device_type = dep, reason, device_type

    def __call__(self, fn):
        @functools.wraps(fn)
        def dep_fn(slf, *args, **kwargs):
            dt = self.device_type
            on_device = dt is None or dt == slf.device_type or (
                not isinstance(dt, str) and isinstance(dt, Iterable) and slf.device_type in dt)
            if on_device and ((isinstance(self.dep, str) and getattr(slf, self.dep, True))
                              or (isinstance(self.dep, bool) and self.dep)):
                raise unittest.SkipTest(self.reason)
            return fn(slf, *args, **kwargs)

        return dep_fn


def _device_skip_if(device_type: str, name: str) -> type:
    class _skip(skipIf):
        def __init__(self, dep, reason: str) -> None:
            super().__init__(dep, reason, device_type=device_type)

    _skip.__name__ = _skip.__qualname__ = name
    _skip.__doc__ = f"``skipIf`` for the {device_type!r} device type only."
    return _skip


skipCPUIf = _device_skip_if("cpu", "skipCPUIf")
skipCUDAIf = _device_skip_if("cuda", "skipCUDAIf")
skipXPUIf = _device_skip_if("xpu", "skipXPUIf")
skipMPSIf = _device_skip_if("mps", "skipMPSIf")
skipMetaIf = _device_skip_if("meta", "skipMetaIf")
skipGPUIf = _device_skip_if(("cuda", "xpu", "mps"), "skipGPUIf")


class onlyOn:
    """Run only on the given device type(s); elsewhere skip with ``Only runs on ...``."""

    def __init__(self, device_type) -> None:
        self.device_type = device_type

    def __call__(self, fn):
        @functools.wraps(fn)
        def only_fn(slf, *args, **kwargs):
            if slf.device_type not in self.device_type and not getattr(slf, "bypass_device_restrictions", False):
                raise unittest.SkipTest(f"Only runs on {self.device_type}")
            return fn(slf, *args, **kwargs)

        return only_fn


def onlyCPU(fn):
    return onlyOn("cpu")(fn)


def onlyCUDA(fn):
    return onlyOn("cuda")(fn)


def onlyMPS(fn):
    return onlyOn("mps")(fn)


def onlyXPU(fn):
    return onlyOn("xpu")(fn)


def onlyHPU(fn):
    return onlyOn("hpu")(fn)


def onlyAccelerator(fn):
    return onlyOn(["cuda", "xpu", "mps", "hpu"])(fn)


def onlyCUDAAndPRIVATEUSE1(fn):
    return onlyOn(["cuda", "privateuseone"])(fn)


def onlyNativeDeviceTypes(fn):
    """Run only on PyTorch's native device types (CPU is one)."""

    @functools.wraps(fn)
    def only_fn(self, *args, **kwargs):
        if self.device_type not in NATIVE_DEVICES:
            raise unittest.SkipTest(f"onlyNativeDeviceTypes: doesn't run on {self.device_type}")
        return fn(self, *args, **kwargs)

    return only_fn


def onlyNativeDeviceTypesAnd(devices=None):
    def decorator(fn):
        @functools.wraps(fn)
        def only_fn(self, *args, **kwargs):
            if self.device_type not in NATIVE_DEVICES and self.device_type not in (devices or ()):
                raise unittest.SkipTest(f"onlyNativeDeviceTypesAnd {devices} : doesn't run on {self.device_type}")
            return fn(self, *args, **kwargs)

        return only_fn

    return decorator


def _skip_device(device_type: str, reason: str) -> Callable:
    return lambda fn: skipIf(True, reason, device_type=device_type)(fn)


skipMeta = _skip_device("meta", "test doesn't work with meta tensors")
skipMPS = _skip_device("mps", "test doesn't work on MPS backend")
skipXLA = _skip_device("xla", "Marked as skipped for XLA")
skipXPU = _skip_device("xpu", "test doesn't work on XPU backend")
skipHPU = _skip_device("hpu", "test doesn't work on HPU backend")
skipLazy = _skip_device("lazy", "test doesn't work with lazy tensors")


def skipCPUIfNoLapack(fn):
    return fn  # NumPy's LAPACK is always there


def skipCPUIfNoFFT(fn):
    return fn


def skipCPUIfNoMkl(fn):
    return skipCPUIf(True, "PyTorch is built without MKL support")(fn)


def skipCUDAIfNoMagma(fn):
    return fn  # CUDA-only condition


def skipCUDAIfNoMagmaAndNoCusolver(fn):
    return fn


def skipCUDAIfNoCudnn(fn):
    return fn


def skipCUDAIfRocm(func=None, *, msg: str = "test doesn't currently work on the ROCm stack"):
    return func if func is not None else (lambda fn: fn)


def disablecuDNN(fn):
    return fn


def disableMkldnn(fn):
    return fn


class deviceCountAtLeast:
    """Pass the test all devices of its type (``devices``), skipping when there are fewer than ``n``."""

    def __init__(self, num_required_devices: int) -> None:
        self.num_required_devices = num_required_devices

    def __call__(self, fn):
        if hasattr(fn, "num_required_devices"):
            raise AssertionError(f"deviceCountAtLeast redefinition for {fn.__name__}")
        fn.num_required_devices = self.num_required_devices

        @functools.wraps(fn)
        def multi_fn(slf, devices, *args, **kwargs):
            if len(devices) < self.num_required_devices:
                raise unittest.SkipTest(f"fewer than {self.num_required_devices} devices detected")
            return fn(slf, devices, *args, **kwargs)

        return multi_fn


def _available_memory(device: str) -> int | None:
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_AVPHYS_PAGES")
    except (ValueError, OSError, AttributeError):
        return None


def largeTensorTest(size, device: str | None = None, inductor: bool = False) -> Callable:
    """Skip the test when the machine has less free memory than ``size`` (bytes, ``"N GB"`` or a callable)."""
    if isinstance(size, str):
        if not size.endswith(("GB", "gb")):
            raise AssertionError(f"only bytes or GB supported, got {size!r}")
        size = 1024 ** 3 * int(size[:-2])

    def inner(fn):
        @functools.wraps(fn)
        def dep_fn(self, *args, **kwargs):
            need = size(self, *args, **kwargs) if callable(size) else size
            dev = device or (self.get_primary_device() if hasattr(self, "get_primary_device") else self.device)
            free = _available_memory(dev)
            if free is not None and free < need:
                raise unittest.SkipTest(f"Insufficient {dev} memory")
            return fn(self, *args, **kwargs)

        return dep_fn

    return inner


class expectedFailure:
    """The test must fail (raise) on ``device_type`` (and ``dtype`` if given); passing is an error there."""

    def __init__(self, device_type: str | None, dtype=None) -> None:
        self.device_type, self.dtype = device_type, dtype

    def __call__(self, fn):
        @functools.wraps(fn)
        def efail_fn(slf, *args, **kwargs):
            target = slf.device_type if hasattr(slf, "device_type") else getattr(slf, "device", None)
            target_dtype = kwargs.get("dtype", getattr(slf, "dtype", None))
            if (self.device_type is None or self.device_type == target) and \
                    (self.dtype is None or self.dtype == target_dtype):
                try:
                    fn(slf, *args, **kwargs)
                except Exception:
                    return
                slf.fail("expected test to fail, but it passed")
            return fn(slf, *args, **kwargs)

        return efail_fn


def expectedFailureCPU(fn):
    return expectedFailure("cpu")(fn)


def expectedFailureCUDA(fn):
    return expectedFailure("cuda")(fn)


def expectedFailureMPS(fn):
    return expectedFailure("mps")(fn)


def expectedFailureXPU(fn):
    return expectedFailure("xpu")(fn)


def expectedFailureMeta(fn):
    return skipIf(True, "Expected failure on meta", device_type="meta")(fn)  # PyTorch skips there too


def expectedFailureXLA(fn):
    return expectedFailure("xla")(fn)


class OpDTypes:
    """Names of the dtype selections of ``@ops`` (kept so imports work; ``@ops`` itself is unsupported)."""

    supported, unsupported, supported_backward, unsupported_backward, any_one, none, any_common_cpu_cuda_one = \
        range(7)


class ops:
    """``@ops`` needs PyTorch's OpInfo database, which retrograd does not have."""

    def __init__(self, *args, **kwargs) -> None:
        raise NotImplementedError("@ops (OpInfo-based tests) is not supported by retrograd's "
                                  "torch.testing._internal.common_device_type")



# ------------------------------------------------------------ autograd test-file names (pt_autograd_split)
def skipCUDAIfCudnnVersionLessThan(version: int = 0):
    """Skip a CUDA test when cuDNN is older than ``version``: a CUDA-only condition, no-op on CPU."""
    return lambda fn: fn


__all__ += ["skipCUDAIfCudnnVersionLessThan"]


# ------------------------------------------------------- names used by older PyTorch test files
# (pt_tensor_ops) PyTorch renamed ``onlyOnCPUAndCUDA`` to ``onlyNativeDeviceTypes``; test files
# written before the rename still import the old name.
onlyOnCPUAndCUDA = onlyNativeDeviceTypes
__all__.append("onlyOnCPUAndCUDA")

# PyTorch skips some tests under cuda-memcheck (its env var); no CUDA here, so only read back
PYTORCH_CUDA_MEMCHECK = os.getenv("PYTORCH_CUDA_MEMCHECK", "0") == "1"
__all__.append("PYTORCH_CUDA_MEMCHECK")


# ================================================================================================
# nn test-file helpers (added for PyTorch's test/nn/*.py): PyTorch's module has these flags in
# its namespace (it imports them from common_utils), and test files import them from here.
# ================================================================================================
from ._flags import TEST_WITH_ROCM, TEST_WITH_ASAN, TEST_WITH_TSAN, TEST_WITH_UBSAN  # noqa: E402,F401

__all__ += ["TEST_WITH_ROCM", "TEST_WITH_ASAN", "TEST_WITH_TSAN", "TEST_WITH_UBSAN"]
