"""Tests of the decompositions ops (src/retrograd/_ops/linalg/decompositions.py), checked against PyTorch."""
from __future__ import annotations

import warnings

import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")

from ._helpers import same_error  # noqa: E402
from ._error_helpers import _pair, _same_error  # noqa: E402


# ---------------------------------------------------------------- eig / eigvals
def test_eig_raises_clear_error():
    for fn in (retrograd.linalg.eig, retrograd.linalg.eigvals):
        with pytest.raises(RuntimeError, match="complex"):
            fn(retrograd.eye(2))
    same_error(lambda L: L.linalg.eig(L.ones(2)))
    same_error(lambda L: L.linalg.eigvals(L.ones(2, 3)))
    same_error(lambda L: L.linalg.eig(L.ones(2, 2, dtype=L.int64)))


def test_matrix_rank_is_removed_as_in_torch():
    same_error(lambda L: L.matrix_rank(L.eye(2)))
    assert retrograd.linalg.matrix_rank(retrograd.eye(2)).item() == 2  # the linalg one is untouched


torch.set_default_dtype(torch.float32)


NOT_PD = [[1., 2.], [2., 1.]]


@pytest.mark.parametrize("fn", [
    lambda L, A: L.linalg.cholesky(A),
    lambda L, A: L.linalg.cholesky(L.stack([L.eye(2, dtype=A.dtype), -A])),
    lambda L, A: L.cholesky(A),
])
def test_not_positive_definite_errors_match_torch(fn):
    ours, theirs = _pair(NOT_PD)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_error(lambda: fn(retrograd, ours), lambda: fn(torch, theirs))


def test_qr_backward_refusals_match_torch():
    for mode, shape in (("r", (3, 2)), ("complete", (3, 2))):
        msgs = []
        for lib in (retrograd, torch):
            A = lib.ones(*shape, dtype=lib.float64).requires_grad_()
            with pytest.raises(RuntimeError) as err:
                lib.linalg.qr(A + lib.eye(*shape, dtype=lib.float64), mode=mode).R.sum().backward()
            msgs.append(str(err.value))
        assert msgs[0] == msgs[1]


# ------------------------------------------------------------------ return types, namespace
def test_named_results():
    A = retrograd.tensor([[2., 1.], [1., 3.]])
    r = retrograd.linalg.slogdet(A)
    assert r.sign.item() == 1.0 and r[1] is r.logabsdet
    assert repr(r).startswith("torch.return_types.linalg_slogdet(\nsign=tensor(1.)")
    assert type(retrograd.slogdet(A)).__name__ == "slogdet"
    assert retrograd.linalg.eigh(A).eigenvectors.shape == (2, 2)
    assert retrograd.linalg.svd(A).Vh.shape == (2, 2)
    assert type(retrograd.svd(A)).__name__ == "svd" and retrograd.svd(A).V.shape == (2, 2)
    assert retrograd.linalg.qr(A).Q.shape == (2, 2)
    assert set(retrograd.linalg.lstsq(A, A)._fields) == {"solution", "residuals", "rank", "singular_values"}
    q = retrograd.linalg.qr(retrograd.ones(3, 2), mode="r")
    assert tuple(q.Q.shape) == (0,) and tuple(q.R.shape) == (2, 2)


