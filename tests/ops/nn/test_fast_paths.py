"""The fast paths behind the training benchmarks (bench/bench_mlp.py, bench/bench_cnn.py) keep PyTorch's behaviour.

Fused linear, relu's threshold_backward, log_softmax's one-node backward, the unweighted
nll_loss, convolution with per-sample columns (and the forward's columns reused for the
weight gradient), and SGD's chunked fused-rounding update: values, gradients, second
derivatives, node names, edge cases, against torch 2.13.
"""
from __future__ import annotations

import numpy as np
import pytest

import retrograd
import retrograd.nn.functional as RF
from parity import assert_within_roundings
from retrograd.autograd import gradgradcheck

torch = pytest.importorskip("torch")
TF = torch.nn.functional

rng = np.random.default_rng(7)


def _pair(a: np.ndarray, grad: bool = True):
    return retrograd.tensor(a, requires_grad=grad), torch.tensor(a, requires_grad=grad)


def _np(t):
    return t.detach().numpy()


# ---------------------------------------------------------------------------------------------- linear
@pytest.mark.parametrize("bias", [True, False])
def test_linear_one_node_with_pytorch_names_and_grads(bias):
    x, w, b = rng.standard_normal((5, 4)), rng.standard_normal((3, 4)), rng.standard_normal(3)
    (rx, tx), (rw, tw), (rb, tb) = _pair(x), _pair(w), _pair(b)
    ro = RF.linear(rx, rw, rb if bias else None)
    to = TF.linear(tx, tw, tb if bias else None)
    assert type(ro.grad_fn).__name__ == type(to.grad_fn).__name__  # AddmmBackward0 / MmBackward0
    if bias:
        assert ro.grad_fn.next_functions[0][0].variable is rb  # addmm's input order: bias first
    g = rng.standard_normal((5, 3))
    ro.backward(retrograd.tensor(g))
    to.backward(torch.tensor(g))
    for r, t in ((rx, tx), (rw, tw)) + (((rb, tb),) if bias else ()):
        np.testing.assert_allclose(_np(r.grad), _np(t.grad), rtol=1e-12, atol=1e-12)
    # weight.grad is its own contiguous array (no copy was needed to store it)
    assert rw.grad._data.flags.c_contiguous and rw.grad._data.base is None


def test_linear_second_derivatives_and_batched_input():
    x = retrograd.tensor(rng.standard_normal((2, 5, 4)), requires_grad=True)
    w = retrograd.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    b = retrograd.tensor(rng.standard_normal(3), requires_grad=True)
    assert gradgradcheck(RF.linear, (x, w, b))
    assert gradgradcheck(lambda x, w: RF.linear(x, w), (x[0].detach().requires_grad_(), w))


# ---------------------------------------------------------------------------------------------- relu
def test_relu_backward_is_a_select_like_pytorch():
    x = np.array([[1.0, -2.0, 0.0, 3.0], [-1.0, 2.0, -0.5, 0.0]], dtype=np.float32)
    g = np.array([[np.nan, np.inf, -1.0, -2.0], [-np.inf, np.nan, -3.0, 5.0]], dtype=np.float32)
    (rx, tx) = _pair(x)
    RF.relu(rx).backward(retrograd.tensor(g))
    TF.relu(tx).backward(torch.tensor(g))
    r, t = _np(rx.grad), _np(tx.grad)
    np.testing.assert_array_equal(r, t)  # NaN where kept, 0 where masked (not NaN)
    assert not np.signbit(r[~np.isnan(r)][r[~np.isnan(r)] == 0]).any()  # +0, not -0
    assert type(RF.relu(rx).grad_fn).__name__ == "ReluBackward0"


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_nan_input_passes_its_gradient_through_relu_and_threshold_like_pytorch(dtype):
    # PyTorch's threshold_backward is ``y <= threshold ? 0 : g``: NaN compares false, so a NaN
    # activation lets its gradient through (a ``y > threshold`` mask would zero it); the
    # x86 default NaN has its sign bit set, so both signs of NaN are checked.
    neg_nan = np.float32(0.0) * np.float32(-np.inf) if dtype == np.float32 else 0.0 * -np.inf
    x = np.array([np.nan, -neg_nan, neg_nan, -1.0, 2.0, 0.0, -0.0], dtype=dtype)  # relu(-0.) is -0.
    g = np.arange(1, 8, dtype=dtype)
    for rfn, tfn in ((RF.relu, TF.relu), (lambda t: RF.threshold(t, 0.5, 3.0), lambda t: TF.threshold(t, 0.5, 3.0))):
        (rx, tx) = _pair(x)
        ro, to = rfn(rx), tfn(tx)
        assert type(ro.grad_fn).__name__ == type(to.grad_fn).__name__  # ReluBackward0 / ThresholdBackward0
        np.testing.assert_array_equal(_np(ro), _np(to))  # NaN stays NaN through threshold's forward too
        np.testing.assert_array_equal(np.signbit(_np(ro)), np.signbit(_np(to)))
        ro.backward(retrograd.tensor(g))
        to.backward(torch.tensor(g))
        np.testing.assert_array_equal(_np(rx.grad), _np(tx.grad))
        rg, = retrograd.autograd.grad(rfn(rx).sum(), rx, create_graph=True)
        tg, = torch.autograd.grad(tfn(tx).sum(), tx, create_graph=True)
        np.testing.assert_array_equal(_np(rg), _np(tg))
        assert type(rg.grad_fn).__name__ == type(tg.grad_fn).__name__


