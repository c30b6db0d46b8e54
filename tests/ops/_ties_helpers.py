"""Inputs with ties, NaN and signed zeros, and tie-aware comparisons, shared by the sorting, reduction and statistics op tests."""

import numpy as np
import pytest

import retrograd as R

torch = pytest.importorskip("torch")


SPECIAL = np.array([np.nan, np.inf, -np.inf, -0.0, 0.0, 1.0, 2.0])


def _inputs(seed: int, count: int):
    """(array, non_contiguous) pairs: 0-d to 3-d, ints and floats full of ties, some with NaN / inf / -0."""
    rng = np.random.default_rng(seed)
    out = []
    for i in range(count):
        nd = i % 4
        shape = tuple(int(rng.choice([1, 2, 3, 5, 17, 20, 40, 70])) for _ in range(nd))
        if nd and i % 7 == 0:
            shape = shape[:-1] + (0,)
        kind = i % 3
        if kind == 0:
            a = rng.integers(0, 3, size=shape).astype(rng.choice([np.int64, np.int32, np.uint8]))
        elif kind == 1:
            a = rng.choice(SPECIAL, size=shape).astype(rng.choice([np.float32, np.float64]))
        else:
            a = rng.integers(-1, 2, size=shape).astype(np.float32)
        out.append((np.asarray(a), nd >= 2 and i % 2 == 0))
    return out


CASES = _inputs(0, 36)


def _pair(a: np.ndarray, nc: bool):
    """The same tensor in both libraries; ``nc`` gives a transposed (non-contiguous) view."""
    if nc:
        base = np.ascontiguousarray(np.swapaxes(a, 0, -1))
        return torch.tensor(base).transpose(0, -1), R.tensor(base).transpose(0, -1)
    return torch.tensor(a), R.tensor(a)


def _same(r, t, what=""):
    if isinstance(t, (tuple, list)):
        assert len(r) == len(t), what
        for x, y in zip(r, t):
            _same(x, y, what)
        return
    assert tuple(r.shape) == tuple(t.shape), what
    assert str(r.dtype).split(".")[-1] == str(t.dtype).split(".")[-1], what
    rn, tn = r.detach().numpy(), t.detach().numpy()
    if tn.dtype.kind == "f":
        ok = ((rn == tn) & (np.signbit(rn) == np.signbit(tn))) | (np.isnan(rn) & np.isnan(tn))
        assert ok.all(), (what, rn, tn)
    else:
        np.testing.assert_array_equal(rn, tn, err_msg=what)


def _both(fn, a, nc, what=""):
    ta, ra = _pair(a, nc)
    try:
        want = fn(torch, ta)
    except Exception as e:  # the same exception type and first line of message
        with pytest.raises(type(e)) as info:
            fn(R, ra)
        assert str(info.value).split("\n")[0] == str(e).split("\n")[0]
        return
    _same(fn(R, ra), want, what)


def _dims(a):
    return range(-max(a.ndim, 1), max(a.ndim, 1))
