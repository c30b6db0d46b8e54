"""Shared helpers for the nn tests: run the same module in torch and retrograd and compare."""
from __future__ import annotations

import numpy as np

import retrograd

torch = None


def _torch():
    global torch
    if torch is None:
        import torch as t

        torch = t
    return torch


def to_r(sd) -> dict:
    """A torch state_dict as retrograd tensors (same values, same dtypes)."""
    return {k: retrograd.tensor(v.detach().numpy().copy()) for k, v in sd.items()}


def flat(out) -> list:
    if isinstance(out, (tuple, list)):
        return [y for o in out for y in flat(o)]
    return [out] if out is not None else []


def npy(t):
    return t.detach().numpy()


def compare_module(make, inputs, *, train: bool = True, rtol: float = 1e-9, atol: float = 1e-10, seed: int = 0,
                   kwargs: dict | None = None):
    """Build ``make(nn)`` in both libraries (float64, torch's weights copied over), run ``inputs``
    (NumPy arrays; float ones require grad), compare outputs, input grads, parameter grads and buffers."""
    torch = _torch()
    kwargs = kwargs or {}
    torch.manual_seed(seed)
    tm = make(torch.nn).double()
    rm = make(retrograd.nn).double()
    assert list(tm.state_dict().keys()) == list(rm.state_dict().keys())
    rm.load_state_dict(to_r(tm.state_dict()))
    tm.train(train)
    rm.train(train)
    tin = [torch.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    rin = [retrograd.tensor(a, requires_grad=a.dtype.kind == "f") for a in inputs]
    tk = {k: (torch.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    rk = {k: (retrograd.tensor(v) if isinstance(v, np.ndarray) else v) for k, v in kwargs.items()}
    to = flat(tm(*tin, **tk))
    ro = flat(rm(*rin, **rk))
    assert len(to) == len(ro)
    rng = np.random.default_rng(seed + 1)
    tl, rl = 0, 0
    for a, b in zip(ro, to):
        assert tuple(a.shape) == tuple(b.shape), (a.shape, b.shape)
        np.testing.assert_allclose(npy(a), npy(b), rtol=rtol, atol=atol)
        if b.requires_grad:
            w = rng.standard_normal(tuple(b.shape))
            tl = tl + (b * torch.tensor(w)).sum()
            rl = rl + (a * retrograd.tensor(w)).sum()
    if not isinstance(tl, int):
        tl.backward()
        rl.backward()
        for a, b in zip(rin, tin):
            if b.grad is not None:
                np.testing.assert_allclose(npy(a.grad), npy(b.grad), rtol=rtol, atol=atol)
        tp = dict(tm.named_parameters())
        for name, p in rm.named_parameters():
            if tp[name].grad is None:
                assert p.grad is None or np.allclose(npy(p.grad), 0), name
            else:
                np.testing.assert_allclose(npy(p.grad), npy(tp[name].grad), rtol=rtol, atol=atol, err_msg=name)
    tb = dict(tm.named_buffers())
    for name, b in rm.named_buffers():
        np.testing.assert_allclose(npy(b), npy(tb[name]), rtol=rtol, atol=atol, err_msg=name)
    return tm, rm