def test_relu_double_backward_matches_pytorch():
    x = rng.standard_normal((3, 4))
    (rx, tx) = _pair(x)
    rg, = retrograd.autograd.grad((RF.relu(rx) ** 2).sum(), rx, create_graph=True)
    tg, = torch.autograd.grad((TF.relu(tx) ** 2).sum(), tx, create_graph=True)
    assert type(rg.grad_fn).__name__ == type(tg.grad_fn).__name__ == "ThresholdBackwardBackward0"
    r2, = retrograd.autograd.grad(rg.sum(), rx)
    t2, = torch.autograd.grad(tg.sum(), tx)
    np.testing.assert_allclose(_np(r2), _np(t2))
    # the path through relu's output alone gives zeros, as PyTorch's (not an unused input)
    rg, = retrograd.autograd.grad(RF.relu(rx).sum(), rx, create_graph=True)
    z, = retrograd.autograd.grad(rg.sum(), rx)
    assert z is not None and not _np(z).any()
    assert gradgradcheck(RF.relu, (retrograd.tensor(x + np.sign(x) * 0.1, requires_grad=True),))


# ---------------------------------------------------------------------------------------------- log_softmax / CE
@pytest.mark.parametrize("dim", [0, 1, -1])
def test_log_softmax_backward_node_and_second_derivatives(dim):
    x = rng.standard_normal((3, 4, 2))
    (rx, tx) = _pair(x)
    w = rng.standard_normal((3, 4, 2))
    rg, = retrograd.autograd.grad((RF.log_softmax(rx, dim) * retrograd.tensor(w)).sum(), rx, create_graph=True)
    tg, = torch.autograd.grad((TF.log_softmax(tx, dim) * torch.tensor(w)).sum(), tx, create_graph=True)
    np.testing.assert_allclose(_np(rg), _np(tg), rtol=1e-12, atol=1e-12)
    assert type(rg.grad_fn).__name__ == type(tg.grad_fn).__name__ == "LogSoftmaxBackwardDataBackward0"
    r2, = retrograd.autograd.grad((rg * rg).sum(), rx)
    t2, = torch.autograd.grad((tg * tg).sum(), tx)
    np.testing.assert_allclose(_np(r2), _np(t2), rtol=1e-10, atol=1e-12)
    assert gradgradcheck(lambda a: RF.log_softmax(a, dim), (rx,))


