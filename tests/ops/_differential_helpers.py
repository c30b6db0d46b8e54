"""Helpers for the regression tests of what the differential fuzzer (tests/fuzz) found: run one
function in retrograd and in torch and compare the result's strides, or its first and second
derivatives, including at infinities, NaN and signed zeros."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")
LIBS = (retrograd, torch)


def layouts(L) -> dict:
    """Inputs of one shape-family in the layouts that tell output-layout rules apart."""
    a = L.arange(24.0).reshape(2, 3, 4) - 11.5
    return {"contiguous": a, "last two swapped": a.permute(0, 2, 1), "reversed": a.permute(2, 1, 0),
            "first two swapped": a.permute(1, 0, 2), "sliced": a[:, ::2], "transposed 2-d": a[0].t(),
            "expanded": (L.arange(4.0) - 1.5).reshape(1, 1, 4).expand(2, 3, 4)}


def assert_same_layout(f, inputs=layouts) -> None:
    """``f(L, x)`` has torch's values and strides (on the dims of size > 1: a size-1 dim's stride
    addresses nothing) for every input layout."""
    ours, theirs = inputs(retrograd), inputs(torch)
    for name in theirs:
        t = f(torch, theirs[name])
        r = f(retrograd, ours[name])
        # values: the same formula, rounded by NumPy's and ATen's kernels (libm or SLEEF, vectorized or
        # not) to within a few units in the last place of the result's magnitude
        tv = t.numpy()
        eps = float(np.finfo(tv.dtype).eps) if t.is_floating_point() else 0.0
        finite = np.abs(tv[np.isfinite(tv)]) if t.is_floating_point() else np.abs(tv)
        np.testing.assert_allclose(r.numpy(), tv, rtol=8 * eps, atol=8 * eps * float(finite.max(initial=0)),
                                   equal_nan=True, err_msg=name)
        rs = [s for s, n in zip(r.stride(), r.shape) if n > 1]
        ts = [s for s, n in zip(t.stride(), t.shape) if n > 1]
        assert rs == ts, f"{name}: strides {r.stride()} vs torch {t.stride()}"


def derivatives(L, f, values, dtype="float64") -> tuple:
    """(f(x), df/dx, d(df/dx . w)/dx) at ``values`` as NumPy arrays (None where not differentiable
    again), with the first derivative taken through ``create_graph=True``."""
    x = L.tensor(values, dtype=getattr(L, dtype), requires_grad=True)
    y = f(L, x)
    w = 1 + L.arange(y.numel(), dtype=y.dtype).reshape(y.shape) % 3
    g, = L.autograd.grad((y * w).sum(), x, create_graph=True)
    g2 = None
    if g.requires_grad:
        g2, = L.autograd.grad((g * (1 + L.arange(g.numel(), dtype=g.dtype) % 2).reshape(g.shape)).sum(), x,
                              allow_unused=True)
    return tuple(None if v is None else v.detach().numpy().copy() for v in (y, g, g2))


def assert_same_derivatives(f, values, dtype="float64", rtol=1e-12) -> None:
    """Values, first and second derivatives of ``f`` at ``values`` agree with torch: NaN and
    infinities at the same places, zeros with the same sign, the rest to ``rtol`` (both compute
    the same formula; the default allows float64 re-roundings of a few operations)."""
    ours, theirs = derivatives(retrograd, f, values, dtype), derivatives(torch, f, values, dtype)
    for what, r, t in zip(("value", "first derivative", "second derivative"), ours, theirs):
        assert (r is None) == (t is None), f"{what}: {r} vs torch {t}"
        if t is None:
            continue
        np.testing.assert_allclose(r, t, rtol=rtol, atol=0, equal_nan=True, err_msg=what)
        zero = (r == 0) & (t == 0)
        assert np.array_equal(np.signbit(r[zero]), np.signbit(t[zero])), f"{what}: signed zeros {r} vs torch {t}"
