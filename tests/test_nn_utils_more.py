"""nn.utils extras vs torch: packed sequences (and RNNs on them), weight/spectral norm, parametrize,
stateless calls, grad-norm helpers, batch-norm fusion."""
from __future__ import annotations

import numpy as np
import pytest
from nn_helpers import to_r

import retrograd
import retrograd.nn.utils.rnn as RR

torch = pytest.importorskip("torch")
TR = torch.nn.utils.rnn

rng = np.random.default_rng(0)


def _n(t):
    return t.detach().numpy()


def _seqs(lengths, feat=3):
    arrs = [rng.standard_normal((n, feat)) for n in lengths]
    return ([retrograd.tensor(a, requires_grad=True) for a in arrs],
            [torch.tensor(a, requires_grad=True) for a in arrs])


def _same_packed(r, t):
    np.testing.assert_allclose(_n(r.data), _n(t.data), rtol=1e-12)
    assert _n(r.batch_sizes).tolist() == t.batch_sizes.tolist()
    for a, b in [(r.sorted_indices, t.sorted_indices), (r.unsorted_indices, t.unsorted_indices)]:
        assert (a is None) == (b is None)
        if a is not None:
            assert _n(a).tolist() == b.tolist()


@pytest.mark.parametrize("batch_first", [False, True])
@pytest.mark.parametrize("side", ["right", "left"])
def test_pad_sequence(batch_first, side):
    rs, ts = _seqs([2, 4, 1])
    r = RR.pad_sequence(rs, batch_first=batch_first, padding_value=-1.5, padding_side=side)
    t = TR.pad_sequence(ts, batch_first=batch_first, padding_value=-1.5, padding_side=side)
    np.testing.assert_allclose(_n(r), _n(t))
    w = rng.standard_normal(tuple(t.shape))
    (r * retrograd.tensor(w)).sum().backward()
    (t * torch.tensor(w)).sum().backward()
    for a, b in zip(rs, ts):
        np.testing.assert_allclose(_n(a.grad), _n(b.grad))
    with pytest.raises(RuntimeError, match="Expected padding_side to be one of left or right, but got mid."):
        RR.pad_sequence(rs, padding_side="mid")


@pytest.mark.parametrize("enforce_sorted,lengths", [(True, [4, 2, 2, 1]), (False, [2, 4, 1, 2])])
@pytest.mark.parametrize("batch_first", [False, True])
def test_pack_roundtrip(enforce_sorted, lengths, batch_first):
    rs, ts = _seqs(lengths)
    rp = RR.pack_sequence(rs, enforce_sorted=enforce_sorted)
    tp = TR.pack_sequence(ts, enforce_sorted=enforce_sorted)
    _same_packed(rp, tp)
    assert isinstance(rp, tuple) and rp._fields == tp._fields
    seqs = [np.ones((3, 2), np.float32), np.full((2, 2), 2, np.float32)]
    assert repr(RR.pack_sequence([retrograd.tensor(a) for a in seqs], enforce_sorted=enforce_sorted)) == repr(
        TR.pack_sequence([torch.tensor(a) for a in seqs], enforce_sorted=enforce_sorted))
    rpad, rlen = RR.pad_packed_sequence(rp, batch_first=batch_first, padding_value=0.5, total_length=6)
    tpad, tlen = TR.pad_packed_sequence(tp, batch_first=batch_first, padding_value=0.5, total_length=6)
    np.testing.assert_allclose(_n(rpad), _n(tpad))
    assert _n(rlen).tolist() == tlen.tolist() and rlen.dtype.name == "int64"
    # pack_padded_sequence from the padded batch, and gradients through pack + pad
    rp2 = RR.pack_padded_sequence(rpad, rlen, batch_first=batch_first, enforce_sorted=enforce_sorted)
    tp2 = TR.pack_padded_sequence(tpad, tlen, batch_first=batch_first, enforce_sorted=enforce_sorted)
    _same_packed(rp2, tp2)
    w = rng.standard_normal(tuple(tp2.data.shape))
    (rp2.data * retrograd.tensor(w)).sum().backward()
    (tp2.data * torch.tensor(w)).sum().backward()
    for a, b in zip(rs, ts):
        np.testing.assert_allclose(_n(a.grad), _n(b.grad))
    for a, b in zip(RR.unpack_sequence(rp), TR.unpack_sequence(tp)):
        np.testing.assert_allclose(_n(a), _n(b))
    for a, b in zip(RR.unpad_sequence(rpad, rlen, batch_first), TR.unpad_sequence(tpad, tlen, batch_first)):
        np.testing.assert_allclose(_n(a), _n(b))


