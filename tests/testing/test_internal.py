"""torch.testing._internal on retrograd: PyTorch-style test files import and run their CPU tests.

Two oracles.  (1) A driver script runs the same assertEqual cases and the same PyTorch-style test
module once under real torch and once under retrograd (through ``register_as_torch``), each in a
subprocess; the outcomes (exception types and messages, generated test names, pass / fail / skip /
expected-failure) must agree.  (2) In-process checks of retrograd-specific behaviour (state reset,
expect tests, decorators, dtype groups, argument handling) with explicit expectations.
"""
import importlib.util
import json
import os
import subprocess
import sys
import textwrap
import unittest
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")

import retrograd  # noqa: E402
from retrograd.testing._internal import _flags, common_cuda, common_dtype  # noqa: E402
from retrograd.testing._internal import common_device_type as cdt  # noqa: E402
from retrograd.testing._internal import common_utils as cu  # noqa: E402

# ------------------------------------------------------------------------------------------------
# A PyTorch-style test module (our own), run by unittest under both libraries.
STYLE_MODULE = r'''
import unittest
import torch
from torch.testing._internal.common_utils import (
    TestCase, parametrize, subtest, instantiate_parametrized_tests, skipIfTorchDynamo, slowTest, gradcheck,
    gradgradcheck, xfailIf, skipIfRocm, skipIfWindows, IS_WINDOWS, TEST_WITH_ROCM,
)
from torch.testing._internal.common_device_type import (
    instantiate_device_type_tests, dtypes, dtypesIfCPU, dtypesIfCUDA, onlyCPU, onlyCUDA, onlyNativeDeviceTypes,
    skipCPUIf, skipCUDAIf, precisionOverride, toleranceOverride, tol, deviceCountAtLeast, expectedFailureCPU,
    skipMeta,
)
from torch.testing._internal.common_dtype import floating_types_and, integral_types


class TestGeneric(TestCase):
    @parametrize("x", [1, 2.5, "a"])
    def test_param(self, x):
        self.assertIn(x, [1, 2.5, "a"])

    @parametrize("x,y", [(1, 2), subtest((3, 4), name="named"),
                         subtest((5, 5), decorators=[unittest.expectedFailure])])
    def test_pair(self, x, y):
        self.assertNotEqual(x, y)

    @parametrize("dt", [torch.float32, torch.int64])
    @parametrize("n", [0, 1])
    def test_stack(self, dt, n):
        self.assertIsInstance(dt, torch.dtype)

    @parametrize("v", [[1], None], name_fn=lambda v: "list" if v else "none")
    def test_named(self, v):
        pass

    @parametrize("obj", [object()])
    def test_obj(self, obj):
        pass

    @skipIfTorchDynamo("no dynamo")
    def test_dynamo(self):
        self.assertEqual(torch.tensor([1., 2.]), [1, 2])

    @skipIfRocm
    @skipIfWindows(msg="no windows")
    def test_rocm_windows(self):
        pass

    @slowTest
    def test_slow(self):
        pass

    def test_fail_values(self):
        self.assertEqual(torch.tensor([1., 2.]), torch.tensor([1., 2.5]))

    def test_fail_dtype(self):
        self.assertEqual(torch.tensor([1., 2.]), torch.tensor([1., 2.], dtype=torch.float64))

    def test_ignore_type(self):
        self.assertEqualIgnoreType(torch.tensor([1., 2.]), torch.tensor([1., 2.], dtype=torch.float64))

    def test_gradcheck(self):
        x = torch.randn(3, dtype=torch.float64, requires_grad=True)
        self.assertTrue(gradcheck(torch.sin, (x,)))
        self.assertTrue(gradgradcheck(torch.sin, (x,)))

    @xfailIf(True)
    def test_xfail(self):
        self.assertTrue(False)

    @xfailIf(False)
    def test_xfail_not(self):
        pass

    def test_raises_regex(self):
        with self.assertRaisesRegex(RuntimeError, "shape"):
            torch.ones(2, 3) @ torch.ones(2, 3)

    def test_precision_attr(self):
        self.precision = 0.5
        self.assertEqual(torch.tensor([1.0]), torch.tensor([1.4]))


instantiate_parametrized_tests(TestGeneric)


class TestDevice(TestCase):
    def test_plain(self, device):
        self.assertEqual(device, "cpu")

    def test_nodevice(self):
        pass

    @dtypes(torch.float32, torch.float64)
    def test_dt(self, device, dtype):
        self.assertEqual(torch.zeros(2, dtype=dtype, device=device).dtype, dtype)

    @dtypes(*floating_types_and(torch.half))
    @dtypesIfCPU(torch.float64)
    @dtypesIfCUDA(torch.float16)
    def test_dt_cpu(self, device, dtype):
        self.assertEqual(dtype, torch.float64)

    @dtypes(*integral_types())
    def test_int(self, device, dtype):
        self.assertFalse(dtype.is_floating_point)

    @dtypes((torch.int64, torch.float32), (torch.int32, torch.float64))
    def test_multi(self, device, dtypes):
        self.assertEqual(len(dtypes), 2)

    @parametrize("k", [1, 2])
    @dtypes(torch.float32)
    def test_param_dt(self, device, dtype, k):
        self.assertIn(k, (1, 2))

    @onlyCPU
    def test_only_cpu(self, device):
        pass

    @onlyCUDA
    def test_only_cuda(self, device):
        pass

    @onlyNativeDeviceTypes
    @skipMeta
    def test_native(self, device):
        pass

    @skipCPUIf(True, "skip on cpu")
    def test_skip_cpu(self, device):
        pass

    @skipCUDAIf(True, "skip on cuda")
    def test_skip_cuda(self, device):
        pass

    @precisionOverride({torch.float32: 0.1})
    @dtypes(torch.float32, torch.float64)
    def test_precision(self, device, dtype):
        self.assertEqual(torch.tensor([1.0], dtype=dtype), torch.tensor([1.05], dtype=dtype))

    @toleranceOverride({torch.float32: tol(atol=0, rtol=0.1)})
    @dtypes(torch.float32)
    def test_tol(self, device, dtype):
        self.assertEqual(self.rel_tol, 0.1)
        self.assertEqual(torch.tensor([100.0], dtype=dtype), torch.tensor([105.0], dtype=dtype))

    @deviceCountAtLeast(2)
    def test_multi_device(self, devices):
        pass

    @expectedFailureCPU
    def test_efail(self, device):
        raise RuntimeError("boom")

    @expectedFailureCPU
    def test_efail_passes(self, device):
        pass


instantiate_device_type_tests(TestDevice, globals())


class TestOnlyFor(TestCase):
    def test_a(self, device):
        pass


instantiate_device_type_tests(TestOnlyFor, globals(), only_for="cuda")
'''

