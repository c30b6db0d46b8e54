"""Peak memory (and time) of loading a checkpoint: retrograd vs torch, in retrograd's format and torch's.

Each load runs in a fresh child process (Linux): after the imports it resets the kernel's record
of its peak resident set size (``/proc/self/clear_refs``), loads, and reports the peak
(``VmHWM``) minus the resident size before the load: what loading cost, whoever allocated it.  The
checkpoint is a state dict of float32 tensors totalling ``--mb`` MiB (default 256), written
once with ``retrograd.save`` and once with ``torch.save`` into a temporary directory.

    PYTHONPATH=src .venv/bin/python bench/bench_serialization.py --peak-memory [--mb 256] [--tensors 16]
"""
from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile

_CHILD = r"""
import json, sys, time
which, path = sys.argv[1], sys.argv[2]
import numpy  # imported before the baseline, so only the load itself is measured
if which == "torch":
    import torch
    load = lambda p: torch.load(p, weights_only=True)
else:
    import retrograd
    load = retrograd.load
def status(key):
    with open("/proc/self/status") as fh:
        return next(int(line.split()[1]) for line in fh if line.startswith(key + ":"))
with open("/proc/self/clear_refs", "w") as fh:
    fh.write("5")  # resets VmHWM to the current VmRSS
base = status("VmRSS")
t0 = time.perf_counter()
obj = load(path)
elapsed = time.perf_counter() - t0
peak = status("VmHWM")
nbytes = sum(v.numel() * v.element_size() for v in obj.values())
print(json.dumps({"base_kib": base, "peak_kib": peak, "seconds": elapsed, "tensor_bytes": nbytes}))
"""


def _write(mb: int, n_tensors: int, folder: str) -> dict[str, str]:
    import numpy as np
    import torch

    import retrograd

    per = mb * 2**20 // 4 // n_tensors
    rng = np.random.default_rng(0)
    arrays = {f"layer{i}.weight": rng.standard_normal(per, dtype=np.float32) for i in range(n_tensors)}
    paths = {"retrograd format": os.path.join(folder, "rg.pt"), "torch format": os.path.join(folder, "torch.pt")}
    retrograd.save({k: retrograd.from_numpy(v) for k, v in arrays.items()}, paths["retrograd format"])
    torch.save({k: torch.from_numpy(v) for k, v in arrays.items()}, paths["torch format"])
    return paths


def _child(which: str, path: str) -> dict:
    env = dict(os.environ)
    out = subprocess.run([sys.executable, "-c", _CHILD, which, path], check=True, capture_output=True, text=True,
                         env=env)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--peak-memory", action="store_true", help="measure the peak memory of loading (the default)")
    ap.add_argument("--mb", type=int, default=256, help="checkpoint size in MiB")
    ap.add_argument("--tensors", type=int, default=16, help="how many equal tensors hold it")
    args = ap.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        paths = _write(args.mb, args.tensors, folder)
        print(f"loading a {args.mb} MiB float32 state dict ({args.tensors} tensors); "
              "peak RSS growth in a fresh process")
        print(f"{'file':<18}{'loader':<11}{'peak MiB':>10}{'/ tensors':>11}{'time s':>9}")
        for fmt, path in paths.items():
            for which in (("retrograd", "torch") if fmt == "torch format" else ("retrograd",)):
                r = _child(which, path)
                grown = (r["peak_kib"] - r["base_kib"]) * 1024
                print(f"{fmt:<18}{which:<11}{grown / 2**20:>10.0f}{grown / r['tensor_bytes']:>10.2f}x"
                      f"{r['seconds']:>9.2f}")


if __name__ == "__main__":
    main()