def test_pack_errors():
    x = retrograd.ones(3, 2)
    with pytest.raises(RuntimeError, match="`lengths` array must be sorted in decreasing order"):
        RR.pack_padded_sequence(x, [2, 3])
    with pytest.raises(RuntimeError, match="Length of all samples has to be greater than 0"):
        RR.pack_padded_sequence(x, [0, 3], enforce_sorted=False)
    p = RR.pack_sequence([retrograd.ones(3, 2), retrograd.ones(2, 2)])
    with pytest.raises(ValueError, match="but got total_length=2 and max sequence length being 3"):
        RR.pad_packed_sequence(p, total_length=2)


def test_packed_sequence_namedtuple():
    p = RR.PackedSequence(retrograd.ones(3), retrograd.tensor([2, 1]), retrograd.tensor([1, 0]))
    assert _n(p.unsorted_indices).tolist() == [1, 0]
    data, bs, _si, _ui = p
    assert data is p.data and bs is p.batch_sizes
    assert p.double().data.dtype is retrograd.float64


@pytest.mark.parametrize("kind,kw", [("RNN", {}), ("GRU", {"num_layers": 2}),
                                     ("LSTM", {"bidirectional": True}), ("RNN", {"bidirectional": True,
                                                                                 "num_layers": 2}),
                                     ("LSTM", {"proj_size": 2, "num_layers": 2, "bidirectional": True})])
@pytest.mark.parametrize("with_hx", [False, True])
def test_rnn_on_packed(kind, kw, with_hx):
    torch.manual_seed(0)
    tm = getattr(torch.nn, kind)(3, 4, **kw).double()
    rm = getattr(retrograd.nn, kind)(3, 4, **kw).double()
    rm.load_state_dict(to_r(tm.state_dict()))
    rs, ts = _seqs([2, 5, 1, 3])
    rp, tp = RR.pack_sequence(rs, enforce_sorted=False), TR.pack_sequence(ts, enforce_sorted=False)
    args_r, args_t = [rp], [tp]
    if with_hx:
        nd = (2 if kw.get("bidirectional") else 1) * kw.get("num_layers", 1)
        hs = 2 if kw.get("proj_size") else 4
        h = rng.standard_normal((nd, 4, hs))
        if kind == "LSTM":
            c = rng.standard_normal((nd, 4, 4))
            args_r.append((retrograd.tensor(h), retrograd.tensor(c)))
            args_t.append((torch.tensor(h), torch.tensor(c)))
        else:
            args_r.append(retrograd.tensor(h))
            args_t.append(torch.tensor(h))
    ro, rh = rm(*args_r)
    to, th = tm(*args_t)
    assert isinstance(ro, RR.PackedSequence)
    _same_packed(ro, to)
    rh = list(rh) if isinstance(rh, tuple) else [rh]
    th = list(th) if isinstance(th, tuple) else [th]
    for a, b in zip(rh, th):
        np.testing.assert_allclose(_n(a), _n(b), rtol=1e-10, atol=1e-12)
    w = rng.standard_normal(tuple(to.data.shape))
    (ro.data * retrograd.tensor(w)).sum().add(sum(x.sum() for x in rh)).backward()
    (to.data * torch.tensor(w)).sum().add(sum(x.sum() for x in th)).backward()
    for a, b in zip(rs, ts):
        np.testing.assert_allclose(_n(a.grad), _n(b.grad), rtol=1e-9, atol=1e-11)
    tp_ = dict(tm.named_parameters())
    for name, p in rm.named_parameters():
        np.testing.assert_allclose(_n(p.grad), _n(tp_[name].grad), rtol=1e-9, atol=1e-11, err_msg=name)


# ---------------------------------------------------------------------- weight norm / spectral norm
def _pair(make, seed=0):
    torch.manual_seed(seed)
    tm = make(torch.nn).double()
    rm = make(retrograd.nn).double()
    rm.load_state_dict(to_r(tm.state_dict()))
    return tm, rm


def _check_grads(tm, rm, x, rtol=1e-9):
    tx, rx = torch.tensor(x, requires_grad=True), retrograd.tensor(x, requires_grad=True)
    to, ro = tm(tx), rm(rx)
    np.testing.assert_allclose(_n(ro), _n(to), rtol=rtol, atol=1e-12)
    w = rng.standard_normal(tuple(to.shape))
    (to * torch.tensor(w)).sum().backward()
    (ro * retrograd.tensor(w)).sum().backward()
    np.testing.assert_allclose(_n(rx.grad), _n(tx.grad), rtol=rtol, atol=1e-12)
    tp = dict(tm.named_parameters())
    for name, p in rm.named_parameters():
        np.testing.assert_allclose(_n(p.grad), _n(tp[name].grad), rtol=rtol, atol=1e-12, err_msg=name)
    for name, b in rm.named_buffers():
        np.testing.assert_allclose(_n(b), _n(dict(tm.named_buffers())[name]), rtol=rtol, atol=1e-12)


