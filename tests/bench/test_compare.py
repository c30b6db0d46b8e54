"""bench/compare.py --quick runs every workload, and its result checks can fail (a smoke test; no timings asserted)."""
from __future__ import annotations

import importlib.util
import pathlib
import subprocess
import sys

import numpy as np
import pytest

BENCH = pathlib.Path(__file__).resolve().parents[2] / "bench" / "compare.py"
_spec = importlib.util.spec_from_file_location("bench_compare", BENCH)
compare = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(compare)


def test_quick_runs_every_workload_and_checks_each_result():
    impls = ["retrograd", "numpy"] + (["torch"] if importlib.util.find_spec("torch") else [])
    proc = subprocess.run([sys.executable, str(BENCH), "--quick", "--impls", *impls], capture_output=True,
                          text=True, timeout=600)
    assert proc.returncode == 0, proc.stderr[-3000:]
    lines = proc.stdout.splitlines()
    for w in compare.WORKLOADS:
        # every workload got a row for retrograd, with a ratio to NumPy (or, for whole models, to torch)
        row = [ln for ln in lines if ln.split()[:2] == [w, "retrograd"]]
        assert len(row) == 1, (w, proc.stdout)
        if not w.startswith("model_") or "torch" in impls:
            assert row[0].split()[6 if not w.startswith("model_") else 5] != "-", row


def test_check_rejects_a_wrong_result():
    ref = [np.array([1.0, 2.0]), np.array(3.0)]
    compare.check("scalar_addmul", "x", [np.array([1.0, 2.0]), np.array(3.0)], ref)
    with pytest.raises(AssertionError, match="result 1 differs"):
        compare.check("scalar_addmul", "x", [np.array([1.0, 2.0]), np.array(3.01)], ref)
    with pytest.raises(AssertionError, match="returned 1 values"):
        compare.check("scalar_addmul", "x", [np.array([1.0, 2.0])], ref)


@pytest.mark.parametrize("workload", ["scalar_unary", "vec16_addmul", "hvp", "hessian_rows", "chain_100k", "cnn_step"])
def test_numpy_reference_matches_retrograd_at_quick_size(workload):
    # the hand-written NumPy references are themselves right (checked here in-process, no timing)
    import retrograd

    sz = compare.sizes(True)
    got = [np.asarray(r, dtype=float) for r in compare.build(workload, "retrograd", retrograd, sz)()]
    ref = [np.asarray(r, dtype=float) for r in compare.build(workload, "numpy", np, sz)()]
    compare.check(workload, "retrograd", got, ref)
