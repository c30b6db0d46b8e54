"""ASGD, Rprop, Adafactor, SparseAdam, CosineAnnealingWarmRestarts, CyclicLR and swa_utils against PyTorch 2.13."""
import copy
import warnings

import numpy as np
import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

SHAPES = [(4, 5), (7,), (3, 2, 2)]
_rng = np.random.default_rng(0)
P0 = [_rng.standard_normal(s).astype(np.float32) for s in SHAPES]
A = [_rng.standard_normal(s).astype(np.float32) for s in SHAPES]


@pytest.fixture(autouse=True)
def _quiet():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def grad_of(x: np.ndarray, a: np.ndarray, k: int) -> np.ndarray:
    """The gradient of a fixed non-quadratic loss at x (same NumPy code for both libraries)."""
    return (a * x + x.dtype.type(0.3) * np.sin(x.dtype.type(k % 3 + 1) * x + a)).astype(x.dtype)


def make(lib, name, kw, dtype=np.float32):
    params = [lib.tensor(p.astype(dtype), requires_grad=True) for p in P0]
    return params, getattr(lib.optim, name)(params, **kw)


def steps(lib, params, opt, k0, k1, dtype=np.float32):
    for k in range(k0, k1):
        for p, a in zip(params, A):
            p.grad = lib.tensor(grad_of(p.detach().numpy(), a.astype(dtype), k))
        opt.step()


def run(lib, name, kw, n=20, dtype=np.float32):
    params, opt = make(lib, name, kw, dtype)
    steps(lib, params, opt, 0, n, dtype)
    return params, opt


CONFIGS = [
    ("ASGD", dict(lr=0.05)),
    ("ASGD", dict(lr=0.05, t0=5, lambd=0.01, alpha=0.5, weight_decay=0.1)),
    ("ASGD", dict(lr=0.05, t0=3, maximize=True)),
    ("Rprop", dict(lr=0.01)),
    ("Rprop", dict(lr=0.01, etas=(0.3, 1.5), step_sizes=(1e-3, 0.05), maximize=True)),
    ("Adafactor", dict(lr=0.01)),
    ("Adafactor", dict(lr=0.01, weight_decay=0.1, d=1.5, eps=(1e-20, 1e-3), beta2_decay=-0.5)),
    ("Adafactor", dict(lr=0.05, maximize=True)),
]
# Adafactor reduces (norms, means); NumPy sums in another order than torch, so allow float32 rounding noise.
RTOL = {"ASGD": 1e-6, "Rprop": 1e-6, "Adafactor": 2e-5}


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def assert_state_equal(st, sr, rtol):
    assert list(st) == list(sr)
    for k in st:
        vt, vr = st[k], sr[k]
        if isinstance(vt, torch.Tensor):
            assert isinstance(vr, rg.Tensor), k
            assert str(vt.dtype).split(".")[1] == vr.dtype.name, k
            assert tuple(vt.shape) == tuple(vr.shape), k
            np.testing.assert_allclose(_np(vr), _np(vt), rtol=rtol, atol=1e-7, err_msg=k)
        else:
            assert vt == vr, k


IDS = [f"{n}-{i}" for i, (n, _) in enumerate(CONFIGS)]


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_params_and_state_match_torch(name, kw):
    pt, ot = run(torch, name, kw)
    pr, orr = run(rg, name, kw)
    for a, b, p0 in zip(pt, pr, P0):
        np.testing.assert_allclose(_np(b), _np(a), rtol=RTOL[name], atol=1e-7)
        assert not np.allclose(_np(b), p0)  # the optimizer really moved the parameters
    st, sr = ot.state_dict(), orr.state_dict()
    assert st["param_groups"] == sr["param_groups"]
    for i in st["state"]:
        assert_state_equal(st["state"][i], sr["state"][i], RTOL[name])


