"""retrograd's ``torch.testing._internal.common_cuda``: every CUDA capability is absent.

>>> from retrograd.testing._internal.common_cuda import TEST_CUDA, SM80OrLater
>>> TEST_CUDA, bool(SM80OrLater)
(False, False)
"""
from __future__ import annotations

import contextlib

__all__ = [
    "TEST_CUDA", "TEST_MULTIGPU", "TEST_CUDNN", "TEST_CUDNN_VERSION", "TEST_CUSPARSE_GENERIC",
    "TEST_HIPSPARSE_GENERIC", "CUDA_DEVICE", "CUDA_ALREADY_INITIALIZED_ON_IMPORT", "ROCM_VERSION",
    "SM53OrLater", "SM60OrLater", "SM70OrLater", "SM75OrLater", "SM80OrLater", "SM89OrLater", "SM90OrLater",
    "SM100OrLater", "SM120OrLater", "IS_JETSON", "IS_THOR", "IS_SM89", "IS_SM90", "IS_SM100",
    "PLATFORM_SUPPORTS_FLASH_ATTENTION", "PLATFORM_SUPPORTS_MEM_EFF_ATTENTION", "PLATFORM_SUPPORTS_FUSED_ATTENTION",
    "PLATFORM_SUPPORTS_CUDNN_ATTENTION", "PLATFORM_SUPPORTS_FP8", "PLATFORM_SUPPORTS_BF16",
    "PLATFORM_SUPPORTS_MX_GEMM", "tf32_off", "tf32_on", "tf32_on_and_off", "with_tf32_off", "tf32_is_not_fp32",
    "initialize_cuda_context_rng", "xfailIfSM89", "xfailIfSM90", "xfailIfSM100OrLater", "xfailIfSM120OrLater",
]

TEST_CUDA = TEST_MULTIGPU = TEST_CUDNN = False
TEST_CUDNN_VERSION = 0
TEST_CUSPARSE_GENERIC = TEST_HIPSPARSE_GENERIC = False
CUDA_DEVICE = None
CUDA_ALREADY_INITIALIZED_ON_IMPORT = False
ROCM_VERSION = (0, 0)
SM53OrLater = SM60OrLater = SM70OrLater = SM75OrLater = SM80OrLater = False
SM89OrLater = SM90OrLater = SM100OrLater = SM120OrLater = False
IS_JETSON = IS_THOR = IS_SM89 = IS_SM90 = IS_SM100 = False
PLATFORM_SUPPORTS_FLASH_ATTENTION = PLATFORM_SUPPORTS_MEM_EFF_ATTENTION = False
PLATFORM_SUPPORTS_FUSED_ATTENTION = PLATFORM_SUPPORTS_CUDNN_ATTENTION = False
PLATFORM_SUPPORTS_FP8 = PLATFORM_SUPPORTS_BF16 = PLATFORM_SUPPORTS_MX_GEMM = False


def tf32_is_not_fp32() -> bool:
    return False


@contextlib.contextmanager
def tf32_off():
    """TF32 does not exist on the CPU: an empty context."""
    yield


@contextlib.contextmanager
def tf32_on(self=None, tf32_precision: float = 1e-5):
    yield


def tf32_on_and_off(tf32_precision: float = 1e-5, *, only_if: bool = True):
    """The test runs once (there is no TF32 mode to toggle)."""
    return lambda f: f


def with_tf32_off(f):
    return f


def initialize_cuda_context_rng() -> None:
    """No CUDA context to initialise."""


def _identity(func):
    return func


xfailIfSM89 = xfailIfSM90 = xfailIfSM100OrLater = xfailIfSM120OrLater = _identity
