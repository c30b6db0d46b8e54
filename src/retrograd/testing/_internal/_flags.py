"""Platform and feature flags read by PyTorch-style test files (``IS_WINDOWS``, ``TEST_CUDA`` ...).

retrograd runs on the CPU only and has no compiler stack, so every accelerator / dynamo / inductor /
sanitizer flag is False; platform flags describe this machine, and a few opt-in flags read the same
environment variables as PyTorch's test suite (``PYTORCH_TEST_WITH_SLOW=1`` ...).

>>> from retrograd.testing._internal._flags import TEST_CUDA, TEST_NUMPY
>>> TEST_CUDA, TEST_NUMPY
(False, True)
"""
from __future__ import annotations

import importlib.util
import os
import platform
import sys

__all__ = [
    "IS_WINDOWS", "IS_MACOS", "IS_LINUX", "IS_PPC", "IS_X86", "IS_ARM64", "IS_S390X", "IS_FBCODE",
    "IS_SANDCASTLE", "IS_CI", "IS_REMOTE_GPU", "IS_JETSON", "IS_FILESYSTEM_UTF8_ENCODING", "NO_MULTIPROCESSING_SPAWN",
    "TEST_WITH_ASAN", "TEST_WITH_DEV_DBG_ASAN", "TEST_WITH_TSAN", "TEST_WITH_UBSAN", "TEST_WITH_ROCM",
    "TEST_WITH_MTIA", "TEST_WITH_SLOW", "TEST_SKIP_FAST", "TEST_WITH_SLOW_GRADCHECK", "TEST_WITH_TORCHDYNAMO",
    "TEST_WITH_TORCHINDUCTOR", "TEST_WITH_AOT_EAGER", "TEST_WITH_CROSSREF", "TEST_WITH_TV",
    "TEST_WITHOUT_COMPILED_AUTOGRAD", "TEST_CUDA", "TEST_MPS", "TEST_XPU", "TEST_HPU", "TEST_PRIVATEUSE1",
    "TEST_CUDA_GRAPH", "TEST_CUDA_MEM_LEAK_CHECK", "TEST_MULTIGPU", "TEST_NUMPY", "TEST_SCIPY", "TEST_MKL",
    "TEST_ONEDNN", "TEST_ACL", "TEST_NUMBA", "TEST_DILL", "TEST_LIBROSA", "TEST_OPT_EINSUM", "TEST_Z3",
    "TEST_TRANSFORMERS", "TEST_FAIRSEQ", "TEST_ACCELERATOR", "TEST_MULTIACCELERATOR", "TEST_LAPACK",
    "NOTEST_CPU", "MACOS_VERSION", "SEED", "GRADCHECK_NONDET_TOL", "NATIVE_DEVICES", "TestEnvironment",
]


def _module_exists(name: str) -> bool:
    try:
        return importlib.util.find_spec(name) is not None
    except (ImportError, ValueError):
        return False


def _env_flag(var: str) -> bool:
    return os.getenv(var, "0") == "1"


class TestEnvironment:
    """Where PyTorch records its environment-controlled test flags; kept for code that reads it."""

    repro_env_vars: dict = {}

    @staticmethod
    def def_flag(name: str, env_var: str | None = None, default: bool = False, **_ignored) -> bool:
        """A boolean flag: ``env_var`` set to ``"1"`` turns it on, else ``default``."""
        return _env_flag(env_var) if env_var is not None and env_var in os.environ else default


SEED = 1234
GRADCHECK_NONDET_TOL = 1e-12
NATIVE_DEVICES = ("cpu", "cuda", "xpu", "meta", "mps", "mtia", "privateuseone")

IS_LINUX = sys.platform == "linux"
IS_WINDOWS = sys.platform == "win32"
IS_MACOS = sys.platform == "darwin"
IS_PPC = platform.machine() == "ppc64le"
IS_X86 = platform.machine() in ("x86_64", "i386")
IS_ARM64 = platform.machine() in ("arm64", "aarch64", "ARM64")
IS_S390X = platform.machine() == "s390x"
IS_CI = bool(os.getenv("CI"))
IS_SANDCASTLE = False  # Meta-internal infrastructure: never true for retrograd
IS_FBCODE = False
IS_REMOTE_GPU = False
IS_JETSON = False
IS_FILESYSTEM_UTF8_ENCODING = sys.getfilesystemencoding() == "utf-8"
# the "spawn" start method exists on every platform Python 3.10+ supports
NO_MULTIPROCESSING_SPAWN = False
MACOS_VERSION = float(".".join(platform.mac_ver()[0].split(".")[:2]) or -1)

# Compiler / sanitizer / ROCm builds do not exist for retrograd.
TEST_WITH_ASAN = TEST_WITH_DEV_DBG_ASAN = TEST_WITH_TSAN = TEST_WITH_UBSAN = False
TEST_WITH_ROCM = TEST_WITH_MTIA = False
TEST_WITH_TORCHDYNAMO = TEST_WITH_TORCHINDUCTOR = TEST_WITH_AOT_EAGER = False
TEST_WITH_CROSSREF = TEST_WITH_TV = False
TEST_WITHOUT_COMPILED_AUTOGRAD = False
# Opt-in test selections, read from PyTorch's own environment variables.
TEST_WITH_SLOW = _env_flag("PYTORCH_TEST_WITH_SLOW")
TEST_SKIP_FAST = _env_flag("PYTORCH_TEST_SKIP_FAST")
TEST_WITH_SLOW_GRADCHECK = _env_flag("PYTORCH_TEST_WITH_SLOW_GRADCHECK")

# Devices: CPU only.
TEST_CUDA = TEST_MPS = TEST_XPU = TEST_HPU = TEST_PRIVATEUSE1 = False
TEST_CUDA_GRAPH = TEST_CUDA_MEM_LEAK_CHECK = TEST_MULTIGPU = False
TEST_ACCELERATOR = TEST_MULTIACCELERATOR = False
NOTEST_CPU = "cpu" in os.getenv("PYTORCH_TESTING_DEVICE_EXCEPT_FOR", "").split(",")

# Libraries.  Linear algebra goes through NumPy's LAPACK, so it is always there.
TEST_NUMPY = True
TEST_LAPACK = True
TEST_MKL = TEST_ONEDNN = TEST_ACL = False
TEST_SCIPY = _module_exists("scipy")
TEST_NUMBA = _module_exists("numba")
TEST_DILL = _module_exists("dill")
TEST_LIBROSA = _module_exists("librosa") and not IS_ARM64
TEST_OPT_EINSUM = _module_exists("opt_einsum")
TEST_Z3 = _module_exists("z3")
TEST_TRANSFORMERS = _module_exists("transformers")
TEST_FAIRSEQ = _module_exists("fairseq")
