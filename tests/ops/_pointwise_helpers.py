"""Tensor pairs, edge values and comparisons shared by the elementwise op tests."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


NAN, INF = float("nan"), float("inf")


def _pair(values, dtype="float64", grad=False):
    a = np.array(values, dtype=dtype)
    r = retrograd.tensor(a.copy())
    t = torch.tensor(a.copy())
    if grad:
        r.requires_grad_()
        t.requires_grad_()
    return r, t


def _same(ours, theirs, rtol=1e-12, atol=0.0):
    assert str(ours.dtype).split(".")[-1] == str(theirs.dtype).split(".")[-1], (ours.dtype, theirs.dtype)
    assert tuple(ours.shape) == tuple(theirs.shape)
    np.testing.assert_allclose(ours.detach().numpy(), theirs.detach().numpy(), rtol=rtol, atol=atol, equal_nan=True)


def _grads(fn_name, values_list, *extra, **kw):
    """Grads of sum(op(*inputs)) in both libraries, for inputs given as value lists."""
    pairs = [_pair(v, grad=True) for v in values_list]
    ours = getattr(retrograd, fn_name)(*[p[0] for p in pairs], *extra, **kw)
    theirs = getattr(torch, fn_name)(*[p[1] for p in pairs], *extra, **kw)
    ours.sum().backward()
    theirs.sum().backward()
    return [(p[0].grad, p[1].grad) for p in pairs]


def _raises_like(call, exc_type=None):
    """Both libraries raise the same exception type with the same message (for PyTorch's
    'invalid combination of arguments' listings: the same first line)."""
    with pytest.raises(Exception) as theirs:
        call(torch)
    with pytest.raises(exc_type or type(theirs.value)) as ours:
        call(retrograd)
    if "invalid combination of arguments" in str(theirs.value):
        assert str(ours.value).split("\n")[0] == str(theirs.value).split("\n")[0]
    else:
        assert str(ours.value) == str(theirs.value)


# ---------------------------------------------------------------- edge values and special functions
EDGES = [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, 0.5, -0.5, -2.5, 1e-300, 1e-8, 30.0, 1e10, INF, -INF, NAN]
