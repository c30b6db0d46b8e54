"""The loss ops (src/retrograd/_ops/nn/loss.py) and their modules: values, gradients, edge cases
(infinite inputs, ignored targets, target dtypes) and errors, against torch."""
from __future__ import annotations

import warnings

import numpy as np
import pytest

import retrograd
import retrograd as rg
import retrograd.nn.functional as RF

torch = pytest.importorskip("torch")

from .._nn_linalg_helpers import _close, _pair  # noqa: E402


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
def test_hinge_embedding_loss_with_infinite_inputs(reduction):
    x = np.array([np.inf, -np.inf, 0.5, 2.0, -np.inf, np.inf])
    t = np.array([1.0, 1.0, 1.0, -1.0, -1.0, -1.0])
    out = []
    for T in (retrograd, torch):
        xt = T.tensor(x, requires_grad=True)
        y = T.nn.functional.hinge_embedding_loss(xt, T.tensor(t), reduction=reduction)
        y.sum().backward()
        out.append((y.detach().numpy(), xt.grad.numpy()))
    np.testing.assert_array_equal(out[0][0], out[1][0])
    np.testing.assert_array_equal(out[0][1], out[1][1])


def test_soft_margin_loss_target_requiring_grad_is_refused_like_torch():
    msgs = []
    for T in (retrograd, torch):
        x, t = T.tensor([0.5, 2.0], requires_grad=True), T.tensor([1.0, -1.0], requires_grad=True)
        with pytest.raises(RuntimeError) as e:
            T.nn.functional.soft_margin_loss(x, t)
        msgs.append(str(e.value))
        with T.no_grad():
            T.nn.functional.soft_margin_loss(x, t)  # fine without grad mode
    assert msgs[0] == msgs[1]


@pytest.mark.parametrize("kw", [
    dict(t=[-100, -100, -100, -100]),                      # every target ignored: loss nan, grad 0 (not nan)
    dict(t=[-100, -100, -100, -100], reduction="sum"),
    dict(t=[-100, -100, -100, -100], reduction="none"),
    dict(t=[1, -100, 2, -100], reduction="sum"),           # ignored rows: +0. gradients, as torch prints
    dict(t=[1, -100, 2, -100]),
    dict(t=[1, 2, -1, -1], ignore_index=-1),
    dict(t=[-1, -1, -1, -1], ignore_index=-1, label_smoothing=0.1),
])
def test_ignored_targets_give_torchs_loss_and_gradient(kw):
    def run(T):
        kw2 = dict(kw)
        x = T.tensor([[0.5, -1.0, 2.0, 0.1, 0.3], [1.5, 0.2, -0.3, 0.0, 1.0],
                      [-0.5, 0.4, 0.9, -2.0, 0.7], [0.05, 0.6, -0.8, 1.1, -0.2]], requires_grad=True)
        loss = T.nn.functional.cross_entropy(x, T.tensor(kw2.pop("t")), **kw2)
        loss.sum().backward()
        return repr(loss.detach()), repr(x.grad)

    assert run(retrograd) == run(torch)


@pytest.mark.parametrize("call", [
    lambda T: T.nn.CrossEntropyLoss()(T.zeros(3, 5), T.tensor([1., 2., 3.])),   # float labels by mistake
    lambda T: T.nn.CrossEntropyLoss()(T.zeros(3, 5), T.tensor([1, 2, 3], dtype=T.int32)),
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1., 2, 3])),
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1, 2, 3], dtype=T.int32)),
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1, 2, 3], dtype=T.uint8)),  # Byte is fine
    lambda T: T.nn.functional.cross_entropy(T.zeros(3, 5), T.tensor([True, False, True])),
    lambda T: T.nn.functional.cross_entropy(T.zeros(3, 5, 2), T.tensor([[1., 2.], [0, 1], [2, 2]])),
    lambda T: T.nn.functional.cross_entropy(T.zeros(5), T.tensor(1.)),
    lambda T: T.nn.functional.cross_entropy(T.zeros(3), T.tensor([1, 0, 2])),  # same shape: probabilities
    lambda T: T.nn.functional.nll_loss(T.zeros(3, 5), T.tensor([1., 2.])),    # batch size checked first
    lambda T: T.nn.functional.nll_loss(T.zeros(5), T.tensor([1., 2.])),
])
def test_target_dtype_checks_as_torch(call):
    def run(T):
        try:
            return "ok", repr(call(T))
        except Exception as exc:  # noqa: BLE001 - type and text compared with torch's
            return type(exc).__name__, str(exc)

    assert run(retrograd) == run(torch)


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


# ------------------------------------------------------- linear_cross_entropy
LCE = [
    dict(),
    dict(reduction="none"),
    dict(reduction="sum", label_smoothing=0.1),
    dict(weight=True, ignore_index=1),
    dict(bias=True, reduction="none"),
    dict(options=True),
    dict(options=True, reduction="none", bias=True),
]


