"""The newer nn layers vs torch: padding, upsampling, pixel (un)shuffle, distances, fold, shrink/rrelu, RNN cells,
instance/LRN norm, alpha dropout, LP/3-D pooling, max-unpool, EmbeddingBag, transformer decoder, affine_grid and
grid_sample. Forward and grads in float64 with torch's weights copied over, reprs, train/eval, gradgradcheck."""
from __future__ import annotations

import warnings

import numpy as np
import pytest
from nn_helpers import compare_module, to_r

import retrograd
import retrograd.nn.functional as RF

torch = pytest.importorskip("torch")
TF = torch.nn.functional

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
S1 = rng.standard_normal((2, 3, 7))
IMG = rng.standard_normal((2, 3, 6, 5))
VOL = rng.standard_normal((2, 2, 4, 5, 3))
PS = rng.standard_normal((2, 8, 3, 4))
H4 = rng.standard_normal((3, 4))

LAYERS = {
    "cpad1": (lambda nn: nn.ConstantPad1d(2, 3.5), [S1]),
    "cpad2": (lambda nn: nn.ConstantPad2d((1, 0, 2, -1), -1.0), [IMG]),
    "cpad3": (lambda nn: nn.ConstantPad3d(1, 0.5), [VOL]),
    "zpad1": (lambda nn: nn.ZeroPad1d((1, 2)), [S1]),
    "zpad2": (lambda nn: nn.ZeroPad2d(2), [IMG]),
    "zpad3": (lambda nn: nn.ZeroPad3d((1, 0, 0, 1, 2, 0)), [VOL]),
    "rflpad1": (lambda nn: nn.ReflectionPad1d((3, 1)), [S1]),
    "rflpad2": (lambda nn: nn.ReflectionPad2d((1, 2, 3, 0)), [IMG]),
    "rflpad2_unbatched": (lambda nn: nn.ReflectionPad2d(2), [IMG[0]]),
    "rflpad3": (lambda nn: nn.ReflectionPad3d(1), [VOL]),
    "reppad1": (lambda nn: nn.ReplicationPad1d(3), [S1]),
    "reppad2": (lambda nn: nn.ReplicationPad2d((0, 2, 1, 3)), [IMG]),
    "reppad3": (lambda nn: nn.ReplicationPad3d((1, 2, 0, 1, 2, 1)), [VOL]),
    "circpad1": (lambda nn: nn.CircularPad1d((2, 1)), [S1]),
    "circpad2": (lambda nn: nn.CircularPad2d(1), [IMG]),
    "circpad3": (lambda nn: nn.CircularPad3d((1, 0, 2, 1, 0, 1)), [VOL]),
    "upsample_nearest": (lambda nn: nn.Upsample(scale_factor=2), [IMG]),
    "upsample_bilinear": (lambda nn: nn.Upsample(size=(9, 7), mode="bilinear"), [IMG]),
    "upsample_linear_ac": (lambda nn: nn.Upsample(scale_factor=1.5, mode="linear", align_corners=True), [S1]),
    "upsampling_nearest2d": (lambda nn: nn.UpsamplingNearest2d(size=(8, 11)), [IMG]),
    "upsampling_bilinear2d": (lambda nn: nn.UpsamplingBilinear2d(scale_factor=2), [IMG]),
    "pixel_shuffle": (lambda nn: nn.PixelShuffle(2), [PS]),
    "pixel_unshuffle": (lambda nn: nn.PixelUnshuffle(2), [rng.standard_normal((2, 3, 4, 6))]),
    "pixel_unshuffle_5d": (lambda nn: nn.PixelUnshuffle(3), [rng.standard_normal((2, 2, 1, 6, 3))]),
    "softmax2d": (lambda nn: nn.Softmax2d(), [IMG]),
    "softmax2d_3d": (lambda nn: nn.Softmax2d(), [IMG[0]]),
    "cosine_similarity": (lambda nn: nn.CosineSimilarity(dim=0), [X, rng.standard_normal((3, 4))]),
    "pairwise_distance": (lambda nn: nn.PairwiseDistance(p=3.0, keepdim=True), [X, rng.standard_normal((3, 4))]),
    "pairwise_distance_l2": (lambda nn: nn.PairwiseDistance(), [X, rng.standard_normal((3, 4))]),
    "unfold": (lambda nn: nn.Unfold((2, 3), padding=1, stride=2), [IMG]),
    "fold": (lambda nn: nn.Fold((4, 5), (2, 2), stride=1), [rng.standard_normal((2, 12, 12))]),
    "hardshrink": (lambda nn: nn.Hardshrink(0.7), [X]),
    "softshrink": (lambda nn: nn.Softshrink(), [X]),
    "rrelu_eval": (lambda nn: nn.RReLU(0.1, 0.4), [X]),
    "rnn_cell": (lambda nn: nn.RNNCell(4, 3), [X, H4[:, :3]]),
    "rnn_cell_relu_nobias": (lambda nn: nn.RNNCell(4, 5, bias=False, nonlinearity="relu"), [X]),
    "rnn_cell_unbatched": (lambda nn: nn.RNNCell(4, 3), [X[0]]),
    "lstm_cell": (lambda nn: nn.LSTMCell(4, 3), [X]),
    "gru_cell": (lambda nn: nn.GRUCell(4, 3), [X, H4[:, :3]]),
    "gru_cell_unbatched": (lambda nn: nn.GRUCell(4, 2, bias=False), [X[1], H4[0, :2]]),
    "instnorm1d": (lambda nn: nn.InstanceNorm1d(3), [S1]),
    "instnorm1d_unbatched": (lambda nn: nn.InstanceNorm1d(3, affine=True), [S1[0]]),
    "instnorm2d_affine_track": (lambda nn: nn.InstanceNorm2d(3, affine=True, track_running_stats=True), [IMG]),
    "instnorm3d": (lambda nn: nn.InstanceNorm3d(2, eps=1e-3), [VOL]),
    "lrn": (lambda nn: nn.LocalResponseNorm(3, alpha=0.1, beta=0.6, k=2.0), [IMG]),
    "lrn_3d": (lambda nn: nn.LocalResponseNorm(2), [S1]),
    "lrn_5d": (lambda nn: nn.LocalResponseNorm(4, alpha=0.5), [VOL]),
    "lppool1d": (lambda nn: nn.LPPool1d(2, 3, stride=2), [np.abs(S1) + 0.1]),
    "lppool2d": (lambda nn: nn.LPPool2d(3.0, (2, 3)), [np.abs(IMG) + 0.1]),
    "alpha_dropout_eval": (lambda nn: nn.AlphaDropout(0.3).eval(), [X]),
    "dropout3d_p0": (lambda nn: nn.Dropout3d(0.0), [VOL]),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(name: str) -> None:
    make, inputs = LAYERS[name]
    train = not name.endswith("_eval")
    compare_module(make, inputs, train=train)


def test_instnorm_running_stats_eval() -> None:
    """After some training steps the running stats agree, and eval mode uses them."""
    torch.manual_seed(0)
    tm = torch.nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3).double()
    rm = retrograd.nn.InstanceNorm2d(3, affine=True, track_running_stats=True, momentum=0.3).double()
    rm.load_state_dict(to_r(tm.state_dict()))
    for i in range(3):
        a = rng.standard_normal((2, 3, 4, 4)) * (i + 1)
        tm(torch.tensor(a))
        rm(retrograd.tensor(a))
    np.testing.assert_allclose(rm.running_mean.numpy(), tm.running_mean.numpy(), rtol=1e-10)
    np.testing.assert_allclose(rm.running_var.numpy(), tm.running_var.numpy(), rtol=1e-10)
    tm.eval()
    rm.eval()
    a = rng.standard_normal((2, 3, 4, 4))
    np.testing.assert_allclose(rm(retrograd.tensor(a)).detach().numpy(), tm(torch.tensor(a)).detach().numpy(),
                               rtol=1e-10)


