"""torch.autocast / torch.amp on a CPU-only library: CUDA regions are disabled with torch's warning,
enabled=False is a no-op, bad device strings raise torch's error, and code runs unchanged."""
from __future__ import annotations

import warnings

import pytest

import retrograd

torch = pytest.importorskip("torch")

from .._error_compare import _err  # noqa: E402


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


# ------------------------------------------------------------------ autocast state
def _autocast_trace(lib):
    out = []
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        out.append(str(lib.get_autocast_cpu_dtype()).split(".")[-1])
        out.append(str(lib.get_autocast_gpu_dtype()).split(".")[-1])
        out.append(str(lib.get_autocast_xla_dtype()).split(".")[-1])
        out.append(lib.is_autocast_cpu_enabled())
        lib.set_autocast_enabled("cpu", True)
        out.append(lib.is_autocast_enabled("cpu"))
        out.append(lib.is_autocast_cpu_enabled())
        lib.set_autocast_enabled("cpu", False)
        lib.set_autocast_cpu_enabled(True)
        out.append(lib.is_autocast_enabled("cpu"))
        lib.set_autocast_cpu_enabled(False)
        lib.set_autocast_dtype("cpu", lib.float16)
        out.append(str(lib.get_autocast_dtype("cpu")).split(".")[-1])
        lib.set_autocast_cpu_dtype(lib.bfloat16)
        out.append(str(lib.get_autocast_cpu_dtype()).split(".")[-1])
        with lib.autocast("cpu", dtype=lib.float16, enabled=False):
            out.append(str(lib.get_autocast_dtype("cpu")).split(".")[-1])
        out.append(str(lib.get_autocast_dtype("cpu")).split(".")[-1])
        out.append(lib.is_autocast_cache_enabled())
        lib.set_autocast_cache_enabled(False)
        out.append(lib.is_autocast_cache_enabled())
        lib.set_autocast_cache_enabled(True)
        lib.clear_autocast_cache()
        out.append((lib.autocast_increment_nesting(), lib.autocast_decrement_nesting()))
    msgs = sorted({str(x.message).split(" (Triggered")[0] for x in w if x.category is DeprecationWarning})
    return out, msgs


def test_autocast_state_functions_match_torch():
    assert _autocast_trace(retrograd) == _autocast_trace(torch)


def test_autocast_state_errors():
    for call in (lambda L: L.set_autocast_enabled("cpu"), lambda L: L.set_autocast_dtype("cpu", 3),
                 lambda L: L.set_autocast_dtype("foo", L.float16), lambda L: L.set_autocast_enabled("foo", True),
                 lambda L: L.set_autocast_cpu_enabled(1.5)):
        r, t = _err(lambda: call(retrograd), lambda: call(torch))
        assert r == t
