"""Truncation and bit-flip fuzz of small real checkpoints: every damaged file either loads or raises
one of load's documented errors (RuntimeError or pickle.UnpicklingError, message "retrograd.load: ..."),
quickly, and never changes the process state."""
from __future__ import annotations

import io
import pickle
import random
import time
import zipfile

import numpy as np
import pytest
from serialization_fingerprint import diff, fingerprint

import retrograd as rg

torch = pytest.importorskip("torch")

LOAD_ERRORS = (RuntimeError, pickle.UnpicklingError)
_SLOW = 2.0  # seconds: a load of a file this small that takes longer is a hang in the making


def _retrograd_file() -> bytes:
    base = rg.arange(6.0).view(2, 3)
    buf = io.BytesIO()
    rg.save({"w": base, "row": base[1], "i": rg.tensor([1, 2], dtype=rg.int64), "s": rg.Size([2, 3]),
             "n": [1, (2.5, "x")], "d": rg.float16}, buf)
    return buf.getvalue()


def _torch_file() -> bytes:
    base = torch.arange(6.0).view(2, 3)
    sd = torch.nn.Linear(2, 2).state_dict()
    buf = io.BytesIO()
    torch.save({"w": base, "row": base[1], "i": torch.tensor([1, 2]), "s": torch.Size([2, 3]), "sd": sd,
                "n": [1, (2.5, "x")], "d": torch.float16}, buf)
    return buf.getvalue()


def _with_entry(data: bytes, name: str, payload: bytes) -> bytes:
    """The archive with one entry replaced (and a correct CRC), so the damage reaches the parser."""
    out = io.BytesIO()
    with zipfile.ZipFile(io.BytesIO(data)) as src, zipfile.ZipFile(out, "w") as dst:
        for n in src.namelist():
            dst.writestr(n, payload if n == name else src.read(n))
    return out.getvalue()


def _try(data: bytes) -> str:
    t0 = time.perf_counter()
    try:
        rg.load(io.BytesIO(data))
        outcome = "loaded"
    except LOAD_ERRORS as e:
        assert str(e).startswith("retrograd.load:"), f"{type(e).__name__}: {e}"
        outcome = type(e).__name__
    assert time.perf_counter() - t0 < _SLOW
    return outcome


def _flips(data: bytes, seed: int, count: int):
    rng = random.Random(seed)
    for _ in range(count):
        damaged = bytearray(data)
        for _ in range(rng.choice((1, 1, 2, 3))):
            pos = rng.randrange(len(damaged))
            damaged[pos] ^= 1 << rng.randrange(8)
        yield bytes(damaged)


def _inner_name(data: bytes, fmt: str) -> str:
    names = zipfile.ZipFile(io.BytesIO(data)).namelist()
    return "retrograd.json" if fmt == "retrograd" else next(n for n in names if n.endswith("data.pkl"))


@pytest.fixture(scope="module")
def files():
    return {"retrograd": _retrograd_file(), "torch": _torch_file()}


@pytest.mark.parametrize("fmt", ["retrograd", "torch"])
def test_every_truncation(files, fmt):
    before = fingerprint()
    data = files[fmt]
    outcomes = {_try(data[:n]) for n in range(len(data))}
    assert "loaded" not in outcomes  # a zip cut anywhere loses its central directory
    assert not diff(before, fingerprint())


@pytest.mark.parametrize("fmt", ["retrograd", "torch"])
def test_every_truncation_of_the_description(files, fmt):
    """The JSON header / data.pkl cut at every length, inside a well-formed archive."""
    before = fingerprint()
    data = files[fmt]
    name = _inner_name(data, fmt)
    inner = zipfile.ZipFile(io.BytesIO(data)).read(name)
    for n in range(len(inner)):
        _try(_with_entry(data, name, inner[:n]))
    assert not diff(before, fingerprint())


@pytest.mark.parametrize("fmt", ["retrograd", "torch"])
def test_bit_flips_in_the_file(files, fmt):
    before = fingerprint()
    outcomes = [_try(d) for d in _flips(files[fmt], seed=1, count=300)]
    assert outcomes.count("loaded") < len(outcomes)
    assert not diff(before, fingerprint())


@pytest.mark.parametrize("fmt", ["retrograd", "torch"])
def test_bit_flips_in_the_description(files, fmt):
    """Flips inside the JSON header / data.pkl with the CRC made right again, so the parser sees them."""
    before = fingerprint()
    data = files[fmt]
    name = _inner_name(data, fmt)
    inner = zipfile.ZipFile(io.BytesIO(data)).read(name)
    outcomes = [_try(_with_entry(data, name, d)) for d in _flips(inner, seed=2, count=300)]
    assert "loaded" in outcomes and outcomes.count("loaded") < len(outcomes)
    assert not diff(before, fingerprint())


def test_bit_flips_in_npy_headers(files):
    before = fingerprint()
    data = files["retrograd"]
    npy = zipfile.ZipFile(io.BytesIO(data)).read("tensors/0.npy")
    header_len = 10 + int.from_bytes(npy[8:10], "little")
    rng = random.Random(3)
    for _ in range(200):
        damaged = bytearray(npy)
        pos = rng.randrange(header_len)
        damaged[pos] ^= 1 << rng.randrange(8)
        _try(_with_entry(data, "tensors/0.npy", bytes(damaged)))
    assert not diff(before, fingerprint())


def test_the_undamaged_files_load(files):
    out = rg.load(io.BytesIO(files["torch"]))
    np.testing.assert_array_equal(out["row"].numpy(), [3.0, 4.0, 5.0])
    out = rg.load(io.BytesIO(files["retrograd"]))
    np.testing.assert_array_equal(out["row"].numpy(), [3.0, 4.0, 5.0])