# assertEqual cases: (actual, expected, keyword arguments) as Python expressions over torch / np.
EQUAL_CASES = [
    ("torch.tensor([1., 2.])", "torch.tensor([1., 2.1])", "{}"),
    ("torch.tensor([1., 2.])", "torch.tensor([1., 2.], dtype=torch.float64)", "{}"),
    ("torch.tensor([1., 2.])", "torch.tensor([1., 2.], dtype=torch.float64)", "{'exact_dtype': False}"),
    ("torch.tensor([1., 2.])", "[1, 2]", "{}"),
    ("torch.tensor([1., 2.])", "[1, 3]", "{}"),
    ("[1.5, 2.5]", "torch.tensor([1.5, 2.5])", "{}"),
    ("torch.tensor([1., 2.])", "np.array([1., 2.])", "{}"),
    ("torch.tensor([1., 2.], dtype=torch.float64)", "np.array([1., 2.5])", "{}"),
    ("torch.tensor(1.)", "1", "{}"),
    ("torch.tensor(1.)", "2", "{}"),
    ("torch.tensor(1.)", "torch.tensor(2.)", "{}"),
    ("torch.tensor(3)", "torch.tensor(4)", "{}"),
    ("1", "1.0", "{}"),
    ("1.0", "1.0 + 1e-6", "{}"),
    ("1.0", "1.0 + 1e-4", "{}"),
    ("0.1 + 0.2", "0.3", "{}"),
    ("1", "2.5", "{'atol': 1, 'rtol': 0}"),
    ("float('nan')", "float('nan')", "{}"),
    ("float('nan')", "float('nan')", "{'equal_nan': False}"),
    ("True", "1", "{}"),
    ("True", "False", "{}"),
    ("torch.tensor([True])", "True", "{}"),
    ("torch.tensor([True, False])", "True", "{}"),
    ("3", "torch.tensor([3, 3])", "{}"),
    ("'a'", "'b'", "{}"),
    ("b'ab'", "b'ac'", "{}"),
    ("[1, 2]", "[1, 2, 3]", "{}"),
    ("[[1, 2], [3, 4]]", "[[1, 2], [3, 5]]", "{}"),
    ("{'a': 1}", "{'a': 2}", "{}"),
    ("{'a': 1}", "{'b': 1}", "{}"),
    ("{'a': torch.tensor([1.]), 'b': [1, (2, 3)]}", "{'a': torch.tensor([1.]), 'b': [1, (2, 4)]}", "{}"),
    ("[torch.tensor(1.)]", "[torch.tensor(2.)]", "{}"),
    ("torch.tensor([1., 2.])", "torch.tensor([1., 2.1])", "{'msg': 'extra words'}"),
    ("torch.tensor([1., 2.])", "torch.tensor([1., 2.1])", "{'atol': 0.2, 'rtol': 0}"),
    ("torch.tensor([1., 2.])", "torch.tensor([1., 2.1])", "{'atol': 0.2}"),
    ("torch.tensor([1., 2.])", "torch.tensor([1., 2.1])", "{'atol': 0, 'rtol': 0}"),
    ("torch.tensor([1., float('nan')])", "torch.tensor([1., float('nan')])", "{}"),
    ("torch.tensor([1., float('nan')])", "torch.tensor([1., float('nan')])", "{'equal_nan': False}"),
    ("torch.tensor([1., float('inf')])", "torch.tensor([1., -float('inf')])", "{}"),
    ("torch.tensor([0., 1.])", "torch.tensor([1e-3, 1.])", "{}"),
    ("torch.tensor([[1., 2.], [3., 4.]])", "torch.tensor([[1., 2.5], [3., 4.5]])", "{}"),
    ("torch.tensor([1, 2])", "torch.tensor([1, 3])", "{}"),
    ("torch.tensor([0, 2])", "torch.tensor([1, 2])", "{}"),
    ("torch.tensor([1, 2], dtype=torch.uint8)", "torch.tensor([1, 3], dtype=torch.uint8)", "{}"),
    ("torch.tensor([True, False])", "torch.tensor([True, True])", "{}"),
    ("torch.tensor([1, 2])", "torch.tensor([1., 2.5])", "{'exact_dtype': False}"),
    ("torch.tensor([1., 2.], dtype=torch.float64)", "torch.tensor([1., 2. + 1e-6], dtype=torch.float64)", "{}"),
    ("torch.tensor([1., 2.], dtype=torch.float16)", "torch.tensor([1., 2.001], dtype=torch.float16)", "{}"),
    ("torch.tensor([1., 2.], dtype=torch.float16)", "torch.tensor([1., 2.01], dtype=torch.float16)", "{}"),
    ("torch.zeros(2, 3)", "torch.zeros(3, 2)", "{}"),
    ("torch.tensor([])", "torch.tensor([])", "{}"),
    ("torch.tensor([[1, 2], [3, 4]])", "[[1, 2], [3, 5]]", "{}"),
    ("np.array(['a', 'b'])", "np.array(['a', 'c'])", "{}"),
    ("np.float64(1.0)", "1.0", "{}"),
    ("np.int64(3)", "4", "{}"),
    ("None", "None", "{}"),
    ("None", "1", "{}"),
    ("torch.float32", "torch.float64", "{}"),
    ("torch.Size([2, 3])", "(2, 3)", "{}"),
    ("torch.Size([2, 3])", "(2, 4)", "{}"),
    ("{1, 2}", "{1, 3}", "{}"),
    ("int", "float", "{}"),
]

