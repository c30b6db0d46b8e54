"""Skip / expected-failure decorators of PyTorch's ``common_utils``.

Most of them test a flag that is always False under retrograd (dynamo, inductor, ROCm, MPS, XPU ...),
so the decorated test simply runs.  Function targets read the flag each time the test runs (this
module's global, so a test of the decorators can flip it); class targets are marked once, as
unittest decides class-level skips before creating the test case.

>>> import unittest
>>> from retrograd.testing._internal.common_utils import skipIfTorchDynamo
>>> class T(unittest.TestCase):
...     @skipIfTorchDynamo("not under dynamo")
...     def test_x(self):
...         pass
>>> result = unittest.TestResult()
>>> T("test_x").run(result).wasSuccessful()
True
"""
from __future__ import annotations

import functools
import inspect
import os
import sys
import unittest
import warnings
from typing import Callable

from . import _flags
from ._flags import IS_SANDCASTLE

__all__ = [
    "lazy_skip_if", "skipIfTorchDynamo", "skipIfTorchInductor", "skipIfCrossRef", "skipIfNoLapack", "skipIfNoSciPy",
    "skipIfNoNumpy", "skipIfNoDill", "skipIfCompiledWithoutNumpy", "skipIfNoXNNPACK", "slowTest", "slowTestIf", "skipIfMPS",
    "skipIfWindows", "skipIfXpu", "skipIfNoXPU", "skipIfHpu", "skipIfRocm", "skipIfRocmArch",
    "skipIfRocmVersionLessThan", "skipRocmIfTorchInductor", "xfailIf", "xfailIfTorchDynamo",
    "xpassIfTorchDynamo_np", "xfailIfLinux", "xfailIfWindows", "xfailIfROCm", "xfailIfS390X",
    "skipIfSlowGradcheckEnv", "skipCUDANonDefaultStreamIf", "skipCUDAMemoryLeakCheckIf", "serialTest",
    "skip_if_pytest", "skip_but_pass_in_sandcastle", "skip_but_pass_in_sandcastle_if", "suppress_warnings",
    "markDynamoStrictTest", "unMarkDynamoStrictTest", "runWithoutCompiledAutograd", "skipIfLegacyJitExecutor",
    "skipIfNNModuleInlined", "skipIfTorchDynamoVersion", "wrapDeterministicFlagAPITest", "gcIfJetson",
]


def lazy_skip_if(condition_fn: Callable[[], bool], reason: str) -> Callable:
    """Skip a test function when ``condition_fn()`` is true at run time, or a class when true now."""

    def decorator(fn):
        if isinstance(fn, type):
            if condition_fn():
                fn.__unittest_skip__ = True
                fn.__unittest_skip_why__ = reason
            return fn

        @functools.wraps(fn)
        def wrapper(*args, **kwargs):
            if condition_fn():
                raise unittest.SkipTest(reason)
            return fn(*args, **kwargs)

        return wrapper

    return decorator


def _flag(name: str) -> Callable[[], bool]:
    return lambda: getattr(_flags, name)


def _msg_decorator(flag: str, default_msg: str, prefix: str = ""):
    """``@deco``, ``@deco()`` or ``@deco(msg=...)`` all work, as in PyTorch's newer skip helpers."""

    def make(func=None, *, msg: str = default_msg):
        decorator = lazy_skip_if(_flag(flag), f"{prefix}{msg}")
        return decorator(func) if func is not None else decorator

    return make


def skipIfTorchDynamo(msg: str = "test doesn't currently work with dynamo") -> Callable:
    """Skip under TorchDynamo (never active in retrograd).  Use with a call: ``@skipIfTorchDynamo()``."""
    if not isinstance(msg, str):
        raise AssertionError("Are you using skipIfTorchDynamo correctly?")
    return lazy_skip_if(_flag("TEST_WITH_TORCHDYNAMO"), msg)


def skipIfTorchDynamoVersion(*args, **kwargs) -> Callable:
    """No TorchDynamo here: returns the test unchanged."""
    return lambda fn: fn


