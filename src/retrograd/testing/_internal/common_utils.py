"""retrograd's ``torch.testing._internal.common_utils``: what PyTorch-style test files import.

With ``retrograd.register_as_torch()``, a test file written for PyTorch's own suite
(``from torch.testing._internal.common_utils import TestCase, run_tests, parametrize ...``) imports
this module and runs its CPU tests on retrograd.  Everything here is retrograd's own implementation
of the documented behaviour; see docs/testing.md for what differs.

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_utils import TestCase, IS_WINDOWS, TEST_CUDA
>>> TEST_CUDA
False
"""
from __future__ import annotations

import contextlib
import gc
import inspect
import io
import os
import sys
import tempfile
import unittest
from typing import Any, Callable, Iterable

import numpy as np

import retrograd
from retrograd._tensor import Tensor
from retrograd.testing import make_tensor  # noqa: F401 - re-exported, as PyTorch's module does

from . import _flags
from ._compare import has_corresponding_dtype
from ._decorators import *  # noqa: F401,F403 - the public decorator set
from ._decorators import __all__ as _decorators_all
from ._flags import *  # noqa: F401,F403 - the public flag set
from ._flags import __all__ as _flags_all
from ._flags import TEST_WITH_SLOW_GRADCHECK
from ._parametrize import (compose_parametrize_fns, decorateIf, dtype_name, instantiate_parametrized_tests,
                           parametrize, subtest)
from ._guards import AlwaysWarnTypedStorageRemoval, CudaSyncGuard, bytes_to_scalar, skipIfNotRegistered
from ._test_case import TestCase, set_rng_seed, set_warn_always_context

__all__ = [
    "TestCase", "TestCaseBase", "NoTest", "run_tests", "load_tests", "parametrize", "subtest", "decorateIf",
    "instantiate_parametrized_tests", "compose_parametrize_fns", "dtype_name", "set_rng_seed",
    "set_warn_always_context", "freeze_rng_state", "set_default_dtype", "disable_gc", "TemporaryFileName",
    "TemporaryDirectoryName", "noncontiguous_like", "numpy_to_torch_dtype_dict", "torch_to_numpy_dtype_dict",
    "numpy_to_torch_dtype", "has_corresponding_torch_dtype", "gradcheck", "gradgradcheck", "make_tensor",
    "random_symmetric_matrix", "make_symmetric_matrices", "random_symmetric_psd_matrix",
    "random_symmetric_pd_matrix", "DeterministicGuard", "iter_indices", "is_iterable", "is_iterable_of_tensors",
    "get_function_arglist", "first_sample", "clone_input_helper", "set_cwd", "BytesIOContext",
    "AlwaysWarnTypedStorageRemoval", "CudaSyncGuard", "bytes_to_scalar", "skipIfNotRegistered",
] + list(_flags_all) + list(_decorators_all)


class NoTest:
    """Mixin whose presence tells pytest not to collect a helper class."""

    __test__ = False


class TestCaseBase(TestCase):
    """PyTorch's alias of TestCase for classes that customise setUp/tearDown."""


# --------------------------------------------------------------------------------------- running
_TORCH_ONLY_ARGS = {"--accept": 0, "--jit-executor": 1, "--repeat": 1, "--test-bailouts": 0, "--use-pytest": 0,
                    "--save-xml": 1, "--discover-tests": 0, "--log-suffix": 1, "--run-parallel": 1,
                    "--import-slow-tests": 1, "--import-disabled-tests": 1, "--rerun-disabled-tests": 0,
                    "--pytest-single-test": 1, "--showlocals": 0, "--no-showlocals": 0, "--subprocess": 0}


