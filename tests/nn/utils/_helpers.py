"""Module pairs (torch, retrograd) with equal weights and gradient checks shared by the nn.utils tests."""
from __future__ import annotations

import pytest

import retrograd

torch = pytest.importorskip("torch")

from nn_helpers import to_r  # noqa: E402


def _n(t):
    return t.detach().numpy()


# ---------------------------------------------------------------------- weight norm / spectral norm
def _pair(make, seed=0):
    torch.manual_seed(seed)
    tm = make(torch.nn).double()
    rm = make(retrograd.nn).double()
    rm.load_state_dict(to_r(tm.state_dict()))
    return tm, rm
