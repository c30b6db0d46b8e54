"""Tests of retrograd.utils.data.collate, checked against PyTorch."""

import collections
import numpy as np
import pytest
import retrograd as rg
from retrograd.utils import data as rd
torch = pytest.importorskip("torch")
import torch.utils.data as td  # noqa: E402


def raises_like(tfn, rfn):
    """Both calls raise the same exception type with the same message (retrograd. read as torch.)."""
    with pytest.raises(Exception) as te:
        tfn()
    with pytest.raises(Exception) as re_:
        rfn()
    assert type(re_.value).__name__ == type(te.value).__name__
    assert str(re_.value).replace("retrograd.", "torch.") == str(te.value), (str(re_.value), str(te.value))


def same(a, b, path="x"):
    """torch structure ``a`` and retrograd structure ``b`` hold the same things."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, rg.Tensor), path
        assert str(a.dtype).split(".")[1] == b.dtype.name, path
        np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=path)
    elif isinstance(a, dict):
        assert type(a) is type(b) and list(a) == list(b), path
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), (path, type(a), type(b))
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, (path, a, b)


Pair = collections.namedtuple("Pair", ["a", "b"])


def test_default_collate_namedtuple_numpy_strings_nested_dicts():
    assert td.default_collate is not None and rd.default_collate is not None
    batch = [{"p": Pair(np.array([1., 2.], dtype=np.float32), "s"), "d": {"n": np.int64(i), "f": 0.5 * i},
              "l": [i, b"x"]} for i in range(3)]
    same(td.default_collate(batch), rd.default_collate(batch))
    same(td.default_convert(batch[0]), rd.default_convert(batch[0]))
    same(td.default_convert(Pair(np.ones(2), [np.zeros(1)])), rd.default_convert(Pair(np.ones(2), [np.zeros(1)])))
    raises_like(lambda: td.default_collate([np.array(["a"]), np.array(["b"])]),
                lambda: rd.default_collate([np.array(["a"]), np.array(["b"])]))
