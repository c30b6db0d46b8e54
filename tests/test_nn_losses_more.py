"""The extra losses (F.* and nn.* modules) vs torch: values, grads, reduction modes, reprs, errors."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
import retrograd.nn.functional as RF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

rng = np.random.default_rng(0)
REDS = ["mean", "sum", "none"]


def _args(lib, args):
    return [lib.tensor(a, requires_grad=a.dtype.kind == "f" and i in _args.grad) if isinstance(a, np.ndarray)
            else a for i, a in enumerate(args)]


def run(name, args, grad_idx, kwargs=None, rtol=1e-9, atol=1e-11, gradgrad=True):
    """F.<name> in both libraries; compare value, first and second derivatives w.r.t. args[grad_idx]."""
    kwargs = kwargs or {}
    _args.grad = set(grad_idx)
    ra, ta = _args(retrograd, args), _args(torch, args)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ro, to = getattr(RF, name)(*ra, **kwargs), getattr(TF, name)(*ta, **kwargs)
    assert tuple(ro.shape) == tuple(to.shape)
    np.testing.assert_allclose(ro.detach().numpy(), to.detach().numpy(), rtol=rtol, atol=atol)
    w = rng.standard_normal(tuple(to.shape))
    rl = [ra[i] for i in grad_idx]
    tl = [ta[i] for i in grad_idx]
    rg = retrograd.autograd.grad((ro * retrograd.tensor(w)).sum(), rl, create_graph=gradgrad)
    tg = torch.autograd.grad((to * torch.tensor(w)).sum(), tl, create_graph=gradgrad)
    for a, b in zip(rg, tg):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=rtol * 10, atol=atol * 10)
    if gradgrad and all(g.requires_grad for g in tg) and not all(g.requires_grad for g in rg):
        # piecewise-linear losses: retrograd's gradient is a constant, so torch's second derivative must be 0
        ts = sum(g.sum() for g in tg)
        for b in torch.autograd.grad(ts, tl, allow_unused=True):
            assert b is None or not b.any()
        return
    if gradgrad and all(g.requires_grad for g in tg):
        v = [rng.standard_normal(tuple(g.shape)) for g in tg]
        rs = sum((g * retrograd.tensor(x)).sum() for g, x in zip(rg, v))
        ts = sum((g * torch.tensor(x)).sum() for g, x in zip(tg, v))
        rgg = retrograd.autograd.grad(rs, rl, allow_unused=True)
        tgg = torch.autograd.grad(ts, tl, allow_unused=True)
        for a, b in zip(rgg, tgg):
            if b is None:
                assert a is None or np.allclose(a.detach().numpy(), 0)
            else:
                np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-7, atol=1e-9)


def sign(*shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


@pytest.mark.parametrize("red", REDS)
def test_cosine_embedding(red):
    a, b = rng.standard_normal((5, 4)), rng.standard_normal((5, 4))
    run("cosine_embedding_loss", [a, b, sign(5)], [0, 1], {"margin": 0.2, "reduction": red})
    run("cosine_embedding_loss", [a[0], b[0], np.array(-1.0)], [0, 1], {"margin": -0.5, "reduction": red})


@pytest.mark.parametrize("red", REDS)
def test_hinge_margin_soft(red):
    x = rng.standard_normal((3, 4))
    run("hinge_embedding_loss", [x, sign(3, 4)], [0], {"margin": 0.5, "reduction": red})
    run("soft_margin_loss", [x, sign(3, 4)], [0], {"reduction": red})
    run("margin_ranking_loss", [x, rng.standard_normal((3, 4)), sign(3, 4)], [0, 1], {"margin": 0.3,
                                                                                     "reduction": red})


@pytest.mark.parametrize("red", REDS)
def test_multilabel_soft_margin(red):
    x = rng.standard_normal((3, 5))
    t = (rng.random((3, 5)) < 0.5).astype(np.float64)
    run("multilabel_soft_margin_loss", [x, t], [0], {"reduction": red})
    run("multilabel_soft_margin_loss", [x, t, rng.random(5)], [0], {"reduction": red})


@pytest.mark.parametrize("red", REDS)
@pytest.mark.parametrize("full", [False, True])
def test_poisson_nll(red, full):
    t = rng.integers(0, 5, (4, 3)).astype(np.float64)
    run("poisson_nll_loss", [rng.standard_normal((4, 3)), t], [0], {"full": full, "reduction": red})
    run("poisson_nll_loss", [rng.random((4, 3)) + 0.1, t], [0], {"log_input": False, "full": full,
                                                                "reduction": red})


@pytest.mark.parametrize("red", REDS)
def test_gaussian_nll(red):
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    var = rng.random((4, 3)) + 0.1
    var[0, 0] = 1e-8  # clamped to eps; its gradient still flows straight through
    run("gaussian_nll_loss", [x, t, var], [0, 1, 2], {"reduction": red}, rtol=1e-8)
    run("gaussian_nll_loss", [x, t, rng.random(4) + 0.1], [0, 2], {"reduction": red, "full": True})
    run("gaussian_nll_loss", [x, t, rng.random((4, 1)) + 0.1], [0, 2], {"reduction": red})
    run("gaussian_nll_loss", [x, t, 0.5], [0], {"reduction": red})


def test_gaussian_nll_errors():
    x = retrograd.zeros(4, 3)
    with pytest.raises(ValueError, match="var has negative entry/entries"):
        RF.gaussian_nll_loss(x, x, -retrograd.ones(4, 3))
    with pytest.raises(ValueError, match="var is of incorrect size"):
        RF.gaussian_nll_loss(x, x, retrograd.ones(2, 2))
    with pytest.raises(ValueError, match="foo is not valid"):
        RF.gaussian_nll_loss(x, x, retrograd.ones(4, 3), reduction="foo")


@pytest.mark.parametrize("red", REDS)
@pytest.mark.parametrize("p", [1, 2])
def test_multi_margin(red, p):
    x = rng.standard_normal((5, 4))
    t = rng.integers(0, 4, 5)
    # torch has no double backward for these two
    run("multi_margin_loss", [x, t], [0], {"p": p, "margin": 0.7, "reduction": red}, gradgrad=False)
    run("multi_margin_loss", [x, t], [0], {"p": p, "reduction": red, "weight": None}, gradgrad=False)
    wr, wt = retrograd.tensor(rng.random(4)), None
    wt = torch.tensor(wr.numpy())
    r = RF.multi_margin_loss(retrograd.tensor(x), retrograd.tensor(t), p=p, weight=wr, reduction=red)
    np.testing.assert_allclose(r.numpy(), TF.multi_margin_loss(torch.tensor(x), torch.tensor(t), p=p, weight=wt,
                                                               reduction=red).numpy(), rtol=1e-10)
    run("multi_margin_loss", [x[0], np.array(2)], [0], {"p": p, "reduction": red}, gradgrad=False)


@pytest.mark.parametrize("red", REDS)
def test_multilabel_margin(red):
    x = rng.standard_normal((3, 4))
    t = np.array([[3, 0, -1, 1], [1, 1, 2, -1], [0, 1, 2, 3]])
    run("multilabel_margin_loss", [x, t], [0], {"reduction": red}, gradgrad=False)
    run("multilabel_margin_loss", [x[0], t[0]], [0], {"reduction": red}, gradgrad=False)


@pytest.mark.parametrize("red", REDS)
@pytest.mark.parametrize("swap", [False, True])
def test_triplet(red, swap):
    a, p, n = (rng.standard_normal((5, 3)) for _ in range(3))
    run("triplet_margin_loss", [a, p, n], [0, 1, 2], {"swap": swap, "reduction": red, "margin": 2.0})
    run("triplet_margin_loss", [a, p, n], [0, 1, 2], {"swap": swap, "reduction": red, "p": 1.0}, gradgrad=False)
    run("triplet_margin_with_distance_loss", [a, p, n], [0, 1, 2], {"swap": swap, "reduction": red})


def test_triplet_custom_distance():
    a, p, n = (rng.standard_normal((5, 3)) for _ in range(3))
    ra = [retrograd.tensor(v, requires_grad=True) for v in (a, p, n)]
    ta = [torch.tensor(v, requires_grad=True) for v in (a, p, n)]
    rl = retrograd.nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: 1 - RF.cosine_similarity(x, y),
                                                     margin=0.5)(*ra)
    tl = torch.nn.TripletMarginWithDistanceLoss(distance_function=lambda x, y: 1 - TF.cosine_similarity(x, y),
                                                margin=0.5)(*ta)
    np.testing.assert_allclose(rl.item(), tl.item(), rtol=1e-10)
    rl.backward()
    tl.backward()
    for r, t in zip(ra, ta):
        np.testing.assert_allclose(r.grad.numpy(), t.grad.numpy(), rtol=1e-8, atol=1e-12)


def _raises(fn, *args, **kw):
    """The same exception type and message from both libraries."""
    with pytest.raises(Exception) as te:
        fn(TF, torch, *args, **kw)
    with pytest.raises(type(te.value)) as re_:
        fn(RF, retrograd, *args, **kw)
    assert str(re_.value) == str(te.value).replace("torch.Size", "torch.Size")


def test_errors_match_torch():
    _raises(lambda F, L: F.margin_ranking_loss(L.zeros(3), L.zeros(3, 1), L.zeros(3)))
    _raises(lambda F, L: F.triplet_margin_loss(L.zeros(3), L.zeros(3), L.zeros(3), margin=0))
    _raises(lambda F, L: F.triplet_margin_loss(L.zeros(3, 2), L.zeros(3), L.zeros(3)))
    _raises(lambda F, L: F.triplet_margin_with_distance_loss(L.zeros(3), L.zeros(3), L.zeros(3), reduction="x"))
    _raises(lambda F, L: F.multi_margin_loss(L.zeros(3, 2), L.zeros(3, dtype=L.long), p=3))
    _raises(lambda F, L: F.soft_margin_loss(L.zeros(3), L.zeros(3), reduction="bad"))
    _raises(lambda F, L: F.poisson_nll_loss(L.zeros(3), L.zeros(3), reduction="bad"))
    _raises(lambda F, L: F.multilabel_soft_margin_loss(L.zeros(3, 2), L.zeros(3, 2), reduction="bad"))
    _raises(lambda F, L: L.nn.MultiMarginLoss(p=3))
    _raises(lambda F, L: L.nn.TripletMarginLoss(margin=-1))
    _raises(lambda F, L: L.nn.TripletMarginWithDistanceLoss(margin=0))


MODULES = [
    ("CosineEmbeddingLoss", {"margin": 0.1}, lambda: [rng.standard_normal((4, 3)), rng.standard_normal((4, 3)),
                                                      sign(4)]),
    ("GaussianNLLLoss", {"full": True}, lambda: [rng.standard_normal((4, 3)), rng.standard_normal((4, 3)),
                                                 rng.random((4, 3)) + 0.1]),
    ("HingeEmbeddingLoss", {"margin": 2.0}, lambda: [rng.standard_normal((4, 3)), sign(4, 3)]),
    ("MarginRankingLoss", {"margin": 0.5}, lambda: [rng.standard_normal(4), rng.standard_normal(4), sign(4)]),
    ("MultiLabelMarginLoss", {}, lambda: [rng.standard_normal((2, 3)), np.array([[2, -1, 0], [0, 1, 2]])]),
    ("MultiLabelSoftMarginLoss", {}, lambda: [rng.standard_normal((2, 3)), (rng.random((2, 3)) < .5) * 1.0]),
    ("MultiMarginLoss", {"p": 2, "margin": 0.5}, lambda: [rng.standard_normal((4, 3)), rng.integers(0, 3, 4)]),
    ("PoissonNLLLoss", {"log_input": True, "full": True}, lambda: [rng.standard_normal(4), rng.random(4) * 4]),
    ("SoftMarginLoss", {"reduction": "sum"}, lambda: [rng.standard_normal(4), sign(4)]),
    ("TripletMarginLoss", {"p": 3.0, "swap": True}, lambda: [rng.standard_normal((4, 3)) for _ in range(3)]),
    ("TripletMarginWithDistanceLoss", {}, lambda: [rng.standard_normal((4, 3)) for _ in range(3)]),
    ("CTCLoss", {"blank": 0}, None),
    ("NLLLoss2d", {}, lambda: [rng.standard_normal((2, 3, 2, 2)), rng.integers(0, 3, (2, 2, 2))]),
]


@pytest.mark.parametrize("name,kw,make", MODULES, ids=[m[0] for m in MODULES])
def test_modules(name, kw, make):
    if make is None:  # CTCLoss: covered (with its extra length arguments) in test_ctc_*
        assert repr(getattr(retrograd.nn, name)()) == repr(getattr(torch.nn, name)())
        return
    args = make()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, rm = getattr(torch.nn, name)(**kw), getattr(retrograd.nn, name)(**kw)
    assert repr(rm) == repr(tm)
    assert rm.reduction == tm.reduction
    ra = [retrograd.tensor(a, requires_grad=a.dtype.kind == "f" and i == 0) for i, a in enumerate(args)]
    ta = [torch.tensor(a, requires_grad=a.dtype.kind == "f" and i == 0) for i, a in enumerate(args)]
    ro, to = rm(*ra), tm(*ta)
    np.testing.assert_allclose(ro.detach().numpy(), to.detach().numpy(), rtol=1e-9)
    ro.sum().backward()
    to.sum().backward()
    np.testing.assert_allclose(ra[0].grad.numpy(), ta[0].grad.numpy(), rtol=1e-8, atol=1e-12)


def test_legacy_size_average():
    x, t = rng.standard_normal(4), sign(4)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        r = retrograd.nn.SoftMarginLoss(size_average=False)
        tm = torch.nn.SoftMarginLoss(size_average=False)
        assert r.reduction == tm.reduction == "sum"
        np.testing.assert_allclose(RF.hinge_embedding_loss(retrograd.tensor(x), retrograd.tensor(t), reduce=False)
                                   .numpy(), TF.hinge_embedding_loss(torch.tensor(x), torch.tensor(t),
                                                                     reduce=False).numpy())


def _ctc_pair(x, tg, il, tl, lib_kw, log_softmax_first):
    out = []
    for lib in (retrograd, torch):
        xt = lib.tensor(x, requires_grad=True)
        lp = xt.log_softmax(-1) if log_softmax_first else xt
        lens = [v if isinstance(v, list) else lib.tensor(v) for v in (il, tl)]
        loss = lib.nn.functional.ctc_loss(lp, lib.tensor(tg), *lens, **lib_kw)
        out.append((xt, loss))
    return out


@pytest.mark.parametrize("red", REDS)
@pytest.mark.parametrize("log_softmax_first", [False, True])
@pytest.mark.parametrize("concat", [False, True])
def test_ctc_loss(red, log_softmax_first, concat):
    x = rng.standard_normal((7, 3, 5))
    if not log_softmax_first:  # PyTorch's gradient w.r.t. log_probs directly (its quirk) is matched too
        x = x - np.log(np.exp(x).sum(-1, keepdims=True))
    tg = np.array([[1, 2, 2], [3, 1, 0], [4, 4, 4]])
    il, tl = [7, 5, 6], [3, 2, 1]
    if concat:
        tg = np.concatenate([tg[0, :3], tg[1, :2], tg[2, :1]])
    (rx, rl), (tx, tl_) = _ctc_pair(x, tg, np.array(il), np.array(tl), {"reduction": red}, log_softmax_first)
    np.testing.assert_allclose(_n(rl), tl_.detach().numpy(), rtol=1e-10)
    w = rng.standard_normal(tuple(tl_.shape))
    (rl * retrograd.tensor(w)).sum().backward()
    (tl_ * torch.tensor(w)).sum().backward()
    np.testing.assert_allclose(_n(rx.grad), tx.grad.numpy(), rtol=1e-8, atol=1e-12)


def _n(t):
    return t.detach().numpy()


def test_ctc_unbatched_infeasible_and_module():
    x = rng.standard_normal((4, 3))
    (rx, rl), (tx, tl_) = _ctc_pair(x, np.array([1, 2]), [4], [2], {}, True)
    np.testing.assert_allclose(_n(rl), _n(tl_), rtol=1e-10)
    # target longer than the input allows: inf, or 0 (with zero gradient) under zero_infinity
    x = rng.standard_normal((2, 2, 3))
    for zi in (False, True):
        (rx, rl), (tx, tl_) = _ctc_pair(x, np.array([[1, 1], [1, 2]]), [2, 2], [2, 2],
                                        {"reduction": "none", "zero_infinity": zi}, True)
        np.testing.assert_allclose(_n(rl), _n(tl_), rtol=1e-10)
        if zi:
            rl.sum().backward()
            tl_.sum().backward()
            np.testing.assert_allclose(_n(rx.grad), _n(tx.grad), rtol=1e-8, atol=1e-12)
    rm, tm = retrograd.nn.CTCLoss(blank=1, zero_infinity=True), torch.nn.CTCLoss(blank=1, zero_infinity=True)
    assert repr(rm) == repr(tm) and rm.blank == 1
    lp = rng.standard_normal((5, 2, 4))
    args = ([[0, 2], [3, 3]], [5, 4], [2, 2])
    np.testing.assert_allclose(rm(retrograd.tensor(lp).log_softmax(2), retrograd.tensor(args[0]), *args[1:]).item(),
                               tm(torch.tensor(lp).log_softmax(2), torch.tensor(args[0]), *args[1:]).item(),
                               rtol=1e-10)
    _raises(lambda F, L: F.ctc_loss(L.zeros(5, 2, 4), L.ones(2, 3, dtype=L.long), [6, 5], [2, 2]))
    _raises(lambda F, L: F.ctc_loss(L.zeros(5, 2, 4), L.ones(2, 3, dtype=L.long), [5, 5], [2, 9]))
    _raises(lambda F, L: F.ctc_loss(L.zeros(5, 2, 4), L.ones(2, 3, dtype=L.long), [5, 5], [2, 2], blank=4))
