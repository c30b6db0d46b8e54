"""Fixes from the OpInfo sweep of nn.functional and linear algebra, checked against torch:
first gradients that stay in the graph (create_graph) with PyTorch's node names, grid_sample's
modes / padding / 5-D input, empty inputs (softmax, batch_norm, matmul, householder_product),
linear_cross_entropy, ormqr, cov's weight dtype and float32 matrix_exp."""
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")


def _pair(shape, seed, *, low=-2.0, high=2.0, grad=True):
    a = np.random.default_rng(seed).uniform(low, high, shape)
    return (torch.tensor(a, requires_grad=grad), rg.tensor(a, requires_grad=grad))


def _np(t):
    return t.detach().numpy()


def _close(a, b, tol=1e-9):
    assert tuple(a.shape) == tuple(b.shape)
    np.testing.assert_allclose(_np(b), _np(a), rtol=tol, atol=tol)


def _name(t):
    return None if t is None or t.grad_fn is None else type(t.grad_fn).__name__


# ------------------------------------------------------- first grads kept in the graph
# (f(lib, *inputs) -> output; the shapes of the inputs that require grad)
KEEP = {
    "leaky_relu": (lambda L, x: L.nn.functional.leaky_relu(x, 0.2), [(4, 5)]),
    "max_pool1d": (lambda L, x: L.nn.functional.max_pool1d(x, 2), [(2, 3, 6)]),
    "max_pool2d": (lambda L, x: L.nn.functional.max_pool2d(x, 2, 1), [(1, 2, 4, 5)]),
    "max_pool3d": (lambda L, x: L.nn.functional.max_pool3d(x, 2), [(1, 2, 4, 4, 4)]),
    "avg_pool1d": (lambda L, x: L.nn.functional.avg_pool1d(x, 3, 2, 1), [(2, 3, 7)]),
    "avg_pool2d": (lambda L, x: L.nn.functional.avg_pool2d(x, 2), [(1, 3, 4, 4)]),
    "avg_pool3d": (lambda L, x: L.nn.functional.avg_pool3d(x, 2, 1), [(1, 2, 3, 3, 3)]),
    "adaptive_avg_pool2d": (lambda L, x: L.nn.functional.adaptive_avg_pool2d(x, (2, 3)), [(1, 2, 5, 7)]),
    "adaptive_avg_pool3d": (lambda L, x: L.nn.functional.adaptive_avg_pool3d(x, 2), [(2, 3, 4, 5)]),
    "adaptive_max_pool2d": (lambda L, x: L.nn.functional.adaptive_max_pool2d(x, 2), [(1, 2, 5, 5)]),
    "adaptive_max_pool3d": (lambda L, x: L.nn.functional.adaptive_max_pool3d(x, 2), [(1, 1, 3, 4, 5)]),
    "interpolate_area": (lambda L, x: L.nn.functional.interpolate(x, size=3, mode="area"), [(2, 3, 7)]),
    "pad_reflect1d": (lambda L, x: L.nn.functional.pad(x, (2, 1), mode="reflect"), [(2, 5)]),
    "pad_reflect2d": (lambda L, x: L.nn.functional.pad(x, (1, 1, 2, 0), mode="reflect"), [(1, 3, 4)]),
    "pad_reflect3d": (lambda L, x: L.nn.functional.pad(x, (1,) * 6, mode="reflect"), [(1, 1, 3, 3, 3)]),
    "pad_replicate1d": (lambda L, x: L.nn.functional.pad(x, (-1, 3), mode="replicate"), [(2, 5)]),
    "pad_replicate2d": (lambda L, x: L.nn.functional.pad(x, (2, 1, 0, 3), mode="replicate"), [(2, 2, 3)]),
    "pad_replicate3d": (lambda L, x: L.nn.functional.pad(x, (1, 0, 0, 1, 1, 1), mode="replicate"),
                        [(1, 2, 2, 3, 2)]),
    "conv2d": (lambda L, x, w, b: L.nn.functional.conv2d(x, w, b, padding=1), [(2, 3, 5, 5), (4, 3, 3, 3), (4,)]),
    "conv_transpose1d": (lambda L, x, w, b: L.nn.functional.conv_transpose1d(x, w, b, stride=2),
                         [(2, 3, 5), (3, 2, 3), (2,)]),
    "layer_norm": (lambda L, x, w, b: L.nn.functional.layer_norm(x, (4,), w, b), [(3, 4), (4,), (4,)]),
    "group_norm": (lambda L, x, w, b: L.nn.functional.group_norm(x, 2, w, b), [(2, 4, 3), (4,), (4,)]),
    "group_norm_empty": (lambda L, x, w, b: L.nn.functional.group_norm(x, 1, w, b), [(0, 2), (2,), (2,)]),
    "batch_norm_train": (lambda L, x, w, b: L.nn.functional.batch_norm(x, None, None, w, b, training=True),
                         [(4, 3, 2), (3,), (3,)]),
    "batch_norm_eval": (lambda L, x, w, b: L.nn.functional.batch_norm(
        x, L.zeros(3, dtype=L.float64), L.ones(3, dtype=L.float64), w, b), [(4, 3), (3,), (3,)]),
    "nll_loss": (lambda L, x: L.nn.functional.nll_loss(x, L.tensor([0, 2, 1])), [(3, 4)]),
    "nll_loss_weight": (lambda L, x: L.nn.functional.nll_loss(
        x, L.tensor([0, 2, 1]), weight=L.tensor([1., 2., 3., 4.], dtype=L.float64), reduction="none"), [(3, 4)]),
    "nll_loss2d": (lambda L, x: L.nn.functional.nll_loss(x, L.tensor([[0, 2], [1, 1]])), [(2, 3, 2)]),
}