@pytest.mark.parametrize("dim", [0, 1, None])
def test_weight_norm_hook(dim):
    with pytest.warns(FutureWarning, match="`torch.nn.utils.weight_norm` is deprecated"):
        retrograd.nn.utils.weight_norm(retrograd.nn.Linear(2, 2))
    import warnings
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm, rm = _pair(lambda nn: nn.utils.weight_norm(nn.Conv1d(2, 3, 2), dim=dim))
    assert list(rm.state_dict()) == list(tm.state_dict())
    assert tuple(rm.weight_g.shape) == tuple(tm.weight_g.shape)
    _check_grads(tm, rm, rng.standard_normal((2, 2, 5)))
    with warnings.catch_warnings(), pytest.raises(RuntimeError, match="Cannot register two weight_norm hooks "
                                                                      "on the same parameter weight"):
        warnings.simplefilter("ignore")
        retrograd.nn.utils.weight_norm(rm, dim=dim)
    retrograd.nn.utils.remove_weight_norm(rm)
    torch.nn.utils.remove_weight_norm(tm)
    assert list(rm.state_dict()) == list(tm.state_dict()) == ["bias", "weight"]
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight), rtol=1e-12)
    with pytest.raises(ValueError, match="weight_norm of 'weight' not found in"):
        retrograd.nn.utils.remove_weight_norm(rm)


@pytest.mark.parametrize("kind", ["Linear", "ConvTranspose"])
def test_spectral_norm_hook(kind):
    make = (lambda nn: nn.Linear(4, 3)) if kind == "Linear" else (lambda nn: nn.ConvTranspose1d(2, 3, 2))
    tm, rm = _pair(lambda nn: nn.utils.spectral_norm(make(nn), n_power_iterations=2))
    assert list(rm.state_dict()) == list(tm.state_dict())
    x = rng.standard_normal((2, 4)) if kind == "Linear" else rng.standard_normal((2, 2, 5))
    for _ in range(2):  # training: power iteration updates the u/v buffers each call
        for m in (tm, rm):
            m.zero_grad()
        _check_grads(tm, rm, x)
    tm.eval()
    rm.eval()
    _check_grads(tm, rm, x)
    torch.nn.utils.remove_spectral_norm(tm)
    retrograd.nn.utils.remove_spectral_norm(rm)
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight), rtol=1e-10)
    assert list(rm.state_dict()) == list(tm.state_dict())
    with pytest.raises(ValueError, match="Expected n_power_iterations to be positive, but got n_power_iterations=0"):
        retrograd.nn.utils.spectral_norm(retrograd.nn.Linear(2, 2), n_power_iterations=0)


# ---------------------------------------------------------------------- parametrize
def _sym(nn):
    class Sym(nn.Module):
        def forward(self, x):
            return x.triu() + x.triu(1).transpose(0, 1)

        def right_inverse(self, a):
            return a.triu()
    return Sym()


def test_register_parametrization():
    import torch.nn.utils.parametrize as TP

    from retrograd.nn.utils import parametrize as RP

    tm, rm = _pair(lambda nn: nn.Linear(3, 3))
    TP.register_parametrization(tm, "weight", _sym(torch.nn))
    RP.register_parametrization(rm, "weight", _sym(retrograd.nn))
    assert type(rm).__name__ == type(tm).__name__ == "ParametrizedLinear"
    assert repr(rm).replace("Sym", "S") == repr(tm).replace("Sym", "S")
    assert list(rm.state_dict()) == list(tm.state_dict())
    assert RP.is_parametrized(rm) and RP.is_parametrized(rm, "weight") and not RP.is_parametrized(rm, "bias")
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight))
    _check_grads(tm, rm, rng.standard_normal((2, 3)))
    # assignment goes through right_inverse
    v = rng.standard_normal((3, 3))
    with torch.no_grad():
        tm.weight = torch.tensor(v)
    rm.weight = retrograd.tensor(v)
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight))
    with RP.cached():
        assert rm.weight is rm.weight
    assert rm.weight is not rm.weight
    TP.remove_parametrizations(tm, "weight", leave_parametrized=False)
    RP.remove_parametrizations(rm, "weight", leave_parametrized=False)
    assert type(rm).__name__ == "Linear" and isinstance(rm.weight, retrograd.nn.Parameter)
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight))
    with pytest.raises(ValueError, match="does not have a parametrization on weight"):
        RP.remove_parametrizations(rm, "weight")
    with pytest.raises(ValueError, match="does not have a parameter, a buffer, or a parametrized element"):
        RP.register_parametrization(rm, "nope", _sym(retrograd.nn))