@pytest.mark.parametrize("kw", LCE, ids=[str(k) for k in LCE])
@pytest.mark.parametrize("kind", ["plain", "unbatched", "kdim", "probs"])
def test_linear_cross_entropy(kind, kw):
    if kind == "probs" and "ignore_index" in kw:
        kw = {k: v for k, v in kw.items() if k != "ignore_index"}
    shapes = {"plain": ((4, 3), (5, 3)), "unbatched": ((3,), (5, 3)), "kdim": ((4, 3), (5, 2, 3)),
              "probs": ((4, 3), (5, 3))}[kind]
    xt, xr = _pair(shapes[0], 1)
    wt, wr = _pair(shapes[1], 2)
    out_features = shapes[1][1:-1]
    rng = np.random.default_rng(0)
    batch = shapes[0][:-1]
    if kind == "probs":
        p = rng.uniform(size=batch + (5,))
        target = p / p.sum(-1, keepdims=True)
    else:
        target = rng.integers(0, 5, batch + out_features)
    results = []
    for lib, x, w in ((torch, xt, wt), (rg, xr, wr)):
        kwargs = {k: v for k, v in kw.items() if k not in ("weight", "bias", "options")}
        if kw.get("weight"):
            kwargs["weight"] = lib.tensor([1.0, 2.0, 0.5, 1.5, 3.0], dtype=lib.float64)
        if kw.get("bias"):
            kwargs["linear_bias"] = lib.tensor(np.linspace(-1, 1, 5 * int(np.prod(out_features))).reshape(
                (5,) + out_features), requires_grad=True)
        if kw.get("options"):
            kwargs["options"] = lib.nn.LinearCrossEntropyOptions(batch_chunk_size=2)
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            out = lib.nn.functional.linear_cross_entropy(x, w, lib.tensor(target), **kwargs)
        ins = [x, w] + ([kwargs["linear_bias"]] if "linear_bias" in kwargs else [])
        grads = lib.autograd.grad(out.sum(), ins)
        results.append((out, grads, [str(c.message).replace("torch.", "") for c in caught]))
    (ot, gt, wt_), (orr, gr, wr_) = results
    _close(ot, orr)
    for a, b in zip(gt, gr):
        _close(a, b)
    assert [m.replace("retrograd.", "") for m in wr_] == wt_


@pytest.mark.parametrize("src", [
    "F.linear_cross_entropy(T.zeros(2, 4, 3), T.zeros(5, 3), T.zeros(2, dtype=T.long))",
    "F.linear_cross_entropy(T.zeros(4, 3), T.zeros(3), T.zeros(4, dtype=T.long))",
    "F.linear_cross_entropy(T.zeros(4, 3), T.zeros(5, 4), T.zeros(4, dtype=T.long))",
    "F.linear_cross_entropy(T.zeros(4, 3), T.zeros(5, 3), T.zeros(4, dtype=T.long), linear_bias=T.zeros(4))",
    "F.linear_cross_entropy(T.zeros(3), T.zeros(5, 2, 3), T.zeros(2, dtype=T.long))",
    "F.linear_cross_entropy(T.zeros(4, 3), T.zeros(5, 3), T.zeros(4, 5), ignore_index=1)",
    "T.nn.LinearCrossEntropyOptions(acc_policy='x')",
    "T.nn.LinearCrossEntropyOptions(batch_chunk_size=0)",
    "T.nn.LinearCrossEntropyOptions(chunking_method='square')",
    "T.nn.LinearCrossEntropyLoss(3, 4, weight=T.ones(3))",
    "T.nn.LinearCrossEntropyLoss(3, 4, label_smoothing=1.5)",
])
def test_linear_cross_entropy_errors(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib, "F": lib.nn.functional})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]


def test_linear_cross_entropy_loss_module():
    res = []
    for lib in (torch, rg):
        lib.manual_seed(0)
        m = lib.nn.LinearCrossEntropyLoss(3, 4, out_features=(2,), bias=True, reduction="sum")
        with lib.no_grad():
            m.linear.weight.copy_(lib.linspace(-1, 1, 24).reshape(8, 3))
            m.linear.bias.copy_(lib.linspace(0, 1, 8))
        loss = m(lib.ones(2, 3), lib.tensor([[0, 3], [1, 2]]))
        loss.backward()
        res.append((repr(m), round(loss.item(), 5), [round(v, 5) for v in m.linear.bias.grad.tolist()]))
    assert res[0] == res[1]


def test_multilabel_margin_loss_unbatched_values():
    x = np.array([0.1, 0.2, 0.4, 0.8])
    t = np.array([3, 0, -1, 1])
    outs = [lib.nn.functional.multilabel_margin_loss(lib.tensor(x), lib.tensor(t)) for lib in (torch, rg)]
    assert outs[0].item() == pytest.approx(outs[1].item(), abs=1e-12)


def test_toplevel_loss_default_reduction_is_none_like_torch():
    x, y = np.random.default_rng(1).standard_normal((2, 3)), np.random.default_rng(2).random((2, 3))
    for name in ["kl_div", "binary_cross_entropy_with_logits", "hinge_embedding_loss"]:
        r = getattr(retrograd, name)(retrograd.tensor(x), retrograd.tensor(y))
        t = getattr(torch, name)(torch.tensor(x), torch.tensor(y))
        assert tuple(r.shape) == tuple(t.shape) == (2, 3)
        np.testing.assert_allclose(r.numpy(), t.numpy(), atol=1e-12)
