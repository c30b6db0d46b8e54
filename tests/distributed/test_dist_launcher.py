"""``python -m retrograd.distributed.run``: command building, and real launches of a script."""
from __future__ import annotations

import os
import sys

import pytest

from conftest import HERE, launch
from retrograd.distributed.run import build_command

SCRIPT = os.path.join(HERE, "dist_launched_script.py")


def test_command_for_mpich():
    cmd, env = build_command(["-n", "4", "--hostfile", "hosts", "train.py", "--lr", "0.1"], mpiexec="/x/mpiexec",
                             implementation="mpich")
    assert cmd == ["/x/mpiexec", "-n", "4", "-f", "hosts", sys.executable, "-m", "retrograd.distributed._bootstrap",
                   "train.py", "--lr", "0.1"]
    assert env == {}


def test_command_for_open_mpi_oversubscribes_and_allows_root():
    cmd, env = build_command(["--nproc-per-node", "2", "--hostfile", "h", "-m", "pkg.train"], mpiexec="mpirun",
                             implementation="openmpi")
    assert cmd[:6] == ["mpirun", "--oversubscribe", "-n", "2", "--hostfile", "h"]
    assert cmd[-2:] == ["-m", "pkg.train"]
    if os.geteuid() == 0:
        assert env == {"OMPI_ALLOW_RUN_AS_ROOT": "1", "OMPI_ALLOW_RUN_AS_ROOT_CONFIRM": "1"}


def test_bad_process_count():
    with pytest.raises(ValueError, match="at least 1"):
        build_command(["-n", "0", "train.py"], mpiexec="mpiexec", implementation="mpich")


def test_launch_sets_torchrun_environment(world):
    # the worker behind the `world` fixture is started with `python -m retrograd.distributed.run -n N`
    # and joins with init_method="env://"
    n = world.n
    for r in range(n):
        env, argv, name = world[r]["launch"]
        assert env == {"RANK": str(r), "WORLD_SIZE": str(n), "LOCAL_RANK": str(r), "LOCAL_WORLD_SIZE": str(n),
                       "NODE_RANK": "0"}
        assert argv[1:] == (["--torch"] if n == 2 else []) and name == "__main__"


def test_failure_on_one_rank_ends_the_job():
    pytest.importorskip("mpi4py", reason="launching needs mpi4py: pip install retrograd[distributed]")
    res = launch(2, SCRIPT, [], timeout=120)
    assert res.returncode != 0
    assert "rank 1 fails on purpose" in res.stderr


def test_example_ddp_mnist_like_trains(tmp_path):
    pytest.importorskip("mpi4py", reason="launching needs mpi4py: pip install retrograd[distributed]")
    example = os.path.join(HERE, "..", "..", "examples", "ddp_mnist_like.py")
    res = launch(2, example, ["--epochs", "2", "--train-size", "768"])
    assert res.returncode == 0, res.stderr
    lines = res.stdout.strip().splitlines()
    assert len(lines) == 3 and lines[0].startswith("epoch 0:") and "over 2 process(es)" in lines[0]
    losses = [float(line.split("loss ")[1].split()[0]) for line in lines[:2]]
    assert losses[1] < losses[0]  # it learns
    assert float(lines[2].split()[-1]) > 0.5  # ten classes: chance is 0.1