@pytest.mark.parametrize("dim", [0, 1])
def test_parametrizations_weight_norm(dim):
    P = "parametrizations"
    tm, rm = _pair(lambda nn: getattr(nn.utils, P).weight_norm(nn.Linear(3, 4), dim=dim))
    assert list(rm.state_dict()) == list(tm.state_dict())
    _check_grads(tm, rm, rng.standard_normal((2, 3)))
    torch.nn.utils.parametrize.remove_parametrizations(tm, "weight")
    retrograd.nn.utils.parametrize.remove_parametrizations(rm, "weight")
    np.testing.assert_allclose(_n(rm.weight), _n(tm.weight), rtol=1e-12)


def test_parametrizations_spectral_norm():
    tm, rm = _pair(lambda nn: nn.utils.parametrizations.spectral_norm(nn.Linear(4, 3)))
    assert list(rm.state_dict()) == list(tm.state_dict())
    x = rng.standard_normal((2, 4))
    for _ in range(2):
        for m in (tm, rm):
            m.zero_grad()
        _check_grads(tm, rm, x)
    tm.eval()
    rm.eval()
    rm.zero_grad()
    tm.zero_grad()
    _check_grads(tm, rm, x)


# ---------------------------------------------------------------------- stateless, grad norms, fusion, init
def test_functional_call():
    import warnings
    tm, rm = _pair(lambda nn: nn.Sequential(nn.Linear(3, 2), nn.BatchNorm1d(2)))
    x = rng.standard_normal((4, 3))
    new = {"0.weight": rng.standard_normal((2, 3)), "1.running_mean": rng.standard_normal(2)}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        tm.eval(), rm.eval()
        to = torch.nn.utils.stateless.functional_call(tm, {k: torch.tensor(v) for k, v in new.items()},
                                                      (torch.tensor(x),))
    with pytest.warns(FutureWarning, match="Please use .torch.func.functional_call."):
        ro = retrograd.nn.utils.stateless.functional_call(rm, {k: retrograd.tensor(v) for k, v in new.items()},
                                                          (retrograd.tensor(x),))
    np.testing.assert_allclose(_n(ro), _n(to), rtol=1e-10)
    np.testing.assert_allclose(_n(rm[0].weight), _n(tm[0].weight))  # restored
    assert isinstance(rm[0].weight, retrograd.nn.Parameter)
    # gradients flow to the passed-in tensors
    w = retrograd.tensor(new["0.weight"], requires_grad=True)
    from retrograd.nn.utils.stateless import _functional_call
    _functional_call(rm, {"0.weight": w}, retrograd.tensor(x)).sum().backward()
    assert w.grad is not None and rm[0].weight.grad is None
    with pytest.raises(RuntimeError, match="Missing key"):
        _functional_call(rm, {"0.weight": w}, retrograd.tensor(x), strict=True)


def test_get_total_norm_and_clip_with_norm():
    gs = [rng.standard_normal((3, 2)), rng.standard_normal(4)]
    for p in (2.0, 1.0, float("inf"), 3.0):
        r = retrograd.nn.utils.get_total_norm([retrograd.tensor(g) for g in gs], p)
        t = torch.nn.utils.get_total_norm([torch.tensor(g) for g in gs], p)
        np.testing.assert_allclose(r.item(), t.item(), rtol=1e-12)
    rp = [retrograd.nn.Parameter(retrograd.tensor(g)) for g in gs]
    tp = [torch.nn.Parameter(torch.tensor(g)) for g in gs]
    for a, b in zip(rp, tp):
        a.grad, b.grad = retrograd.tensor(_n(a) * 2), torch.tensor(_n(b) * 2)
    retrograd.nn.utils.clip_grads_with_norm_(rp, 0.5, retrograd.tensor(3.0))
    torch.nn.utils.clip_grads_with_norm_(tp, 0.5, torch.tensor(3.0))
    for a, b in zip(rp, tp):
        np.testing.assert_allclose(_n(a.grad), _n(b.grad), rtol=1e-12)


