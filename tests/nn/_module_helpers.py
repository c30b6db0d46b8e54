"""Run a scenario in torch and retrograd and compare the outcome (shared by the nn.Module, container, parameter and nn.utils tests)."""

import pytest

import retrograd

torch = pytest.importorskip("torch")


LIBS = [torch, retrograd]


def _outcome(fn):
    try:
        return ("ok", fn())
    except Exception as e:  # noqa: BLE001 - compared between libraries
        return (type(e).__name__, str(e).replace("retrograd", "torch"))


def _both(fn):
    return [_outcome(lambda T=T: fn(T)) for T in LIBS]