@pytest.mark.parametrize("name,kw", CONFIGS[::2], ids=IDS[::2])
def test_float64_matches_torch(name, kw):
    pt, _ = run(torch, name, kw, n=8, dtype=np.float64)
    pr, _ = run(rg, name, kw, n=8, dtype=np.float64)
    for a, b in zip(pt, pr):
        assert _np(b).dtype == np.float64
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("name,kw", CONFIGS, ids=IDS)
def test_state_dict_round_trip_resumes_exactly(name, kw):
    straight, _ = run(rg, name, kw)
    params, opt = make(rg, name, kw)
    steps(rg, params, opt, 0, 10)
    saved = copy.deepcopy(opt.state_dict())
    params2 = [p.detach().clone().requires_grad_(True) for p in params]
    opt2 = getattr(rg.optim, name)(params2, **kw)
    opt2.load_state_dict(saved)
    steps(rg, params2, opt2, 10, 20)
    for a, b in zip(straight, params2):
        np.testing.assert_array_equal(_np(b), _np(a))


@pytest.mark.parametrize("name,kw", CONFIGS + [("SparseAdam", dict(lr=0.01, betas=(0.8, 0.9)))],
                         ids=IDS + ["SparseAdam"])
def test_repr_matches_torch(name, kw):
    _, ot = make(torch, name, kw)
    _, orr = make(rg, name, kw)
    assert repr(orr) == repr(ot)


ERRORS = [
    ("ASGD", dict(lr=-1.0)),
    ("ASGD", dict(weight_decay=-0.1)),
    ("Rprop", dict(lr=-0.5)),
    ("Rprop", dict(etas=(1.5, 1.2))),
    ("Rprop", dict(etas=(0.5, 0.9))),
    ("Adafactor", dict(lr=-1.0)),
    ("Adafactor", dict(beta2_decay=0.5)),
    ("Adafactor", dict(eps=(-1.0, 1e-3))),
    ("Adafactor", dict(eps=(None, -1e-3))),
    ("Adafactor", dict(d=0.5)),
    ("Adafactor", dict(weight_decay=-1.0)),
    ("SparseAdam", dict(lr=0.0)),
    ("SparseAdam", dict(eps=0.0)),
    ("SparseAdam", dict(betas=(1.0, 0.9))),
    ("SparseAdam", dict(betas=(0.9, -0.1))),
]


@pytest.mark.parametrize("name,kw", ERRORS, ids=[f"{n}-{i}" for i, (n, _) in enumerate(ERRORS)])
def test_constructor_errors_match_torch(name, kw):
    with pytest.raises(Exception) as et:
        make(torch, name, kw)
    with pytest.raises(type(et.value)) as er:
        make(rg, name, kw)
    assert str(er.value) == str(et.value)


def test_sparse_adam_rejects_dense_gradients_like_torch():
    results = []
    for lib in (torch, rg):
        w = lib.zeros(3, requires_grad=True)
        opt = lib.optim.SparseAdam([w], lr=0.1)
        assert opt.step(lambda: 1.5) == 1.5  # no gradients yet: only the closure runs
        w.grad = lib.ones(3)
        with pytest.raises(RuntimeError) as e:
            opt.step()
        results.append((str(e.value), opt.state_dict(), _np(w).tolist()))
    assert results[1] == results[0]
    assert results[0][0] == "SparseAdam does not support dense gradients, please consider Adam instead"


def test_asgd_tensor_lr_and_bad_tensor_lr():
    pt, _ = run(torch, "ASGD", dict(lr=torch.tensor(0.05)), n=5)
    pr, _ = run(rg, "ASGD", dict(lr=rg.tensor(0.05)), n=5)
    for a, b in zip(pt, pr):
        np.testing.assert_allclose(_np(b), _np(a), rtol=1e-6)
    for name in ("ASGD", "Rprop", "Adafactor", "SparseAdam"):
        with pytest.raises(ValueError, match="Tensor lr must be 1-element"):
            make(rg, name, dict(lr=rg.tensor([0.1, 0.2])))


def test_optimizers_exported():
    for name in ("ASGD", "Rprop", "Adafactor", "SparseAdam", "swa_utils"):
        assert name in rg.optim.__all__ and hasattr(rg.optim, name)