def test_log_softmax_rows_of_minus_inf_like_pytorch():
    x = np.array([[-np.inf, -np.inf], [0.0, 1.0]])
    np.testing.assert_array_equal(_np(RF.log_softmax(retrograd.tensor(x), 1)), _np(TF.log_softmax(torch.tensor(x), 1)))


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("ignore_index", [-100, 2])
def test_cross_entropy_gather_path_and_fallback(reduction, ignore_index):
    x = rng.standard_normal((6, 5))
    for t in (np.array([0, 1, 4, 3, 1, 0]), np.array([0, 2, 4, 2, 1, 0])):  # without / with the ignored class
        (rx, tx) = _pair(x)
        ro = RF.cross_entropy(rx, retrograd.tensor(t), ignore_index=ignore_index, reduction=reduction)
        to = TF.cross_entropy(tx, torch.tensor(t), ignore_index=ignore_index, reduction=reduction)
        assert type(ro.grad_fn).__name__ == type(to.grad_fn).__name__
        np.testing.assert_allclose(_np(ro), _np(to), rtol=1e-12, atol=1e-12)
        w = rng.standard_normal(tuple(to.shape))
        (ro * retrograd.tensor(w)).sum().backward()
        (to * torch.tensor(w)).sum().backward()
        np.testing.assert_allclose(_np(rx.grad), _np(tx.grad), rtol=1e-12, atol=1e-12)
        assert gradgradcheck(lambda a: RF.cross_entropy(a, retrograd.tensor(t), ignore_index=ignore_index,
                                                        reduction=reduction), (rx,))


def test_cross_entropy_float32_matches_pytorch():
    x, t = rng.standard_normal((16, 10)).astype(np.float32), rng.integers(0, 10, 16)
    (rx, tx) = _pair(x)
    ro, to = RF.cross_entropy(rx, retrograd.tensor(t)), TF.cross_entropy(tx, torch.tensor(t))
    assert ro.dtype is retrograd.float32
    np.testing.assert_allclose(_np(ro), _np(to), rtol=1e-6)
    ro.backward()
    to.backward()
    np.testing.assert_allclose(_np(rx.grad), _np(tx.grad), rtol=1e-5, atol=1e-7)


# ---------------------------------------------------------------------------------------------- convolution
CONV_CASES = [
    dict(shape=(3, 4, 7, 6), w=(6, 4, 3, 3)),
    dict(shape=(2, 4, 7, 6), w=(4, 2, 3, 2), stride=(2, 1), padding=1, groups=2),
    dict(shape=(2, 3, 9, 8), w=(2, 3, 2, 3), dilation=2, padding=(2, 1)),
    dict(shape=(2, 2, 5, 5), w=(3, 2, 1, 1)),
]


@pytest.mark.parametrize("case", CONV_CASES)
def test_conv2d_values_and_grads_match_pytorch(case):
    case = dict(case)
    x, w, b = rng.standard_normal(case.pop("shape")), rng.standard_normal(case.pop("w")), None
    b = rng.standard_normal(w.shape[0])
    (rx, tx), (rw, tw), (rb, tb) = _pair(x), _pair(w), _pair(b)
    ro, to = RF.conv2d(rx, rw, rb, **case), TF.conv2d(tx, tw, tb, **case)
    np.testing.assert_allclose(_np(ro), _np(to), rtol=1e-10, atol=1e-12)
    assert ro._data.flags.c_contiguous
    g = rng.standard_normal(tuple(to.shape))
    ro.backward(retrograd.tensor(g), retain_graph=True)
    to.backward(torch.tensor(g))
    for r, t in ((rx, tx), (rw, tw), (rb, tb)):
        np.testing.assert_allclose(_np(r.grad), _np(t.grad), rtol=1e-10, atol=1e-11)
    assert rw.grad._data.base is None  # stored without a copy
    # a second backward (columns from the forward already used) recomputes them: same result
    first = _np(rw.grad).copy()
    rw.grad = None
    ro.backward(retrograd.tensor(g))
    np.testing.assert_array_equal(_np(rw.grad), first)


@pytest.mark.parametrize("case", CONV_CASES[:2])
def test_conv2d_second_derivatives(case):
    case = dict(case)
    x = retrograd.tensor(rng.standard_normal(case.pop("shape")), requires_grad=True)
    w = retrograd.tensor(rng.standard_normal(case.pop("w")), requires_grad=True)
    b = retrograd.tensor(rng.standard_normal(w.shape[0]), requires_grad=True)
    assert gradgradcheck(lambda x, w, b: RF.conv2d(x, w, b, **case), (x, w, b))


