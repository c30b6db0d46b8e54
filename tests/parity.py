"""Oracle helpers shared by the tests that run the same code on retrograd and on torch.

Imported as ``from parity import ...`` (pytest puts tests/ on ``sys.path``, as for ``op_db``).

Two styles:

* scenarios, ``scenario(lib, log)``: ``same`` runs one on each library and compares what it
  logged, after ``norm`` (tensors become plain values, library names leave messages);
* cases, ``f(T)``: ``same_repr`` compares the ``repr`` of the results and ``same_error`` the
  exception type and message.
"""
from __future__ import annotations

import re

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


# ------------------------------------------------------------------ scenarios: f(lib, log)
def norm(x, *, shape: bool = False, digits: int = 5, dtypes: bool = False, addresses: bool = False):
    """Comparable plain data: tensors -> ("T", [shape,] values rounded to ``digits``, requires_grad);
    lists and tuples element-wise; strings without "torch." / "retrograd." (and without ``0x...``
    addresses with ``addresses``); dtypes as their short name with ``dtypes``."""
    if isinstance(x, (rg.Tensor, torch.Tensor)):
        values = [round(v, digits) for v in x.detach().reshape(-1).tolist()]
        if shape:
            return "T", tuple(x.shape), values, bool(x.requires_grad)
        return "T", values, bool(x.requires_grad)
    if isinstance(x, (list, tuple)):
        return type(x).__name__, [norm(v, shape=shape, digits=digits, dtypes=dtypes, addresses=addresses)
                                  for v in x]
    if isinstance(x, str):
        x = re.sub(r"(torch|retrograd)\.", "", x)
        return re.sub(r"0x[0-9a-f]+", "", x) if addresses else x
    if dtypes and isinstance(x, (rg.dtype, torch.dtype)):
        return str(x).split(".")[-1]
    return x


def torch_part(ours: str, theirs: str) -> str:
    """``ours`` without the lines retrograd appends to PyTorch's message (where, why, the fix).

    retrograd keeps PyTorch's message and may go on with lines of its own, each starting
    with a newline and two spaces (docs/debugging.md).  When ``ours`` is ``theirs`` followed by
    such lines, the result is ``theirs``; otherwise ``ours`` unchanged (and the comparison fails).
    """
    if ours.startswith(theirs) and ours[len(theirs):].startswith("\n  "):
        return theirs
    return ours


def same(scenario, **norm_options):
    """Run ``scenario(lib, log)`` on both libraries (exceptions are logged too) and assert that the
    logs, normalised by ``norm(..., **norm_options)``, are equal; returns retrograd's log."""
    logs = []
    for lib in (rg, torch):
        log = []
        try:
            scenario(lib, lambda *a: log.append(norm(a, **norm_options)))
        except Exception as e:  # noqa: BLE001 - compared across libraries
            log.append(("raised", type(e).__name__, norm(str(e), **norm_options)))
        logs.append(log)
    ours, theirs = trim_to_torch(logs[0], logs[1]), logs[1]
    assert ours == theirs
    return ours


def trim_to_torch(ours, theirs):
    """``ours`` with each message trimmed to PyTorch's part where ``theirs`` has PyTorch's message."""
    if isinstance(ours, str) and isinstance(theirs, str):
        return torch_part(ours, theirs)
    if isinstance(ours, (list, tuple)) and isinstance(theirs, (list, tuple)) and len(ours) == len(theirs):
        return type(ours)(trim_to_torch(a, b) for a, b in zip(ours, theirs))
    return ours


def vec(lib, *v, rg_=True):
    """A float64 1-d tensor of ``lib`` holding ``v`` (requiring grad unless ``rg_=False``)."""
    return lib.tensor(list(v), dtype=lib.float64, requires_grad=rg_)


# ------------------------------------------------------------------ cases: f(T)
def rep(x) -> str:
    """repr() of nested results, with the module name unified."""
    if isinstance(x, (list, tuple)):
        inner = ", ".join(rep(v) for v in x)
        return f"[{inner}]" if isinstance(x, list) else f"({inner})"
    return repr(x)


