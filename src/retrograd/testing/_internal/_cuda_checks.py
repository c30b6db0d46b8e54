"""``CudaMemoryLeakCheck``: PyTorch's guard that a test leaves no CUDA memory behind.

retrograd has no CUDA devices, so there is nothing to measure: the per-device usage list is
empty and the guard never fails.  Test files import it (the tests that use it are CUDA-only).

>>> from retrograd.testing._internal.common_utils import CudaMemoryLeakCheck
>>> CudaMemoryLeakCheck.get_cuda_memory_usage()
[]
"""

from __future__ import annotations

__all__ = ["CudaMemoryLeakCheck"]


class CudaMemoryLeakCheck:
    """Context manager comparing CUDA memory before and after a block (no devices here: a no-op)."""

    def __init__(self, testcase=None, name: str | None = None) -> None:
        self.testcase = testcase
        self.name = name

    @staticmethod
    def get_cuda_memory_usage() -> list:
        """Allocated bytes per CUDA device: none exist in retrograd."""
        return []

    def __enter__(self) -> "CudaMemoryLeakCheck":
        self.before = self.get_cuda_memory_usage()
        return self

    def __exit__(self, *exc) -> bool:
        return False