def _unittest_argv(argv: list[str]) -> list[str]:
    """Drop PyTorch-runner options unittest would reject; ``--seed N`` sets the per-test seed."""
    out, i = [argv[0]], 1
    while i < len(argv):
        arg = argv[i]
        name = arg.split("=", 1)[0]
        if name == "--seed":
            value = arg.split("=", 1)[1] if "=" in arg else argv[i + 1]
            _flags.SEED = int(value)
            i += 1 if "=" in arg else 2
        elif name in _TORCH_ONLY_ARGS:
            i += 1 + (_TORCH_ONLY_ARGS[name] if "=" not in arg else 0)
        else:
            out.append(arg)
            i += 1
    return out


def run_tests(argv: list[str] | None = None) -> None:
    """Run the calling module's tests with unittest (``python test_foo.py [-k pattern] [-v]``); exits.

    Under pytest it does nothing: pytest collects the TestCase classes itself.

    >>> from retrograd.testing._internal.common_utils import run_tests
    >>> # if __name__ == "__main__":
    >>> #     run_tests()
    """
    if "PYTEST_CURRENT_TEST" in os.environ:
        return
    caller = sys._getframe(1).f_globals.get("__name__", "__main__")
    module = sys.modules.get(caller, sys.modules["__main__"])
    unittest.main(module=module, argv=_unittest_argv(list(sys.argv if argv is None else argv)))


def load_tests(loader: unittest.TestLoader, tests: unittest.TestSuite, pattern: str | None) -> unittest.TestSuite:
    """unittest's ``load_tests`` protocol hook: the module's non-empty test groups."""
    suite = unittest.TestSuite()
    for group in tests:
        if getattr(group, "_tests", True):
            suite.addTest(group)
    return suite


# --------------------------------------------------------------------------------------- state helpers
@contextlib.contextmanager
def freeze_rng_state(*args, **kwargs):
    """Run a block (or, as a decorator, a function) and then restore the global generator's state.

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_utils import freeze_rng_state
    >>> with freeze_rng_state():
    ...     a = torch.rand(2)
    >>> torch.equal(a, torch.rand(2))
    True
    """
    state = retrograd.get_rng_state()
    try:
        yield
    finally:
        retrograd.set_rng_state(state)


@contextlib.contextmanager
def set_default_dtype(dtype):
    """Use ``dtype`` as the default floating dtype inside the block.

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_utils import set_default_dtype
    >>> with set_default_dtype(torch.float64):
    ...     torch.tensor(1.0).dtype
    torch.float64
    """
    saved = retrograd.get_default_dtype()
    retrograd.set_default_dtype(dtype)
    try:
        yield
    finally:
        retrograd.set_default_dtype(saved)


@contextlib.contextmanager
def disable_gc():
    """Switch Python's cyclic garbage collector off inside the block (if it was on)."""
    if gc.isenabled():
        gc.disable()
        try:
            yield
        finally:
            gc.enable()
    else:
        yield


@contextlib.contextmanager
def TemporaryFileName(*args, **kwargs):
    """The name of a temporary file that exists inside the block and is removed after it.

    >>> from retrograd.testing._internal.common_utils import TemporaryFileName
    >>> with TemporaryFileName() as fname:
    ...     isinstance(fname, str)
    True
    """
    with tempfile.NamedTemporaryFile(*args, **kwargs) as f:
        yield f.name


@contextlib.contextmanager
def TemporaryDirectoryName(suffix: str | None = None):
    """The name of a temporary directory removed (with its contents) after the block."""
    with tempfile.TemporaryDirectory(suffix=suffix) as d:
        yield d


@contextlib.contextmanager
def set_cwd(path: str):
    """Change the working directory inside the block."""
    old = os.getcwd()
    try:
        os.chdir(path)
        yield
    finally:
        os.chdir(old)