REPRS = [
    "ConstantPad1d(2, 3.5)", "ConstantPad2d((1, 2, 3, 4), 0.)", "ConstantPad3d(1, -1)", "ZeroPad1d((1, 2))",
    "ZeroPad2d(2)", "ZeroPad3d(1)", "ReflectionPad1d(2)", "ReflectionPad2d((1, 1, 2, 0))", "ReflectionPad3d(1)",
    "ReplicationPad1d(3)", "ReplicationPad2d(1)", "ReplicationPad3d((1, 1, 1, 1, 1, 2))", "CircularPad1d(2)",
    "CircularPad2d(1)", "CircularPad3d(1)", "Upsample(scale_factor=2)", "Upsample(size=(3, 4), mode='bilinear')",
    "Upsample(scale_factor=(2, 3))", "UpsamplingNearest2d(scale_factor=2)", "UpsamplingBilinear2d(size=4)",
    "PixelShuffle(2)", "PixelUnshuffle(3)", "Softmax2d()", "CosineSimilarity()", "PairwiseDistance(p=1)",
    "Fold(4, 2)", "Unfold((2, 3), stride=2)", "Hardshrink()", "Softshrink(0.3)", "RReLU()",
    "RReLU(0.1, 0.3, True)", "RNNCell(3, 4)", "RNNCell(3, 4, nonlinearity='relu', bias=False)", "LSTMCell(3, 4)",
    "GRUCell(3, 4, bias=False)", "InstanceNorm1d(3)", "InstanceNorm2d(3, affine=True, track_running_stats=True)",
    "InstanceNorm3d(4, momentum=None)", "LocalResponseNorm(3)", "Dropout3d()", "AlphaDropout(0.2)",
    "FeatureAlphaDropout(inplace=True)", "LPPool1d(2, 3)", "LPPool2d(2., (2, 3), stride=1)",
]


