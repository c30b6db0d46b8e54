"""Without mpi4py retrograd still imports; is_available() says False and init names the extra to install."""
from __future__ import annotations

import subprocess
import sys

import pytest

import retrograd.distributed as dist
from retrograd.distributed import _mpi


def test_import_retrograd_does_not_start_mpi():
    code = "import sys, retrograd; retrograd.distributed.is_available(); print('mpi4py' in sys.modules)"
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "False"


def test_without_mpi4py(monkeypatch):
    # as if mpi4py were not installed: its import fails and the lazily imported module is absent
    monkeypatch.setitem(sys.modules, "mpi4py", None)
    monkeypatch.setattr(_mpi, "_module", None)
    assert dist.is_available() is False
    assert dist.is_mpi_available() is False
    with pytest.raises(RuntimeError, match=r"pip install retrograd\[distributed\]"):
        dist.init_process_group("mpi")
    assert not dist.is_initialized()
    # asking about a group that does not exist gives torch's error, with or without MPI
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        dist.get_rank()


def test_nccl_is_refused_like_torch_without_nccl():
    with pytest.raises(RuntimeError, match="Distributed package doesn't have NCCL built in"):
        dist.init_process_group("nccl")
