"""Every layer's forward and grads (input and parameter) vs torch with the same weights, float64."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd.nn as rnn
from nn_helpers import compare_module

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
X = rng.standard_normal((3, 4))
IMG = rng.standard_normal((2, 3, 9, 8))
SEQ1D = rng.standard_normal((2, 3, 11))
SEQ = rng.standard_normal((5, 3, 4))
Q = rng.standard_normal((5, 3, 8))

LAYERS = {
    "linear": (lambda nn: nn.Linear(4, 5), [X]),
    "linear_nobias_3d": (lambda nn: nn.Linear(4, 2, bias=False), [rng.standard_normal((2, 3, 4))]),
    "bilinear": (lambda nn: nn.Bilinear(4, 3, 5), [X, rng.standard_normal((3, 3))]),
    "identity": (lambda nn: nn.Identity(3, foo=1), [X]),
    "conv2d": (lambda nn: nn.Conv2d(3, 4, 3, stride=2, padding=1), [IMG]),
    "conv2d_dil_groups": (lambda nn: nn.Conv2d(3, 6, (3, 2), dilation=(2, 1), groups=3, bias=False), [IMG]),
    "conv2d_same_reflect": (lambda nn: nn.Conv2d(3, 2, 4, padding="same", padding_mode="reflect"), [IMG]),
    "conv2d_valid_replicate": (lambda nn: nn.Conv2d(3, 2, 3, padding=2, padding_mode="replicate"), [IMG]),
    "conv2d_unbatched": (lambda nn: nn.Conv2d(3, 2, 3), [IMG[0]]),
    "conv1d": (lambda nn: nn.Conv1d(3, 4, 3, stride=2, padding=2, padding_mode="circular"), [SEQ1D]),
    "conv1d_same": (lambda nn: nn.Conv1d(3, 3, 5, padding="same", dilation=2, groups=3), [SEQ1D]),
    "convT2d": (lambda nn: nn.ConvTranspose2d(3, 4, 3, stride=2, padding=1, output_padding=1), [IMG]),
    "convT2d_groups": (lambda nn: nn.ConvTranspose2d(3, 6, 2, stride=(1, 2), groups=3, dilation=2), [IMG]),
    "convT1d": (lambda nn: nn.ConvTranspose1d(3, 2, 4, stride=3), [SEQ1D]),
    "maxpool2d": (lambda nn: nn.MaxPool2d(3, 2, 1), [IMG]),
    "maxpool2d_ceil": (lambda nn: nn.MaxPool2d((2, 3), stride=2, dilation=(2, 1), ceil_mode=True), [IMG]),
    "maxpool2d_indices": (lambda nn: nn.MaxPool2d(2, return_indices=True), [IMG]),
    "maxpool1d": (lambda nn: nn.MaxPool1d(3, 2, 1), [SEQ1D]),
    "avgpool2d": (lambda nn: nn.AvgPool2d(3, 2, 1, count_include_pad=False), [IMG]),
    "avgpool2d_ceil": (lambda nn: nn.AvgPool2d(2, ceil_mode=True, divisor_override=3), [IMG]),
    "avgpool1d": (lambda nn: nn.AvgPool1d(3, 2, 1, ceil_mode=True), [SEQ1D]),
    "adaptive_avg": (lambda nn: nn.AdaptiveAvgPool2d((4, 3)), [IMG]),
    "adaptive_avg_1": (lambda nn: nn.AdaptiveAvgPool2d(1), [IMG]),
    "adaptive_avg_none": (lambda nn: nn.AdaptiveAvgPool2d((None, 5)), [IMG]),
    "adaptive_max": (lambda nn: nn.AdaptiveMaxPool2d((4, 3)), [IMG]),
    "layernorm": (lambda nn: nn.LayerNorm([9, 8], eps=1e-3), [IMG]),
    "layernorm_nobias": (lambda nn: nn.LayerNorm(4, bias=False), [X]),
    "groupnorm": (lambda nn: nn.GroupNorm(3, 3), [IMG]),
    "groupnorm_noaffine": (lambda nn: nn.GroupNorm(1, 3, affine=False), [IMG]),
    "flatten": (lambda nn: nn.Flatten(), [IMG]),
    "unflatten": (lambda nn: nn.Unflatten(1, (2, 2)), [X]),
    "embedding": (lambda nn: nn.Embedding(10, 3, padding_idx=1), [np.array([[1, 2], [3, 1]])]),
    "embedding_freq": (lambda nn: nn.Embedding(10, 3, scale_grad_by_freq=True), [np.array([4, 4, 2])]),
    "rnn": (lambda nn: nn.RNN(4, 6), [SEQ]),
    "rnn_relu_2l": (lambda nn: nn.RNN(4, 6, 2, nonlinearity="relu", batch_first=True), [SEQ]),
    "lstm": (lambda nn: nn.LSTM(4, 6), [SEQ]),
    "lstm_bi_2l_bf": (lambda nn: nn.LSTM(4, 6, num_layers=2, batch_first=True, bidirectional=True), [SEQ]),
    "lstm_proj": (lambda nn: nn.LSTM(4, 6, proj_size=2), [SEQ]),
    "lstm_unbatched": (lambda nn: nn.LSTM(4, 3, bias=False), [SEQ[:, 0]]),
    "gru": (lambda nn: nn.GRU(4, 6), [SEQ]),
    "gru_2l": (lambda nn: nn.GRU(4, 5, num_layers=2, bidirectional=True), [SEQ]),
    "mha": (lambda nn: nn.MultiheadAttention(8, 2), [Q, Q, Q]),
    "mha_kdim_biaskv": (lambda nn: nn.MultiheadAttention(8, 4, batch_first=True, kdim=4, vdim=4, add_bias_kv=True,
                                                         add_zero_attn=True), [Q, SEQ, SEQ]),
    "mha_nobias": (lambda nn: nn.MultiheadAttention(8, 2, bias=False), [Q, Q, Q]),
    "encoder_layer": (lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), [Q]),
    "encoder_layer_prenorm_gelu": (lambda nn: nn.TransformerEncoderLayer(
        8, 2, 16, dropout=0.0, norm_first=True, activation="gelu", batch_first=True), [Q]),
    "relu": (lambda nn: nn.ReLU(), [X]),
    "leaky_relu": (lambda nn: nn.LeakyReLU(0.2), [X]),
    "elu": (lambda nn: nn.ELU(0.7), [X]),
    "gelu": (lambda nn: nn.GELU(), [X]),
    "gelu_tanh": (lambda nn: nn.GELU("tanh"), [X]),
    "silu": (lambda nn: nn.SiLU(), [X]),
    "mish": (lambda nn: nn.Mish(), [X]),
    "softplus": (lambda nn: nn.Softplus(2.0, 1.0), [X]),
    "tanh": (lambda nn: nn.Tanh(), [X]),
    "sigmoid": (lambda nn: nn.Sigmoid(), [X]),
    "softmax": (lambda nn: nn.Softmax(dim=1), [X]),
    "log_softmax": (lambda nn: nn.LogSoftmax(dim=0), [X]),
    "hardtanh": (lambda nn: nn.Hardtanh(-0.5, 0.5), [X]),
    "relu6": (lambda nn: nn.ReLU6(), [X * 5]),
    "selu": (lambda nn: nn.SELU(), [X]),
    "prelu": (lambda nn: nn.PReLU(3), [IMG]),
    "sequential": (lambda nn: nn.Sequential(nn.Conv2d(3, 4, 3), nn.BatchNorm2d(4), nn.ReLU(), nn.MaxPool2d(2),
                                            nn.Flatten(), nn.Linear(36, 3)), [IMG]),
}


@pytest.mark.parametrize("name", list(LAYERS))
def test_layer_matches_torch(name):
    make, inputs = LAYERS[name]
    compare_module(make, inputs)


@pytest.mark.parametrize("train", [True, False])
@pytest.mark.parametrize("name,make,x", [
    ("bn2d", lambda nn: nn.BatchNorm2d(3), IMG),
    ("bn1d", lambda nn: nn.BatchNorm1d(4, momentum=0.3), X),
    ("bn1d_3d_cumulative", lambda nn: nn.BatchNorm1d(3, momentum=None), SEQ1D),
    ("bn_noaffine", lambda nn: nn.BatchNorm2d(3, affine=False), IMG),
    ("bn_untracked", lambda nn: nn.BatchNorm2d(3, track_running_stats=False), IMG),
    ("dropout_eval_or_p0", lambda nn: nn.Dropout(0.0), X),
])
def test_batchnorm_train_and_eval(name, make, x, train):
    tm, rm = compare_module(make, [x], train=train)
    # a second step: running stats keep matching (momentum / cumulative average)
    compare_module(make, [x * 2 + 1], train=train)


def test_batchnorm_running_stats_over_steps():
    torch.manual_seed(0)
    tm = torch.nn.BatchNorm1d(3, momentum=None).double()
    rm = rnn.BatchNorm1d(3, momentum=None).double()
    for i in range(3):
        x = rng.standard_normal((4, 3)) * (i + 1)
        tm(torch.tensor(x))
        rm(retrograd.tensor(x))
    np.testing.assert_allclose(rm.running_var.numpy(), tm.running_var.numpy(), rtol=1e-12)
    np.testing.assert_allclose(rm.running_mean.numpy(), tm.running_mean.numpy(), rtol=1e-12)
    assert int(rm.num_batches_tracked) == 3
    with pytest.raises(ValueError, match=r"Expected more than 1 value per channel when training, got input size "
                                         r"torch.Size\(\[1, 3\]\)"):
        rm(retrograd.ones(1, 3, dtype=retrograd.float64))
    with pytest.raises(ValueError, match=r"expected 4D input \(got 2D input\)"):
        rnn.BatchNorm2d(3)(retrograd.ones(2, 3))


def test_dropout_train_and_eval():
    retrograd.manual_seed(0)
    d = rnn.Dropout(0.25)
    x = retrograd.ones(200, 200, requires_grad=True)
    y = d(x)
    kept = (y.detach().numpy() != 0).mean()
    assert abs(kept - 0.75) < 0.02
    assert np.allclose(y.detach().numpy()[y.detach().numpy() != 0], 1 / 0.75)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), y.detach().numpy())
    d.eval()
    assert d(x) is x
    with pytest.raises(ValueError, match="dropout probability has to be between 0 and 1, but got 1.5"):
        rnn.Dropout(1.5)
    assert float(rnn.Dropout(1.0)(retrograd.ones(3)).sum()) == 0.0
    d2 = rnn.Dropout2d(0.5)
    out = d2(retrograd.ones(4, 8, 3, 3)).numpy()
    assert all(len(np.unique(out[n, c])) == 1 for n in range(4) for c in range(8))


def test_embedding_padding_row_and_from_pretrained():
    e = rnn.Embedding(5, 2, padding_idx=-1)
    assert e.padding_idx == 4 and np.all(e.weight.detach().numpy()[4] == 0)
    w = retrograd.tensor([[1.0, 2.0], [3.0, 4.0]])
    fe = rnn.Embedding.from_pretrained(w)
    assert not fe.weight.requires_grad
    assert fe(retrograd.tensor([1])).tolist() == [[3.0, 4.0]]
    with pytest.raises(IndexError, match="index out of range in self"):
        fe(retrograd.tensor([2]))
    mn = rnn.Embedding(3, 2, max_norm=1.0)
    with retrograd.no_grad():
        mn.weight.copy_(retrograd.tensor([[3.0, 4.0], [0.1, 0.0], [1.0, 1.0]]))
    mn(retrograd.tensor([0, 1]))
    np.testing.assert_allclose(np.linalg.norm(mn.weight.detach().numpy()[0]), 1.0, rtol=1e-5)
    np.testing.assert_allclose(mn.weight.detach().numpy()[2], [1.0, 1.0])


def test_rnn_hidden_state_inputs_and_errors():
    for mk in ("RNN", "GRU"):
        h0 = rng.standard_normal((2, 3, 6))
        compare_module(lambda nn: getattr(nn, mk)(4, 6, 2), [SEQ, h0])
    torch.manual_seed(0)
    tm = torch.nn.LSTM(4, 6).double()
    rm = rnn.LSTM(4, 6).double()
    rm.load_state_dict({k: retrograd.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    h0, c0 = rng.standard_normal((1, 3, 6)), rng.standard_normal((1, 3, 6))
    to, (th, tc) = tm(torch.tensor(SEQ), (torch.tensor(h0), torch.tensor(c0)))
    ro, (rh, rc) = rm(retrograd.tensor(SEQ), (retrograd.tensor(h0), retrograd.tensor(c0)))
    for a, b in ((ro, to), (rh, th), (rc, tc)):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10)
    with pytest.raises(RuntimeError, match="input.size\\(-1\\) must be equal to input_size. Expected 4, got 3"):
        rm(retrograd.zeros(5, 3, 3, dtype=retrograd.float64))
    with pytest.raises(RuntimeError, match=r"Expected hidden\[0\] size \(1, 3, 6\), got \[1, 2, 6\]"):
        rm(retrograd.tensor(SEQ), (retrograd.zeros(1, 2, 6, dtype=retrograd.float64),
                                   retrograd.zeros(1, 3, 6, dtype=retrograd.float64)))
    with pytest.raises(ValueError, match="Unknown nonlinearity 'gelu'. Select from 'tanh' or 'relu'."):
        rnn.RNN(2, 2, nonlinearity="gelu")
    with pytest.warns(UserWarning, match="dropout option adds dropout after all but last recurrent layer"):
        rnn.GRU(2, 2, dropout=0.5)
    names = [n for n, _ in rnn.LSTM(2, 3, 2, bidirectional=True).named_parameters()]
    assert names == [n for n, _ in torch.nn.LSTM(2, 3, 2, bidirectional=True).named_parameters()]


def test_mha_masks_and_weights():
    torch.manual_seed(0)
    tm = torch.nn.MultiheadAttention(8, 2).double()
    rm = rnn.MultiheadAttention(8, 2).double()
    rm.load_state_dict({k: retrograd.tensor(v.numpy()) for k, v in tm.state_dict().items()})
    kpm = np.array([[False, False, True, False, True], [False] * 5, [True, False, False, False, False]])
    am = np.triu(np.ones((5, 5), dtype=bool), 1)
    fm = rng.standard_normal((5, 5))
    for kwargs in ({"key_padding_mask": kpm}, {"attn_mask": am}, {"attn_mask": fm, "average_attn_weights": False},
                   {"attn_mask": am, "key_padding_mask": kpm, "need_weights": False}):
        tk = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        rk = {k: retrograd.tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
        to, tw = tm(torch.tensor(Q), torch.tensor(Q), torch.tensor(Q), **tk)
        ro, rw = rm(retrograd.tensor(Q), retrograd.tensor(Q), retrograd.tensor(Q), **rk)
        np.testing.assert_allclose(ro.detach().numpy(), to.detach().numpy(), rtol=1e-9, atol=1e-12)
        if tw is None:
            assert rw is None
        else:
            np.testing.assert_allclose(rw.detach().numpy(), tw.detach().numpy(), rtol=1e-9, atol=1e-12)


def test_encoder_layer_eval_mode_and_masks():
    mask = np.triu(np.full((5, 5), -np.inf), 1)
    compare_module(lambda nn: nn.TransformerEncoderLayer(8, 2, 16, dropout=0.1), [Q], train=False,
                   kwargs={"src_mask": mask})
    compare_module(lambda nn: nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0), 2), [Q])


@pytest.mark.parametrize("layer_kwargs", [
    {},  # batch_first False: torch's first reason
    {"batch_first": True},  # nothing in the way: no warning
    {"batch_first": True, "norm_first": True},
    {"batch_first": True, "activation": "tanh"},
    {"batch_first": True, "nhead": 1},
])
def test_transformer_encoder_nested_tensor_warning_as_torch(layer_kwargs):
    import warnings

    def messages(lib):
        kw = dict(layer_kwargs)
        act = kw.pop("activation", None)
        if act == "tanh":
            kw["activation"] = lib.tanh
        nhead = kw.pop("nhead", 2)
        layer = lib.nn.TransformerEncoderLayer(8, nhead, 16, **kw)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            enc = lib.nn.TransformerEncoder(layer, 2)
        return [str(x.message) for x in w], enc.use_nested_tensor, enc.enable_nested_tensor

    assert messages(retrograd) == messages(torch)


def test_default_initialisation_bounds():
    lin = rnn.Linear(50, 40)
    b = 1 / np.sqrt(50)
    w = lin.weight.detach().numpy()
    assert w.min() >= -b and w.max() <= b and w.std() > 0.8 * b / np.sqrt(3)
    assert np.abs(lin.bias.detach().numpy()).max() <= b
    conv = rnn.Conv2d(4, 8, 3)
    bc = 1 / np.sqrt(4 * 9)
    assert np.abs(conv.weight.detach().numpy()).max() <= bc and np.abs(conv.bias.detach().numpy()).max() <= bc
    ct = rnn.ConvTranspose2d(4, 6, 3)
    bt = 1 / np.sqrt(6 * 9)  # fan_in of a transposed conv weight (in, out, k, k) is out * k * k
    assert np.abs(ct.weight.detach().numpy()).max() <= bt and ct.weight.shape == (4, 6, 3, 3)
    emb = rnn.Embedding(1000, 20).weight.detach().numpy()
    assert abs(emb.std() - 1) < 0.05
    lstm = rnn.LSTM(5, 16)
    assert all(np.abs(p.detach().numpy()).max() <= 0.25 for p in lstm.parameters())
    mha = rnn.MultiheadAttention(8, 2)
    assert np.all(mha.in_proj_bias.detach().numpy() == 0) and np.all(mha.out_proj.bias.detach().numpy() == 0)
    a = np.sqrt(6 / (8 + 24))
    assert np.abs(mha.in_proj_weight.detach().numpy()).max() <= a
    bn = rnn.BatchNorm2d(3)
    assert bn.weight.tolist() == [1.0] * 3 and bn.running_var.tolist() == [1.0] * 3
    assert bn.num_batches_tracked.dtype is retrograd.int64
    assert lin.weight.dtype is retrograd.float32


def test_layers_accept_float32_defaults_and_dtype_argument():
    m = rnn.Linear(3, 2, dtype=retrograd.float64)
    assert m.weight.dtype is retrograd.float64
    out = rnn.Conv2d(3, 2, 3)(retrograd.randn(1, 3, 5, 5))
    assert out.dtype is retrograd.float32
    with pytest.raises(RuntimeError, match=r"mat1 and mat2 shapes cannot be multiplied \(2x3 and 4x5\)"):
        rnn.Linear(4, 5)(retrograd.ones(2, 3))
    with pytest.raises(RuntimeError, match="expected input\\[1, 2, 5, 5\\] to have 3 channels, but got 2 channels"):
        rnn.Conv2d(3, 2, 3)(retrograd.ones(1, 2, 5, 5))