@pytest.mark.parametrize("expr", REPRS)
def test_repr_matches_torch(expr: str) -> None:
    t = eval("torch.nn." + expr)
    r = eval("retrograd.nn." + expr)
    assert repr(r) == repr(t)


def test_state_dict_keys_and_shapes() -> None:
    for expr in ["RNNCell(3, 4)", "LSTMCell(3, 4, bias=False)", "GRUCell(2, 5)", "InstanceNorm2d(3, affine=True)",
                 "InstanceNorm1d(2, track_running_stats=True)"]:
        t = eval("torch.nn." + expr).state_dict()
        r = eval("retrograd.nn." + expr).state_dict()
        assert list(r) == list(t)
        assert [tuple(v.shape) for v in r.values()] == [tuple(v.shape) for v in t.values()]


def test_cell_init_range() -> None:
    cell = retrograd.nn.LSTMCell(5, 16)
    for p in cell.parameters():
        a = p.detach().numpy()
        assert np.abs(a).max() <= 0.25 and np.abs(a).max() > 0.1


def _fcmp(rfn, tfn, arrays, rtol=1e-9, atol=1e-10, **kw):
    rin = [retrograd.tensor(a, requires_grad=True) for a in arrays]
    tin = [torch.tensor(a, requires_grad=True) for a in arrays]
    ro, to = rfn(*rin, **kw), tfn(*tin, **kw)
    np.testing.assert_allclose(ro.detach().numpy(), to.detach().numpy(), rtol=rtol, atol=atol)
    w = rng.standard_normal(tuple(to.shape))
    (ro * retrograd.tensor(w)).sum().backward()
    (to * torch.tensor(w)).sum().backward()
    for a, b in zip(rin, tin):
        if a.grad is None:  # not in the graph (e.g. the grid of nearest sampling): torch gives zeros
            assert not b.grad.numpy().any()
            continue
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=rtol, atol=atol)


@pytest.mark.parametrize("name,kw", [
    ("softshrink", {"lambd": 0.3}), ("hardshrink", {}), ("pixel_unshuffle", {"downscale_factor": 2}),
    ("local_response_norm", {"size": 3}), ("instance_norm", {}), ("lp_pool2d", {"norm_type": 2, "kernel_size": 2}),
    ("lp_pool1d", {"norm_type": 1.5, "kernel_size": 3, "stride": 1}), ("rrelu", {"lower": 0.2, "upper": 0.5}),
    ("alpha_dropout", {"p": 0.4}), ("feature_alpha_dropout", {"p": 0.4}),
])
def test_functional_matches_torch(name: str, kw: dict) -> None:
    a = np.abs(IMG[:, :, :, :4]) + 0.1 if name.startswith("lp_pool1d") is False and name.startswith("lp") \
        else IMG[:, :, :, :4]
    if name == "lp_pool1d":
        a = np.abs(S1) + 0.1
    _fcmp(getattr(RF, name), getattr(TF, name), [a], **kw)


def test_prelu_functional() -> None:
    _fcmp(RF.prelu, TF.prelu, [IMG, rng.uniform(0.1, 0.5, 3)])
    _fcmp(RF.prelu, TF.prelu, [X, np.array([0.3])])


