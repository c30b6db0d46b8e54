"""Fixtures that run the multi-process worker once per world size (2 and 4 ranks) through mpiexec.

Every test here needs mpi4py and an mpiexec (the `distributed` extra, part of `test`); without
mpi4py they are skipped with that reason, and nothing else is ever a reason to skip.
"""
from __future__ import annotations

import os
import pickle
import signal
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
TIMEOUT_S = 240  # a generous ceiling for a loaded 2-core machine; a hang fails instead of stalling CI


def launch(n: int, script: str, args: list[str], timeout: float = TIMEOUT_S) -> subprocess.CompletedProcess:
    """Run ``script`` on ``n`` ranks with retrograd's launcher; kill the whole job on timeout."""
    cmd = [sys.executable, "-m", "retrograd.distributed.run", "-n", str(n), script, *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, start_new_session=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        os.killpg(proc.pid, signal.SIGKILL)
        out, err = proc.communicate()
        pytest.fail(f"{n}-rank run of {os.path.basename(script)} exceeded {timeout}s\nstdout:\n{out}\nstderr:\n{err}")
    return subprocess.CompletedProcess(cmd, proc.returncode, out, err)


class WorldRun:
    """What each rank of one worker run recorded: ``run[rank][key]``."""

    def __init__(self, n: int, ranks: list[dict]) -> None:
        self.n = n
        self.ranks = ranks

    def __getitem__(self, rank: int) -> dict:
        return self.ranks[rank]


def _run_world(n: int, tmp_path_factory) -> WorldRun:
    pytest.importorskip("mpi4py", reason="the multi-process tests need mpi4py: pip install retrograd[distributed]")
    out = tmp_path_factory.mktemp(f"world{n}")
    args = [str(out)] + (["--torch"] if n == 2 else [])
    res = launch(n, os.path.join(HERE, "dist_worker.py"), args)
    if res.returncode != 0:
        pytest.fail(f"{n}-rank worker failed (rc {res.returncode})\nstdout:\n{res.stdout}\nstderr:\n{res.stderr}")
    ranks = []
    for r in range(n):
        with open(out / f"rank{r}.pkl", "rb") as f:
            ranks.append(pickle.load(f))
    return WorldRun(n, ranks)


@pytest.fixture(scope="session", params=[2, 4], ids=["2ranks", "4ranks"])
def world(request, tmp_path_factory) -> WorldRun:
    cache = request.config.__dict__.setdefault("_retrograd_worlds", {})
    if request.param not in cache:
        cache[request.param] = _run_world(request.param, tmp_path_factory)
    return cache[request.param]


@pytest.fixture(scope="session")
def world2(request, tmp_path_factory) -> WorldRun:
    cache = request.config.__dict__.setdefault("_retrograd_worlds", {})
    if 2 not in cache:
        cache[2] = _run_world(2, tmp_path_factory)
    return cache[2]