class DeterministicGuard:
    """Set ``torch.use_deterministic_algorithms(deterministic, warn_only=...)`` inside a ``with`` block."""

    def __init__(self, deterministic: bool, *, warn_only: bool = False, fill_uninitialized_memory: bool = True):
        self.deterministic, self.warn_only = deterministic, warn_only

    def __enter__(self):
        self._restore = (retrograd.are_deterministic_algorithms_enabled(),
                         retrograd.is_deterministic_algorithms_warn_only_enabled())
        retrograd.use_deterministic_algorithms(self.deterministic, warn_only=self.warn_only)

    def __exit__(self, *exc):
        retrograd.use_deterministic_algorithms(self._restore[0], warn_only=self._restore[1])


class BytesIOContext(io.BytesIO):
    """A BytesIO usable in ``with``."""

    def __enter__(self):
        return self

    def __exit__(self, *args):
        pass


# --------------------------------------------------------------------------------------- dtypes
numpy_to_torch_dtype_dict = {np.bool_: retrograd.bool, np.uint8: retrograd.uint8, np.int8: retrograd.int8,
                             np.int16: retrograd.int16, np.int32: retrograd.int32, np.int64: retrograd.int64,
                             np.float16: retrograd.float16, np.float32: retrograd.float32,
                             np.float64: retrograd.float64}
torch_to_numpy_dtype_dict = {v: k for k, v in numpy_to_torch_dtype_dict.items()}
torch_to_numpy_dtype_dict[retrograd.bfloat16] = np.float32  # NumPy has no bfloat16


def numpy_to_torch_dtype(np_dtype):
    """retrograd dtype of a NumPy dtype or scalar type (KeyError when it has none)."""
    try:
        return numpy_to_torch_dtype_dict[np_dtype]
    except KeyError:
        return numpy_to_torch_dtype_dict[np.dtype(np_dtype).type]


def has_corresponding_torch_dtype(np_dtype) -> bool:
    """Whether retrograd has a dtype for this NumPy dtype."""
    return has_corresponding_dtype(np_dtype)


# --------------------------------------------------------------------------------------- tensors
def noncontiguous_like(t: Tensor) -> Tensor:
    """A non-contiguous tensor with ``t``'s values (every other element of a wider buffer)."""
    if not t.is_contiguous():
        return t
    if t.dtype.is_floating_point:
        value = float("nan")
    elif t.dtype is retrograd.bool:
        value = True
    else:
        value = 12
    result = t.new_empty(tuple(t.shape) + (2,))
    result[..., 0] = value
    result[..., 1] = t.detach()
    result = result[..., 1]
    result.requires_grad_(t.requires_grad)
    return result


def random_symmetric_matrix(l: int, *batches: int, **kwargs) -> Tensor:
    """A random symmetric ``l x l`` matrix (or batch), float64 by default."""
    dtype = kwargs.get("dtype", retrograd.double)
    a = retrograd.randn(*(batches + (l, l)), dtype=dtype)
    return (a + a.mT) / 2


def make_symmetric_matrices(*shape: int, device=None, dtype=None) -> Tensor:
    """Random symmetric matrices of ``shape`` (last two dimensions equal)."""
    if shape[-1] != shape[-2]:
        raise AssertionError(f"expected square matrices, got shape {shape}")
    t = make_tensor(shape, device=device, dtype=dtype)
    return (t + t.mT) / 2


def random_symmetric_psd_matrix(l: int, *batches: int, **kwargs) -> Tensor:
    """A random symmetric positive semi-definite matrix ``A @ A^T``."""
    dtype = kwargs.get("dtype", retrograd.double)
    a = retrograd.randn(*(batches + (l, l)), dtype=dtype)
    return a @ a.mT


def random_symmetric_pd_matrix(matrix_size: int, *batch_dims: int, **kwargs) -> Tensor:
    """A random symmetric positive definite matrix ``A @ A^T + 1e-5 I``."""
    dtype = kwargs.get("dtype", retrograd.double)
    a = retrograd.randn(*(batch_dims + (matrix_size, matrix_size)), dtype=dtype)
    return a @ a.mT + retrograd.eye(matrix_size, dtype=dtype) * 1e-5


