"""Each optimizer step bumps a parameter's version counter as often as PyTorch's in-place
updates do (AdamW's ``param.mul_`` then ``addcdiv_`` is two), so "modified by an inplace
operation ... is at version N" messages name torch's N."""
from __future__ import annotations

import pytest

import retrograd as rg

torch = pytest.importorskip("torch")

CASES = [("SGD", {}), ("SGD", {"momentum": 0.9, "nesterov": True}), ("SGD", {"weight_decay": 0.1}),
         ("Adam", {}), ("Adam", {"weight_decay": 0.1}), ("Adam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
         ("AdamW", {}), ("AdamW", {"weight_decay": 0}), ("AdamW", {"amsgrad": True}),
         ("NAdam", {}), ("NAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
         ("RAdam", {}), ("RAdam", {"weight_decay": 0.1, "decoupled_weight_decay": True}),
         ("RMSprop", {"momentum": 0.9, "centered": True}), ("Adagrad", {"weight_decay": 0.1}),
         ("Adadelta", {"weight_decay": 0.1}), ("Adamax", {"weight_decay": 0.1}), ("ASGD", {}), ("Rprop", {})]


@pytest.mark.parametrize("name,kw", CASES, ids=[f"{n}-{'-'.join(k)}" for n, k in CASES])
def test_version_after_steps_matches_torch(name, kw):
    def run(T):
        p = T.nn.Parameter(T.ones(3))
        opt = getattr(T.optim, name)([p], lr=0.1, **kw)
        for _ in range(2):
            opt.zero_grad()
            (p * p).sum().backward()
            opt.step()
        return p._version

    assert run(rg) == run(torch)