DRIVER = r'''
import json, sys, unittest
if sys.argv[1] == "retrograd":
    import retrograd
    retrograd.register_as_torch()
import numpy as np
import torch
from torch.testing._internal.common_utils import TestCase

cases = json.loads(sys.argv[2])
out = {"equal": [], "tests": {}}
tc = TestCase()
for a, e, kw in cases:
    try:
        tc.assertEqual(eval(a), eval(e), **eval(kw))
        out["equal"].append(["PASS", ""])
    except Exception as ex:
        out["equal"].append([type(ex).__name__, str(ex).replace("retrograd.", "torch.")])
    try:
        tc.assertNotEqual(eval(a), eval(e), **eval(kw))
        out["equal"].append(["NE PASS", ""])
    except Exception as ex:
        out["equal"].append(["NE " + type(ex).__name__, ""])

import style_module
result = unittest.TestResult()
unittest.TestLoader().loadTestsFromModule(style_module).run(result)
for name, kind in ([(t.id(), "fail") for t, _ in result.failures] + [(t.id(), "error") for t, _ in result.errors]
                   + [(t.id(), "skip:" + r) for t, r in result.skipped]
                   + [(t.id(), "xfail") for t, _ in result.expectedFailures]
                   + [(t.id(), "xpass") for t in result.unexpectedSuccesses]):
    out["tests"][name] = kind
out["run"] = result.testsRun
out["names"] = sorted(t.id() for g in unittest.TestLoader().loadTestsFromModule(style_module) for t in g)
print("JSON" + json.dumps(out))
'''


def _run_driver(lib: str, workdir) -> dict:
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([str(workdir), os.environ.get("PYTHONPATH", "")]))
    env.pop("PYTEST_CURRENT_TEST", None)
    p = subprocess.run([sys.executable, str(workdir / "driver.py"), lib, json.dumps(EQUAL_CASES)],
                       capture_output=True, text=True, timeout=180, env=env, cwd=str(workdir))
    assert p.returncode == 0, p.stderr[-3000:]
    line = [ln for ln in p.stdout.splitlines() if ln.startswith("JSON")][-1]
    return json.loads(line[4:])


