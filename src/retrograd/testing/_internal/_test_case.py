"""``TestCase``: unittest.TestCase with PyTorch's test-suite assertions and per-test state hygiene.

>>> import retrograd as torch
>>> from retrograd.testing._internal.common_utils import TestCase
>>> TestCase().assertEqual(torch.tensor([1., 2.]), [1, 2])
"""
from __future__ import annotations

import contextlib
import os
import random
import re
import sys
import unittest
import warnings
from collections.abc import Sequence
from typing import Any, Callable, Iterable

import numpy as np

import retrograd
from retrograd._tensor import Tensor

from ._compare import Mismatch, compare, has_corresponding_dtype
from . import _flags

__all__ = ["TestCase", "set_rng_seed", "set_warn_always_context"]


def set_rng_seed(seed: int | None = None) -> None:
    """Seed retrograd's, Python's and NumPy's global generators (``SEED`` = 1234 by default).

    >>> from retrograd.testing._internal.common_utils import set_rng_seed
    >>> set_rng_seed(0)
    """
    seed = _flags.SEED if seed is None else seed  # run_tests(--seed N) may have changed it
    retrograd.manual_seed(seed)
    random.seed(seed)
    np.random.seed(seed)


@contextlib.contextmanager
def set_warn_always_context(new_val: bool):
    """Temporarily set ``torch.set_warn_always``.

    >>> from retrograd.testing._internal.common_utils import set_warn_always_context
    >>> with set_warn_always_context(True):
    ...     pass
    """
    old = retrograd.is_warn_always_enabled()
    retrograd.set_warn_always(new_val)
    try:
        yield
    finally:
        retrograd.set_warn_always(old)


_ANSI_ESCAPE = re.compile(r"\x1B(?:[@-Z\\-_]|\[[0-?]*[ -/]*[@-~])")