def test_upsample_functionals_warn_and_match() -> None:
    for name, kw in [("upsample", {"scale_factor": 2, "mode": "bilinear"}), ("upsample_nearest", {"size": (7, 9)}),
                     ("upsample_bilinear", {"scale_factor": 2})]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            _fcmp(getattr(RF, name), getattr(TF, name), [IMG], **kw)
        with pytest.warns(UserWarning, match="deprecated"):
            getattr(RF, name)(retrograd.tensor(IMG), **kw)


def test_inplace_forms() -> None:
    for name, args in [("selu_", ()), ("celu_", (0.7,)), ("threshold_", (0.1, -2.0)), ("rrelu_", (0.2, 0.3))]:
        r = retrograd.tensor(X.copy())
        t = torch.tensor(X.copy())
        ro = getattr(RF, name)(r, *args)
        to = getattr(TF, name)(t, *args)
        assert ro is r
        np.testing.assert_allclose(r.numpy(), t.numpy(), rtol=1e-12)
        np.testing.assert_allclose(ro.numpy(), to.numpy(), rtol=1e-12)


def test_rrelu_training_slopes_in_range() -> None:
    x = retrograd.tensor(-np.ones(2000))
    y = RF.rrelu(x, 0.1, 0.3, training=True).numpy()
    assert (y <= -0.1).all() and (y >= -0.3).all() and y.std() > 0.03
    m = retrograd.nn.RReLU(0.1, 0.3)
    m.eval()
    np.testing.assert_allclose(m(x).numpy(), -0.2)


def test_alpha_dropout_statistics() -> None:
    retrograd.manual_seed(0)
    x = retrograd.randn(200000)
    y = RF.alpha_dropout(x, 0.3, training=True).numpy()
    assert abs(y.mean()) < 0.02 and abs(y.std() - 1) < 0.02
    m = retrograd.nn.FeatureAlphaDropout(0.5)
    y = m(retrograd.randn(4, 50, 3, 3)).numpy()
    # a dropped channel is constant over its spatial positions
    flat = y.reshape(4, 50, 9)
    assert (flat.std(-1) < 1e-12).any()
    m.eval()
    z = retrograd.randn(2, 3)
    assert m(z) is z


def test_dropout3d_zeros_channels() -> None:
    y = retrograd.nn.Dropout3d(0.5)(retrograd.ones(4, 20, 2, 2, 2)).numpy().reshape(80, 8)
    assert set(np.unique(y)) <= {0.0, 2.0}
    assert ((y == 0).all(1) | (y == 2).all(1)).all()


def test_gumbel_softmax() -> None:
    logits = retrograd.tensor(rng.standard_normal((5, 4)), requires_grad=True)
    y = RF.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(y.sum(-1).detach().numpy(), 1.0)
    yh = RF.gumbel_softmax(logits, hard=True)
    a = yh.detach().numpy()
    assert set(np.unique(a)) == {0.0, 1.0} and (a.sum(-1) == 1).all()
    yh.sum().backward()
    assert logits.grad is not None and np.abs(logits.grad.numpy()).max() < 1e-9


def test_errors_match_torch() -> None:
    cases = [
        ("CircularPad2d(1)", rng.standard_normal((2, 2))),
        ("Softmax2d()", rng.standard_normal((2, 2))),
        ("InstanceNorm1d(3)", rng.standard_normal((2, 2, 2, 2))),
        ("RNNCell(3, 4)", rng.standard_normal((2, 2, 3))),
    ]
    for expr, a in cases:
        with pytest.raises(Exception) as te:
            eval("torch.nn." + expr)(torch.tensor(a))
        with pytest.raises(type(te.value)) as re_:
            eval("retrograd.nn." + expr)(retrograd.tensor(a))
        assert str(re_.value) == str(te.value)
    with pytest.raises(RuntimeError) as te:
        TF.softshrink(torch.tensor(X), -1.0)
    with pytest.raises(RuntimeError) as re_:
        RF.softshrink(retrograd.tensor(X), -1.0)
    assert str(re_.value) == str(te.value)  # "lambda must be in range [0, ...] for input dtype ..."