@pytest.fixture(scope="module")
def outcomes(tmp_path_factory):
    work = tmp_path_factory.mktemp("tint")
    (work / "driver.py").write_text(DRIVER)
    (work / "style_module.py").write_text(STYLE_MODULE)
    if importlib.util.find_spec("expecttest") is None:
        # Real torch's common_utils imports expecttest (not installed here): a minimal stand-in.
        (work / "expecttest.py").write_text(textwrap.dedent('''
            import unittest
            ACCEPT = False
            class TestCase(unittest.TestCase):
                longMessage = True
                def assertExpectedInline(self, actual, expect, skip=0):
                    self.assertMultiLineEqual(expect, actual)
        '''))
    return _run_driver("torch", work), _run_driver("retrograd", work)


@pytest.mark.parametrize("i", range(len(EQUAL_CASES)))
def test_assert_equal_matches_torch(outcomes, i):
    ref, ours = outcomes
    assert ours["equal"][2 * i] == ref["equal"][2 * i], EQUAL_CASES[i]
    assert ours["equal"][2 * i + 1] == ref["equal"][2 * i + 1], EQUAL_CASES[i]


def test_assert_equal_cases_cover_failures(outcomes):
    # The table must exercise both outcomes (and so be able to fail either way).
    kinds = {k for k, _ in outcomes[0]["equal"][::2]}
    assert {"PASS", "AssertionError", "ValueError"} <= kinds


def test_generated_test_names_match_torch(outcomes):
    ref, ours = outcomes
    assert ours["names"] == ref["names"]
    assert ours["run"] == ref["run"]


def test_test_outcomes_match_torch(outcomes):
    ref, ours = outcomes
    assert ours["tests"] == ref["tests"]


def test_expected_names_and_outcomes(outcomes):
    ours = outcomes[1]
    names = {n.split(".", 1)[1] for n in ours["names"]}
    for expected in ["TestGeneric.test_param_x_1", "TestGeneric.test_param_x_2_5", "TestGeneric.test_param_x_a",
                     "TestGeneric.test_pair_named", "TestGeneric.test_pair_x_1_y_2", "TestGeneric.test_obj_obj0",
                     "TestGeneric.test_stack_float32_n_0", "TestGeneric.test_stack_int64_n_1",
                     "TestGeneric.test_named_list", "TestDeviceCPU.test_plain_cpu", "TestDeviceCPU.test_nodevice_cpu",
                     "TestDeviceCPU.test_dt_cpu_float32", "TestDeviceCPU.test_dt_cpu_float64",
                     "TestDeviceCPU.test_dt_cpu_cpu_float64", "TestDeviceCPU.test_multi_cpu_int64_float32",
                     "TestDeviceCPU.test_param_dt_k_2_cpu_float32", "TestDeviceCPU.test_int_cpu_uint8"]:
        assert expected in names
    assert not any(n.startswith(("TestDevice.", "TestOnlyFor")) for n in names)
    assert "TestDeviceCPU.test_dt_cpu_cpu_float16" not in names  # dtypesIfCPU replaced @dtypes on CPU
    tests = {k.split(".", 1)[1]: v for k, v in ours["tests"].items()}
    assert tests["TestGeneric.test_fail_values"] == "fail"
    assert tests["TestGeneric.test_fail_dtype"] == "fail"
    assert tests["TestDeviceCPU.test_precision_cpu_float64"] == "fail"  # override only for float32
    assert tests["TestDeviceCPU.test_efail_passes_cpu"] == "fail"
    assert tests["TestGeneric.test_pair_x_5_y_5"] == "xfail"
    assert tests["TestGeneric.test_slow"].startswith("skip:test is slow")
    assert tests["TestDeviceCPU.test_only_cuda_cpu"] == "skip:Only runs on cuda"
    assert tests["TestDeviceCPU.test_skip_cpu_cpu"] == "skip:skip on cpu"
    assert tests["TestDeviceCPU.test_multi_device_cpu"] == "skip:fewer than 2 devices detected"
    for passing in ["TestGeneric.test_gradcheck", "TestGeneric.test_dynamo", "TestGeneric.test_ignore_type",
                    "TestDeviceCPU.test_precision_cpu_float32", "TestDeviceCPU.test_tol_cpu_float32",
                    "TestDeviceCPU.test_efail_cpu", "TestDeviceCPU.test_skip_cuda_cpu",
                    "TestGeneric.test_precision_attr", "TestGeneric.test_rocm_windows"]:
        assert passing not in tests


