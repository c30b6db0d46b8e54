"""torch.autocast / torch.amp on a CPU-only library: CUDA regions are disabled with torch's warning,
enabled=False is a no-op, bad device strings raise torch's error, and code runs unchanged."""
from __future__ import annotations

import warnings

import pytest

import retrograd

torch = pytest.importorskip("torch")


def _run(T):
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        with T.autocast("cuda"):
            out.append(T.is_autocast_enabled())
        out.append([str(x.message) for x in w])
    with T.autocast("cpu", enabled=False):
        out.append(T.is_autocast_enabled("cpu"))
    try:
        with T.autocast("foo"):
            pass
    except RuntimeError as e:
        out.append(str(e))
    out.append(T.amp.autocast is T.autocast)

    @T.autocast("cpu", enabled=False)
    def f(x):
        return (x * 2).sum()

    out.append(float(f(T.ones(3))))
    return out


def test_autocast_like_torch_on_a_cpu_build():
    assert _run(retrograd) == _run(torch)


def test_cpu_autocast_runs_in_full_precision_and_says_so_once():
    with pytest.warns(UserWarning, match="own precision"):
        retrograd.amp._warned_cpu[0] = False
        with retrograd.autocast("cpu", dtype=retrograd.bfloat16):
            y = retrograd.ones(2, 2) @ retrograd.ones(2, 2)
    assert y.dtype == retrograd.float32 and y.tolist() == [[2.0, 2.0], [2.0, 2.0]]
