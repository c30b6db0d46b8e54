"""Tests of the norms ops (src/retrograd/_ops/linalg/norms.py), checked against PyTorch."""
from __future__ import annotations

import math
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


RNG = np.random.default_rng(0)


# ---------------------------------------------------------------- cond
@pytest.mark.parametrize("p", ["fro", math.inf, -math.inf, 1, -1])
def test_cond_inverse_norm_gradients(p):
    # torch 2.13 cannot backpropagate through these (an in-place fill of a saved tensor):
    # compare with torch's gradient of the same formula, norm(A) * norm(inv(A))
    a = RNG.standard_normal((2, 3, 3)) + 2 * np.eye(3)
    A = retrograd.tensor(a, requires_grad=True)
    ours = retrograd.linalg.cond(A, p)
    assert type(ours.grad_fn).__name__ == "NanToNumBackward0"
    ta = torch.tensor(a, requires_grad=True)
    ref = torch.linalg.matrix_norm(ta, p) * torch.linalg.matrix_norm(torch.linalg.inv(ta), p)
    np.testing.assert_allclose(_np(ours), _np(torch.linalg.cond(torch.tensor(a), p)), rtol=1e-10)
    (g,) = retrograd.autograd.grad(ours.sum(), A)
    (tg,) = torch.autograd.grad(ref.sum(), ta)
    np.testing.assert_allclose(_np(g), _np(tg), rtol=1e-8, atol=1e-10)
    assert retrograd.autograd.gradgradcheck(lambda x: retrograd.linalg.cond(x, p), (A,))


def test_cond_singular_and_empty():
    for p in ("fro", 1, -1, math.inf):  # exactly singular: inf
        theirs, ours = both(lambda L: L.linalg.cond(L.stack([L.eye(2), L.tensor([[1., 2.], [2., 4.]])]), p))
        assert_same(ours, theirs)
    for p in (None, 2, -2, "fro", "nuc", 1, math.inf):
        theirs, ours = both(lambda L: L.linalg.cond(L.zeros(2, 0, 0), p))
        assert_same(ours, theirs)
    theirs, ours = both(lambda L: L.linalg.cond(L.stack([L.eye(2), L.zeros(2, 2)]), "nuc"))
    assert_same(ours, theirs)  # 0 * inf: NaN, as in torch


@pytest.mark.parametrize("call", [
    lambda L: L.linalg.cond(L.ones(2, 2), 3),
    lambda L: L.linalg.cond(L.ones(2, 2), "foo"),
    lambda L: L.linalg.cond(L.ones(2, 3), "fro"),
    lambda L: L.linalg.cond(L.ones(2, 3), math.inf),
    lambda L: L.linalg.cond(L.ones(2, 3), -1),
    lambda L: L.linalg.cond(L.ones(3)),
    lambda L: L.linalg.cond(L.ones(2, 2, dtype=L.int64)),
    lambda L: L.linalg.cond(L.ones(2, 2, dtype=L.int64), "fro"),
])
def test_cond_errors(call):
    same_error(call)


def test_deprecated_norms_warn_and_check_dims():
    import retrograd._ops.linalg_lu as lu_mod

    x = RNG.standard_normal((2, 3, 4))
    lu_mod._warned.clear()  # (torch warns once per process; so does retrograd)
    with pytest.warns(UserWarning, match="at::frobenius_norm is deprecated"):
        retrograd.frobenius_norm(t(retrograd, x), (1, 2))
    with pytest.warns(UserWarning, match="at::nuclear_norm is deprecated"):
        retrograd.nuclear_norm(t(retrograd, x))
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the second call is silent
        retrograd.frobenius_norm(t(retrograd, x), (1, 2))
    theirs, ours = both(lambda L: L.nuclear_norm(t(L, x)))  # 3-d input: the last two dims
    assert_same(ours, theirs)
    same_error(lambda L: L.frobenius_norm(L.ones(2, 2, 2), (0, 1, 2)))
    same_error(lambda L: L.frobenius_norm(L.ones(2, 2), (0, 0)))
    same_error(lambda L: L.nuclear_norm(L.ones(3)))


def _raises_like(fn, exc=RuntimeError):
    """fn(lib) raises the same exception type with the same message in both libraries."""
    with pytest.raises(exc) as theirs:
        fn(torch)
    with pytest.raises(exc) as ours:
        fn(retrograd)
    assert str(ours.value) == str(theirs.value)


def test_renorm_errors():
    _raises_like(lambda L: L.renorm(L.ones(2, 2, dtype=L.long), 2, 0, 1))
    _raises_like(lambda L: L.renorm(L.ones(3), 2, 0, 1))
    _raises_like(lambda L: L.renorm(L.ones(2, 2), -1, 0, 1))