# ------------------------------------------------------------------------------------------------
# run_tests(): a test file run as a script.
RUN_TESTS_FILE = r'''
import retrograd
retrograd.register_as_torch()
import torch
from torch.testing._internal.common_utils import TestCase, run_tests


class TestSeed(TestCase):
    def test_seeded(self):
        first = float(torch.rand(1))
        for seed in (7, 1234):
            torch.manual_seed(seed)
            if float(torch.rand(1)) == first:
                print("SEEDED", seed)

    def test_other(self):
        self.assertEqual(torch.ones(2), torch.ones(2))


if __name__ == "__main__":
    run_tests()
'''


def test_run_tests_as_script(tmp_path):
    f = tmp_path / "test_script.py"
    f.write_text(RUN_TESTS_FILE)
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)

    def run(*args):
        return subprocess.run([sys.executable, str(f), *args], capture_output=True, text=True, timeout=120, env=env)

    p = run("-v", "--seed", "7", "--accept")
    assert p.returncode == 0, p.stderr
    assert "Ran 2 tests" in p.stderr and "test_seeded (__main__.TestSeed.test_seeded) ... ok" in p.stderr
    assert "SEEDED 7" in p.stdout
    p = run("-k", "other")
    assert p.returncode == 0 and "Ran 1 test" in p.stderr
    p = run("-k", "no_such_test")
    assert "Ran 0 tests" in p.stderr


def test_run_tests_reports_failure(tmp_path):
    f = tmp_path / "test_fails.py"
    f.write_text(RUN_TESTS_FILE.replace("torch.ones(2), torch.ones(2)", "torch.ones(2), torch.zeros(2)"))
    env = dict(os.environ)
    env.pop("PYTEST_CURRENT_TEST", None)
    p = subprocess.run([sys.executable, str(f)], capture_output=True, text=True, timeout=120, env=env)
    assert p.returncode == 1
    assert "Tensor-likes are not close!" in p.stderr and "FAILED (failures=1)" in p.stderr


def test_unittest_argv_filtering():
    saved = _flags.SEED
    try:
        assert cu._unittest_argv(["prog", "--accept", "-v", "--seed=5", "-k", "x", "--repeat", "3"]) == \
            ["prog", "-v", "-k", "x"]
        assert _flags.SEED == 5
    finally:
        _flags.SEED = saved


# ------------------------------------------------------------------------------------------------
# In-process checks on retrograd's module directly.
def _run(case_cls, *names):
    result = unittest.TestResult()
    suite = unittest.TestSuite(case_cls(n) for n in names) if names else \
        unittest.TestLoader().loadTestsFromTestCase(case_cls)
    suite.run(result)
    return result


def test_teardown_restores_default_dtype_and_grad_mode():
    class T(cu.TestCase):
        def test_leak(self):
            retrograd.set_default_dtype(retrograd.float64)
            retrograd.set_grad_enabled(False)

    r = _run(T, "test_leak")
    assert r.wasSuccessful()
    assert retrograd.get_default_dtype() is retrograd.float32
    assert retrograd.is_grad_enabled()


def test_default_dtype_check_flag_fails_leaking_test():
    class T(cu.TestCase):
        _default_dtype_check_enabled = True

        def test_leak(self):
            retrograd.set_default_dtype(retrograd.float64)

    r = _run(T, "test_leak")
    assert len(r.failures) == 1 and "expected default dtype to be torch.float" in r.failures[0][1]
    assert retrograd.get_default_dtype() is retrograd.float32


def test_setup_seeds_generators():
    draws = []

    class T(cu.TestCase):
        def test_a(self):
            draws.append((float(retrograd.rand(1)), np.random.rand()))

    _run(T, "test_a")
    _run(T, "test_a")
    assert draws[0] == draws[1]
    retrograd.manual_seed(cu.SEED)
    np.random.seed(cu.SEED)
    assert draws[0] == (float(retrograd.rand(1)), np.random.rand())


def test_assert_equal_message_forms():
    tc = cu.TestCase()
    with pytest.raises(AssertionError, match=r"^only this$"):
        tc.longMessage = False
        tc.assertEqual(1, 2, "only this")
    tc.longMessage = True
    with pytest.raises(AssertionError) as e:
        tc.assertEqual([1, 2], [1, 3], msg=lambda m: "custom: " + m)
    assert str(e.value).startswith("custom: Scalars are not equal!") and str(e.value).endswith("item [1]")
    tc.assertEqual(torch_like := retrograd.tensor([1.0, 2.0]), torch_like.clone())


def test_precision_and_rel_tol_attributes():
    tc = cu.TestCase()
    with pytest.raises(AssertionError):
        tc.assertEqual(retrograd.tensor([1.0]), retrograd.tensor([1.4]))
    tc.precision = 0.5
    tc.assertEqual(retrograd.tensor([1.0]), retrograd.tensor([1.4]))
    tc.assertEqual(1.0, 1.4)
    tc.precision, tc.rel_tol = 0, 0.5
    tc.assertEqual(retrograd.tensor([100.0]), retrograd.tensor([140.0]))
    assert cu.TestCase().precision == 0  # instance setting, not class-wide


