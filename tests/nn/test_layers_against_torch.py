"""Differential sweep of nn layers against PyTorch: outputs, input/parameter grads, buffers,
state_dict keys, reprs and error messages (float64, weights copied from torch)."""
import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

from ._layer_helpers import _flat, _np, check_error  # noqa: E402

TOL = 1e-9


def _inputs(lib, specs, seed=0):
    rs = np.random.RandomState(seed)
    out = []
    for s in specs:
        if callable(s):
            out.append(s(lib))
        elif isinstance(s, tuple):  # a float input of this shape, requiring grad
            out.append(lib.tensor(rs.randn(*s), requires_grad=True))
        else:
            out.append(lib.tensor(s))
    return out


def check_module(name, args=(), kwargs=None, specs=(), fkw=None, modes=("train", "eval"), steps=1):
    """Build ``name`` in both libraries, copy torch's weights, compare everything observable."""
    kwargs = kwargs or {}
    fkw = fkw or {}
    torch.manual_seed(0)
    tm = getattr(torch.nn, name)(*args, **kwargs).double()
    rm = getattr(rg.nn, name)(*args, **kwargs).double()
    assert repr(rm) == repr(tm)
    assert list(rm.state_dict()) == list(tm.state_dict())
    assert [n for n, _ in rm.named_buffers()] == [n for n, _ in tm.named_buffers()]
    rm.load_state_dict({k: rg.tensor(v.detach().numpy().copy()) for k, v in tm.state_dict().items()})
    for mode in modes:
        tm.train(mode == "train")
        rm.train(mode == "train")
        for step in range(steps):
            tin, rin = _inputs(torch, specs, step), _inputs(rg, specs, step)
            tout = _flat(tm(*tin, **{k: v(torch) if callable(v) else v for k, v in fkw.items()}))
            rout = _flat(rm(*rin, **{k: v(rg) if callable(v) else v for k, v in fkw.items()}))
            assert len(tout) == len(rout)
            rs = np.random.RandomState(1)
            lt = lr = 0
            for a, b in zip(tout, rout):
                np.testing.assert_allclose(_np(b), _np(a), rtol=TOL, atol=TOL)
                if a.requires_grad:
                    w = rs.randn(*a.shape)
                    lt = lt + (a * torch.tensor(w)).sum()
                    lr = lr + (b * rg.tensor(w)).sum()
            if isinstance(lt, torch.Tensor):
                lt.backward()
                lr.backward()
                for a, b in zip(tin, rin):
                    if isinstance(a, torch.Tensor) and a.requires_grad:
                        np.testing.assert_allclose(_np(b.grad), _np(a.grad), rtol=TOL, atol=TOL)
                rp = dict(rm.named_parameters())
                for n, p in tm.named_parameters():
                    assert (rp[n].grad is None) == (p.grad is None), n
                    if p.grad is not None:
                        np.testing.assert_allclose(_np(rp[n].grad), _np(p.grad), rtol=TOL, atol=TOL, err_msg=n)
                tm.zero_grad()
                rm.zero_grad()
            rb = dict(rm.named_buffers())
            for n, b in tm.named_buffers():
                np.testing.assert_allclose(_np(rb[n]), _np(b), rtol=TOL, atol=TOL, err_msg=n)


# ---------------------------------------------------------------------------------- modules
def _kpm(lib, n=3, s=5):
    m = np.zeros((n, s), bool)
    m[0, -2:] = True
    return lib.tensor(m)


def _bool_mask(lib, t=4, s=5):
    m = np.random.RandomState(0).rand(t, s) > 0.7
    m[:, 0] = False
    return lib.tensor(m)


def _packed(lib):
    x = lib.tensor(np.random.RandomState(2).randn(4, 3, 5))
    return lib.nn.utils.rnn.pack_padded_sequence(x, [4, 2, 3], enforce_sorted=False)