def test_conv2d_input_changed_in_place_after_forward_raises_like_pytorch():
    x = rng.standard_normal((1, 2, 5, 5))
    errors = []
    for lib in (retrograd, torch):
        xi = lib.tensor(x)
        w = lib.tensor(rng.standard_normal((3, 2, 3, 3)), requires_grad=True)
        y = lib.nn.functional.conv2d(xi, w)
        xi.add_(1)
        with pytest.raises(RuntimeError) as e:
            y.sum().backward()
        errors.append(str(e.value).split("\n")[0])
    assert errors[0] == errors[1]


def test_unfold_fold_match_pytorch():
    x = rng.standard_normal((2, 3, 6, 5))
    (rx, tx) = _pair(x)
    ru = RF.unfold(rx, (2, 3), dilation=1, padding=1, stride=(2, 1))
    tu = TF.unfold(tx, (2, 3), dilation=1, padding=1, stride=(2, 1))
    np.testing.assert_allclose(_np(ru), _np(tu))
    rf = RF.fold(ru * 2, (6, 5), (2, 3), padding=1, stride=(2, 1))
    tf = TF.fold(tu * 2, (6, 5), (2, 3), padding=1, stride=(2, 1))
    np.testing.assert_allclose(_np(rf), _np(tf))
    # a 1x1 unfold must not alias its input
    x1 = retrograd.tensor(rng.standard_normal((1, 2, 3, 3)))
    u = RF.unfold(x1, 1)
    assert not np.may_share_memory(u._data, x1._data)


# ---------------------------------------------------------------------------------------------- SGD
def test_sgd_update_matches_pytorch_and_add_alpha():
    """Float32 SGD update: bit-identical to what ``p.add_(g, alpha=-lr)`` computes in retrograd
    (the same kernel by definition), and torch's result to within the roundings of the update.

    Whether ``p - lr * g`` is one fused multiply-add or a product then a sum depends on the CPU
    path (OpenBLAS's axpy kernel here, ATen's vectorized or scalar loop in torch), so against
    torch each step may differ by one rounding of each term: after ``k`` steps at most ``2 k``
    roundings of ``|p0| + sum |lr g|``, which bounds every intermediate value."""
    shapes = [(512, 300), (70001,), (3,)]  # a chunked fallback crosses chunk boundaries; and a tiny one
    p0 = [rng.standard_normal(s).astype(np.float32) for s in shapes]
    rp = [retrograd.tensor(a.copy(), requires_grad=True) for a in p0]
    tp = [torch.tensor(a.copy(), requires_grad=True) for a in p0]
    manual = [retrograd.tensor(a.copy()) for a in p0]
    scale = [np.abs(a).astype(np.float64) for a in p0]
    ro, to = retrograd.optim.SGD(rp, lr=0.013), torch.optim.SGD(tp, lr=0.013)
    steps = 5
    for _ in range(steps):
        for i, (r, t, m, a) in enumerate(zip(rp, tp, manual, p0)):
            g = (rng.standard_normal(a.shape) * 3).astype(np.float32)
            r.grad, t.grad = retrograd.tensor(g), torch.tensor(g)
            m.add_(retrograd.tensor(g), alpha=-0.013)
            scale[i] += np.abs(0.013 * g.astype(np.float64))
        ro.step()
        to.step()
    for r, t, m, sc in zip(rp, tp, manual, scale):
        np.testing.assert_array_equal(_np(r), _np(m))
        assert_within_roundings(_np(r), _np(t), sc, roundings=2 * steps)