# ------------------------------------------------------- errors: PyTorch's type, message and check order
ERRORS = [
    # convolution: weight rank, bias dtype, geometry, groups, then the weight's dtype
    "F.conv2d(T.ones(1, 1, 4, 4), T.ones(1, 2, 2, 3), stride=(-1,))",
    "F.conv2d(T.ones(1, 1, 4, 4), T.ones(1, 2, 2, 3), padding=-1)",
    "F.conv2d(T.ones(1, 1, 4, 4, dtype=T.long), T.ones(1, 1, 2, 3, dtype=T.long), T.ones(1, dtype=T.double))",
    "F.conv2d(T.ones(1, 2, 4, 4, dtype=T.double), T.ones(3, 1, 2, 2), T.ones(3), groups=3)",
    "F.conv2d(T.ones(2, 2, 4, 4), T.ones(2, 2, 1, 3), groups=3)",
    "F.conv2d(T.ones(1, 1, 4, 3), T.ones(1, 2, 2), padding='same')",
    "F.conv2d(T.ones(1, 1, 4, 3), T.ones(1, 2, 2))",
    "F.conv2d(T.ones(1, 4, 3), T.ones(1, 1, 1, 2, 2))",
    "F.conv1d(T.ones(1, 1, 4, 3), T.ones(1, 2, 2))",
    "F.conv1d(T.ones(1, 1, 4), T.ones(1, 1))",
    "F.conv2d(T.ones(1, 1, 4, 4, dtype=T.double), T.ones(1, 1, 2, 2))",
    "F.conv3d(T.ones(1, 1, 3, 4, 5), T.ones(1, 1, 4, 3), T.ones(1), padding='same')",
    # pooling: padding before emptiness; PyTorch's 3-d emptiness messages
    "F.max_pool2d(T.ones(0, 1, 49), kernel_size=2, stride=50, padding=-1)",
    "F.max_pool2d(T.ones(0, 1, 49), kernel_size=2, stride=50, padding=4)",
    "F.max_pool2d(T.ones(1, 0, 10), kernel_size=1)",
    "F.max_pool2d(T.ones(2, 0, 4, 4), kernel_size=2)",
    "F.max_pool3d(T.ones(0, 1, 49, 50), kernel_size=2, stride=50, padding=-1)",
    "F.max_pool3d(T.ones(2, 1, 0, 1, 2), kernel_size=1)",
    "F.avg_pool3d(T.ones(2, 0, 4, 4), kernel_size=2)",
    "F.avg_pool3d(T.ones(0, 1, 49, 50), kernel_size=2, stride=50, padding=4)",
    "F.adaptive_avg_pool2d(T.ones(2, 2), (2, 2))",
    "F.adaptive_max_pool3d(T.ones(2, 2, 2), (2, 2, 2))",
    "F.max_unpool1d(T.ones(8, 8), T.zeros(8, 7, dtype=T.long), 3, 2)",
    "F.max_unpool2d(T.ones(1, 1, 4, 4), T.zeros(1, 1, 4, 1, dtype=T.long), 3, 2)",
    "F.max_unpool2d(T.ones(1, 1, 4, 4), T.zeros(1, 1, 4, 4), 3, 2)",
    # norms and losses
    "F.rms_norm(T.ones(1, 2, 3), ())",
    "F.soft_margin_loss(T.ones(5, 4), T.ones(5))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5, 4, dtype=T.long))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5), weight=T.ones(5))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5, dtype=T.long), weight=T.ones(4, dtype=T.double))",
    "F.multi_margin_loss(T.ones(4), T.ones(2, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(5, 0), T.ones(5, 4, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(0), T.ones(0, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(5, 4), T.ones(4, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(5, 4), T.ones(5, 4))",
    "F.multilabel_margin_loss(T.ones(2, 3, 4), T.ones(2, 3, 4, dtype=T.long))",
    # linear algebra
    "T.cov(T.ones(5), fweights=T.ones(2, 5, dtype=T.long))",
    "T.cov(T.ones(5), fweights=T.ones(5))",
    "T.cov(T.ones(5), aweights=T.ones(5, dtype=T.long))",
    "T.cov(T.ones(5), aweights=T.ones(1))",
    "T.cov(T.ones(5), fweights=-T.ones(5, dtype=T.long))",
    "T.cov(T.ones(5), aweights=-T.ones(5))",
    "T.dot(T.ones(1), T.ones(3, dtype=T.half))",
    "T.linalg.lstsq(T.tensor(1.), T.tensor(2.))",
    "T.linalg.lstsq(T.ones(3, 2), T.tensor(1.))",
]


@pytest.mark.parametrize("src", ERRORS)
def test_errors_match_torch(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib, "F": lib.nn.functional})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]
