"""Tests of retrograd.nn.utils.rnn, checked against PyTorch."""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd.nn.utils.rnn as RR

torch = pytest.importorskip("torch")

from nn_helpers import to_r  # noqa: E402

from .._module_helpers import _both  # noqa: E402
from ._helpers import _n  # noqa: E402


@pytest.mark.parametrize("case", ["trailing_mismatch", "trailing_broadcast", "lengths_len", "empty"])
def test_rnn_utils_errors(case):
    def run(T):
        R = T.nn.utils.rnn
        if case == "trailing_mismatch":
            return R.pad_sequence([T.ones(2, 3), T.ones(1, 4)]).tolist()
        if case == "trailing_broadcast":
            return R.pad_sequence([T.ones(2, 3), T.full((1, 1), 2.0)], batch_first=True).tolist()
        if case == "lengths_len":
            return R.pack_padded_sequence(T.ones(3, 4), [3, 2], batch_first=True).data.tolist()
        return R.pack_padded_sequence(T.ones(0, 2), [], batch_first=True).data.tolist()
    a, b = _both(run)
    assert a == b


TR = torch.nn.utils.rnn


rng = np.random.default_rng(0)


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