def test_cell_loop_matches_rnn() -> None:
    """Unrolling an LSTMCell with an LSTM's weights reproduces the LSTM."""
    lstm = retrograd.nn.LSTM(4, 3).double()
    cell = retrograd.nn.LSTMCell(4, 3).double()
    cell.load_state_dict({k[:-3]: v for k, v in lstm.state_dict().items()})
    seq = retrograd.tensor(rng.standard_normal((5, 2, 4)))
    out, _ = lstm(seq)
    h = c = retrograd.zeros(2, 3, dtype=retrograd.float64)
    for t in range(5):
        h, c = cell(seq[t], (h, c))
    np.testing.assert_allclose(h.detach().numpy(), out[-1].detach().numpy(), rtol=1e-10)


TGT = rng.standard_normal((4, 3, 8))
MEM = rng.standard_normal((5, 3, 8))
CAUSAL = np.triu(np.full((4, 4), -np.inf), 1)

TRANSFORMERS = {
    "decoder_layer": (lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), [TGT, MEM], {}),
    "decoder_layer_prenorm_gelu_bf": (lambda nn: nn.TransformerDecoderLayer(
        8, 4, 12, dropout=0.0, activation="gelu", norm_first=True, batch_first=True), [TGT, MEM[:4]], {}),
    "decoder_layer_masks": (lambda nn: nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), [TGT, MEM],
                            {"tgt_mask": CAUSAL, "memory_key_padding_mask": np.array([[False] * 4 + [True]] * 3)}),
    "decoder": (lambda nn: nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, dropout=0.0), 2,
                                                 nn.LayerNorm(8)), [TGT, MEM], {"tgt_mask": CAUSAL}),
    "transformer": (lambda nn: nn.Transformer(8, 2, 2, 1, 16, dropout=0.0), [MEM, TGT], {"tgt_mask": CAUSAL}),
    "transformer_bf_prenorm": (lambda nn: nn.Transformer(8, 2, 1, 2, 16, dropout=0.0, batch_first=True,
                                                         norm_first=True), [MEM[:4], TGT], {}),
}


@pytest.mark.parametrize("name", list(TRANSFORMERS))
def test_transformer_matches_torch(name: str) -> None:
    make, inputs, kw = TRANSFORMERS[name]
    compare_module(make, inputs, kwargs=kw, rtol=1e-8, atol=1e-9)


def test_transformer_repr_init_and_errors() -> None:
    for expr in ["TransformerDecoderLayer(8, 2, 16)", "Transformer(8, 2, 1, 1, 16)",
                 "TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16), 2)"]:
        t = eval("torch.nn." + expr)
        r = eval("retrograd.nn." + expr.replace("torch.nn.", "retrograd.nn."))
        assert repr(r) == repr(t)
        assert list(r.state_dict()) == list(t.state_dict())
    m = retrograd.nn.Transformer(8, 2, 1, 1, 16)
    w = m.encoder.layers[0].linear1.weight.detach().numpy()
    bound = np.sqrt(6 / (8 + 16))
    assert np.abs(w).max() <= bound and np.abs(w).max() > 0.7 * bound
    mask = retrograd.nn.Transformer.generate_square_subsequent_mask(3)
    np.testing.assert_array_equal(mask.numpy(), torch.nn.Transformer.generate_square_subsequent_mask(3).numpy())
    assert mask.dtype == retrograd.float32
    for src, tgt in [((4, 2, 8), (3, 3, 8)), ((4, 2, 8), (3, 2, 6))]:
        with pytest.raises(RuntimeError) as te:
            torch.nn.Transformer(8, 2, 1, 1, 16)(torch.zeros(src), torch.zeros(tgt))
        with pytest.raises(RuntimeError) as re_:
            m(retrograd.zeros(src), retrograd.zeros(tgt))
        assert str(re_.value) == str(te.value)


BAGS = np.array([[1, 2, 0], [3, 3, 4]])
FLAT_IDX = np.array([1, 2, 4, 5, 4, 3, 2, 9])
OFFS = np.array([0, 2, 2, 5])