def skipIfTorchInductor(msg: str = "test doesn't currently work with torchinductor", condition=None) -> Callable:
    """Skip under TorchInductor (never active), or when ``condition`` is true."""
    return lazy_skip_if(lambda: _flags.TEST_WITH_TORCHINDUCTOR if condition is None else bool(condition), msg)


def skipRocmIfTorchInductor(msg: str = "test doesn't currently work with torchinductor on the ROCm stack"):
    return lazy_skip_if(lambda: _flags.TEST_WITH_ROCM and _flags.TEST_WITH_TORCHINDUCTOR, msg)


def skipIfNNModuleInlined(msg: str = "test doesn't currently work with nn module inlining", condition=True):
    """Only meaningful under TorchDynamo: the test runs."""
    return lazy_skip_if(lambda: _flags.TEST_WITH_TORCHDYNAMO and bool(condition), msg)


def skipIfLegacyJitExecutor(msg: str = "test doesn't currently work with legacy JIT executor"):
    return lambda fn: fn


def skipIfCrossRef(fn):
    return lazy_skip_if(_flag("TEST_WITH_CROSSREF"), "test doesn't currently with crossref")(fn)


def skipIfNoLapack(fn):
    return lazy_skip_if(lambda: not _flags.TEST_LAPACK, "PyTorch compiled without Lapack")(fn)


def skipIfNoSciPy(fn):
    return lazy_skip_if(lambda: not _flags.TEST_SCIPY, "test require SciPy, but SciPy not found")(fn)


def skipIfNoNumpy(fn):
    return lazy_skip_if(lambda: not _flags.TEST_NUMPY, "Test requires numpy")(fn)


def skipIfNoDill(fn):
    return lazy_skip_if(lambda: not _flags.TEST_DILL, "no dill")(fn)


def skipIfCompiledWithoutNumpy(fn):
    return fn  # retrograd is built on NumPy


def skipIfNoXNNPACK(fn):
    return lazy_skip_if(lambda: True, "XNNPACK must be enabled for these tests. Please build with USE_XNNPACK=1.")(fn)


