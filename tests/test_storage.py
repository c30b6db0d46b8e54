"""Tensor.untyped_storage() / storage(): sharing, sizes, values and printing as torch."""
from __future__ import annotations

import warnings

import pytest

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