def iter_indices(tensor: Tensor) -> Iterable:
    """Every index of ``tensor`` (ints for 1-D, tuples otherwise)."""
    if tensor.dim() == 0:
        return range(0)
    if tensor.dim() == 1:
        return range(tensor.size(0))
    return np.ndindex(*tensor.shape)


def is_iterable(obj: Any) -> bool:
    try:
        iter(obj)
        return True
    except TypeError:
        return False


def is_iterable_of_tensors(iterable: Any, include_empty: bool = False) -> bool:
    """True for a non-tensor iterable whose items are all tensors (empty counts if ``include_empty``)."""
    if isinstance(iterable, Tensor):
        return False
    try:
        if len(iterable) == 0:
            return include_empty
        return all(isinstance(t, Tensor) for t in iter(iterable))
    except TypeError:
        return False


def get_function_arglist(func: Callable) -> list[str]:
    return inspect.getfullargspec(func).args


def first_sample(self: unittest.TestCase, samples: Iterable):
    """The first of ``samples``, or skip the test when there is none."""
    try:
        return next(iter(samples))
    except StopIteration as e:
        raise unittest.SkipTest("Skipped! Need at least 1 sample input") from e


def clone_input_helper(input):
    if isinstance(input, Tensor):
        return retrograd.clone(input)
    if isinstance(input, (list, tuple)):
        return tuple(map(clone_input_helper, input))
    return input


# --------------------------------------------------------------------------------------- gradcheck
def gradcheck(fn: Callable, inputs, **kwargs) -> bool:
    """``torch.autograd.gradcheck`` with the test suite's defaults (``check_batched_grad``, ``fast_mode``).

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_utils import gradcheck
    >>> gradcheck(torch.sin, (torch.randn(3, dtype=torch.float64, requires_grad=True),))
    True
    """
    for key, value in (("check_batched_grad", True), ("fast_mode", not TEST_WITH_SLOW_GRADCHECK)):
        if kwargs.get(key) is None:
            kwargs[key] = value
    return retrograd.autograd.gradcheck(fn, inputs, **kwargs)


def gradgradcheck(fn: Callable, inputs, grad_outputs=None, **kwargs) -> bool:
    """``torch.autograd.gradgradcheck`` with the test suite's defaults (``check_batched_grad``, ``fast_mode``).

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_utils import gradgradcheck
    >>> gradgradcheck(torch.sin, (torch.randn(3, dtype=torch.float64, requires_grad=True),))
    True
    """
    for key, value in (("check_batched_grad", True), ("fast_mode", not TEST_WITH_SLOW_GRADCHECK)):
        if kwargs.get(key) is None:
            kwargs[key] = value
    return retrograd.autograd.gradgradcheck(fn, inputs, grad_outputs, **kwargs)


def _assertGradAndGradgradChecks(test_case: unittest.TestCase, apply_fn: Callable, inputs, **kwargs) -> None:
    test_case.assertTrue(gradcheck(apply_fn, inputs, **kwargs))
    test_case.assertTrue(gradgradcheck(apply_fn, inputs, **kwargs))


# ------------------------------------------------------------ autograd test-file names (pt_autograd_split)
# Names PyTorch's test/autograd/*.py import from common_utils; kept in their own modules.
from ._cuda_checks import CudaMemoryLeakCheck  # noqa: E402,F401
from ._hardware import HardwareClassification  # noqa: E402,F401

__all__ += ["HardwareClassification", "CudaMemoryLeakCheck"]


# ------------------------------------------------------------------ (pt_tensor_ops) extra names
# The name PyTorch gives its out-of-tree backend's device type (``torch._C._get_privateuse1_backend_name()``);
# test files compare ``self.device_type`` with it.  retrograd has no such backend, so no test runs on it.
TEST_PRIVATEUSE1_DEVICE_TYPE = "privateuseone"
__all__.append("TEST_PRIVATEUSE1_DEVICE_TYPE")