@pytest.mark.parametrize("name", sorted(KEEP))
def test_first_grads_stay_in_graph(name):
    f, shapes = KEEP[name]
    pairs = [_pair(s, i + 7) for i, s in enumerate(shapes)]
    results = []
    for k, lib in enumerate((torch, rg)):
        ins = [p[k] for p in pairs]
        out = f(lib, *ins)
        go = lib.tensor(np.random.default_rng(3).standard_normal(tuple(out.shape)))
        grads = lib.autograd.grad(out, ins, go, create_graph=True)
        second = lib.autograd.grad(sum((g * g).sum() for g in grads), ins, allow_unused=True)
        results.append((grads, second))
    (gt, st), (gr, sr) = results
    for a, b in zip(gt, gr):
        _close(a, b)
        assert b.requires_grad == a.requires_grad
        if name != "group_norm_empty":  # (torch: a View of its composite formula)
            assert _name(b) == _name(a)
    for a, b in zip(st, sr):
        if a is None and b is None:
            continue
        if a is None or b is None:  # (unused in one library: the other's must be all zeros)
            assert float((a if a is not None else b).abs().sum()) == 0
        else:
            _close(a, b, 1e-8)


def test_keep_graph_is_free_in_plain_backward():
    # without create_graph no extra node: the gradient is the rule's own result
    x = rg.tensor([1.0, -2.0], requires_grad=True)
    (gx,) = rg.autograd.grad(rg.nn.functional.leaky_relu(x).sum(), x)
    assert gx.grad_fn is None and not gx.requires_grad
    (gx,) = rg.autograd.grad(rg.nn.functional.leaky_relu(x).sum(), x, create_graph=True)
    assert [type(n).__name__ if n else None for n, _ in gx.grad_fn.next_functions] == [None, "AccumulateGrad"]


@pytest.mark.parametrize("mode,shape", [("reflect", (2, 3, 4)), ("replicate", (1, 2, 3, 4))])
def test_pad_modes_node_names(mode, shape):
    pad = (1, 2) if len(shape) == 3 else (2, 1, 1, 0)
    names = []
    for lib in (torch, rg):
        x = lib.ones(shape, requires_grad=True)
        names.append(type(lib.nn.functional.pad(x, pad, mode=mode).grad_fn).__name__)
    assert names[0] == names[1]


