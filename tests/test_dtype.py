"""dtypes (src/retrograd/_dtype.py, _typeinfo.py): promote_types, can_cast, result_type, finfo, iinfo
and the small dtype predicates, against torch."""
from __future__ import annotations

import itertools

import numpy as np
import pytest

import retrograd

torch = pytest.importorskip("torch")


NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "float32", "float64", "bfloat16"]


TENSOR_NAMES = NAMES[:-1]  # retrograd stores bfloat16 as float32, so no bfloat16 tensors


def _name(d) -> str:
    return str(d).split(".")[-1]


def _both(name):
    return getattr(retrograd, name), getattr(torch, name)


# ------------------------------------------------------------------ promotion tables
@pytest.mark.parametrize("a,b", list(itertools.product(NAMES, NAMES)))
def test_promote_types_and_can_cast_match_torch(a, b):
    (ra, ta), (rb, tb) = _both(a), _both(b)
    assert _name(retrograd.promote_types(ra, rb)) == _name(torch.promote_types(ta, tb))
    assert retrograd.can_cast(ra, rb) == torch.can_cast(ta, tb)


def _make(lib, name, ndim):
    return lib.ones((2,) * ndim, dtype=getattr(lib, name))


def test_result_type_of_all_tensor_pairs_matches_torch():
    for a, b in itertools.product(TENSOR_NAMES, TENSOR_NAMES):
        for da, db in itertools.product((0, 1), (0, 1)):
            want = torch.result_type(_make(torch, a, da), _make(torch, b, db))
            got = retrograd.result_type(_make(retrograd, a, da), _make(retrograd, b, db))
            assert _name(got) == _name(want), (a, da, b, db)


@pytest.mark.parametrize("scalar", [True, 3, 2.5, np.float64(2.5), np.float32(1.5), np.int64(3), np.int32(2),
                                    np.bool_(True)])
def test_result_type_with_scalars_matches_torch(scalar):
    for name in TENSOR_NAMES:
        for nd in (0, 1):
            assert _name(retrograd.result_type(_make(retrograd, name, nd), scalar)) == \
                _name(torch.result_type(_make(torch, name, nd), scalar))
            assert _name(retrograd.result_type(scalar, _make(retrograd, name, nd))) == \
                _name(torch.result_type(scalar, _make(torch, name, nd)))


def test_result_type_of_two_scalars_and_default_dtype():
    for a, b in itertools.product([True, 2, 2.5], repeat=2):
        assert _name(retrograd.result_type(a, b)) == _name(torch.result_type(a, b))
    retrograd.set_default_dtype(retrograd.float64)
    try:
        assert retrograd.result_type(retrograd.ones(2, dtype=retrograd.int32), 2.5) is retrograd.float64
    finally:
        retrograd.set_default_dtype(retrograd.float32)


# ------------------------------------------------------------------ finfo / iinfo
@pytest.mark.parametrize("name", ["float16", "float32", "float64", "bfloat16"])
def test_finfo_matches_torch(name):
    r, t = retrograd.finfo(getattr(retrograd, name)), torch.finfo(getattr(torch, name))
    for attr in ("bits", "eps", "max", "min", "tiny", "smallest_normal", "resolution", "dtype"):
        assert getattr(r, attr) == getattr(t, attr), attr
        assert type(getattr(r, attr)) is type(getattr(t, attr)), attr
    assert repr(r) == repr(t)
    assert r == retrograd.finfo(getattr(retrograd, name))


def test_finfo_default_and_errors_match_torch():
    assert retrograd.finfo().dtype == torch.finfo().dtype == "float32"
    for name in ("int32", "bool"):
        with pytest.raises(TypeError) as ours:
            retrograd.finfo(getattr(retrograd, name))
        with pytest.raises(TypeError) as theirs:
            torch.finfo(getattr(torch, name))
        assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("name", ["uint8", "int8", "int16", "int32", "int64"])
def test_iinfo_matches_torch(name):
    r, t = retrograd.iinfo(getattr(retrograd, name)), torch.iinfo(getattr(torch, name))
    for attr in ("bits", "min", "max", "dtype"):
        assert getattr(r, attr) == getattr(t, attr)
    assert repr(r) == repr(t)


def test_iinfo_errors_match_torch():
    for name in ("float32", "bool"):
        with pytest.raises(TypeError) as ours:
            retrograd.iinfo(getattr(retrograd, name))
        with pytest.raises(TypeError) as theirs:
            torch.iinfo(getattr(torch, name))
        assert str(ours.value) == str(theirs.value)


def test_small_predicates_match_torch():
    for name in TENSOR_NAMES:
        r, t = _make(retrograd, name, 1), _make(torch, name, 1)
        assert retrograd.is_floating_point(r) == torch.is_floating_point(t)
        assert retrograd.is_tensor(r) and not retrograd.is_tensor(np.ones(2))
    assert retrograd.numel(retrograd.ones(2, 3)) == torch.numel(torch.ones(2, 3)) == 6