def test_assert_expected_inline():
    tc = cu.TestCase()
    tc.assertExpectedInline(retrograd.Size([2, 3]), "torch.Size([2, 3])")
    tc.assertExpectedInline("a\n# note\n\nb", "a\nb", ignore_comments=True, ignore_empty_lines=True)
    tc.assertExpectedInline("\x1b[31mred\x1b[0m", "red")
    with pytest.raises(AssertionError, match="does not rewrite"):
        tc.assertExpectedInline("abc", "abd")


class _ExpectHolder(cu.TestCase):
    __test__ = False  # used by test_assert_expected_file only

    def test_thing(self):
        pass


def test_assert_expected_file(tmp_path, monkeypatch):
    tc = _ExpectHolder("test_thing")
    monkeypatch.setattr(sys.modules[__name__], "__file__", str(tmp_path / "test_x.py"))
    with pytest.raises(RuntimeError, match="No expect file exists"):
        tc.assertExpected("hello")
    (tmp_path / "expect").mkdir()
    (tmp_path / "expect" / "_ExpectHolder.test_thing.expect").write_text("hello")
    (tmp_path / "expect" / "_ExpectHolder.test_thing-sub.expect").write_text("other")
    tc.assertExpected("hello")
    tc.assertExpected("other", "sub")
    with pytest.raises(AssertionError):
        tc.assertExpected("goodbye")
    with pytest.raises(TypeError, match="strings only"):
        tc.assertExpected(3)
    tc.assertExpectedRaises(ValueError, lambda: (_ for _ in ()).throw(ValueError("hello")))


def test_assert_warns_once_regex_and_not_warn():
    tc = cu.TestCase()
    with tc.assertWarnsOnceRegex(UserWarning, "some.*thing"):
        warnings.warn("something odd", UserWarning)
    with pytest.raises(AssertionError, match="no warning caught"):
        with tc.assertWarnsOnceRegex(UserWarning, "x"):
            pass
    with pytest.raises(AssertionError):
        with tc.assertWarnsOnceRegex(UserWarning, "x"):
            warnings.warn("x", DeprecationWarning)
    with pytest.raises(AssertionError):
        with tc.assertWarnsOnceRegex(UserWarning, "^abc"):
            warnings.warn("xabc", UserWarning)
    tc.assertNotWarn(lambda: None)
    with pytest.raises(AssertionError):
        tc.assertNotWarn(lambda: warnings.warn("w"))


def test_assert_not_equal_and_helpers():
    tc = cu.TestCase()
    tc.assertNotEqual(retrograd.tensor([1.0]), retrograd.tensor([2.0]))
    with pytest.raises(AssertionError):
        tc.assertNotEqual(retrograd.tensor([1.0]), [1.0])
    tc.assertEqualBroadcasting(retrograd.full((2, 2), 3.0), 3.0)
    x = retrograd.ones(2)
    tc.assertObjectIn(x, [1, x])
    with pytest.raises(AssertionError, match="object not found"):
        tc.assertObjectIn(retrograd.ones(2), [x])
    tc.assertGreaterAlmostEqual(1.0, 1.0 + 1e-9)
    with pytest.raises(AssertionError, match="not greater than or equal"):
        tc.assertGreaterAlmostEqual(1.0, 2.0, delta=0.5)
    tc.compare_with_numpy(retrograd.exp, np.exp, [0.5, 1.0], dtype=retrograd.float64)
    with pytest.raises(AssertionError):
        tc.compare_with_numpy(retrograd.exp, np.sin, [0.5, 1.0], dtype=retrograd.float64)


def test_freeze_rng_state_and_set_default_dtype():
    retrograd.manual_seed(3)
    with cu.freeze_rng_state():
        a = retrograd.rand(3)
        retrograd.rand(5)
    assert retrograd.equal(a, retrograd.rand(3))

    @cu.freeze_rng_state()
    def draw():
        return retrograd.rand(2)

    assert retrograd.equal(draw(), draw())
    with cu.set_default_dtype(retrograd.float64):
        assert retrograd.tensor(1.0).dtype is retrograd.float64
    assert retrograd.get_default_dtype() is retrograd.float32