LAYERS3D = {
    "avgpool3d": (lambda nn: nn.AvgPool3d(2, stride=1, padding=1, count_include_pad=False), [VOL]),
    "avgpool3d_ceil_div": (lambda nn: nn.AvgPool3d((2, 3, 2), ceil_mode=True, divisor_override=5), [VOL]),
    "avgpool3d_unbatched": (lambda nn: nn.AvgPool3d(2), [VOL[0]]),
    "adaptive_avg3d": (lambda nn: nn.AdaptiveAvgPool3d((3, None, 2)), [VOL]),
    "adaptive_avg3d_1": (lambda nn: nn.AdaptiveAvgPool3d(1), [VOL]),
    "adaptive_max3d": (lambda nn: nn.AdaptiveMaxPool3d((3, 2, 2)), [VOL]),
    "adaptive_max3d_idx": (lambda nn: nn.AdaptiveMaxPool3d(2, return_indices=True), [VOL[0]]),
    "convT3d": (lambda nn: nn.ConvTranspose3d(2, 3, (2, 3, 2), stride=(2, 1, 1), padding=(0, 1, 0),
                                              output_padding=(1, 0, 0)), [VOL]),
    "convT3d_groups": (lambda nn: nn.ConvTranspose3d(2, 4, 2, groups=2, bias=False, dilation=2), [VOL]),
    "embedding_bag_mean": (lambda nn: nn.EmbeddingBag(10, 3), [BAGS]),
    "embedding_bag_sum_pad": (lambda nn: nn.EmbeddingBag(10, 3, mode="sum", padding_idx=3), [BAGS]),
    "embedding_bag_max": (lambda nn: nn.EmbeddingBag(10, 3, mode="max"), [FLAT_IDX, OFFS]),
    "embedding_bag_mean_offsets": (lambda nn: nn.EmbeddingBag(10, 4, padding_idx=4), [FLAT_IDX, OFFS]),
    "embedding_bag_last_offset": (lambda nn: nn.EmbeddingBag(10, 2, mode="sum", include_last_offset=True),
                                  [FLAT_IDX, np.array([0, 3, 3, 8])]),
}


@pytest.mark.parametrize("name", list(LAYERS3D))
def test_layer3d_matches_torch(name: str) -> None:
    make, inputs = LAYERS3D[name]
    compare_module(make, inputs)


def test_embedding_bag_per_sample_weights() -> None:
    torch.manual_seed(0)
    tm = torch.nn.EmbeddingBag(10, 3, mode="sum").double()
    rm = retrograd.nn.EmbeddingBag(10, 3, mode="sum").double()
    rm.load_state_dict(to_r(tm.state_dict()))
    psw = rng.standard_normal(len(FLAT_IDX))
    tp, rp = torch.tensor(psw, requires_grad=True), retrograd.tensor(psw, requires_grad=True)
    to = tm(torch.tensor(FLAT_IDX), torch.tensor(OFFS), tp)
    ro = rm(retrograd.tensor(FLAT_IDX), retrograd.tensor(OFFS), rp)
    np.testing.assert_allclose(ro.detach().numpy(), to.detach().numpy(), rtol=1e-10)
    to.sum().backward()
    ro.sum().backward()
    np.testing.assert_allclose(rp.grad.numpy(), tp.grad.numpy(), rtol=1e-10)
    np.testing.assert_allclose(rm.weight.grad.numpy(), tm.weight.grad.numpy(), rtol=1e-10)
    with pytest.raises(NotImplementedError):
        RF.embedding_bag(retrograd.tensor(FLAT_IDX), rm.weight, retrograd.tensor(OFFS), mode="mean",
                         per_sample_weights=rp)


@pytest.mark.parametrize("nd,shape,k", [(1, (2, 3, 8), 2), (2, (2, 3, 6, 4), 2), (3, (1, 2, 4, 4, 6), 2),
                                        (2, (3, 5, 7), 3)])
