"""Gradient and error comparisons against torch shared by the reduction, shape, index and creation op tests."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _np(t):
    return t.detach().numpy() if isinstance(t, (torch.Tensor, rg.Tensor)) else np.asarray(t)


def _dt(t) -> str:
    return str(t.dtype).split(".")[-1]


def _same(a, b, *, tol=1e-12):
    """a: retrograd result, b: torch result (tensors, or tuples of them)."""
    if isinstance(b, (tuple, list)):
        assert len(a) == len(b)
        for x, y in zip(a, b):
            _same(x, y, tol=tol)
        return
    assert tuple(a.shape) == tuple(b.shape)
    assert _dt(a) == _dt(b)
    np.testing.assert_allclose(_np(a), _np(b), rtol=tol, atol=tol, equal_nan=True)


def _both(fn, *arrays, grad=True):
    """fn(lib, *tensors) on retrograd and torch (float64 leaves requiring grad); returns both results
    and both lists of input tensors."""
    outs, ins = [], []
    for lib in (rg, torch):
        ts = [lib.tensor(np.asarray(a), requires_grad=grad and np.asarray(a).dtype.kind == "f") for a in arrays]
        outs.append(fn(lib, *ts))
        ins.append(ts)
    return outs, ins


def _grads_match(fn, *arrays, second=True):
    """Values, first grads (weighted sum) and, with ``second``, grads of the grads' sum."""
    (r, t), (ri, ti) = _both(fn, *arrays)
    _same(r, t)
    w = np.random.default_rng(0).normal(size=tuple(t.shape))
    gr = rg.autograd.grad((r * rg.tensor(w)).sum(), ri, create_graph=second, allow_unused=True)
    gt = torch.autograd.grad((t * torch.tensor(w)).sum(), ti, create_graph=second, allow_unused=True)
    for a, b in zip(gr, gt):
        assert (a is None) == (b is None)
        if b is not None:
            _same(a, b, tol=1e-10)
    if second:
        hr = [g for g in gr if g is not None and g.requires_grad]
        ht = [g for g in gt if g is not None and g.requires_grad]
        assert len(hr) == len(ht)
        if ht:
            g2r = rg.autograd.grad(sum(g.sum() for g in hr), ri, allow_unused=True)
            g2t = torch.autograd.grad(sum(g.sum() for g in ht), ti, allow_unused=True)
            for a, b in zip(g2r, g2t):
                if b is None or b._is_zerotensor():
                    assert a is None or not _np(a).any()
                else:
                    _same(a, b, tol=1e-10)
    return r, t


def _raises_same(fn):
    errs = []
    for lib in (rg, torch):
        with pytest.raises(Exception) as e:
            fn(lib)
        errs.append((type(e.value).__name__, str(e.value).replace("torch.", "").replace("retrograd.", "")))
    assert errs[0] == errs[1]