class TestCase(unittest.TestCase):
    """Base class of PyTorch-style tests.

    ``assertEqual`` compares tensors, NumPy arrays, numbers, bools, strings and nested
    sequences/mappings of them with ``torch.testing.assert_close``'s default tolerances; ``precision``
    and ``rel_tol`` raise the minimum atol/rtol (set by ``@precisionOverride``/``@toleranceOverride``).
    ``setUp`` seeds the generators with ``SEED``; ``tearDown`` puts back the default dtype and grad
    mode if the test changed them.

    >>> import retrograd as torch
    >>> from retrograd.testing._internal.common_utils import TestCase
    >>> TestCase().assertEqual(torch.tensor(1.0), 1.0 + 1e-7)
    """

    _precision: float = 0
    _rel_tol: float = 0
    # When True, setUp/tearDown fail if the default dtype is not float32 (as PyTorch's flag).
    _default_dtype_check_enabled: bool = False
    _do_cuda_memory_leak_check = False
    _do_cuda_non_default_stream = False
    _ignore_not_implemented_error = False
    # Multi-line mismatches always show a full diff.
    _diffThreshold = sys.maxsize
    maxDiff = None
    longMessage = True

    def __init__(self, method_name: str = "runTest", methodName: str = "runTest") -> None:
        # PyTorch accepts both spellings (unittest's methodName and its own method_name).
        if methodName != "runTest":
            method_name = methodName
        super().__init__(method_name)

    @property
    def precision(self) -> float:
        return self._precision

    @precision.setter
    def precision(self, prec: float) -> None:
        self._precision = prec

    @property
    def rel_tol(self) -> float:
        return self._rel_tol

    @rel_tol.setter
    def rel_tol(self, prec: float) -> None:
        self._rel_tol = prec

    # ------------------------------------------------------------------------------- per-test state
    def setUp(self) -> None:
        set_rng_seed()
        self._prev_default_dtype = retrograd.get_default_dtype()
        self._prev_grad_state = retrograd.is_grad_enabled()
        if self._default_dtype_check_enabled and self._prev_default_dtype is not retrograd.float32:
            raise AssertionError(f"expected default dtype to be torch.float, got {self._prev_default_dtype}")

    def tearDown(self) -> None:
        # A test that leaks a global setting would change every later test's results.
        if hasattr(self, "_prev_grad_state"):
            retrograd.set_grad_enabled(self._prev_grad_state)
        if hasattr(self, "_prev_default_dtype"):
            leaked = retrograd.get_default_dtype()
            if leaked is not self._prev_default_dtype:
                retrograd.set_default_dtype(self._prev_default_dtype)
                if self._default_dtype_check_enabled:
                    raise AssertionError(f"expected default dtype to be torch.float, got {leaked}")

    # ------------------------------------------------------------------------------- equality
    def assertEqual(self, x: Any, y: Any, msg: str | Callable[[str], str] | None = None, *,
                    atol: float | None = None, rtol: float | None = None, equal_nan: bool = True,
                    exact_dtype: bool = True, exact_device: bool = False, exact_layout: bool = False,
                    exact_stride: bool = False, exact_is_coalesced: bool = False) -> None:
        """PyTorch's permissive equality; ``msg`` is appended to the generated message (or edits it if callable)."""
        __tracebackhide__ = True
        if any(isinstance(v, np.ndarray) and not has_corresponding_dtype(v.dtype) for v in (x, y)):
            # NumPy dtypes retrograd lacks (uint16, strings ...): compare element by element.
            def to_list(v):
                return v.tolist() if isinstance(v, (Tensor, np.ndarray)) else list(v)

            x, y = to_list(x), to_list(y)
        elif isinstance(x, Tensor) and isinstance(y, Sequence) and not isinstance(y, str):
            y = retrograd.as_tensor(y, dtype=x.dtype)
        elif isinstance(x, Sequence) and not isinstance(x, str) and isinstance(y, Tensor):
            x = retrograd.as_tensor(x, dtype=y.dtype)
        try:
            compare(x, y, rtol=rtol, atol=atol, rtol_override=self.rel_tol, atol_override=self.precision,
                    equal_nan=equal_nan, check_dtype=exact_dtype, check_device=exact_device)
        except Mismatch as m:
            if isinstance(msg, str) and self.longMessage:
                err = m.to_error(lambda generated: f"{generated}\n{msg}")
            else:
                err = m.to_error(msg)
            raise err from None

    def assertNotEqual(self, x: Any, y: Any, msg: str | None = None, *, atol: float | None = None,
                       rtol: float | None = None, **kwargs) -> None:
        """Fail when ``assertEqual`` would pass."""
        with self.assertRaises(AssertionError, msg=msg):
            self.assertEqual(x, y, msg, atol=atol, rtol=rtol, **kwargs)

    def assertEqualIgnoreType(self, *args, **kwargs) -> None:
        """``assertEqual`` without the dtype check."""
        return self.assertEqual(*args, exact_dtype=False, **kwargs)

    def assertEqualBroadcasting(self, x: Any, y: Any, *args, **kwargs) -> None:
        """``assertEqual`` after broadcasting ``y`` to ``x``'s shape."""
        if not isinstance(y, Iterable):
            y = retrograd.ones_like(x) * y
        if not isinstance(y, Tensor):
            y = retrograd.ones_like(x) * retrograd.tensor(y)
        return self.assertEqual(x, y, *args, **kwargs)

    def assertEqualTypeString(self, x: Tensor, y: Tensor) -> None:
        self.assertEqual(x.device, y.device)
        self.assertEqual(x.dtype, y.dtype)
        self.assertEqual(x.is_sparse, y.is_sparse)

    def assertObjectIn(self, obj: Any, iterable: Iterable) -> None:
        """``obj`` is (by identity) one of ``iterable``'s items."""
        if not any(id(obj) == id(elem) for elem in iterable):
            raise AssertionError("object not found in iterable")

    def assertGreaterAlmostEqual(self, first, second, places: int | None = None, msg=None, delta=None) -> None:
        """``first >= second``, or close to it (``places`` digits, default 7, or within ``delta``)."""
        if delta is not None and places is not None:
            raise TypeError("specify delta or places not both")
        if first >= second:
            return
        diff = second - first
        if delta is not None:
            if diff <= delta:
                return
            standard = f"{first} not greater than or equal to {second} within {delta} delta"
        else:
            places = 7 if places is None else places
            if round(diff, places) == 0:
                return
            standard = f"{first} not greater than or equal to {second} within {places} places"
        raise self.failureException(self._formatMessage(msg, standard))

    # ------------------------------------------------------------------------------- warnings
    def assertNotWarn(self, callable: Callable, msg: str = "") -> None:
        """``callable()`` raises no warning at all."""
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            with set_warn_always_context(True):
                callable()
            self.assertTrue(len(ws) == 0, msg)

    @contextlib.contextmanager
    def assertWarnsOnceRegex(self, category: type[Warning], regex: str = ""):
        """The block must raise a warning of exactly ``category`` whose text matches ``regex`` (``re.match``)."""
        pattern = re.compile(regex)
        with warnings.catch_warnings(record=True) as ws:
            warnings.simplefilter("always")
            with set_warn_always_context(True):
                yield
            if len(ws) == 0:
                self.fail("no warning caught")
            self.assertTrue(any(type(w.message) is category for w in ws))
            self.assertTrue(any(re.match(pattern, str(w.message)) for w in ws),
                            f"{pattern}, {[w.message for w in ws if type(w.message) is category]}")

    # ------------------------------------------------------------------------------- expect tests
    def assertExpectedInline(self, actual: Any, expect: str, skip: int = 0, ignore_comments: bool = False,
                             ignore_empty_lines: bool = False) -> None:
        """``str(actual) == expect`` exactly (no source rewriting: update the literal by hand)."""
        actual = _ANSI_ESCAPE.sub("", actual if isinstance(actual, str) else str(actual))
        expect = _ANSI_ESCAPE.sub("", expect)
        if ignore_comments:
            actual, expect = (_drop_lines(s, lambda ln: ln.strip().startswith("#")) for s in (actual, expect))
        if ignore_empty_lines:
            actual, expect = (_drop_lines(s, lambda ln: ln.strip() == "") for s in (actual, expect))
        self.assertMultiLineEqual(expect, actual, msg="retrograd does not rewrite expect literals "
                                                      "(EXPECTTEST_ACCEPT is not supported): update it by hand")

    def _expect_file(self, subname: str | None) -> tuple[str, str]:
        module_id = self.__class__.__module__
        munged_id = self.id()[len(module_id) + 1:] if self.id().startswith(module_id + ".") else self.id()
        module_file = getattr(sys.modules.get(module_id), "__file__", None) or "."
        path = os.path.join(os.path.dirname(os.path.realpath(module_file)), "expect", munged_id)
        if subname:
            path += "-" + subname
        return path + ".expect", munged_id

    def assertExpected(self, s: str, subname: str | None = None) -> None:
        """``s`` equals the file ``expect/<TestClass>.<test_name>[-subname].expect`` next to the test module."""
        if not isinstance(s, str):
            raise TypeError("assertExpected is strings only")
        path, munged_id = self._expect_file(subname)
        try:
            with open(path) as f:
                expected = f.read()
        except FileNotFoundError:
            sub = f" ({subname})" if subname else ""
            raise RuntimeError(f"I got this output for {munged_id}{sub}:\n\n{s}\n\nNo expect file exists "
                               f"(looked for {path}); retrograd does not write expect files (no --accept): "
                               "create it by hand.") from None
        self.assertMultiLineEqual(expected, s)

    def assertExpectedRaises(self, exc_type: type[BaseException], callable: Callable, *args, **kwargs) -> None:
        subname = kwargs.pop("subname", None)
        try:
            callable(*args, **kwargs)
        except exc_type as e:
            self.assertExpected(str(e), subname)
            return
        self.fail(msg="Did not raise when expected to")

    # ------------------------------------------------------------------------------- misc helpers
    def compare_with_numpy(self, torch_fn: Callable, np_fn: Callable, tensor_like: Any, device=None, dtype=None,
                           **kwargs) -> None:
        """``torch_fn(t)`` equals ``np_fn(a)`` for the same data as a tensor ``t`` and an array ``a``."""
        if isinstance(tensor_like, Tensor):
            if device is not None or dtype is not None:
                raise AssertionError("device and dtype must be None when tensor_like is a Tensor")
            a = tensor_like.detach().numpy()
            t = tensor_like
        else:
            a = np.array(tensor_like, dtype=dtype.np if dtype is not None else None)
            t = retrograd.tensor(tensor_like, device=device, dtype=dtype)
        np_result = np_fn(a)
        torch_result = torch_fn(t)
        if isinstance(np_result, np.ndarray):
            np_result = retrograd.from_numpy(np.ascontiguousarray(np_result))
        self.assertEqual(np_result, torch_result, **kwargs)

    def assertLeaksNoCudaTensors(self, name: str | None = None):
        """No CUDA here: an empty context."""
        return contextlib.nullcontext()

    def enforceNonDefaultStream(self):
        return contextlib.nullcontext()

    def wrap_with_policy(self, method_name: str, policy: Callable) -> None:
        """Run the test method inside the context that ``policy()`` returns."""
        method = getattr(self, method_name)

        def wrapper(*args, **kwargs):
            with policy():
                return method(*args, **kwargs)

        setattr(self, method_name, wrapper)


def _drop_lines(s: str, drop: Callable[[str], bool]) -> str:
    return "\n".join(line for line in s.split("\n") if not drop(line))