def test_pad_reflect_int_and_empty():
    for lib_args in ((torch.arange(10).reshape(2, 5), rg.arange(10).reshape(2, 5)),):
        a, b = (lib.nn.functional.pad(x, (2, 1), mode="reflect") for lib, x in zip((torch, rg), lib_args))
        assert a.tolist() == b.tolist()
    a = torch.nn.functional.pad(torch.zeros(0, 3, 3), (1, 1), mode="replicate")
    b = rg.nn.functional.pad(rg.zeros(0, 3, 3), (1, 1), mode="replicate")
    assert tuple(a.shape) == tuple(b.shape)


# ------------------------------------------------------- grid_sample
GRID_CASES = [(mode, pad, ac, nd) for nd in (2, 3) for mode in ("bilinear", "nearest", "bicubic")
              for pad in ("zeros", "border", "reflection") for ac in (False, True)
              if not (mode == "bicubic" and nd == 3)]


@pytest.mark.parametrize("mode,padding,align,nd", GRID_CASES)
def test_grid_sample(mode, padding, align, nd):
    spatial = (4, 5) if nd == 2 else (3, 4, 5)
    xt, xr = _pair((2, 3) + spatial, 1)
    gt, gr = _pair((2,) + spatial[:-1] + (3, nd), 2, low=-1.6, high=1.6)
    outs = [lib.nn.functional.grid_sample(x, g, mode=mode, padding_mode=padding, align_corners=align)
            for lib, x, g in ((torch, xt, gt), (rg, xr, gr))]
    _close(outs[0], outs[1])
    go = np.random.default_rng(5).standard_normal(tuple(outs[0].shape))
    dt = torch.autograd.grad(outs[0], (xt, gt), torch.tensor(go))
    dr = rg.autograd.grad(outs[1], (xr, gr), rg.tensor(go), allow_unused=True)
    _close(dt[0], dr[0])
    if mode == "nearest":  # torch: zeros; retrograd: the grid takes no part
        assert dr[1] is None or float(dr[1].abs().sum()) == 0
    else:
        _close(dt[1], dr[1], 1e-8)


def test_grid_sample_second_order():
    # bilinear with reflection: the grid's gradient is differentiable again (in input and grid)
    res = []
    for k, lib in enumerate((torch, rg)):
        x = _pair((1, 2, 4, 4), 3)[k]
        g = _pair((1, 3, 2, 2), 4, low=-1.5, high=1.5)[k]
        out = lib.nn.functional.grid_sample(x, g, padding_mode="reflection", align_corners=False)
        gx, gg = lib.autograd.grad(out.sum(), (x, g), create_graph=True)
        res.append(lib.autograd.grad((gg * gg).sum() + (gx * gx).sum(), (x, g)))
    for a, b in zip(*res):
        _close(a, b, 1e-8)


@pytest.mark.parametrize("src", [
    "F.grid_sample(T.zeros(1, 1, 2, 2, 2), T.zeros(1, 2, 2, 2, 3), mode='bicubic', align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 3), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(2, 2, 2, 2), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 2, 2), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 0, 2), T.zeros(1, 2, 2, 2), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 2, dtype=T.float64), align_corners=False)",
    "F.grid_sample(T.zeros(1, 1, 2, 2), T.zeros(1, 2, 2, 2), mode='cubic', align_corners=False)",
])
def test_grid_sample_errors(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib, "F": lib.nn.functional})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]


# ------------------------------------------------------- empty inputs
@pytest.mark.parametrize("fn", ["softmax", "log_softmax", "softmin"])
@pytest.mark.parametrize("shape,dim", [((5, 0, 0), -1), ((5, 0, 3), 1), ((5, 0, 3), 2)])
def test_softmax_family_empty(fn, shape, dim):
    res = []
    for lib in (torch, rg):
        x = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
        y = getattr(lib.nn.functional, fn)(x, dim)
        y.sum().backward()
        res.append((tuple(y.shape), type(y.grad_fn).__name__, tuple(x.grad.shape)))
    assert res[0] == res[1]