def slowTest(fn):
    """Run only with ``PYTORCH_TEST_WITH_SLOW=1`` (read at import, as PyTorch does)."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        if not _flags.TEST_WITH_SLOW:
            raise unittest.SkipTest("test is slow; run with PYTORCH_TEST_WITH_SLOW to enable test")
        return fn(*args, **kwargs)

    wrapper.__dict__["slow_test"] = True
    return wrapper


def slowTestIf(condition: bool):
    return slowTest if condition else (lambda fn: fn)


skipIfWindows = _msg_decorator("IS_WINDOWS", "test doesn't currently work on the Windows stack", "skipIfWindows: ")
skipIfXpu = _msg_decorator("TEST_XPU", "test doesn't currently work on the XPU stack", "skipIfXpu: ")
skipIfRocm = _msg_decorator("TEST_WITH_ROCM", "test doesn't currently work on the ROCm stack", "skipIfRocm: ")


def skipIfNoXPU(fn):
    return lazy_skip_if(lambda: not _flags.TEST_XPU, "test required PyTorched compiled with XPU")(fn)


def skipIfHpu(fn):
    return lazy_skip_if(_flag("TEST_HPU"), "test doesn't currently work with HPU")(fn)


def skipIfRocmArch(arch) -> Callable:
    return lambda fn: fn  # no ROCm


def skipIfRocmVersionLessThan(version=None) -> Callable:
    return lambda fn: fn  # no ROCm


def skipIfMPS(fn):
    """Skip on MPS: a device-generic test only when instantiated for ``mps`` (never here)."""
    reason = "test doesn't currently work with MPS"
    if isinstance(fn, type):
        return lazy_skip_if(_flag("TEST_MPS"), reason)(fn)
    has_device = "device" in inspect.signature(fn).parameters
    if not has_device:
        warnings.warn(f"skipIfMPS applied to {fn.__qualname__} which has no 'device' parameter. Consider using "
                      "device-generic tests with instantiate_device_type_tests instead.", stacklevel=2)

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        slf = args[0] if args else None
        device_type = getattr(slf, "device_type", None) or getattr(slf, "device", None)
        if (has_device and device_type == "mps") or (not has_device and _flags.TEST_MPS):
            raise unittest.SkipTest(reason)
        return fn(*args, **kwargs)

    return wrapper


def xfailIf(condition: bool) -> Callable:
    """Mark the test as an expected failure when ``condition`` is true."""
    return lambda func: unittest.expectedFailure(func) if condition else func


def xfailIfTorchDynamo(func):
    return unittest.expectedFailure(func) if _flags.TEST_WITH_TORCHDYNAMO else func


def xpassIfTorchDynamo_np(func):
    return func if _flags.TEST_WITH_TORCHDYNAMO else unittest.expectedFailure(func)


def xfailIfLinux(func):
    return unittest.expectedFailure(func) if _flags.IS_LINUX else func


def xfailIfWindows(func):
    return unittest.expectedFailure(func) if _flags.IS_WINDOWS else func


def xfailIfROCm(func):
    return unittest.expectedFailure(func) if _flags.TEST_WITH_ROCM else func


def xfailIfS390X(func):
    return unittest.expectedFailure(func) if _flags.IS_S390X else func


skipIfSlowGradcheckEnv = unittest.skipIf(_flags.TEST_WITH_SLOW_GRADCHECK,
                                         "Tests that don't use gradcheck don't need to run on slow_gradcheck CI")


def skipCUDANonDefaultStreamIf(condition: bool) -> Callable:
    """Opt a test out of the (CUDA-only) non-default-stream check; only records the choice here."""

    def dec(fn):
        if getattr(fn, "_do_cuda_non_default_stream", True):
            fn._do_cuda_non_default_stream = not condition
        return fn

    return dec


def skipCUDAMemoryLeakCheckIf(condition: bool) -> Callable:
    """Opt a test out of the (CUDA-only) memory leak check; only records the choice here."""

    def dec(fn):
        if getattr(fn, "_do_cuda_memory_leak_check", True):
            fn._do_cuda_memory_leak_check = not condition
        return fn

    return dec


def serialTest(condition: bool = True) -> Callable:
    """Mark a test to run serially (``pytest.mark.serial`` when pytest is importable)."""
    if type(condition) is not bool:
        raise AssertionError(f"expected condition to be bool, got {type(condition)}")

    def decorator(fn):
        if condition and "pytest" in sys.modules:
            return sys.modules["pytest"].mark.serial(fn)
        return fn

    return decorator


def skip_if_pytest(fn):
    return lazy_skip_if(lambda: "PYTEST_CURRENT_TEST" in os.environ, "does not work under pytest")(fn)


def skip_but_pass_in_sandcastle(reason: str) -> Callable:
    """``unittest.skip`` (sandcastle, where it would pass instead, does not exist here)."""
    return skip_but_pass_in_sandcastle_if(True, reason)


def skip_but_pass_in_sandcastle_if(condition: bool, reason: str) -> Callable:
    def decorator(func):
        if condition and not IS_SANDCASTLE:
            func.__unittest_skip__ = True
            func.__unittest_skip_why__ = reason
        return func

    return decorator


def suppress_warnings(fn):
    """Run the test with every warning ignored."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            return fn(*args, **kwargs)

    return wrapper


def markDynamoStrictTest(cls_or_func=None, nopython: bool = False):
    """A TorchDynamo setting: the class or test is returned unchanged."""
    return (lambda x: x) if cls_or_func is None else cls_or_func


def unMarkDynamoStrictTest(cls=None):
    return (lambda x: x) if cls is None else cls


def runWithoutCompiledAutograd(msg: str = "test doesn't currently work with compiled autograd"):
    return lambda fn: fn  # there is no compiled autograd


def gcIfJetson(fn):
    return fn


def wrapDeterministicFlagAPITest(fn):
    """Restore ``use_deterministic_algorithms`` after the test, whatever it set."""
    import retrograd

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        mode = retrograd.are_deterministic_algorithms_enabled()
        warn_only = retrograd.is_deterministic_algorithms_warn_only_enabled()
        try:
            return fn(*args, **kwargs)
        finally:
            retrograd.use_deterministic_algorithms(mode, warn_only=warn_only)

    return wrapper