@pytest.mark.parametrize("transpose", [False, True])
def test_fuse_conv_bn(transpose):
    conv = (lambda nn: nn.ConvTranspose2d(2, 3, 2)) if transpose else (lambda nn: nn.Conv2d(2, 3, 2, bias=False))
    tm, rm = _pair(lambda nn: nn.Sequential(conv(nn), nn.BatchNorm2d(3)))
    x = rng.standard_normal((2, 2, 4, 4))
    tm.train(), rm.train()
    tm(torch.tensor(x)), rm(retrograd.tensor(x))  # non-trivial running stats
    tm.eval(), rm.eval()
    tf = torch.nn.utils.fuse_conv_bn_eval(tm[0], tm[1], transpose=transpose)
    rf = retrograd.nn.utils.fuse_conv_bn_eval(rm[0], rm[1], transpose=transpose)
    np.testing.assert_allclose(_n(rf.weight), _n(tf.weight), rtol=1e-10)
    np.testing.assert_allclose(_n(rf.bias), _n(tf.bias), rtol=1e-10)
    np.testing.assert_allclose(_n(rf(retrograd.tensor(x))), _n(rm(retrograd.tensor(x))), rtol=1e-9, atol=1e-12)
    assert isinstance(rf.weight, retrograd.nn.Parameter) and rf is not rm[0]


def test_fuse_linear_bn():
    tm, rm = _pair(lambda nn: nn.Sequential(nn.Linear(3, 4), nn.BatchNorm1d(4)))
    x = rng.standard_normal((5, 3))
    tm(torch.tensor(x)), rm(retrograd.tensor(x))
    tm.eval(), rm.eval()
    tf = torch.nn.utils.fuse_linear_bn_eval(tm[0], tm[1])
    rf = retrograd.nn.utils.fuse_linear_bn_eval(rm[0], rm[1])
    np.testing.assert_allclose(_n(rf.weight), _n(tf.weight), rtol=1e-10)
    np.testing.assert_allclose(_n(rf.bias), _n(tf.bias), rtol=1e-10)
    with pytest.raises(AssertionError, match="Fusion only for eval!"):
        retrograd.nn.utils.fuse_linear_bn_eval(rm[0].train(), rm[1])


def test_skip_init_and_init_helpers():
    m = retrograd.nn.utils.skip_init(retrograd.nn.Linear, 6, 1)
    assert tuple(m.weight.shape) == (1, 6)
    with pytest.raises(RuntimeError, match="Module must support a 'device' arg to skip initialization"):
        retrograd.nn.utils.skip_init(retrograd.nn.ReLU)
    with pytest.raises(RuntimeError, match="Expected a Module"):
        retrograd.nn.utils.skip_init(int)
    for shape, groups in [((4, 2, 3), 1), ((4, 2, 3, 3), 2), ((2, 3, 3, 3, 3), 1)]:
        a, b = retrograd.empty(*shape), torch.empty(*shape)
        retrograd.nn.init.dirac_(a, groups)
        torch.nn.init.dirac_(b, groups)
        np.testing.assert_array_equal(_n(a), _n(b))
    a, b = retrograd.empty(3, 5), torch.empty(3, 5)
    np.testing.assert_array_equal(_n(retrograd.nn.init.eye_(a)), _n(torch.nn.init.eye_(b)))


@pytest.mark.parametrize("shape,omap", [((4, 4), None), ((4, 4), "cayley"), ((5, 3), None), ((3, 5), None),
                                        ((5, 3), "matrix_exp"), ((3, 5), "cayley")])
def test_parametrizations_orthogonal(shape, omap):
    tm, rm = _pair(lambda nn: nn.utils.parametrizations.orthogonal(nn.Linear(shape[1], shape[0]).double(),
                                                                    orthogonal_map=omap))
    assert list(rm.state_dict()) == list(tm.state_dict())
    # move away from the initial point (original = -I) so the map and its gradient are non-trivial
    v = rng.standard_normal(shape) * 0.1
    idx = np.arange(min(shape))
    v[idx, idx] = 0  # householder keeps only int(diagonal) as signs (PyTorch); keep them -1
    with torch.no_grad():
        tm.parametrizations.weight.original.add_(torch.tensor(v))
    with retrograd.no_grad():
        rm.parametrizations.weight.original.add_(retrograd.tensor(v))
    w = _n(rm.weight)
    small = w if shape[0] >= shape[1] else w.T
    np.testing.assert_allclose(small.T @ small, np.eye(min(shape)), atol=1e-10)
    _check_grads(tm, rm, rng.standard_normal((2, shape[1])))
    with pytest.raises(ValueError, match='orthogonal_map has to be one of "matrix_exp", "cayley", "householder"'):
        retrograd.nn.utils.parametrizations.orthogonal(retrograd.nn.Linear(2, 2), orthogonal_map="x")