MODULE_CASES = [
    ("Conv1d", (4, 6, 3), dict(padding="same", padding_mode="reflect"), [(2, 4, 9)]),
    ("Conv2d", (4, 6, 3), dict(padding=2, padding_mode="circular", groups=2), [(2, 4, 7, 6)]),
    ("Conv2d", (4, 6, 2), dict(padding="same", dilation=2, bias=False), [(4, 7, 6)]),
    ("Conv3d", (4, 6, 3), dict(padding=1, padding_mode="replicate", stride=2), [(2, 4, 5, 6, 4)]),
    ("ConvTranspose1d", (4, 6, 3), dict(stride=3, padding=1, output_padding=2, dilation=2, groups=2), [(2, 4, 9)]),
    ("ConvTranspose2d", (4, 6, 3), dict(stride=2, output_padding=1), [(2, 4, 7, 6)]),
    ("ConvTranspose3d", (4, 6, 3), dict(stride=2, bias=False), [(4, 5, 6, 4)]),
    ("MaxPool1d", (), dict(kernel_size=3, stride=2, padding=1, dilation=2, ceil_mode=True, return_indices=True),
     [(2, 3, 11)]),
    ("MaxPool2d", (), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), [(2, 3, 9, 8)]),
    ("MaxPool3d", (), dict(kernel_size=2, return_indices=True), [(2, 3, 8, 6, 6)]),
    ("AvgPool1d", (), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True, count_include_pad=False),
     [(2, 3, 11)]),
    ("AvgPool2d", (), dict(kernel_size=2, divisor_override=3), [(2, 3, 9, 8)]),
    ("AvgPool3d", (), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True), [(3, 8, 6, 6)]),
    ("LPPool2d", (1.5, 2), {}, [lambda L: L.tensor(np.abs(np.random.RandomState(0).randn(2, 3, 6, 6)) + 0.1,
                                                    requires_grad=True)]),
    ("AdaptiveAvgPool2d", ((None, 3),), {}, [(2, 3, 9, 8)]),
    ("AdaptiveMaxPool3d", ((2, 3, 4),), dict(return_indices=True), [(2, 3, 7, 6, 5)]),
    ("BatchNorm1d", (3,), dict(momentum=None), [(4, 3, 5)]),
    ("BatchNorm2d", (3,), dict(affine=False), [(4, 3, 4, 3)]),
    ("BatchNorm3d", (3,), dict(track_running_stats=False), [(4, 3, 3, 2, 2)]),
    ("InstanceNorm1d", (3,), dict(affine=True, track_running_stats=True), [(4, 3, 5)]),
    ("InstanceNorm2d", (3,), {}, [(3, 4, 3)]),
    ("LayerNorm", ([3, 4],), dict(bias=False), [(2, 3, 4)]),
    ("LayerNorm", (4,), dict(elementwise_affine=False), [(2, 3, 4)]),
    ("GroupNorm", (2, 4), {}, [(3, 4, 2, 3)]),
    ("RMSNorm", (4,), dict(eps=1e-2), [(2, 3, 4)]),
    ("LocalResponseNorm", (3, 1e-3, 0.5, 2.0), {}, [(2, 5, 3, 4)]),
    ("Embedding", (5, 3), dict(padding_idx=2, max_norm=1.0), [lambda L: L.tensor([[0, 2, 4], [4, 3, 2]])]),
    ("EmbeddingBag", (5, 3), dict(mode="max", include_last_offset=True),
     [lambda L: L.tensor([0, 2, 4, 4, 3, 2, 1]), lambda L: L.tensor([0, 3, 3, 5, 7])]),
    ("EmbeddingBag", (5, 3), dict(mode="sum", padding_idx=2),
     [lambda L: L.tensor([0, 2, 4, 4, 3, 2, 1]), lambda L: L.tensor([0, 3, 3, 5]), (7,)]),
    ("RNN", (5, 6), dict(nonlinearity="relu", num_layers=2, bidirectional=True), [(4, 3, 5), (4, 3, 6)]),
    ("LSTM", (5, 6), dict(proj_size=3, num_layers=2, bidirectional=True, batch_first=True), [(3, 4, 5)]),
    ("GRU", (5, 6), dict(num_layers=2, bidirectional=True), [_packed]),
    ("GRU", (5, 6), {}, [(4, 5)]),
    ("MultiheadAttention", (8, 2), dict(kdim=5, vdim=7, add_bias_kv=True), [(4, 3, 8), (5, 3, 5), (5, 3, 7)]),
    ("ReflectionPad3d", ((1, 2, 0, 1, 2, 1),), {}, [(2, 3, 4, 5, 6)]),
    ("CircularPad1d", ((-1, 2),), {}, [(2, 3, 6)]),
    ("CircularPad2d", ((2, -1, -2, 1),), {}, [(3, 5, 6)]),
    ("ReplicationPad2d", ((-1, 2, 2, -2),), {}, [(2, 3, 5, 6)]),
    ("Upsample", (), dict(scale_factor=1.7, mode="bicubic"), [(2, 3, 4, 5)]),
    ("Upsample", (), dict(size=(7, 3), mode="bicubic", align_corners=True), [(2, 3, 4, 5)]),
    ("Upsample", (), dict(scale_factor=0.6, mode="area"), [(1, 2, 5, 4, 6)]),
    ("Upsample", (), dict(scale_factor=2.5, mode="linear", align_corners=True), [(2, 3, 4)]),
    ("PixelShuffle", (2,), {}, [(8, 3, 4)]),
    ("Fold", ((6, 7), (2, 3)), dict(stride=2, padding=1, dilation=(1, 2)), [(3 * 6, 12)]),
    ("Unfold", ((2, 3),), dict(stride=2, padding=1), [(2, 3, 6, 7)]),
    ("Unflatten", (1, (2, -1)), {}, [(4, 6, 2)]),
    ("PReLU", (4,), dict(init=0.1), [(2, 4, 3)]),
    ("CELU", (0.7,), {}, [(3, 5)]),
    ("GLU", (1,), {}, [(2, 4, 3)]),
    ("Softmax2d", (), {}, [(2, 4, 3, 2)]),
]