def same_repr(f) -> None:
    """f(retrograd) and f(torch) print the same (values, dtypes, flags, grad_fn names)."""
    assert rep(f(rg)) == rep(f(torch))


def error_of(T, f):
    """(exception type name, message with the module name unified) raised by ``f(T)``, or None."""
    try:
        f(T)
    except Exception as exc:  # noqa: BLE001 - compared with torch's below
        return type(exc).__name__, str(exc)
    return None


def same_error(f) -> None:
    """torch raises in ``f(torch)``, and ``f(retrograd)`` raises the same type and message."""
    theirs = error_of(torch, f)
    assert theirs is not None, "torch raised nothing"
    ours = error_of(rg, f)
    assert ours is not None, "retrograd raised nothing"
    assert (ours[0], torch_part(ours[1], theirs[1])) == theirs


# ------------------------------------------------------------------ rounding-aware comparison
def assert_within_roundings(actual, expected, scale, roundings: int, err_msg: str = "") -> None:
    """Assert ``|actual - expected| <= roundings * eps * scale`` element-wise.

    For results that both libraries compute from the same formula but not necessarily with the
    same roundings: whether a multiply-add is fused (one rounding) or not (two) depends on the
    CPU's SIMD path in NumPy, OpenBLAS and torch alike, so such results agree only to within the
    roundings the formula performs.  ``scale`` bounds, element by element, the magnitude of the
    terms being rounded (for ``a + w * b``: ``|a| + |w * b|``); ``eps`` is the dtype's machine
    epsilon.  NaNs and infinities must sit at the same places.
    """
    import numpy as np

    actual, expected = np.asarray(actual), np.asarray(expected)
    assert actual.shape == expected.shape, (actual.shape, expected.shape)
    assert actual.dtype == expected.dtype, (actual.dtype, expected.dtype)
    finite = np.isfinite(expected)
    np.testing.assert_array_equal(actual[~finite], expected[~finite], err_msg=err_msg)
    eps = np.finfo(expected.dtype).eps
    bound = roundings * eps * np.broadcast_to(np.abs(np.asarray(scale, dtype=np.float64)), expected.shape)
    diff = np.abs(actual.astype(np.float64) - expected.astype(np.float64))
    bad = finite & (diff > bound)
    assert not bad.any(), (f"{err_msg} {int(bad.sum())} of {bad.size} elements differ by more than "
                           f"{roundings} roundings: max excess {float((diff - bound)[bad].max()):.3g}")


# ------------------------------------------------------------------ torch's kernel set
# PyTorch compiles each CPU kernel several times and picks one build at start-up: AVX2 or
# AVX-512 where the CPU has them, otherwise DEFAULT (also forced by ATEN_CPU_CAPABILITY=default).
# The vector builds fuse multiply-adds and use vector polynomials for log/sin/cos in the random
# normal fill; DEFAULT rounds each operation separately and calls the C library.  retrograd
# reproduces the vector builds value for value (random fills, arange, linspace), so its values
# equal torch's bit for bit only where torch runs them.
TORCH_RUNS_VECTOR_KERNELS = torch.backends.cpu.get_cpu_capability() != "DEFAULT"


def assert_equal_to_torch_kernel(actual, expected, err_msg: str = "") -> None:
    """Bit for bit where torch runs its vector kernels; otherwise to within 16 roundings of the
    largest magnitude (a Box-Muller normal is ~6 roundings, log/sin/cos within 1 ulp each, in a
    different order; arange / linspace are 2 roundings), NaNs and infinities in the same places."""
    import numpy as np

    actual, expected = np.asarray(actual), np.asarray(expected)
    if TORCH_RUNS_VECTOR_KERNELS or expected.dtype.kind != "f" or expected.size == 0:
        np.testing.assert_array_equal(actual, expected, err_msg=err_msg)
        return
    finite = np.abs(expected[np.isfinite(expected)])
    scale = float(finite.max()) if finite.size else 0.0
    assert_within_roundings(actual, expected, scale, roundings=16, err_msg=err_msg)