@pytest.mark.parametrize("shape", [(0,), (0, 3), (2, 0), (0, 3, 2)])
def test_batch_norm_empty_input(shape):
    res = []
    for lib in (torch, rg):
        c = shape[1] if len(shape) > 1 else 1
        x = lib.zeros(shape, dtype=lib.float64, requires_grad=True)
        w = lib.full((max(c, 1),), 2.0, dtype=lib.float64, requires_grad=True) if c else None
        b = lib.full((max(c, 1),), 0.5, dtype=lib.float64) if c else None
        rm, rv = lib.ones(4, dtype=lib.float64), lib.ones(4, dtype=lib.float64)  # sizes unchecked when empty
        y = lib.nn.functional.batch_norm(x, rm, rv, w, b, training=True)
        y.sum().backward()
        res.append((tuple(y.shape), type(y.grad_fn).__name__, rm.tolist(), None if w is None else w.grad.tolist()))
    assert res[0] == res[1]


@pytest.mark.parametrize("a,b", [((5, 5, 0), (0, 5)), ((0, 0), (5, 0, 0)), ((0,), (2, 0, 3)),
                                 ((2, 0), (3, 0, 4)), ((3, 0, 2), (2,))])
def test_matmul_empty(a, b):
    res = []
    for lib in (torch, rg):
        x = lib.zeros(a, requires_grad=True)
        y = lib.zeros(b, requires_grad=True)
        r = x @ y
        r.sum().backward()
        res.append((tuple(r.shape), type(r.grad_fn).__name__, tuple(x.grad.shape), tuple(y.grad.shape)))
    assert res[0] == res[1]


def test_householder_product_no_reflectors():
    res = []
    for lib in (torch, rg):
        a = lib.ones(3, 2, dtype=lib.float64, requires_grad=True)
        tau = lib.zeros(0, dtype=lib.float64, requires_grad=True)
        q = lib.linalg.householder_product(a, tau)
        # (torch's graph does not reach ``a`` then: None; retrograd's gives zeros)
        ga, gt = lib.autograd.grad(q.sum(), (a, tau), allow_unused=True)
        res.append((q.tolist(), [[0.0] * 2] * 3 if ga is None else ga.tolist(), 0 if gt is None else gt.numel()))
    assert res[0] == res[1]


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


# ------------------------------------------------------- ormqr, cov, matrix_exp
@pytest.mark.parametrize("shape,other", [((5, 3), (5, 2)), ((3, 5), (3, 2)), ((2, 4, 4), (2, 4, 3))])
@pytest.mark.parametrize("left,transpose", [(True, False), (True, True), (False, False), (False, True)])
def test_ormqr(shape, other, left, transpose):
    a = np.random.default_rng(1).standard_normal(shape)
    at, tt = torch.geqrf(torch.tensor(a))
    if not left:
        other = other[:-2] + other[-2:][::-1]
    ct, cr = _pair(other, 2)
    res = []
    for lib, c in ((torch, ct), (rg, cr)):
        A = lib.tensor(_np(at), requires_grad=True)
        tau = lib.tensor(_np(tt), requires_grad=True)
        out = lib.ormqr(A, tau, c, left=left, transpose=transpose)
        res.append((out, lib.autograd.grad((out * out.detach()).sum() + out.sum(), (A, tau, c))))
    _close(res[0][0], res[1][0])
    for a_, b_ in zip(res[0][1], res[1][1]):
        _close(a_, b_, 1e-8)


