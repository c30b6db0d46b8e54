#!/usr/bin/env bash
# Run the test suite as it runs on an x86-64 CPU without AVX: NumPy's SIMD dispatch switched off
# (NPY_DISABLE_CPU_FEATURES: every dispatched feature, so only NumPy's baseline remains), OpenBLAS
# on its generic kernels (OPENBLAS_CORETYPE=Prescott) and torch, the oracle, on its default
# (non-vectorized) kernels (ATEN_CPU_CAPABILITY=default).  Float results that depend on fused or
# unfused multiply-adds, or on SIMD summation order, differ from the native run; a test that
# compares them bit for bit fails here.  Usage: scripts/test_any_cpu.sh [pytest args...]
set -euo pipefail
PY=${PY:-.venv/bin/python}
disabled=$("$PY" -c '
try:
    from numpy._core._multiarray_umath import __cpu_dispatch__
except ImportError:  # NumPy 1.x
    from numpy.core._multiarray_umath import __cpu_dispatch__
print(" ".join(__cpu_dispatch__))')
echo "any-CPU run: NumPy dispatch off ($disabled), OpenBLAS Prescott, torch default kernels"
NPY_DISABLE_CPU_FEATURES="$disabled" OPENBLAS_CORETYPE=Prescott ATEN_CPU_CAPABILITY=default \
  "$PY" -m pytest "$@"
