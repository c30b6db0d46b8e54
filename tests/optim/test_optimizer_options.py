"""Differential checks of retrograd.optim against torch: tensor learning rates (float32 arithmetic),
capturable=True on CPU, constructor errors for fused/foreach/lr tensors."""
import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")

rng = np.random.default_rng(0)
INIT = [rng.standard_normal((3, 4)), rng.standard_normal(5)]
GRADS = [[rng.standard_normal(a.shape) for a in INIT] for _ in range(20)]


def _train(lib, cls, kw, lr_tensor):
    ps = [lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in INIT]
    kw = dict(kw)
    if lr_tensor:
        kw["lr"] = lib.tensor(kw["lr"])
    opt = getattr(lib.optim, cls)(ps, **kw)
    for s in range(20):
        for i, p in enumerate(ps):
            p.grad = None if (i == 1 and s % 3 == 1) else lib.tensor(GRADS[s][i], dtype=lib.float64)
        opt.step()
    return [p.detach().numpy() for p in ps], opt


CASES = [("Adam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
         ("Adam", dict(lr=0.01, amsgrad=True)),
         ("Adam", dict(lr=0.01, fused=True)), ("AdamW", dict(lr=0.01, weight_decay=0.3, maximize=True)),
         ("Adagrad", dict(lr=0.1, lr_decay=0.1)), ("Adamax", dict(lr=0.01, weight_decay=0.1)),
         ("NAdam", dict(lr=0.01, momentum_decay=0.01)),
         ("RAdam", dict(lr=0.01, weight_decay=0.1, decoupled_weight_decay=True)),
         ("ASGD", dict(lr=0.1, t0=5)),
         ("SGD", dict(lr=0.1, momentum=0.9, nesterov=True)), ("RMSprop", dict(lr=0.01, centered=True))]


@pytest.mark.parametrize("lr_tensor", [False, True])
@pytest.mark.parametrize("cls,kw", CASES, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CASES)])
def test_params_match_torch(cls, kw, lr_tensor):
    want, topt = _train(torch, cls, kw, lr_tensor)
    got, ropt = _train(retrograd, cls, kw, lr_tensor)
    for w, g in zip(want, got):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)
    assert repr(ropt) == repr(topt)


def _err(fn, lib):
    with pytest.raises(Exception) as ei:
        fn(lib)
    return type(ei.value).__name__, str(ei.value)


def _one(lib):
    return [lib.ones(2, requires_grad=True)]


CTOR = [("Adam", dict(fused=True, foreach=True)), ("Adam", dict(fused=True, differentiable=True)),
        ("Adagrad", dict(fused=True, foreach=True)), ("SGD", dict(lr=0.1, fused=True, foreach=True)),
        ("Adam", dict(lr="T1", foreach=True)), ("AdamW", dict(lr="T1", foreach=True))] + [
        (c, dict(lr="T2")) for c in ["SGD", "Adam", "AdamW", "RMSprop", "Adagrad", "Adadelta", "Adamax", "NAdam",
                                     "RAdam", "ASGD", "Rprop"]]


@pytest.mark.parametrize("cls,kw", CTOR, ids=[f"{c}-{i}" for i, (c, _) in enumerate(CTOR)])
def test_constructor_errors_match_torch(cls, kw):
    def fn(lib):
        k = dict(kw)
        if k.get("lr") == "T1":
            k["lr"] = lib.tensor(0.01)
        elif k.get("lr") == "T2":
            k["lr"] = lib.tensor([0.01, 0.02])
        getattr(lib.optim, cls)(_one(lib), **k)
    assert _err(fn, retrograd) == _err(fn, torch)


CAPT = ["Adam", "AdamW", "RMSprop", "Adadelta", "Adamax", "NAdam", "RAdam", "ASGD", "Rprop"]


@pytest.mark.parametrize("cls", CAPT)
def test_capturable_on_cpu_raises_like_torch(cls):
    def fn(lib):
        ps = _one(lib)
        opt = getattr(lib.optim, cls)(ps, capturable=True)
        ps[0].grad = lib.ones(2)
        try:
            opt.step()
        finally:
            fn.state_keys = sorted(opt.state[ps[0]].keys())
    assert _err(fn, retrograd) == _err(fn, torch)