@pytest.mark.parametrize("src", [
    "T.ormqr(T.zeros(5, 3), T.zeros(3), T.zeros(4, 2))",
    "T.ormqr(T.zeros(5, 3), T.zeros(3), T.zeros(2, 4), left=False)",
    "T.ormqr(T.zeros(5, 3), T.zeros(4), T.zeros(5, 2))",
    "T.ormqr(T.zeros(5), T.zeros(3), T.zeros(5, 2))",
    "T.ormqr(T.zeros(5, 3), T.zeros(3), T.zeros(5))",
    "T.ormqr(T.zeros(2, 5, 3), T.zeros(3), T.zeros(2, 5, 2))",
    "T.ormqr(T.zeros(2, 5, 3), T.zeros(2, 3), T.zeros(5, 2))",
    "T.ormqr(T.zeros(2, 5, 3), T.zeros(2, 3), T.zeros(3, 5, 2))",
    "T.ormqr(T.zeros(5, 3, dtype=T.float64), T.zeros(3, dtype=T.float64), T.zeros(5, 2))",
])
def test_ormqr_errors(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]


def test_cov_keeps_weight_dtype():
    x = np.array([[-4.827, -7.5824, -0.6047], [-1.5412, -1.9719, -4.146]])
    aw = np.array([0.3666, 0.0583, 0.7006], dtype=np.float32)
    outs = [lib.cov(lib.tensor(x), correction=2, aweights=lib.tensor(aw)) for lib in (torch, rg)]
    _close(outs[0], outs[1], 1e-12)
    assert str(outs[1].dtype).split(".")[-1] == "float64"


def test_matrix_exp_float32_accuracy():
    a = np.random.default_rng(0).uniform(-9, 9, (3, 5, 5)).astype(np.float32)
    ref = torch.matrix_exp(torch.tensor(a, dtype=torch.float64)).numpy()
    got = rg.matrix_exp(rg.tensor(a))
    assert got.dtype == rg.float32
    scale = np.abs(ref).max(axis=(-2, -1), keepdims=True)
    assert (np.abs(got.numpy() - ref) / scale).max() < 1e-6


# ------------------------------------------------------- ldl_factor / ldl_solve
@pytest.mark.parametrize("n,kind", [(1, "plain"), (4, "plain"), (6, "zero_diag"), (9, "plain"), (70, "plain"),
                                    (5, "batch"), (0, "plain")])
def test_ldl_factor_and_solve(n, kind):
    rng = np.random.default_rng(n)
    shape = (3, n, n) if kind == "batch" else (n, n)
    a = rng.standard_normal(shape)
    a = a + np.swapaxes(a, -1, -2)  # symmetric, indefinite
    if kind == "zero_diag":
        a[..., range(n), range(n)] = 0  # forces 2x2 pivots
    b = rng.standard_normal(shape[:-1] + (2,))
    res = []
    for lib in (torch, rg):
        LD, piv, info = lib.linalg.ldl_factor_ex(lib.tensor(a))
        x = lib.linalg.ldl_solve(LD, piv, lib.tensor(b))
        res.append((LD, piv, info, x))
    (lt, pt, it, xt), (lr, pr, ir, xr) = res
    _close(lt, lr, 1e-10)
    assert pr.tolist() == pt.tolist() and str(pr.dtype).split(".")[-1] == "int32"
    assert ir.tolist() == it.tolist()
    _close(xt, xr, 1e-9)


def test_ldl_singular_and_no_derivative():
    ld, piv, info = rg.linalg.ldl_factor_ex(rg.zeros(3, 3))
    t = torch.linalg.ldl_factor_ex(torch.zeros(3, 3))
    assert (ld.tolist(), piv.tolist(), info.item()) == (t.LD.tolist(), t.pivots.tolist(), t.info.item())
    with pytest.raises(RuntimeError, match="ldl_factor: Unknown error code: 1"):
        rg.linalg.ldl_factor(rg.zeros(3, 3))
    errs = []
    for lib in (torch, rg):
        a = lib.tensor([[2.0, 1.0], [1.0, -3.0]], requires_grad=True)
        LD, _ = lib.linalg.ldl_factor(a)
        assert LD.requires_grad and type(LD.grad_fn).__name__ == "NotImplemented"
        with pytest.raises(RuntimeError) as ei:
            LD.sum().backward()
        errs.append(str(ei.value))
    assert errs[0] == errs[1]