def test_add_with_alpha_matches_pytorch_to_one_multiply_add():
    """``add``/``sub``/``add_`` with ``alpha``, also when broadcasting rows, for float32 and
    float64: torch's result to within the roundings of ``a + alpha * b`` (fused or not depends
    on the CPU path in both libraries: at most 2 roundings of ``|a| + |alpha * b|``)."""
    for dt in ("float32", "float64"):
        for sa, sb in [((300, 7), (300, 7)), ((300, 7), (7,)), ((4, 1), (1, 3)), ((70001,), (70001,)), ((5,), (1,))]:
            a = rng.standard_normal(sa).astype(dt)
            b = (rng.standard_normal(sb) * 3).astype(dt)
            for alpha in (-0.013, 0.7, 3):
                scale = np.abs(a.astype(np.float64)) + np.abs(alpha * b.astype(np.float64))
                ta, tb, ra, rb = torch.tensor(a), torch.tensor(b), retrograd.tensor(a), retrograd.tensor(b)
                assert_within_roundings(_np(retrograd.add(ra, rb, alpha=alpha)), torch.add(ta, tb, alpha=alpha).numpy(),
                                        scale, roundings=2)
                assert_within_roundings(_np(retrograd.sub(ra, rb, alpha=alpha)), torch.sub(ta, tb, alpha=alpha).numpy(),
                                        scale, roundings=2)
                if sa == np.broadcast_shapes(sa, sb):
                    ta.add_(tb, alpha=alpha)
                    ra.add_(rb, alpha=alpha)
                    assert_within_roundings(_np(ra), ta.numpy(), scale, roundings=2)


def test_blas_axpy_refuses_what_it_cannot_do_in_place():
    from retrograd import _blas
    n = 3 * _blas._SMALL  # (small float32 arrays take the exact float64 path, any layout)
    x = np.ones(2 * n, np.float32)
    assert not _blas.axpy_(x, np.ones(2 * n, np.float64), 1.0)      # dtype mismatch
    assert not _blas.axpy_(x[::2], np.ones(n, np.float32), 1.0)    # not contiguous
    assert not _blas.axpy_(x[1:], x[:-1], 1.0)                     # overlapping
    assert not _blas.axpy_(np.ones(3, np.int64), np.ones(3, np.int64), 1)
    np.testing.assert_array_equal(x, np.ones(2 * n, np.float32))
    small = np.arange(6, dtype=np.float32)
    assert _blas.axpy_(small[1:], small[:-1], 2.0)                 # out of place first: no overlap hazard
    np.testing.assert_array_equal(small, [0, 1, 4, 7, 10, 13])


# ------------------------------------------------------------------------ skinny float32 GEMMs
def test_linear_and_mm_at_small_batch_match_torch_and_stay_c_contiguous():
    """Batch 4-48 float32 products with a big weight go through the turned GEMM
    (``_blas.mm``); results, grads and strides must be torch's all the same."""
    from retrograd import _blas
    for m, k, n in [(16, 784, 512), (8, 256, 256), (5, 1024, 512), (48, 512, 300), (64, 512, 512), (60, 784, 130), (128, 512, 512)]:
        x = rng.standard_normal((m, k)).astype(np.float32)
        w = (rng.standard_normal((n, k)) / np.sqrt(k)).astype(np.float32)
        b = rng.standard_normal(n).astype(np.float32)
        v = rng.standard_normal((k, n)).astype(np.float32)
        ref = x.astype(np.float64) @ w.T.astype(np.float64) + b
        got = _blas.mm(x, w.T, b)
        assert got.flags.c_contiguous and got.dtype == np.float32
        np.testing.assert_allclose(got, ref, rtol=1e-4, atol=1e-4)
        np.testing.assert_allclose(_blas.mm(x, v), x.astype(np.float64) @ v, rtol=1e-4, atol=1e-3)
        rx, tx = retrograd.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        rl, tl = retrograd.nn.Linear(k, n), torch.nn.Linear(k, n)
        with retrograd.no_grad(), torch.no_grad():
            rl.weight.copy_(retrograd.tensor(w))
            tl.weight.copy_(torch.tensor(w))
            rl.bias.copy_(retrograd.tensor(b))
            tl.bias.copy_(torch.tensor(b))
        ry, ty = rl(rx), tl(tx)
        assert ry.stride() == ty.stride() and ry.is_contiguous()
        assert type(ry.grad_fn).__name__ == type(ty.grad_fn).__name__ == "AddmmBackward0"
        gy = rng.standard_normal((m, n)).astype(np.float32)
        ry.backward(retrograd.tensor(gy))
        ty.backward(torch.tensor(gy))
        np.testing.assert_allclose(_np(ry), ty.detach().numpy(), rtol=1e-4, atol=1e-4)
        for r, t in [(rx.grad, tx.grad), (rl.weight.grad, tl.weight.grad), (rl.bias.grad, tl.bias.grad)]:
            assert r.is_contiguous()
            np.testing.assert_allclose(_np(r), t.numpy(), rtol=1e-4, atol=1e-4)
        rm = retrograd.mm(retrograd.tensor(x), retrograd.tensor(v))
        np.testing.assert_allclose(_np(rm), torch.mm(torch.tensor(x), torch.tensor(v)).numpy(), rtol=1e-4, atol=1e-3)
        assert rm.is_contiguous()