def test_max_unpool_matches_torch(nd: int, shape: tuple, k: int) -> None:
    a = rng.standard_normal(shape)
    tp = getattr(TF, f"max_pool{nd}d")(torch.tensor(a), k, return_indices=True)
    rp = getattr(RF, f"max_pool{nd}d_with_indices")(retrograd.tensor(a), k)
    np.testing.assert_array_equal(rp[1].numpy(), tp[1].numpy())
    vals = tp[0].detach().numpy()
    tv, rv = torch.tensor(vals, requires_grad=True), retrograd.tensor(vals, requires_grad=True)
    out_size = tuple((s // k) * k + 1 for s in shape[-nd:])
    tm = getattr(torch.nn, f"MaxUnpool{nd}d")(k)
    rm = getattr(retrograd.nn, f"MaxUnpool{nd}d")(k)
    assert repr(rm) == repr(tm)
    for osz in (None, out_size):
        to = tm(tv, tp[1], osz)
        ro = rm(rv, retrograd.tensor(tp[1].numpy()), osz)
        np.testing.assert_array_equal(ro.detach().numpy(), to.detach().numpy())
        w = rng.standard_normal(tuple(to.shape))
        tv.grad = None
        rv.grad = None
        (to * torch.tensor(w)).sum().backward()
        (ro * retrograd.tensor(w)).sum().backward()
        np.testing.assert_allclose(rv.grad.numpy(), tv.grad.numpy())


def test_with_indices_functionals() -> None:
    a = rng.standard_normal((2, 3, 6, 5))
    for name, args in [("max_pool2d_with_indices", (2,)), ("adaptive_max_pool2d_with_indices", ((3, 2),)),
                       ("adaptive_max_pool1d_with_indices", (3,)), ("max_pool1d_with_indices", (3, 2)),
                       ("max_pool3d_with_indices", (2,)), ("adaptive_max_pool3d_with_indices", (2,))]:
        x = a[0] if "1d" in name else (a[:, :, None].repeat(2, 2) if "3d" in name else a)
        to = getattr(TF, name)(torch.tensor(x), *args)
        ro = getattr(RF, name)(retrograd.tensor(x), *args)
        np.testing.assert_allclose(ro[0].numpy(), to[0].numpy())
        np.testing.assert_array_equal(ro[1].numpy(), to[1].numpy())


def test_3d_grad_fn_names_and_reprs() -> None:
    x = retrograd.tensor(VOL, requires_grad=True)
    assert type(RF.avg_pool3d(x, 2).grad_fn).__name__ == "AvgPool3DBackward0"
    assert type(RF.adaptive_avg_pool3d(x, 2).grad_fn).__name__ == "AdaptiveAvgPool3DBackward0"
    assert type(RF.adaptive_max_pool3d(x, 2).grad_fn).__name__ == "AdaptiveMaxPool3DBackward0"
    for expr in ["AvgPool3d(2)", "AvgPool3d((1, 2, 3), stride=1, padding=(0, 1, 1))", "AdaptiveAvgPool3d(2)",
                 "AdaptiveMaxPool3d((2, None, 3))", "ConvTranspose3d(2, 3, 2)",
                 "ConvTranspose3d(2, 4, (1, 2, 3), stride=2, groups=2, bias=False)", "EmbeddingBag(5, 3)",
                 "EmbeddingBag(5, 3, mode='max', padding_idx=-1, max_norm=1.0)", "MaxUnpool1d(3, stride=2, padding=1)",
                 "MaxUnpool3d(2)"]:
        assert repr(eval("retrograd.nn." + expr)) == repr(eval("torch.nn." + expr))


@pytest.mark.parametrize("align", [True, False])
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (2, 1, 3, 2, 4)])
def test_affine_grid_matches_torch(align: bool, size: tuple) -> None:
    theta = rng.standard_normal((2, len(size) - 2, len(size) - 1))
    _fcmp(lambda t: RF.affine_grid(t, size, align_corners=align),
          lambda t: TF.affine_grid(t, size, align_corners=align), [theta])


@pytest.mark.parametrize("mode,padding,align", [("bilinear", "zeros", False), ("bilinear", "zeros", True),
                                                ("bilinear", "border", False), ("nearest", "zeros", True),
                                                ("nearest", "border", False)])
def test_grid_sample_matches_torch(mode: str, padding: str, align: bool) -> None:
    img = rng.standard_normal((2, 3, 5, 6))
    grid = rng.uniform(-1.3, 1.3, (2, 4, 7, 2))
    _fcmp(lambda a, g: RF.grid_sample(a, g, mode, padding, align),
          lambda a, g: TF.grid_sample(a, g, mode, padding, align), [img, grid])


def test_grid_sample_affine_identity_and_warning() -> None:
    img = retrograd.tensor(rng.standard_normal((1, 2, 4, 5)))
    theta = retrograd.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]], dtype=retrograd.float64)
    for align in (True, False):
        g = RF.affine_grid(theta, (1, 2, 4, 5), align_corners=align)
        np.testing.assert_allclose(RF.grid_sample(img, g, align_corners=align).numpy(), img.numpy(), atol=1e-12)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        RF.affine_grid(theta, (1, 2, 4, 5))
    with pytest.raises(ValueError, match="Nx2x3"):
        RF.affine_grid(retrograd.zeros(1, 3, 3), (1, 2, 4, 5), align_corners=True)


