"""Tests of the sorting ops (src/retrograd/_ops/sorting.py), checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd as R

torch = pytest.importorskip("torch")

from ._reduction_helpers import LIBS, _both, _np  # noqa: E402
from ._ties_helpers import CASES, _both as _both_ties, _dims, _same  # noqa: E402
from ._differential_helpers import assert_same_derivatives, assert_same_layout  # noqa: E402


def _first(out):
    return out[0] if isinstance(out, tuple) else out


# ---------------------------------------------------------------------------- ties
TIED = [[1., 3., 3.], [2., 2., 0.5]]


TIED_FLAT = [1., 3., 0.5, 3., 3.]


TIE_CASES = {
    "max": lambda lib, x: x.max(),
    "min": lambda lib, x: x.min(),
    "amax_dim": lambda lib, x: x.amax(1),
    "amax_all": lambda lib, x: x.amax(),
    "amin_dims": lambda lib, x: lib.amin(x, (0, 1), keepdim=True),
    "aminmax": lambda lib, x: lib.aminmax(x, dim=1).max,
    "aminmax_min": lambda lib, x: lib.aminmax(x).min,
    "max_dim": lambda lib, x: x.max(1).values,
    "min_dim": lambda lib, x: x.min(1, keepdim=True).values,
    "median_all": lambda lib, x: x.median(),
    "median_dim": lambda lib, x: x.median(1).values,
    "nanmedian_all": lambda lib, x: x.nanmedian(),
    "mode": lambda lib, x: x.mode(1).values,
    "sort": lambda lib, x: x.sort(1, descending=True).values,
    "sort_stable": lambda lib, x: x.sort(dim=1, stable=True).values,
    "topk": lambda lib, x: x.topk(1, 1).values,
    "cummax": lambda lib, x: x.cummax(1).values,
    "cummin": lambda lib, x: x.cummin(0).values,
    "norm_inf": lambda lib, x: x.norm(float("inf"), 1),
    "maximum": lambda lib, x: lib.max(x, lib.full_like(x, 2.0)),
    "minimum_self": lambda lib, x: lib.min(x, x),
}


@pytest.mark.parametrize("name", sorted(TIE_CASES))
def test_ties_gradient_like_torch(name):
    fn = TIE_CASES[name]
    (x, ours), (tx, theirs) = _both(fn, TIED)
    np.testing.assert_allclose(_np(ours), _np(theirs))
    w = np.arange(1., 1. + np.size(_np(ours))).reshape(np.shape(_np(ours)))
    (ours * retrograd.tensor(w)).sum().backward()
    (theirs * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(_np(x.grad), _np(tx.grad), err_msg=name)


@pytest.mark.parametrize("name", ["max", "amax_all", "median_all", "max_dim", "sort", "cummax", "topk"])
def test_ties_second_derivative_like_torch(name):
    fn = TIE_CASES[name]
    grads = []
    for lib in LIBS:
        x = lib.tensor(TIED, dtype=lib.float64, requires_grad=True)
        y = _first(fn(lib, x * x))
        (g,) = lib.autograd.grad(y.sum(), x, create_graph=True)
        (gg,) = lib.autograd.grad((g * g).sum(), x)
        grads.append((_np(g), _np(gg)))
    np.testing.assert_allclose(grads[0][0], grads[1][0])
    np.testing.assert_allclose(grads[0][1], grads[1][1])


def test_tied_indices_match_torch():
    for fn in (lambda lib, x: x.max(0), lambda lib, x: x.min(0), lambda lib, x: x.cummax(0),
               lambda lib, x: x.cummin(0), lambda lib, x: x.mode(0), lambda lib, x: x.median(0),
               lambda lib, x: x.sort(0, descending=True), lambda lib, x: x.sort(0),
               lambda lib, x: x.argmax(), lambda lib, x: x.argmin()):  # topk: torch leaves the tie order open
        (_, a), (_, b) = _both(fn, TIED_FLAT)
        for u, v in zip(a if isinstance(a, tuple) else (a,), b if isinstance(b, tuple) else (b,)):
            np.testing.assert_array_equal(_np(u), _np(v))


def test_all_nan_slice_nanmedian():
    (_, a), (_, b) = _both(lambda lib, x: x.nanmedian(1), [[float("nan")] * 2, [1., 2.]])
    np.testing.assert_allclose(_np(a.values), _np(b.values), equal_nan=True)
    np.testing.assert_array_equal(_np(a.indices), _np(b.indices))


# ---------------------------------------------------------------- the two reported examples
def test_reported_examples():
    _same(R.topk(R.tensor([1, 3, 3, 2, 3]), 2), torch.topk(torch.tensor([1, 3, 3, 2, 3]), 2))
    _same(R.kthvalue(R.tensor([2, 1, 2, 1, 3]), 2), torch.kthvalue(torch.tensor([2, 1, 2, 1, 3]), 2))


# ---------------------------------------------------------------- sort / argsort / msort
@pytest.mark.parametrize("case", range(len(CASES)))
def test_sort_family(case):
    a, nc = CASES[case]
    for d in _dims(a):
        for desc in (False, True):
            for stable in (False, True):
                _both_ties(lambda L, x: L.sort(x, dim=d, descending=desc, stable=stable), a, nc, ("sort", d, desc))
            _both_ties(lambda L, x: L.argsort(x, dim=d, descending=desc), a, nc, ("argsort", d, desc))
    _both_ties(lambda L, x: L.msort(x), a, nc, "msort")


# ---------------------------------------------------------------- topk / kthvalue
@pytest.mark.parametrize("case", range(len(CASES)))
def test_topk(case):
    a, nc = CASES[case]
    if a.dtype == np.uint8:
        a = a.astype(np.int16)
    for d in _dims(a):
        n = a.shape[d] if a.ndim else 1
        for k in sorted({0, 1, 2, n // 2, n - 1, n} & set(range(n + 1))):
            for largest in (True, False):
                for srt in (True, False):
                    _both_ties(lambda L, x: L.topk(x, k, dim=d, largest=largest, sorted=srt), a, nc,
                          ("topk", d, k, largest, srt))


def test_topk_partial_sort_path():
    # 64 * k <= n: torch runs std::partial_sort, whose heap leaves tied indices in its own order
    rng = np.random.default_rng(3)
    for n in (64, 200, 700):
        a = rng.integers(0, 3, size=(3, n)).astype(np.float32)
        for k in (1, 2, n // 64):
            _both_ties(lambda L, x: L.topk(x, k), a, False, ("partial", n, k))
            _both_ties(lambda L, x: L.topk(x, k, largest=False, sorted=False), a, False, ("partial", n, k))


@pytest.mark.parametrize("case", range(len(CASES)))
def test_kthvalue(case):
    a, nc = CASES[case]
    for d in _dims(a):
        n = a.shape[d] if a.ndim else 1
        for k in sorted({1, (n + 1) // 2, n, 0, n + 1}):
            for keepdim in (False, True):
                _both_ties(lambda L, x: L.kthvalue(x, k, dim=d, keepdim=keepdim), a, nc, ("kth", d, k))


# ---------------------------------------------------------------- median / nanmedian / mode
@pytest.mark.parametrize("case", range(len(CASES)))
def test_median_mode(case):
    a, nc = CASES[case]
    _both_ties(lambda L, x: L.median(x), a, nc, "median")
    _both_ties(lambda L, x: L.nanmedian(x), a, nc, "nanmedian")
    for d in _dims(a):
        for keepdim in (False, True):
            _both_ties(lambda L, x: L.median(x, d, keepdim), a, nc, ("median", d))
            _both_ties(lambda L, x: L.nanmedian(x, d, keepdim), a, nc, ("nanmedian", d))
            _both_ties(lambda L, x: L.mode(x, d, keepdim), a, nc, ("mode", d))


def test_median_signed_zero_and_empty_int():
    rng = np.random.default_rng(5)
    for _ in range(200):
        a = rng.choice(np.array([0.0, -0.0, 1.0, -1.0, np.nan]), size=int(rng.integers(2, 30))).astype(np.float32)
        _both_ties(lambda L, x: L.median(x), a, False)
        _both_ties(lambda L, x: L.nanmedian(x), a, False)
    for dt in (np.int64, np.int32, np.int8, np.float64):
        _both_ties(lambda L, x: L.median(x), np.zeros((2, 0), dt), False)


# ---------------------------------------------------------------- unique / unique_consecutive
@pytest.mark.parametrize("case", range(len(CASES)))
def test_unique(case):
    a, nc = CASES[case]
    for srt in (True, False):
        _both_ties(lambda L, x: L.unique(x, sorted=srt, return_inverse=True, return_counts=True), a, nc, "unique")
    _both_ties(lambda L, x: L.unique(x), a, nc, "unique plain")
    _both_ties(lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True), a, nc, "uc")
    for d in list(_dims(a)) + [a.ndim + 1]:
        _both_ties(lambda L, x: L.unique(x, return_inverse=True, return_counts=True, dim=d), a, nc, ("unique", d))
        _both_ties(lambda L, x: L.unique_consecutive(x, return_inverse=True, return_counts=True, dim=d), a, nc,
              ("uc", d))


def test_unique_nan_rows_and_signed_zero():
    nan = float("nan")
    rows = np.array([[nan, 1.0], [0.0, 1.0], [nan, 1.0], [-0.0, 1.0], [nan, 0.0]])
    _both_ties(lambda L, x: L.unique(x, dim=0, return_inverse=True, return_counts=True), rows, False)
    flat = np.array([0.0, -0.0, nan, 1.0, nan, -0.0] * 4)
    _both_ties(lambda L, x: L.unique(x, return_inverse=True, return_counts=True), flat, False)


# ---------------------------------------------------------------- searchsorted / bucketize
def test_searchsorted_bucketize():
    nan, inf = float("nan"), float("inf")
    seqs = [np.array([0.0, 1.0, 1.0, 2.0, nan, nan]), np.array([-inf, -0.0, 0.0, 0.0, 3.0, inf]),
            np.array([3.0, 1.0, 2.0, 0.0]), np.array([], dtype=np.float64)]
    vals = np.array([nan, 1.0, -0.0, 0.0, 3.0, inf, -inf, 2.5])
    for s in seqs:
        for right in (False, True):
            _both_ties(lambda L, x: L.searchsorted(x, L.tensor(vals), right=right), s, False, ("ss", right))
            _both_ties(lambda L, x: L.bucketize(L.tensor(vals), x, right=right), s, False, ("bucketize", right))
            _both_ties(lambda L, x: L.searchsorted(x, 1.0, right=right), s, False, ("scalar", right))
    rng = np.random.default_rng(7)
    a = rng.integers(0, 3, size=(4, 9)).astype(np.float32)
    v = rng.integers(-1, 4, size=(4, 5)).astype(np.float32)
    order = np.argsort(a, -1, kind="stable")
    for side in ("left", "right"):
        _both_ties(lambda L, x: L.searchsorted(x, L.tensor(v), side=side, sorter=L.tensor(order)), a, False, side)
        _both_ties(lambda L, x: L.searchsorted(x, L.tensor(v), side=side), np.sort(a, -1), False, side)
    _both_ties(lambda L, x: L.searchsorted(x, L.zeros(3, 2)), np.zeros((3, 0), np.float32), False)


# ---------------------------------------------------------------- gradients on ties
def _grad_pair(a, fn):
    ta = torch.tensor(a, requires_grad=True)
    ra = R.tensor(a, requires_grad=True)
    tv, rv = fn(torch, ta), fn(R, ra)
    assert type(rv.grad_fn).__name__ == type(tv.grad_fn).__name__
    w = np.arange(1, tv.numel() + 1, dtype=a.dtype).reshape(tuple(tv.shape))
    tg, = torch.autograd.grad((tv * torch.tensor(w)).sum(), ta, create_graph=True)
    rg, = R.autograd.grad((rv * R.tensor(w)).sum(), ra, create_graph=True)
    np.testing.assert_allclose(rg.detach().numpy(), tg.detach().numpy(), rtol=1e-12, atol=1e-12)
    if tg.requires_grad:  # second order: d/da of sum(grad * a)
        tgg, = torch.autograd.grad((tg * ta).sum(), ta, allow_unused=True)
        rgg, = R.autograd.grad((rg * ra).sum(), ra, allow_unused=True)
        if tgg is not None:
            np.testing.assert_allclose(rgg.numpy(), tgg.numpy(), rtol=1e-12, atol=1e-12)


GRAD_OPS = {
    "sort": lambda L, x: L.sort(x, -1).values,
    "sort_desc_stable": lambda L, x: L.sort(x, dim=0, descending=True, stable=True).values,
    "topk": lambda L, x: L.topk(x, 5, -1).values,
    "topk_unsorted": lambda L, x: L.topk(x, 9, 0, largest=False, sorted=False).values,
    "kthvalue": lambda L, x: L.kthvalue(x, 10, -1).values,
    "max_dim": lambda L, x: L.max(x, 1).values,
    "min_dim": lambda L, x: L.min(x, 0).values,
    "max_all": lambda L, x: L.max(x),
    "min_all": lambda L, x: L.min(x),
    "amax": lambda L, x: L.amax(x, 1),
    "amin_all": lambda L, x: L.amin(x),
    "median_all": lambda L, x: L.median(x),
    "median_dim": lambda L, x: L.median(x, 1).values,
    "nanmedian_dim": lambda L, x: L.nanmedian(x, 0).values,
    "mode": lambda L, x: L.mode(x, 1).values,
    "cummax": lambda L, x: L.cummax(x, 1).values,
    "cummin": lambda L, x: L.cummin(x, 0).values,
    "msort": lambda L, x: L.msort(x),
}


@pytest.mark.parametrize("name", sorted(GRAD_OPS))
def test_grads_on_ties(name):
    rng = np.random.default_rng(17)
    a = rng.integers(0, 3, size=(20, 24)).astype(np.float64)
    _grad_pair(a, GRAD_OPS[name])


# ---------------------------------------------------------------- errors
def test_errors_match():
    x3 = np.zeros((17, 0, 0), np.float32)
    _both_ties(lambda L, x: L.unique(x, dim=0), x3, False)
    _both_ties(lambda L, x: L.unique(x, dim=1), x3, False)
    _both_ties(lambda L, x: L.unique_consecutive(x, dim=0), np.zeros((2, 0)), False)
    _both_ties(lambda L, x: L.unique(x, dim=0), np.array(1.0), False)
    _both_ties(lambda L, x: L.kthvalue(x, 4), np.array([2, 1, 2]), False)
    _both_ties(lambda L, x: L.topk(x, 4), np.array([2, 1, 2]), False)
    _both_ties(lambda L, x: L.topk(x, 1), np.array([True, False]), False)
    _both_ties(lambda L, x: L.max(x, 0), np.zeros((0, 2)), False)
    _both_ties(lambda L, x: L.argmax(x), np.zeros((0, 2)), False)


# ---- found by the differential fuzzer (tests/fuzz)
def test_global_median_backward_selects_not_multiplies():
    assert_same_derivatives(lambda L, x: x.median().sqrt(), [0.0, 1.0, -2.0])


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_sort_results_are_laid_out_as_the_input(dim):
    assert_same_layout(lambda L, x: x.sort(dim).values)
    assert_same_layout(lambda L, x: x.sort(dim).indices.double())