@pytest.mark.parametrize("name,args,kwargs,specs", MODULE_CASES, ids=[f"{c[0]}-{i}" for i, c in
                                                                      enumerate(MODULE_CASES)])
def test_module_matches_torch(name, args, kwargs, specs):
    check_module(name, args, kwargs, specs, steps=2 if "Norm" in name else 1)


@pytest.mark.parametrize("norm_first", [False, True])
@pytest.mark.parametrize("activation", ["relu", "gelu"])
def test_transformer_layers_match_torch(norm_first, activation):
    kw = dict(dim_feedforward=16, dropout=0.0, norm_first=norm_first, activation=activation, batch_first=True)
    check_module("TransformerEncoderLayer", (8, 2), kw, [(3, 5, 8)], fkw=dict(src_key_padding_mask=_kpm))
    check_module("TransformerDecoderLayer", (8, 2), kw, [(3, 4, 8), (3, 5, 8)],
                 fkw=dict(tgt_mask=lambda L: L.nn.Transformer.generate_square_subsequent_mask(4), tgt_is_causal=True,
                          memory_key_padding_mask=_kpm))


def test_mha_masks_and_weights_match_torch():
    check_module("MultiheadAttention", (8, 2), {}, [(4, 3, 8), (5, 3, 8), (5, 3, 8)],
                 fkw=dict(attn_mask=_bool_mask, key_padding_mask=_kpm, average_attn_weights=False))


# ---------------------------------------------------------------------------------- errors
def _mk(name, *a, **k):
    return lambda L: getattr(L.nn, name)(*a, **k)


