"""Fused nn ops (src/retrograd/_ops/nn/normalization.py, fused_loss.py, embedding.py): one node each with
PyTorch's name and edges.

Values, first and second derivatives against torch are in tests/ops/test_op_db.py (tests/op_db/nn/);
here: reprs, next_functions, modules, error messages, the NumPy first-order path against the
Tensor rules, second derivatives PyTorch lacks (gradgradcheck), scale_grad_by_freq, float16.
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd as rg
import retrograd.nn.functional as RF

torch = pytest.importorskip("torch")
TF = torch.nn.functional


def _pair(a, grad=True, dtype=np.float64):
    """The same array as a retrograd and a torch tensor."""
    a = np.asarray(a, dtype=dtype)
    return rg.tensor(a.copy(), requires_grad=grad), torch.tensor(a.copy(), requires_grad=grad)


def _edges(t) -> list:
    return [(None if n is None else type(n).__name__, nr) for n, nr in t.grad_fn.next_functions]


def _np(t):
    return t.detach().numpy()


RNG = np.random.default_rng(0)
X3 = RNG.standard_normal((2, 3, 4))
V4 = RNG.standard_normal(4)
X4 = RNG.standard_normal((2, 6, 3, 2))
V6 = RNG.standard_normal(6)
XL = RNG.standard_normal((3, 4)) * 2
TL = RNG.uniform(0, 1, (3, 4))
PM1 = np.sign(RNG.standard_normal((3, 4)))
TI = np.array([0, 3, 1])
TM = np.array([[0, 3, -1, 1], [1, -1, 0, 0], [2, 1, 0, 3]])
W10 = RNG.standard_normal((10, 3))
BAG = np.array([1, 2, 4, 5, 4, 3, 2, 9])
OFF = np.array([0, 4])


def _ln(F, x, w, b):
    return F.layer_norm(x, (4,), w, b)


def _gn(F, x, w, b):
    return F.group_norm(x, 3, w, b)


# name, function(F, lib, *tensors), arrays (None: an absent optional tensor), which require grad
CASES = [
    ("ln w b", _ln, [X3, V4, V4 + 1], [True, True, True]),
    ("ln none", _ln, [X3, None, None], [True]),
    ("ln w", _ln, [X3, V4, None], [True, True]),
    ("ln b", _ln, [X3, None, V4], [True, True]),
    ("ln w no grad", _ln, [X3, V4, V4], [True, False, True]),
    ("ln x no grad", _ln, [X3, V4, V4], [False, True, True]),
    ("ln 2 dims", lambda F, x, w, b: F.layer_norm(x, (3, 4), w, b), [X3, X3[0], None], [True, True]),
    ("gn w b", _gn, [X4, V6, V6], [True, True, True]),
    ("gn none", _gn, [X4, None, None], [True]),
    ("gn w", _gn, [X4, V6, None], [True, True]),
    ("gn 2d", lambda F, x, w, b: F.group_norm(x, 2, w, b), [X4[:, :, 0, 0], V6, V6], [True, True, True]),
]
LOSSES = [
    ("bce mean", lambda F, lib, x, t: F.binary_cross_entropy_with_logits(x, t), [XL, TL], [True, False]),
    ("bce sum t grad", lambda F, lib, x, t: F.binary_cross_entropy_with_logits(x, t, reduction="sum"), [XL, TL],
     [True, True]),
    ("bce none w pw", lambda F, lib, x, t: F.binary_cross_entropy_with_logits(
        x, t, lib.tensor(V4 ** 2), reduction="none", pos_weight=lib.tensor(V4 ** 2 + 1)), [XL, TL], [True, True]),
    ("soft margin", lambda F, lib, x: F.soft_margin_loss(x, lib.tensor(PM1)), [XL], [True]),
    ("soft margin none", lambda F, lib, x: F.soft_margin_loss(x, lib.tensor(PM1), reduction="none"), [XL], [True]),
    ("multi margin", lambda F, lib, x: F.multi_margin_loss(x, lib.tensor(TI)), [XL], [True]),
    ("multi margin none w", lambda F, lib, x: F.multi_margin_loss(x, lib.tensor(TI), 2, 0.5, lib.tensor(V4 ** 2),
                                                                  reduction="none"), [XL], [True]),
    ("multi margin unbatched", lambda F, lib, x: F.multi_margin_loss(x, lib.tensor(2)), [XL[0]], [True]),
    ("multilabel margin", lambda F, lib, x: F.multilabel_margin_loss(x, lib.tensor(TM)), [XL], [True]),
    ("multilabel margin none", lambda F, lib, x: F.multilabel_margin_loss(x, lib.tensor(TM), reduction="none"),
     [XL], [True]),
    ("multilabel unbatched", lambda F, lib, x: F.multilabel_margin_loss(x, lib.tensor(TM[0])), [XL[0]], [True]),
    ("bag sum", lambda F, lib, w: F.embedding_bag(lib.tensor(BAG), w, lib.tensor(OFF), mode="sum"), [W10],
     [True]),
    ("bag mean", lambda F, lib, w: F.embedding_bag(lib.tensor(BAG), w, lib.tensor(OFF)), [W10], [True]),
    ("bag max", lambda F, lib, w: F.embedding_bag(lib.tensor(BAG), w, lib.tensor(OFF), mode="max"), [W10], [True]),
    ("bag psw", lambda F, lib, w, p: F.embedding_bag(lib.tensor(BAG), w, lib.tensor(OFF), mode="sum",
                                                     per_sample_weights=p), [W10, np.linspace(0, 1, 8)],
     [True, True]),
    ("bag 2d", lambda F, lib, w: F.embedding_bag(lib.tensor(BAG.reshape(2, 4)), w), [W10], [True]),
]


def _run_norm(lib, F, fn, arrays, grads):
    it = iter(grads)
    ts = [None if a is None else (rg.tensor(a, requires_grad=next(it)) if lib is rg
                                  else torch.tensor(a, requires_grad=next(it))) for a in arrays]
    return fn(F, *ts), ts


@pytest.mark.parametrize("name,fn,arrays,grads", CASES, ids=[c[0] for c in CASES])
def test_norm_node_edges_values_grads(name, fn, arrays, grads):
    ours, rts = _run_norm(rg, RF, fn, arrays, grads)
    theirs, tts = _run_norm(torch, TF, fn, arrays, grads)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert _edges(ours) == _edges(theirs)
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-12, atol=1e-12)
    gy = RNG.uniform(0.5, 1.5, ours.shape)
    ours.backward(rg.tensor(gy))
    theirs.backward(torch.tensor(gy))
    for a, b in zip(rts, tts):
        if a is not None and a.requires_grad:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


def _run_loss(lib, F, fn, arrays, grads):
    ts = [(rg.tensor(a, requires_grad=g) if lib is rg else torch.tensor(a, requires_grad=g))
          for a, g in zip(arrays, grads)]
    return fn(F, lib, *ts), ts


@pytest.mark.parametrize("name,fn,arrays,grads", LOSSES, ids=[c[0] for c in LOSSES])
def test_loss_and_bag_node_edges_values_grads(name, fn, arrays, grads):
    ours, rts = _run_loss(rg, RF, fn, arrays, grads)
    theirs, tts = _run_loss(torch, TF, fn, arrays, grads)
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__
    assert _edges(ours) == _edges(theirs)
    np.testing.assert_allclose(_np(ours), _np(theirs), rtol=1e-12, atol=1e-12)
    gy = RNG.uniform(0.5, 1.5, tuple(ours.shape))
    ours.backward(rg.tensor(gy))
    theirs.backward(torch.tensor(gy))
    for a, b in zip(rts, tts):
        if a.requires_grad:
            np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_repr_shows_torchs_node():
    for F, lib in ((RF, rg), (TF, torch)):
        x = lib.tensor([[1.0, 2.0, 4.0]], requires_grad=True)
        assert repr(F.layer_norm(x, (3,))).endswith("grad_fn=<NativeLayerNormBackward0>)")
        assert repr(F.group_norm(x, 1)).endswith("grad_fn=<NativeGroupNormBackward0>)")
        assert repr(F.binary_cross_entropy_with_logits(x, x.detach())).endswith(
            "grad_fn=<BinaryCrossEntropyWithLogitsBackward0>)")
        assert repr(F.soft_margin_loss(x, x.detach())).endswith("grad_fn=<SoftMarginLossBackward0>)")
        assert repr(F.multi_margin_loss(x, lib.tensor([1]))).endswith("grad_fn=<MultiMarginLossBackward0>)")
        assert repr(F.multilabel_margin_loss(x, lib.tensor([[1, -1, 0]]))).endswith(
            "grad_fn=<MultilabelMarginLossBackward0>)")
        w = lib.tensor([[1.0, 2.0], [3.0, 4.0]], requires_grad=True)
        assert repr(F.embedding_bag(lib.tensor([[0, 1]]), w)).endswith("grad_fn=<EmbeddingBagBackward0>)")


def test_modules_match_torch():
    rg.manual_seed(0)
    torch.manual_seed(0)
    pairs = [(rg.nn.LayerNorm(4), torch.nn.LayerNorm(4)), (rg.nn.GroupNorm(3, 6), torch.nn.GroupNorm(3, 6)),
             (rg.nn.EmbeddingBag(10, 3, mode="max"), torch.nn.EmbeddingBag(10, 3, mode="max"))]
    inputs = [X3, X4, None]
    for (m_r, m_t), x in zip(pairs, inputs):
        m_r.double()
        m_t.double()
        with torch.no_grad():
            for p_r, p_t in zip(m_r.parameters(), m_t.parameters()):
                p_t.copy_(torch.tensor(RNG.standard_normal(tuple(p_t.shape))))
                p_r.data = rg.tensor(p_t.detach().numpy().copy())
        if x is None:
            out_r, out_t = m_r(rg.tensor(BAG), rg.tensor(OFF)), m_t(torch.tensor(BAG), torch.tensor(OFF))
        else:
            out_r, out_t = m_r(rg.tensor(x)), m_t(torch.tensor(x))
        assert type(out_r.grad_fn).__name__ == type(out_t.grad_fn).__name__
        np.testing.assert_allclose(_np(out_r), _np(out_t), rtol=1e-12, atol=1e-12)
        (out_r * out_r).sum().backward()
        (out_t * out_t).sum().backward()
        for p_r, p_t in zip(m_r.parameters(), m_t.parameters()):
            np.testing.assert_allclose(p_r.grad.numpy(), p_t.grad.numpy(), rtol=1e-10, atol=1e-12)
    losses = [(rg.nn.BCEWithLogitsLoss(pos_weight=rg.tensor(V4 ** 2)),
               torch.nn.BCEWithLogitsLoss(pos_weight=torch.tensor(V4 ** 2)), TL),
              (rg.nn.SoftMarginLoss(), torch.nn.SoftMarginLoss(), PM1),
              (rg.nn.MultiMarginLoss(p=2), torch.nn.MultiMarginLoss(p=2), TI),
              (rg.nn.MultiLabelMarginLoss(reduction="sum"), torch.nn.MultiLabelMarginLoss(reduction="sum"), TM)]
    for l_r, l_t, target in losses:
        xr, xt = _pair(XL)
        out_r, out_t = l_r(xr, rg.tensor(target)), l_t(xt, torch.tensor(target))
        assert type(out_r.grad_fn).__name__ == type(out_t.grad_fn).__name__
        np.testing.assert_allclose(_np(out_r), _np(out_t), rtol=1e-12)
        out_r.backward()
        out_t.backward()
        np.testing.assert_allclose(xr.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_transformer_layer_uses_the_fused_node():
    rg.manual_seed(0)
    layer = rg.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, batch_first=True)
    out = layer(rg.randn(2, 3, 8))
    assert type(out.grad_fn).__name__ == "NativeLayerNormBackward0"


def _first_order_paths(fn, arrays):
    """Gradients from the NumPy twins (plain backward) and from the Tensor rules (create_graph)."""
    res = []
    for create in (False, True):
        xs = [rg.tensor(a, requires_grad=True) for a in arrays]
        y = fn(*xs)
        gy = rg.tensor(np.random.default_rng(3).uniform(0.5, 1.5, tuple(y.shape)))
        res.append([g.detach().numpy() for g in rg.autograd.grad(y, xs, gy, create_graph=create)])
    return res


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_numpy_twins_agree_with_tensor_rules(dtype):
    cases = [(lambda x, w, b: RF.layer_norm(x, (4,), w, b), [X3, V4, V4]),
             (lambda x, w, b: RF.layer_norm(x, (3, 4), w, b), [X3, X3[1], X3[0]]),
             (lambda x, w, b: RF.group_norm(x, 2, w, b), [X4, V6, V6])]
    for fn, arrays in cases:
        fast, slow = _first_order_paths(fn, [a.astype(dtype) for a in arrays])
        for f, s in zip(fast, slow):
            assert f.dtype == s.dtype == dtype
            np.testing.assert_allclose(f, s, rtol=1e-4 if dtype == np.float32 else 1e-11,
                                       atol=1e-5 if dtype == np.float32 else 1e-12)


def test_float32_layer_norm_matches_torch_closely():
    x = RNG.standard_normal((16, 64)).astype(np.float32) * 3 + 1
    w, b = RNG.standard_normal(64).astype(np.float32), RNG.standard_normal(64).astype(np.float32)
    ours = RF.layer_norm(rg.tensor(x), (64,), rg.tensor(w), rg.tensor(b), 1e-5)
    theirs = TF.layer_norm(torch.tensor(x), (64,), torch.tensor(w), torch.tensor(b), 1e-5)
    assert ours.dtype == rg.float32
    np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-5, atol=2e-6)


def test_float16_input_with_float32_parameters():
    x = RNG.standard_normal((2, 4, 3))
    for fn in (lambda F, lib, x: F.layer_norm(x, (3,), lib.ones(3), lib.zeros(3)),
               lambda F, lib, x: F.group_norm(x, 2, lib.ones(4), None)):
        xr, xt = rg.tensor(x).half().requires_grad_(), torch.tensor(x).half().requires_grad_()
        out_r, out_t = fn(RF, rg, xr), fn(TF, torch, xt)
        assert out_r.dtype == rg.float16 and type(out_r.grad_fn).__name__ == type(out_t.grad_fn).__name__
        np.testing.assert_allclose(_np(out_r.float()), _np(out_t.float()), atol=2e-3)
        out_r.float().sum().backward()
        assert xr.grad.dtype == rg.float16


def test_empty_inputs():
    for F, lib in ((RF, rg), (TF, torch)):
        assert tuple(F.layer_norm(lib.ones(0, 3), (3,)).shape) == (0, 3)
        assert tuple(F.layer_norm(lib.ones(2, 0), (0,)).shape) == (2, 0)
        assert tuple(F.group_norm(lib.ones(0, 4, 3), 2).shape) == (0, 4, 3)
    assert tuple(RF.multi_margin_loss(rg.ones(0, 4), rg.tensor([], dtype=rg.int64), reduction="none").shape) == (0,)
    for shape, ns in (((2, 0), (0,)), ((0, 3), (3,))):
        for create_graph in (False, True):  # the NumPy twins and the Tensor rules
            x, w = rg.ones(*shape, requires_grad=True), rg.ones(*ns, requires_grad=True)
            gx, gw = rg.autograd.grad(RF.layer_norm(x, ns, w, w).sum(), [x, w], create_graph=create_graph)
            assert tuple(gx.shape) == shape and tuple(gw.shape) == ns and not gw.detach().numpy().any()


def test_second_derivatives_torch_lacks():
    # PyTorch raises for these; ours are differentiable again and checked numerically
    gradgradcheck = rg.autograd.gradgradcheck
    x = rg.tensor(XL, requires_grad=True)
    assert gradgradcheck(lambda x: RF.multi_margin_loss(x, rg.tensor(TI), p=2, margin=0.5), (x,))
    assert gradgradcheck(lambda x: RF.multi_margin_loss(x, rg.tensor(TI)), (x,))
    assert gradgradcheck(lambda x: RF.multilabel_margin_loss(x, rg.tensor(TM), reduction="sum"), (x,))
    w = rg.tensor(W10, requires_grad=True)
    p = rg.tensor(np.linspace(0.1, 1, 8), requires_grad=True)
    assert gradgradcheck(lambda w, p: RF.embedding_bag(rg.tensor(BAG), w, rg.tensor(OFF), mode="sum",
                                                       per_sample_weights=p), (w, p))
    assert gradgradcheck(lambda w: RF.embedding_bag(rg.tensor(BAG), w, rg.tensor(OFF), mode="max") ** 2, (w,))
    # LayerNorm with a bias and no weight (torch's double backward fails there)
    xb, b = rg.tensor(X3, requires_grad=True), rg.tensor(V4, requires_grad=True)
    assert gradgradcheck(lambda x, b: RF.layer_norm(x, (4,), None, b) ** 3, (xb, b))


def test_multi_margin_p2_second_derivative_by_hand():
    # d2/dx2 of sum_{i != y} z_i^2 / C with z_i = 1 - x_y + x_i (all active): 2/C (e_i - e_y)(e_i - e_y)^T
    x = rg.tensor([[0.0, 0.1, 0.2]], requires_grad=True)
    (g,) = rg.autograd.grad(RF.multi_margin_loss(x, rg.tensor([0]), p=2, reduction="sum"), x, create_graph=True)
    rows = [rg.autograd.grad(g[0, k], x, retain_graph=True)[0].numpy()[0] for k in range(3)]
    expected = np.array([[4, -2, -2], [-2, 2, 0], [-2, 0, 2]]) / 3
    np.testing.assert_allclose(np.array(rows), expected, rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("inp,off,pad", [([1, 1, 2], [0], None), ([3, 1, 2, 1, 3, 0, 0], [0, 3, 3], None),
                                         ([4, 4, 2, 1, 3], [0, 2], 4), ([1, 4, 2, 4], [0, 1], 4)])
@pytest.mark.parametrize("mode", ["sum", "mean"])
def test_scale_grad_by_freq_as_torch(inp, off, pad, mode):
    grads = []
    for F, lib in ((RF, rg), (TF, torch)):
        w = lib.tensor(W10[:5], requires_grad=True)
        out = F.embedding_bag(lib.tensor(inp), w, lib.tensor(off), mode=mode, scale_grad_by_freq=True,
                              padding_idx=pad)
        (out * lib.tensor(np.arange(out.numel(), dtype=np.float64).reshape(tuple(out.shape)))).sum().backward()
        grads.append(w.grad.numpy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12, atol=1e-12)


def test_saved_input_modified_in_place_is_caught():
    for F, lib in ((RF, rg), (TF, torch)):
        x = lib.tensor(X3, requires_grad=True)
        y = x * 1
        out = F.layer_norm(y, (4,))
        y.add_(1)
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            out.sum().backward()


def test_saved_tensor_hooks_path():
    x = rg.tensor(X3, requires_grad=True)
    with rg.autograd.graph.saved_tensors_hooks(lambda t: t, lambda t: t):
        out = RF.layer_norm(x, (4,), rg.tensor(V4))
    out.backward(rg.tensor(X3))
    xt = torch.tensor(X3, requires_grad=True)
    TF.layer_norm(xt, (4,), torch.tensor(V4)).backward(torch.tensor(X3))
    np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-10, atol=1e-12)


def _err(fn):
    try:
        fn()
    except Exception as e:  # noqa: BLE001 - the type itself is what we compare
        return type(e), str(e)
    return None


ERRORS = [
    ("ln empty shape", lambda F, lib: F.layer_norm(lib.ones(2, 3), [])),
    ("ln weight shape", lambda F, lib: F.layer_norm(lib.ones(2, 4), (4,), lib.ones(3))),
    ("ln bias shape", lambda F, lib: F.layer_norm(lib.ones(2, 4), (4,), None, lib.ones(3))),
    ("ln int", lambda F, lib: F.layer_norm(lib.ones(2, 4, dtype=lib.int64), (4,))),
    ("ln mixed", lambda F, lib: F.layer_norm(lib.ones(2, 4, dtype=lib.float64), (4,), lib.ones(4))),
    ("ln mixed param", lambda F, lib: F.layer_norm(lib.ones(2, 4), (4,), None, lib.ones(4, dtype=lib.float64))),
    ("ln w then b", lambda F, lib: F.layer_norm(lib.ones(2, 4), (4,), lib.ones(4), lib.ones(4, dtype=lib.float64))),
    ("gn int", lambda F, lib: F.group_norm(lib.ones(2, 4, dtype=lib.int64), 2)),
    ("gn mixed", lambda F, lib: F.group_norm(lib.ones(2, 4, dtype=lib.float64), 2, lib.ones(4))),
    ("bce weight grad", lambda F, lib: F.binary_cross_entropy_with_logits(
        lib.ones(2), lib.ones(2), lib.ones(2, requires_grad=True))),
    ("bce pos_weight grad", lambda F, lib: F.binary_cross_entropy_with_logits(
        lib.ones(2), lib.ones(2), pos_weight=lib.ones(2, requires_grad=True))),
    ("bce int target", lambda F, lib: F.binary_cross_entropy_with_logits(lib.ones(2), lib.ones(2, dtype=lib.int64))),
    ("bce big weight", lambda F, lib: F.binary_cross_entropy_with_logits(lib.ones(2), lib.ones(2),
                                                                         lib.ones(3, 2))),
    ("soft margin big target", lambda F, lib: F.soft_margin_loss(lib.ones(2), lib.ones(3, 2))),
    ("soft margin target grad", lambda F, lib: F.soft_margin_loss(lib.ones(2), lib.ones(2, requires_grad=True))),
    ("mm weight grad", lambda F, lib: F.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]),
                                                          weight=lib.ones(3, requires_grad=True))),
    ("mm weight dtype", lambda F, lib: F.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1]),
                                                           weight=lib.ones(3, dtype=lib.float64))),
    ("mm int32 target", lambda F, lib: F.multi_margin_loss(lib.ones(2, 3), lib.tensor([0, 1], dtype=lib.int32))),
    ("mlm out of range", lambda F, lib: F.multilabel_margin_loss(lib.ones(2, 3), lib.tensor([[0, 5, -1], [1, 2, 0]]))),
    ("bag max freq", lambda F, lib: F.embedding_bag(lib.tensor([0, 1]), lib.ones(3, 2), lib.tensor([0]),
                                                    mode="max", scale_grad_by_freq=True)),
    ("bag psw dtype", lambda F, lib: F.embedding_bag(lib.tensor([0, 1]), lib.ones(3, 2), lib.tensor([0]), mode="sum",
                                                     per_sample_weights=lib.ones(2, dtype=lib.float64))),
    ("bag index", lambda F, lib: F.embedding_bag(lib.tensor([0, 7]), lib.ones(3, 2), lib.tensor([0]))),
    ("bag negative index", lambda F, lib: F.embedding_bag(lib.tensor([[0, -1]]), lib.ones(3, 2))),
    ("mlm below -1", lambda F, lib: F.multilabel_margin_loss(lib.ones(1, 3), lib.tensor([[0, -1, -2]]))),
]


@pytest.mark.parametrize("name,fn", ERRORS, ids=[e[0] for e in ERRORS])
def test_errors_as_torch(name, fn):
    ours, theirs = _err(lambda: fn(RF, rg)), _err(lambda: fn(TF, torch))
    assert theirs is not None and ours is not None, (ours, theirs)
    assert ours[0] is theirs[0] and ours[1] == theirs[1]


def test_no_grad_allows_weights_that_require_grad():
    with rg.no_grad():
        w = rg.ones(2, requires_grad=True)
        assert RF.binary_cross_entropy_with_logits(rg.zeros(2), rg.ones(2), w).item() == pytest.approx(np.log(2))
        RF.multi_margin_loss(rg.ones(2, 2), rg.tensor([0, 1]), weight=w)