def test_small_helpers(tmp_path):
    with cu.TemporaryFileName() as name:
        with open(name, "w") as fh:
            fh.write("x")
    assert not os.path.exists(name)
    with cu.TemporaryDirectoryName() as d:
        assert os.path.isdir(d)
    assert not os.path.exists(d)
    import gc

    with cu.disable_gc():
        assert not gc.isenabled()
    assert gc.isenabled()
    with cu.set_warn_always_context(True):
        assert retrograd.is_warn_always_enabled()
    assert not retrograd.is_warn_always_enabled()
    t = retrograd.arange(6.0).reshape(2, 3).requires_grad_()
    nc = cu.noncontiguous_like(t)
    assert not nc.is_contiguous() and nc.requires_grad and retrograd.equal(nc.detach(), t.detach())
    assert cu.numpy_to_torch_dtype_dict[np.float32] is retrograd.float32
    assert cu.torch_to_numpy_dtype_dict[retrograd.int64] is np.int64
    assert cu.numpy_to_torch_dtype(np.dtype("int16")) is retrograd.int16
    assert not cu.has_corresponding_torch_dtype(np.uint16)
    s = cu.random_symmetric_matrix(3, 2)
    assert s.shape == (2, 3, 3) and retrograd.allclose(s, s.mT)
    m = cu.make_tensor((2, 3), dtype=retrograd.float32, device="cpu")
    assert m.shape == (2, 3)
    assert cu.is_iterable_of_tensors([m]) and not cu.is_iterable_of_tensors(m)