@pytest.mark.parametrize("name", ["instance_norm", "local_response_norm", "grid_sample", "gru_cell", "lstm_cell",
                                  "softshrink", "lp_pool2d", "embedding_bag_psw", "max_unpool2d"])
def test_second_derivatives(name: str) -> None:
    """The composites are twice differentiable (gradgradcheck in float64)."""
    from retrograd.autograd import gradcheck, gradgradcheck

    def t(*shape, lo=None):
        a = rng.standard_normal(shape) if lo is None else rng.uniform(lo, lo + 1, shape)
        return retrograd.tensor(a, requires_grad=True)

    idx2 = retrograd.tensor(np.array([[[1, 3], [4, 6]]] * 2).reshape(1, 2, 2, 2))
    cases = {
        "instance_norm": (lambda x: RF.instance_norm(x), [t(2, 2, 4)]),
        "local_response_norm": (lambda x: RF.local_response_norm(x, 3, alpha=0.5), [t(1, 4, 3)]),
        "grid_sample": (lambda x, g: RF.grid_sample(x, g, align_corners=False),
                        [t(1, 2, 3, 3), retrograd.tensor(rng.uniform(-0.9, 0.9, (1, 2, 2, 2)), requires_grad=True)]),
        "gru_cell": (lambda x, h, w: RF.linear(x, w).sigmoid() * h, [t(2, 3), t(2, 4), t(4, 3)]),
        "lstm_cell": (None, None),
        "softshrink": (lambda x: RF.softshrink(x, 0.1) ** 2, [t(5)]),
        "lp_pool2d": (lambda x: RF.lp_pool2d(x, 2.0, 2), [t(1, 1, 2, 4, lo=0.5)]),
        "embedding_bag_psw": (lambda w, p: RF.embedding_bag(retrograd.tensor(np.array([0, 2, 1, 2])), w,
                                                             retrograd.tensor(np.array([0, 1])), mode="sum",
                                                             per_sample_weights=p) ** 2, [t(3, 2), t(4)]),
        "max_unpool2d": (lambda x: RF.max_unpool2d(x, idx2, 2) ** 2, [t(1, 2, 2, 2)]),
    }
    fn, inputs = cases[name]
    if name in ("gru_cell", "lstm_cell"):
        kind = {"gru_cell": retrograd.nn.GRUCell, "lstm_cell": retrograd.nn.LSTMCell}[name]
        cell = kind(3, 2).double()

        def fn(x):
            out = cell(x)
            return out[0] * out[1] if isinstance(out, tuple) else out
        inputs = [t(2, 3)]
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name", ["lppool3d", "lppool2d_inf", "lppool1d_ceil", "channel_shuffle"])
def test_more_pool_shuffle_layers(name: str) -> None:
    make, inputs = {
        "lppool3d": (lambda nn: nn.LPPool3d(2, (2, 2, 1), stride=1), [np.abs(VOL) + 0.1]),
        "lppool2d_inf": (lambda nn: nn.LPPool2d(float("inf"), 2), [IMG]),
        "lppool1d_ceil": (lambda nn: nn.LPPool1d(1.5, 2, ceil_mode=True), [np.abs(S1) + 0.1]),
        "channel_shuffle": (lambda nn: nn.ChannelShuffle(2), [rng.standard_normal((2, 6, 3, 2))]),
    }[name]
    compare_module(make, inputs)
    for expr in ["ChannelShuffle(3)", "LPPool3d(1.5, (1, 2, 2), stride=1, ceil_mode=True)"]:
        assert repr(eval("retrograd.nn." + expr)) == repr(eval("torch.nn." + expr))


def test_pdist_matches_torch() -> None:
    for p in (2.0, 1.0, 3.0):
        _fcmp(RF.pdist, TF.pdist, [rng.standard_normal((5, 3))], p=p)
    with pytest.raises(RuntimeError, match="pdist only supports 2D tensors, got: 1D"):
        RF.pdist(retrograd.ones(3))
    with pytest.raises(RuntimeError, match="divisible by groups"):
        RF.channel_shuffle(retrograd.ones(1, 3, 2), 2)
