"""Tensor pairs and comparisons shared by the linear-algebra op tests."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


LIBS = (torch, retrograd)


def _np(x):
    return x.detach().numpy() if isinstance(x, (torch.Tensor, retrograd.Tensor)) else x


def both(fn):
    """fn(lib) for torch and retrograd, with warnings silenced."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        return [fn(lib) for lib in LIBS]


def assert_same(ours, theirs, atol=1e-12):
    ours = ours if isinstance(ours, tuple) else (ours,)
    theirs = theirs if isinstance(theirs, tuple) else (theirs,)
    assert len(ours) == len(theirs)
    for a, b in zip(ours, theirs):
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        assert tuple(a.shape) == tuple(b.shape)
        np.testing.assert_allclose(_np(a), _np(b), atol=atol, rtol=1e-9, equal_nan=True)


def same_error(fn, exc=RuntimeError):
    """Both libraries raise ``exc`` (retrograd: the same type or a subclass) with the same message."""
    msgs = []
    for lib in LIBS:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            with pytest.raises(exc) as info:
                fn(lib)
        msgs.append(str(info.value))
    assert msgs[1] == msgs[0]


def t(lib, a, **kw):
    return lib.tensor(np.asarray(a, dtype=np.float64), **kw)
