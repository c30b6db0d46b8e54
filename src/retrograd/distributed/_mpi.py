"""The one place that imports mpi4py: lazily, so ``import retrograd`` never starts MPI.

Importing ``mpi4py.MPI`` initialises the MPI library (and, under a launcher, joins the job),
which costs time and may print warnings on machines without a network; a program that never
calls ``init_process_group`` must not pay for it.
"""
from __future__ import annotations

import importlib.util

import numpy as np

INSTALL_HINT = "pip install retrograd[distributed]"
_MISSING = ("retrograd.distributed runs on MPI through mpi4py, which is not installed here. "
            f"Install it with `{INSTALL_HINT}` (mpi4py plus the MPICH wheel), then launch with "
            "`python -m retrograd.distributed.run -n 4 train.py` or `mpiexec -n 4 python train.py`.")

_module = None


def mpi4py_installed() -> bool:
    """Whether mpi4py can be imported, answered without importing (and so initialising) it."""
    if _module is not None:
        return True
    try:
        return importlib.util.find_spec("mpi4py") is not None
    except (ImportError, ValueError):
        return False


def MPI():
    """The ``mpi4py.MPI`` module, imported on first use; a RuntimeError naming the extra if absent."""
    global _module
    if _module is None:
        try:
            from mpi4py import MPI as mod
        except ImportError as e:
            raise RuntimeError(_MISSING) from e
        except (RuntimeError, OSError) as e:  # mpi4py is there but finds no MPI library to load
            raise RuntimeError(f"mpi4py could not load an MPI library ({e}); install one with `{INSTALL_HINT}` "
                               "(the MPICH wheel) or from your system's packages") from e
        _module = mod
    return _module


def mpi_datatype(npdtype: np.dtype):
    """MPI's predefined datatype for a NumPy dtype that MPI can reduce natively, else None."""
    M = MPI()
    return {np.dtype(np.float32): M.FLOAT, np.dtype(np.float64): M.DOUBLE,
            np.dtype(np.int8): M.INT8_T, np.dtype(np.int16): M.INT16_T, np.dtype(np.int32): M.INT32_T,
            np.dtype(np.int64): M.INT64_T, np.dtype(np.uint8): M.UINT8_T}.get(np.dtype(npdtype))