# ------------------------------------------------------------------- max pooling, batch norm
def test_max_pool_indices_with_ties_nan_padding_dilation_like_torch():
    """The running-maximum pooling (arithmetic index update, NaN windows redone) picks torch's
    values and indices: ties keep the first, NaN wins (the last NaN of a window)."""
    r = np.random.default_rng(7)
    for trial in range(40):
        nd = 1 + trial % 3
        k = tuple(int(v) for v in r.integers(1, 4, nd))
        s = tuple(int(v) for v in r.integers(1, 4, nd))
        d = tuple(int(v) for v in r.integers(1, 3, nd))
        p = tuple(int(min(r.integers(0, 2), kk // 2)) for kk in k)
        x = r.integers(-3, 3, (2, 3) + tuple(int(v) for v in r.integers(6, 9, nd))).astype(np.float32)
        if trial % 2:
            x.ravel()[r.integers(0, x.size, 6)] = np.nan
        name = f"max_pool{nd}d"
        to, ti = getattr(torch.nn.functional, name)(torch.tensor(x), k, s, p, d, ceil_mode=bool(trial % 4 > 1),
                                                    return_indices=True)
        ro, ri = getattr(retrograd.nn.functional, name)(retrograd.tensor(x), k, s, p, d,
                                                        ceil_mode=bool(trial % 4 > 1), return_indices=True)
        np.testing.assert_array_equal(_np(ro), to.numpy())
        np.testing.assert_array_equal(_np(ri), ti.numpy())


def test_batch_norm_train_backward_all_three_grads_like_torch():
    r = np.random.default_rng(8)
    for affine, shape in [(True, (4, 3, 5, 6)), (True, (8, 3)), (False, (2, 3, 7))]:
        x, g = r.standard_normal(shape), r.standard_normal(shape)
        mods = []
        for lib in (torch, retrograd):
            m = (lib.nn.BatchNorm2d if len(shape) == 4 else lib.nn.BatchNorm1d)(3, affine=affine).double()
            if affine:
                with lib.no_grad():
                    m.weight.copy_(lib.tensor(np.linspace(-1, 2, 3)))
                    m.bias.copy_(lib.tensor(np.linspace(0.5, 1, 3)))
            xt = lib.tensor(x, requires_grad=True)
            m(xt).backward(lib.tensor(g))
            mods.append((m, xt))
        (tm, tx), (rm, rx) = mods
        np.testing.assert_allclose(_np(rx.grad), tx.grad.numpy(), rtol=1e-10, atol=1e-12)
        if affine:
            np.testing.assert_allclose(_np(rm.weight.grad), tm.weight.grad.numpy(), rtol=1e-10, atol=1e-12)
            np.testing.assert_allclose(_np(rm.bias.grad), tm.bias.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_embedding_backward_sums_repeated_ids_like_torch_bit_for_bit():
    r = np.random.default_rng(9)
    for vocab, n, kw in [(1000, (32, 20), {}), (7, (16, 9), {}), (50, (40,), {"padding_idx": 3}),
                         (30, (8, 12), {"scale_grad_by_freq": True})]:
        idx = r.integers(0, vocab, n)
        w = r.standard_normal((vocab, 16)).astype(np.float32)
        g = r.standard_normal(n + (16,)).astype(np.float32)
        grads = []
        for lib in (torch, retrograd):
            wt = lib.tensor(w, requires_grad=True)
            lib.nn.functional.embedding(lib.tensor(idx), wt, **kw).backward(lib.tensor(g))
            grads.append(_np(wt.grad) if lib is retrograd else wt.grad.numpy())
        if kw.get("scale_grad_by_freq"):
            np.testing.assert_allclose(grads[1], grads[0], rtol=1e-6, atol=1e-7)
        else:
            np.testing.assert_array_equal(grads[1], grads[0])
