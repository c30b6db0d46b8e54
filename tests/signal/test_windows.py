"""Tests of retrograd.signal.windows, checked against PyTorch."""

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

from .._error_compare import _err, _np  # noqa: E402


# ------------------------------------------------------------------ signal.windows
WINDOWS = [("bartlett", {}), ("blackman", {}), ("cosine", {}), ("exponential", {"tau": 2.0}),
           ("gaussian", {"std": 1.5}), ("general_cosine", {"a": [0.4, 0.3, 0.2]}), ("general_hamming", {"alpha": 0.6}),
           ("hamming", {}), ("hann", {}), ("kaiser", {"beta": 5.0}), ("nuttall", {})]


@pytest.mark.parametrize("name,kw", WINDOWS)
def test_signal_windows_values(name, kw):
    for M in (0, 1, 2, 5, 8):
        for sym in (True, False):
            for dt, tol in (("float64", 1e-12), ("float32", 1e-6)):
                r = getattr(retrograd.signal.windows, name)(M, sym=sym, dtype=getattr(retrograd, dt), **kw)
                t = getattr(torch.signal.windows, name)(M, sym=sym, dtype=getattr(torch, dt), **kw)
                assert str(r.dtype).split(".")[-1] == dt
                np.testing.assert_allclose(_np(r), _np(t), atol=tol, rtol=tol)
    assert str(getattr(retrograd.signal.windows, name)(4, **kw).dtype) == "torch.float32"


def test_signal_windows_errors_and_center():
    W, TW = retrograd.signal.windows, torch.signal.windows
    np.testing.assert_allclose(_np(W.exponential(5, sym=False, center=1.)),
                               _np(TW.exponential(5, sym=False, center=1.)), atol=1e-6)
    for call in (lambda w, L: w.hann(-1), lambda w, L: w.hann(3, dtype=L.int64), lambda w, L: w.kaiser(3, beta=-1.),
                 lambda w, L: w.exponential(3, center=1.), lambda w, L: w.exponential(3, tau=0.),
                 lambda w, L: w.gaussian(3, std=0.), lambda w, L: w.general_cosine(3, a=3),
                 lambda w, L: w.general_cosine(3, a=[]), lambda w, L: w.kaiser(5, dtype=L.float16),
                 lambda w, L: w.bartlett(-2)):
        r, t = _err(lambda: call(W, retrograd), lambda: call(TW, torch))
        assert r == t.replace("torch.", "torch.")