ERROR_CASES = [
    # ConvTranspose: every dimension's range is reported
    lambda L: L.nn.ConvTranspose2d(4, 6, 3, stride=2)(L.zeros(2, 4, 7, 6), output_size=[100, 100]),
    # pooling (PyTorch's own checks, in order)
    lambda L: L.nn.MaxPool2d(5)(L.zeros(2, 3, 2, 2)),
    lambda L: L.nn.MaxPool3d(5)(L.zeros(3, 2, 2, 2)),
    lambda L: L.nn.MaxPool1d(5)(L.zeros(2, 3, 2)),
    lambda L: L.nn.MaxPool1d(2, padding=2)(L.zeros(2, 3, 6)),
    lambda L: L.nn.MaxPool1d(2, stride=0)(L.zeros(2, 3, 6)),
    lambda L: L.nn.MaxPool1d(2)(L.zeros(2, 2, 3, 6)),
    lambda L: L.nn.MaxPool1d(5, return_indices=True)(L.zeros(2, 3, 2)),
    lambda L: L.nn.MaxPool2d(2, stride=0)(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.MaxPool2d(3, padding=2, dilation=2)(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.MaxPool3d(3, padding=2, dilation=2)(L.zeros(2, 3, 6, 6, 6)),
    lambda L: L.nn.MaxPool2d(2, dilation=0)(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.MaxPool2d(2, padding=-1)(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.AvgPool1d(5)(L.zeros(2, 3, 2)),
    lambda L: L.nn.MaxPool2d([2, 2, 2])(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.MaxPool3d(2, dilation=[1, 1])(L.zeros(2, 3, 6, 6, 6)),
    lambda L: L.nn.AvgPool2d(2, stride=[1, 1, 1])(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.AvgPool3d(2, padding=[0, 0])(L.zeros(2, 3, 6, 6, 6)),
    lambda L: L.nn.AvgPool1d(2)(L.zeros(2, 2, 3, 6)),
    lambda L: L.nn.AvgPool1d(0)(L.zeros(2, 3, 6)),
    lambda L: L.nn.AvgPool2d(5)(L.zeros(3, 2, 2)),
    lambda L: L.nn.AvgPool2d(2)(L.zeros(2, 2, 3, 6, 6)),
    lambda L: L.nn.AvgPool3d(5)(L.zeros(2, 3, 2, 2, 2)),
    lambda L: L.nn.AdaptiveAvgPool1d(2)(L.zeros(2, 2, 3, 6)),
    lambda L: L.nn.AdaptiveMaxPool1d(2)(L.zeros(2, 0, 6)),
    lambda L: L.nn.AdaptiveAvgPool2d([2, 2, 2])(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.AdaptiveMaxPool2d([2, 2, 2])(L.zeros(2, 3, 6, 6)),
    lambda L: L.nn.AdaptiveAvgPool3d(-1)(L.zeros(2, 3, 6, 6, 6)),
    lambda L: L.nn.AdaptiveMaxPool3d(-1)(L.zeros(2, 3, 6, 6, 6)),
    lambda L: L.nn.AdaptiveAvgPool3d(2)(L.zeros(2, 0, 6, 6, 6)),
    # padding
    lambda L: L.nn.ReflectionPad1d(1)(L.zeros(2, 2, 2, 2)),
    lambda L: L.nn.ReplicationPad3d(1)(L.zeros(2, 2, 2, 2, 2, 2)),
    lambda L: L.nn.ReflectionPad3d((1, 2, 3, 4, 5, 6))(L.zeros(2, 3, 4, 5, 6)),
    lambda L: L.nn.ReflectionPad2d((1, 1, 6, 1))(L.zeros(2, 3, 4, 5)),
    lambda L: L.nn.CircularPad2d((1, 1, 1, 5))(L.zeros(2, 3, 4, 5)),
    lambda L: L.nn.Conv3d(4, 6, 3, padding=5, padding_mode="reflect")(L.zeros(2, 4, 5, 6, 4)),
    # normalisation
    lambda L: L.nn.BatchNorm1d(3)(L.zeros(2, 4)),
    lambda L: L.nn.BatchNorm2d(3, track_running_stats=False)(L.zeros(2, 4, 2, 2)),
    lambda L: L.nn.InstanceNorm1d(3, track_running_stats=True)(L.zeros(2, 4, 5)),
    _mk("GroupNorm", 3, 4),
    lambda L: L.nn.GroupNorm(2, 4)(L.zeros(2, 6, 3)),
    lambda L: L.nn.functional.group_norm(L.zeros(2, 6, 3), 2, L.ones(6), L.ones(4)),
    lambda L: L.nn.functional.group_norm(L.zeros(6), 2),
    lambda L: L.nn.RMSNorm(4)(L.zeros(2, 3)),
    lambda L: L.nn.functional.rms_norm(L.zeros(2, 3), [3], L.ones(4)),
    # dropout
    lambda L: L.nn.Dropout1d(0.3)(L.zeros(2, 3, 4, 5)),
    lambda L: L.nn.Dropout1d(0.3).eval()(L.zeros(2, 3, 4, 5)),
    # recurrent cells
    lambda L: L.nn.RNNCell(5, 6)(L.zeros(3, 6)),
    lambda L: L.nn.GRUCell(5, 6)(L.zeros(3, 5), L.zeros(2, 6)),
    lambda L: L.nn.LSTMCell(5, 6)(L.zeros(3, 5), (L.zeros(3, 6), L.zeros(3, 7))),
    lambda L: L.nn.GRUCell(5, 6)(L.zeros(5), L.zeros(3, 6)),
    # attention
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(4, 3, 8), L.zeros(5, 3, 8), L.zeros(5, 3, 8),
                                            attn_mask=L.zeros(3, 3)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(4, 3, 8), L.zeros(5, 3, 8), L.zeros(5, 3, 8),
                                            attn_mask=L.zeros(5, 4, 5)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(4, 3, 8), L.zeros(5, 3, 8), L.zeros(5, 3, 8),
                                            key_padding_mask=L.zeros(3, 4, dtype=L.bool)),
    lambda L: L.nn.MultiheadAttention(8, 2)(L.zeros(4, 3, 8), L.zeros(5, 8), L.zeros(5, 3, 8)),
    # shape utilities
    lambda L: L.nn.PixelShuffle(2)(L.zeros(2, 6, 3, 4)),
    lambda L: L.nn.PixelShuffle(2)(L.zeros(6, 4)),
    lambda L: L.nn.Fold((6, 7), 2)(L.zeros(2, 7, 30)),
    lambda L: L.nn.Fold((6, 7), 2)(L.zeros(2, 2, 8, 30)),
    lambda L: L.nn.Unfold(2)(L.zeros(2, 3, 4, 5, 6)),
    lambda L: L.nn.Unfold(6)(L.zeros(2, 3, 4, 5)),
    lambda L: L.nn.Unflatten(1, (2, 4))(L.zeros(4, 6)),
    lambda L: L.nn.PReLU(3)(L.zeros(2, 4)),
    lambda L: L.nn.Upsample(scale_factor=2, mode="bilinear")(L.zeros(1, 1, 2)),
    lambda L: L.nn.Upsample(scale_factor=2, mode="bicubic")(L.zeros(1, 1, 2, 2, 2)),
    lambda L: L.nn.functional.interpolate(L.zeros(1, 1, 4, 4), size=(2, 3, 4)),
    lambda L: L.nn.functional.interpolate(L.zeros(1, 1, 4, 4), size=(2, 3), recompute_scale_factor=True),
]


@pytest.mark.parametrize("fn", ERROR_CASES, ids=[str(i) for i in range(len(ERROR_CASES))])
def test_error_matches_torch(fn):
    check_error(fn)


# ---------------------------------------------------------------------------------- behaviour
def test_dropout2d_3d_input_drops_whole_rows_like_torch():
    # torch treats a 3-D input to dropout2d as (N, C, L) and drops whole (n, c) rows
    with pytest.warns(UserWarning, match="dropout2d: Received a 3D input"):
        y = rg.nn.Dropout2d(0.5)(rg.ones(40, 30, 6)).numpy()
    rows = y.reshape(40 * 30, 6)
    assert np.all((rows == 0).all(1) | (rows == 2.0).all(1))
    assert 0.3 < (rows[:, 0] == 0).mean() < 0.7


def test_embeddingbag_from_pretrained():
    w = np.arange(6.0).reshape(3, 2)
    for freeze in (True, False):
        t = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), freeze=freeze, mode="max", padding_idx=1)
        r = rg.nn.EmbeddingBag.from_pretrained(rg.tensor(w), freeze=freeze, mode="max", padding_idx=1)
        assert repr(r) == repr(t)
        assert r.weight.requires_grad == t.weight.requires_grad
        idx = [[0, 2], [1, 2]]
        np.testing.assert_allclose(r(rg.tensor(idx)).detach().numpy(), t(torch.tensor(idx)).detach().numpy())
    check_error(lambda L: L.nn.EmbeddingBag.from_pretrained(L.zeros(3)))


def test_celu_gradient_matches_torch_exactly():
    # torch's celu backward uses 1 / float32(alpha) as the input scale
    x = np.random.RandomState(0).randn(50)
    grads = []
    for L in (torch, rg):
        t = L.tensor(x, requires_grad=True)
        for inplace in (False, True):
            (g,) = L.autograd.grad(L.nn.functional.celu(t * 1, 0.7, inplace=inplace).sum(), t)
            grads.append(g.numpy())
    np.testing.assert_array_equal(grads[2], grads[0])
    np.testing.assert_array_equal(grads[3], grads[1])