@pytest.mark.parametrize("src", [
    "T.linalg.ldl_factor(T.zeros(3, 2))",
    "T.linalg.ldl_factor(T.zeros(3))",
    "T.linalg.ldl_factor(T.zeros(3, 3, dtype=T.long))",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3)), T.zeros(2, 2))",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3)), T.zeros(3))",
    "T.linalg.ldl_solve(*T.linalg.ldl_factor(T.eye(3, dtype=T.float64)), T.zeros(3, 2))",
])
def test_ldl_errors(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]


# ------------------------------------------------------- errors: PyTorch's type, message and check order
ERRORS = [
    # convolution: weight rank, bias dtype, geometry, groups, then the weight's dtype
    "F.conv2d(T.ones(1, 1, 4, 4), T.ones(1, 2, 2, 3), stride=(-1,))",
    "F.conv2d(T.ones(1, 1, 4, 4), T.ones(1, 2, 2, 3), padding=-1)",
    "F.conv2d(T.ones(1, 1, 4, 4, dtype=T.long), T.ones(1, 1, 2, 3, dtype=T.long), T.ones(1, dtype=T.double))",
    "F.conv2d(T.ones(1, 2, 4, 4, dtype=T.double), T.ones(3, 1, 2, 2), T.ones(3), groups=3)",
    "F.conv2d(T.ones(2, 2, 4, 4), T.ones(2, 2, 1, 3), groups=3)",
    "F.conv2d(T.ones(1, 1, 4, 3), T.ones(1, 2, 2), padding='same')",
    "F.conv2d(T.ones(1, 1, 4, 3), T.ones(1, 2, 2))",
    "F.conv2d(T.ones(1, 4, 3), T.ones(1, 1, 1, 2, 2))",
    "F.conv1d(T.ones(1, 1, 4, 3), T.ones(1, 2, 2))",
    "F.conv1d(T.ones(1, 1, 4), T.ones(1, 1))",
    "F.conv2d(T.ones(1, 1, 4, 4, dtype=T.double), T.ones(1, 1, 2, 2))",
    "F.conv3d(T.ones(1, 1, 3, 4, 5), T.ones(1, 1, 4, 3), T.ones(1), padding='same')",
    # pooling: padding before emptiness; PyTorch's 3-d emptiness messages
    "F.max_pool2d(T.ones(0, 1, 49), kernel_size=2, stride=50, padding=-1)",
    "F.max_pool2d(T.ones(0, 1, 49), kernel_size=2, stride=50, padding=4)",
    "F.max_pool2d(T.ones(1, 0, 10), kernel_size=1)",
    "F.max_pool2d(T.ones(2, 0, 4, 4), kernel_size=2)",
    "F.max_pool3d(T.ones(0, 1, 49, 50), kernel_size=2, stride=50, padding=-1)",
    "F.max_pool3d(T.ones(2, 1, 0, 1, 2), kernel_size=1)",
    "F.avg_pool3d(T.ones(2, 0, 4, 4), kernel_size=2)",
    "F.avg_pool3d(T.ones(0, 1, 49, 50), kernel_size=2, stride=50, padding=4)",
    "F.adaptive_avg_pool2d(T.ones(2, 2), (2, 2))",
    "F.adaptive_max_pool3d(T.ones(2, 2, 2), (2, 2, 2))",
    "F.max_unpool1d(T.ones(8, 8), T.zeros(8, 7, dtype=T.long), 3, 2)",
    "F.max_unpool2d(T.ones(1, 1, 4, 4), T.zeros(1, 1, 4, 1, dtype=T.long), 3, 2)",
    "F.max_unpool2d(T.ones(1, 1, 4, 4), T.zeros(1, 1, 4, 4), 3, 2)",
    # norms and losses
    "F.rms_norm(T.ones(1, 2, 3), ())",
    "F.soft_margin_loss(T.ones(5, 4), T.ones(5))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5, 4, dtype=T.long))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5), weight=T.ones(5))",
    "F.multi_margin_loss(T.ones(5, 4), T.ones(5, dtype=T.long), weight=T.ones(4, dtype=T.double))",
    "F.multi_margin_loss(T.ones(4), T.ones(2, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(5, 0), T.ones(5, 4, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(0), T.ones(0, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(5, 4), T.ones(4, dtype=T.long))",
    "F.multilabel_margin_loss(T.ones(5, 4), T.ones(5, 4))",
    "F.multilabel_margin_loss(T.ones(2, 3, 4), T.ones(2, 3, 4, dtype=T.long))",
    # linear algebra
    "T.cov(T.ones(5), fweights=T.ones(2, 5, dtype=T.long))",
    "T.cov(T.ones(5), fweights=T.ones(5))",
    "T.cov(T.ones(5), aweights=T.ones(5, dtype=T.long))",
    "T.cov(T.ones(5), aweights=T.ones(1))",
    "T.cov(T.ones(5), fweights=-T.ones(5, dtype=T.long))",
    "T.cov(T.ones(5), aweights=-T.ones(5))",
    "T.dot(T.ones(1), T.ones(3, dtype=T.half))",
    "T.linalg.lstsq(T.tensor(1.), T.tensor(2.))",
    "T.linalg.lstsq(T.ones(3, 2), T.tensor(1.))",
]


