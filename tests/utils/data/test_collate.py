"""default_collate of namedtuples, NumPy values, strings and nested dicts, against torch."""

import collections

import numpy as np
import pytest

from retrograd.utils import data as rd

torch = pytest.importorskip("torch")

import torch.utils.data as td  # noqa: E402

from ..._behaviour_compare import raises_like, same  # noqa: E402


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
