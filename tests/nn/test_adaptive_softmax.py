"""nn.AdaptiveLogSoftmaxWithLoss (src/retrograd/nn/modules/adaptive.py), against torch."""

import numpy as np
import pytest

import retrograd as R

torch = pytest.importorskip("torch")

from ._lazy_helpers import A, same_error, tnn  # noqa: E402


# ----------------------------------------------------------------------------- AdaptiveLogSoftmaxWithLoss
def asm_pair(in_features=8, n_classes=10, cutoffs=(3, 6), **kw):
    t = tnn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, list(cutoffs), **kw).double()
    m = R.nn.AdaptiveLogSoftmaxWithLoss(in_features, n_classes, list(cutoffs), **kw).double()
    m.load_state_dict({k: R.tensor(v.numpy()) for k, v in t.state_dict().items()})
    return t, m


def test_asm_construction():
    t, m = asm_pair(div_value=2.0, head_bias=True)
    assert repr(m) == repr(t)
    assert (m.cutoffs, m.shortlist_size, m.n_clusters, m.head_size) == (t.cutoffs, t.shortlist_size, t.n_clusters,
                                                                         t.head_size)
    assert [(k, tuple(v.shape)) for k, v in m.state_dict().items()] == \
        [(k, tuple(v.shape)) for k, v in t.state_dict().items()]
    for cut in [[], [0, 3], [3, 3], [5, 3], [3, 10], [3.5]]:
        same_error(lambda: R.nn.AdaptiveLogSoftmaxWithLoss(8, 10, cut),
                   lambda: tnn.AdaptiveLogSoftmaxWithLoss(8, 10, cut))


@pytest.mark.parametrize("target", [[0, 4, 9, 2, 7, 5], [1, 2, 0, 2, 1, 0], [8, 9, 7, 6, 6, 9], [4]])
def test_asm_forward_matches_torch(target):
    t, m = asm_pair(head_bias=True)
    x = np.random.default_rng(len(target)).standard_normal((len(target), 8))
    xt, xr = torch.tensor(x, requires_grad=True), R.tensor(x, requires_grad=True)
    ot = t(xt, torch.tensor(target))
    orr = m(xr, R.tensor(target))
    assert type(orr).__name__ == "_ASMoutput" and orr._fields == ("output", "loss")
    np.testing.assert_allclose(A(orr.output), A(ot.output), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(A(orr.loss), A(ot.loss), rtol=1e-12)
    assert type(orr.output.grad_fn).__name__ == type(ot.output.grad_fn).__name__
    assert type(orr.loss.grad_fn).__name__ == type(ot.loss.grad_fn).__name__
    gt = torch.autograd.grad(ot.loss, [xt] + list(t.parameters()), create_graph=True, allow_unused=True)
    gr = R.autograd.grad(orr.loss, [xr] + list(m.parameters()), create_graph=True, allow_unused=True)
    for a, b in zip(gr, gt):
        assert (a is None) == (b is None)  # a cluster no target falls in is not used
        if b is not None:
            np.testing.assert_allclose(A(a), A(b), rtol=1e-10, atol=1e-12)
    # second derivative through log_softmax / gather / index_copy
    (g2t,) = torch.autograd.grad(gt[0].pow(2).sum(), xt)
    (g2r,) = R.autograd.grad(gr[0].pow(2).sum(), xr)
    np.testing.assert_allclose(A(g2r), A(g2t), rtol=1e-9, atol=1e-12)


def test_asm_unbatched_log_prob_predict():
    t, m = asm_pair()
    x = np.random.default_rng(4).standard_normal((6, 8)) * 3
    ot, orr = t(torch.tensor(x[0]), torch.tensor(7)), m(R.tensor(x[0]), R.tensor(7))
    np.testing.assert_allclose(A(orr.output), A(ot.output), rtol=1e-12)
    assert orr.output.dim() == 0 and type(orr.output.grad_fn).__name__ == type(ot.output.grad_fn).__name__
    xt, xr = torch.tensor(x, requires_grad=True), R.tensor(x, requires_grad=True)
    lt, lr = t.log_prob(xt), m.log_prob(xr)
    np.testing.assert_allclose(A(lr), A(lt), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(np.exp(A(lr)).sum(1), 1.0, rtol=1e-12)
    assert type(lr.grad_fn).__name__ == type(lt.grad_fn).__name__
    w = np.random.default_rng(5).standard_normal(lt.shape)
    lt.backward(torch.tensor(w))
    lr.backward(R.tensor(w))
    np.testing.assert_allclose(A(xr.grad), A(xt.grad), rtol=1e-10, atol=1e-12)
    with torch.no_grad():  # a head biased to make the first rows pick clusters: the mixed predict path
        t.head.weight[3:, :] *= 4
    m.head.weight.data = R.tensor(t.head.weight.detach().numpy())
    pt, pr = t.predict(torch.tensor(x)), m.predict(R.tensor(x))
    assert pr.dtype == R.int64 and pr.tolist() == pt.tolist()
    assert pr.tolist() == A(m.log_prob(R.tensor(x))).argmax(1).tolist()


def test_asm_errors():
    t, m = asm_pair()
    x = np.random.default_rng(0).standard_normal((5, 8))
    xt, xr = torch.tensor(x), R.tensor(x)
    tt, tr = torch.tensor([0, 4, 9, 2, 7]), R.tensor([0, 4, 9, 2, 7])
    same_error(lambda: m(xr, tr[:3]), lambda: t(xt, tt[:3]))
    same_error(lambda: m(xr[0], tr), lambda: t(xt[0], tt))
    same_error(lambda: m(xr, tr.view(5, 1)), lambda: t(xt, tt.view(5, 1)))
    same_error(lambda: m(xr, R.tensor([0, 1, 10, 2, 3])), lambda: t(xt, torch.tensor([0, 1, 10, 2, 3])))
    same_error(lambda: m(xr, R.tensor([0, 1, -1, 2, 3])), lambda: t(xt, torch.tensor([0, 1, -1, 2, 3])))
    same_error(lambda: m(xr[0], tr[0:1]), lambda: t(xt[0], tt[0:1]))
    same_error(lambda: m(xr, tr[0]), lambda: t(xt, tt[0]))
