"""``torch.__config__``: how this build was configured (retrograd: pure Python on NumPy).

>>> import retrograd as torch
>>> "NumPy" in torch.__config__.show()
True
"""
from __future__ import annotations

import platform

__all__ = ["show", "parallel_info"]


def show() -> str:
    """A human-readable summary of the build (PyTorch lists compilers and BLAS libraries)."""
    import numpy as np

    return (f"retrograd (PyTorch API emulation)\n  - Python {platform.python_version()}\n"
            f"  - NumPy {np.__version__} (all kernels)\n  - CPU only: no CUDA, MKL-DNN or OpenMP\n")


def parallel_info() -> str:
    """Threading settings, in PyTorch's format."""
    from ._compat import get_num_interop_threads, get_num_threads

    return (f"ATen/Parallel:\n\tat::get_num_threads() : {get_num_threads()}\n"
            f"\tat::get_num_interop_threads() : {get_num_interop_threads()}\n"
            "ATen parallel backend: none (NumPy)\n")


def _cxx_flags() -> str:
    """No C++ is compiled for retrograd."""
    return ""