def test_gradcheck_wrappers_catch_wrong_gradients():
    class BadSquare(retrograd.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            ctx.save_for_backward(x)
            return x * x

        @staticmethod
        def backward(ctx, g):
            (x,) = ctx.saved_tensors
            return g * x  # should be 2 * g * x

    x = retrograd.randn(3, dtype=retrograd.float64, requires_grad=True)
    assert cu.gradcheck(lambda t: t * t, (x,))
    assert not cu.gradcheck(BadSquare.apply, (x,), raise_exception=False)
    with pytest.raises(RuntimeError, match="Jacobian mismatch"):
        cu.gradcheck(BadSquare.apply, (x,))


def test_decorators_follow_flags(monkeypatch):
    class T(cu.TestCase):
        @cu.skipIfRocm
        def test_r(self):
            pass

        @cu.skipIfTorchDynamo()
        def test_d(self):
            pass

        @cu.skipIfNoLapack
        def test_l(self):
            pass

        @cu.suppress_warnings
        def test_w(self):
            warnings.warn("hidden")

        @cu.serialTest()
        def test_s(self):
            pass

    assert _run(T).wasSuccessful() and not _run(T).skipped
    monkeypatch.setattr(_flags, "TEST_WITH_ROCM", True)
    monkeypatch.setattr(_flags, "TEST_WITH_TORCHDYNAMO", True)
    monkeypatch.setattr(_flags, "TEST_LAPACK", False)
    reasons = sorted(r for _, r in _run(T, "test_r", "test_d", "test_l").skipped)
    assert reasons == ["PyTorch compiled without Lapack", "skipIfRocm: test doesn't currently work on the ROCm stack",
                       "test doesn't currently work with dynamo"]
    with pytest.raises(AssertionError, match="correctly"):
        cu.skipIfTorchDynamo(lambda: None)
    with pytest.raises(AssertionError, match="expected condition to be bool"):
        cu.serialTest(lambda: None)


def test_flags():
    assert cu.IS_LINUX == sys.platform.startswith("linux") and cu.IS_WINDOWS == (sys.platform == "win32")
    for name in ["TEST_CUDA", "TEST_MPS", "TEST_XPU", "TEST_CUDA_GRAPH", "TEST_WITH_ROCM", "TEST_WITH_ASAN",
                 "TEST_WITH_TSAN", "TEST_WITH_UBSAN", "TEST_WITH_TORCHDYNAMO", "TEST_WITH_TORCHINDUCTOR",
                 "TEST_WITH_CROSSREF", "IS_FBCODE", "IS_SANDCASTLE"]:
        assert getattr(cu, name) is False, name
    assert cu.TEST_NUMPY is True and cu.TEST_SCIPY == (importlib.util.find_spec("scipy") is not None)
    assert common_cuda.TEST_CUDA is False and common_cuda.TEST_MULTIGPU is False and not common_cuda.SM80OrLater
    with common_cuda.tf32_off():
        pass


def test_parametrize_errors():
    def make(arg_str, values):
        class T(unittest.TestCase):
            @cu.parametrize(arg_str, values)
            def test_f(self, x, y=None):
                pass

        return cu.instantiate_parametrized_tests(T)

    with pytest.raises(RuntimeError, match="Expected # values == # arg names"):
        make("x,y", [(1, 2, 3)])
    with pytest.raises(ValueError, match="empty arg_values"):
        make("x", [])
    with pytest.raises(AssertionError, match="Redefinition of test test_f_x_1"):
        make("x", [1, 1])

    class T(unittest.TestCase):
        @cu.parametrize("x", [1])
        @cu.parametrize("x", [2])
        def test_f(self, x):
            pass

    with pytest.raises(RuntimeError, match="handled multiple times"):
        cu.instantiate_parametrized_tests(T)


def test_decorate_if():
    @cu.instantiate_parametrized_tests
    class T(cu.TestCase):
        @cu.decorateIf(unittest.expectedFailure, lambda p: p["x"] == 2)
        @cu.parametrize("x", [1, 2])
        def test_f(self, x):
            self.assertEqual(x, 1)

    r = _run(T)
    assert r.testsRun == 2 and r.wasSuccessful() and len(r.expectedFailures) == 1


def test_device_type_only_for_except_for(monkeypatch):
    def make(**kw):
        class TestX(cu.TestCase):
            def test_a(self, device):
                pass

            def helper(self):
                return 1

        scope = {"TestX": TestX}
        cdt.instantiate_device_type_tests(TestX, scope, **kw)
        return scope

    scope = make()
    assert set(scope) == {"TestXCPU"} and scope["TestXCPU"]().helper() == 1
    assert hasattr(scope["TestXCPU"], "test_a_cpu") and not hasattr(scope["TestXCPU"], "test_a")
    assert set(make(only_for=["cpu"])) == {"TestXCPU"}
    assert set(make(only_for="cuda")) == set()
    assert set(make(except_for="cpu")) == set()
    monkeypatch.setenv("PYTORCH_TESTING_DEVICE_EXCEPT_FOR", "cpu")
    assert set(make()) == set()


def test_dtypes_decorator_validation():
    with pytest.raises(AssertionError, match="Unknown dtype"):
        cdt.dtypes(retrograd.float32, "float64")
    with pytest.raises(AssertionError, match="all dtype variants must be"):
        cdt.dtypes((retrograd.float32,), retrograd.float64)
    with pytest.raises(AssertionError, match="dtypes redefinition for all"):
        cdt.dtypes(retrograd.float32)(cdt.dtypes(retrograd.float64)(lambda self, device, dtype: None))
    with pytest.raises(AssertionError, match="precisionOverride given unknown dtype"):
        cdt.precisionOverride({"float32": 1e-3})
    with pytest.raises(AssertionError, match="toleranceOverride not given a dtype : tol dict"):
        cdt.toleranceOverride({retrograd.float32: 1e-3})

    class TestY(cu.TestCase):
        @cdt.dtypesIfCPU(retrograd.float64)
        def test_a(self, device, dtype):
            pass

    with pytest.raises(AssertionError, match="@dtypes is mandatory"):
        cdt.instantiate_device_type_tests(TestY, {"TestY": TestY})


def test_largetensortest_and_setup_class():
    calls = []

    class TestZ(cu.TestCase):
        @classmethod
        def setUpClass(cls):
            calls.append(cls.__name__)

        @cdt.largeTensorTest("100000GB")
        def test_big(self, device):
            pass

        @cdt.largeTensorTest(1024)
        def test_small(self, device):
            pass

    scope = {"TestZ": TestZ}
    cdt.instantiate_device_type_tests(TestZ, scope)
    r = _run(scope["TestZCPU"])
    assert calls == ["TestZCPU"]
    assert [reason for _, reason in r.skipped] == ["Insufficient cpu memory"] and r.wasSuccessful()


def test_common_dtype_groups():
    f32, f64, f16 = retrograd.float32, retrograd.float64, retrograd.float16
    assert common_dtype.floating_types() == (f32, f64)
    assert common_dtype.floating_types_and(f16, retrograd.bfloat16) == (f32, f64, f16, retrograd.bfloat16)
    assert common_dtype.integral_types() == (retrograd.uint8, retrograd.int8, retrograd.int16, retrograd.int32,
                                             retrograd.int64)
    assert common_dtype.all_types() == common_dtype.floating_types() + common_dtype.integral_types()
    assert common_dtype.all_types_and(retrograd.bool)[-1] is retrograd.bool
    assert common_dtype.complex_types() == () and common_dtype.floating_and_complex_types() == (f32, f64)
    assert type(common_dtype.all_types_and(f16)).__name__ == "_dispatch_dtypes"
    with pytest.raises(AssertionError, match="Expected dtype to be torch.dtype"):
        common_dtype.floating_types_and("float16")


_MISSING = {"complex32", "complex64", "complex128"}  # dtypes retrograd does not have


@pytest.mark.parametrize("fn", ["floating_types", "integral_types", "all_types", "floating_types_and_half",
                                "all_types_and_half", "floating_and_complex_types", "complex_types",
                                "all_types_and_complex", "double_types", "get_all_dtypes", "get_all_int_dtypes",
                                "get_all_fp_dtypes", "get_all_complex_dtypes"])
def test_common_dtype_matches_torch(fn):
    real = pytest.importorskip("torch.testing._internal.common_dtype")
    ref = [str(d).split(".")[-1] for d in getattr(real, fn)()]
    ours = [str(d).split(".")[-1] for d in getattr(common_dtype, fn)()]
    assert ours == [n for n in ref if n not in _MISSING]