# ---- names needed by PyTorch's test_autograd.py (pt_autograd) ----
from ._extensions import scoped_load_inline  # noqa: F401,E402


# ================================================================================================
# nn test-file helpers (added for PyTorch's test/nn/*.py): ``swap``.  Kept as one block here.
# ================================================================================================
from ._parametrize import _TestParametrizer as _SwapParametrizerBase  # noqa: E402


class swap(_SwapParametrizerBase):
    """Run a test once per value of ``torch.__future__``'s swap-module-params flag (``test_x_swap_True`` ...).

    >>> import unittest
    >>> import retrograd.__future__ as future
    >>> @instantiate_parametrized_tests
    ... class T(unittest.TestCase):
    ...     @swap([True, False])
    ...     def test_flag(self):
    ...         self.seen = future.get_swap_module_params_on_conversion()
    >>> sorted(n for n in dir(T) if n.startswith("test_"))
    ['test_flag_swap_False', 'test_flag_swap_True']
    """

    def __init__(self, swap_values) -> None:
        super().__init__()
        self.swap_values = list(swap_values)

    def _parametrize_test(self, test, generic_cls, device_cls):
        import functools

        import retrograd.__future__ as future

        for value in self.swap_values:
            @functools.wraps(test)
            def run_with_flag(*args, _value=value, **kwargs):
                # restore the caller's setting whatever the test does
                old = future.get_swap_module_params_on_conversion()
                future.set_swap_module_params_on_conversion(_value)
                try:
                    return test(*args, **kwargs)
                finally:
                    future.set_swap_module_params_on_conversion(old)

            yield run_with_flag, f"swap_{value}", {}, lambda _: []


# Per-dtype absolute tolerances some nn tests pass as ``atol`` (PyTorch's legacy table, same values).
dtype2prec_DONTUSE = {retrograd.float32: 1e-5, retrograd.float64: 1e-5, retrograd.float16: 1e-2,
                      retrograd.bfloat16: 1e-1}



def gcIfJetson(fn):
    """PyTorch runs ``gc.collect()`` before tests on Jetson boards (``IS_JETSON``); never the case here."""
    return fn


__all__ += ["swap", "dtype2prec_DONTUSE", "gcIfJetson"]


def do_test_empty_full(self, dtypes, layout, device) -> None:
    """Check the creation functions (empty, full, zeros, ones and their ``new_*`` / ``*_like``
    forms) give the requested shape, dtype, layout, device and ``requires_grad`` for each dtype.

    ``self`` is the running TestCase (PyTorch's helper of the same name is called the same way).
    """
    import retrograd as torch

    shape = torch.Size([2, 3])

    def check(t, dtype, value=None, requires_grad=False):
        self.assertEqual(shape, t.shape)
        self.assertIs(dtype, t.dtype)
        self.assertIs(layout, t.layout)
        self.assertEqual(torch.device(device).type, t.device.type)
        self.assertEqual(requires_grad, t.requires_grad)
        if value is not None:
            self.assertEqual(t, torch.full(shape, value, dtype=dtype))

    for dtype in dtypes:
        rg = dtype.is_floating_point
        kw = dict(dtype=dtype, layout=layout, device=device)
        check(torch.empty(shape, **kw), dtype)
        check(torch.zeros(shape, **kw), dtype, 0)
        check(torch.ones(shape, **kw), dtype, 1)
        check(torch.full(shape, 1, **kw), dtype, 1)
        check(torch.empty(shape, requires_grad=rg, **kw), dtype, None, rg)
        base = torch.zeros(shape, **kw)
        check(torch.empty_like(base), dtype)
        check(torch.full_like(base, 1), dtype, 1)
        check(base.new_empty(shape), dtype)
        check(base.new_zeros(shape), dtype, 0)
        check(base.new_ones(shape), dtype, 1)
        check(base.new_full(shape, 1), dtype, 1)


__all__.append("do_test_empty_full")