@pytest.mark.parametrize("src", ERRORS)
def test_errors_match_torch(src):
    errs = []
    for lib in (torch, rg):
        with pytest.raises(Exception) as ei:
            eval(src, {"T": lib, "F": lib.nn.functional})
        errs.append((ei.type.__name__, str(ei.value)))
    assert errs[0] == errs[1]


def test_multilabel_margin_loss_unbatched_values():
    x = np.array([0.1, 0.2, 0.4, 0.8])
    t = np.array([3, 0, -1, 1])
    outs = [lib.nn.functional.multilabel_margin_loss(lib.tensor(x), lib.tensor(t)) for lib in (torch, rg)]
    assert outs[0].item() == pytest.approx(outs[1].item(), abs=1e-12)


def test_gradient_penalty_through_a_small_cnn():
    # WGAN-GP style: the input gradient (create_graph) of a CNN is differentiated again, through
    # every first gradient that keep_graph links to its inputs
    rng = np.random.default_rng(11)
    arrays = {"x": rng.standard_normal((2, 2, 8, 8)), "w1": rng.standard_normal((4, 2, 3, 3)) * 0.3,
              "b1": rng.standard_normal(4) * 0.1, "g": rng.uniform(0.5, 1.5, 4), "b": rng.standard_normal(4) * 0.1,
              "w2": rng.standard_normal((3, 4 * 3 * 3)) * 0.2}
    res = []
    for lib in (torch, rg):
        F = lib.nn.functional
        t = {k: lib.tensor(v, requires_grad=True) for k, v in arrays.items()}
        h = F.conv2d(F.pad(t["x"], (1, 1, 1, 1), mode="reflect"), t["w1"], t["b1"])
        h = F.leaky_relu(F.batch_norm(h, None, None, t["g"], t["b"], training=True), 0.2)
        h = F.avg_pool2d(F.max_pool2d(h, 2, 1), 2)
        out = F.linear(h.flatten(1), t["w2"])
        y = F.nll_loss(F.log_softmax(out, 1), lib.tensor([0, 2]))
        (gx,) = lib.autograd.grad(y, t["x"], create_graph=True)
        penalty = ((gx.flatten(1).norm(dim=1) - 1) ** 2).mean()
        grads = lib.autograd.grad(penalty, [t[k] for k in arrays])
        res.append(grads)
    for a, b in zip(*res):
        _close(a, b, 1e-8)
