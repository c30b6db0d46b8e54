"""Tensor.untyped_storage() / storage(): sharing, sizes, values and printing as torch."""
from __future__ import annotations

import warnings

import pytest

import retrograd
import retrograd as rg

torch = pytest.importorskip("torch")


def _facts(T):
    x = T.arange(6.)
    y = x[2:]
    z = x.view(2, 3).t()
    c = x.clone()
    s = x.untyped_storage()
    return (s.nbytes(), len(s), s.size(), s.element_size(), str(s.device), s.is_shared(),
            y.untyped_storage().data_ptr() == s.data_ptr(), z.untyped_storage().data_ptr() == s.data_ptr(),
            c.untyped_storage().data_ptr() == s.data_ptr(), y.untyped_storage().nbytes(), y.storage_offset(),
            s.tolist()[:8], s[4], isinstance(s, T.UntypedStorage), repr(s).splitlines()[-1])


def test_untyped_storage_as_torch():
    ours, theirs = _facts(rg), _facts(torch)
    assert ours[:-1] == theirs[:-1]
    assert ours[-1] == theirs[-1]


def test_typed_storage_as_torch_and_warns_once():
    import retrograd._storage as S

    S._warned_typed[0] = False
    torch.storage._warn_typed_storage_removal.__dict__["has_warned"] = False  # (both warn once per process)

    def run(T):
        x = T.tensor([[1, 2], [3, 4]], dtype=T.int32)
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            t = x[1].storage()
            again = x.storage()
        return ([str(m.message) for m in w], len(t), t.size(), t.nbytes(), t.element_size(), t.tolist(), t[3],
                again.data_ptr() == t.data_ptr(), isinstance(t, T.TypedStorage),
                repr(t))

    ours, theirs = run(rg), run(torch)
    assert ours == theirs


def test_storage_type():
    for dt in ("float32", "float64", "int64", "bool", "uint8"):
        r = retrograd.zeros(1, dtype=getattr(retrograd, dt)).storage_type()
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            t = torch.zeros(1, dtype=getattr(torch, dt)).storage_type()
        assert r.__name__ == t.__name__


def _outcome(fn):
    """(kind, payload) of calling fn: its value as nested lists + dtype name, or the exception."""
    try:
        r = fn()
    except Exception as e:  # noqa: BLE001 (the exception itself is compared)
        return ("exc", type(e).__name__, str(e))
    if hasattr(r, "dtype") and hasattr(r, "tolist"):
        return ("tensor", str(r.dtype).split(".")[-1], r.tolist())
    return ("value", r)


STORAGE_CASES = {
    "share_memory_ returns self": lambda T: (lambda a: a.share_memory_() is a)(T.ones(2)),
    "is_shared": lambda T: (lambda a: (a.is_shared(), a.share_memory_().is_shared(), a[1:].is_shared(),
                                       a.view(2, 2).is_shared(), (a + 1).is_shared(), a.detach().is_shared()))(
        T.ones(4)),
    "view shares base": lambda T: (lambda c: (c[1:].share_memory_(), c.is_shared())[1])(T.ones(3)),
    "is_set_to": lambda T: (lambda a: (a.is_set_to(a), a.is_set_to(a[:]), a.is_set_to(a.view(4)),
                                       a.is_set_to(a.view(2, 2)), a.is_set_to(a.detach()), a.is_set_to(a.clone()),
                                       a[1:].is_set_to(a[1:]), a[1:].is_set_to(a[:3])))(T.ones(4)),
    "is_set_to empty": lambda T: (lambda e: (e.is_set_to(e), e.is_set_to(T.empty(0))))(T.empty(0)),
    "is_set_to list": lambda T: T.ones(1).is_set_to([1]),
}


@pytest.mark.parametrize("case", list(STORAGE_CASES))
def test_storage_queries_like_torch(case):
    fn = STORAGE_CASES[case]
    assert _outcome(lambda: fn(rg)) == _outcome(lambda: fn(torch))
