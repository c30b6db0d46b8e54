"""utils.data datasets (StackDataset), against torch 2.13."""

import pytest

import retrograd as rg
from retrograd.utils import data as rd

torch = pytest.importorskip("torch")

import torch.utils.data as td  # noqa: E402

from ..._behaviour_compare import raises_like, same  # noqa: E402


# ------------------------------------------------------------------ 1. utils.data
def test_stack_dataset_tuple_dict_and_getitems():
    xs, ys = list(range(5)), "abcde"
    for lib in (td, rd):
        assert lib.StackDataset(xs, ys)[2] == (2, "c")
        assert lib.StackDataset(a=xs, b=ys)[4] == {"a": 4, "b": "e"}
        assert len(lib.StackDataset(a=xs, b=ys)) == 5
    tds, rds = td.StackDataset(xs, ys), rd.StackDataset(xs, ys)
    assert rds.__getitems__([0, 3]) == tds.__getitems__([0, 3])
    assert rd.StackDataset(a=xs, b=ys).__getitems__([1, 2]) == td.StackDataset(a=xs, b=ys).__getitems__([1, 2])
    # batched fetch through a nested dataset that has __getitems__ (TensorDataset via Subset)
    tt = torch.arange(10.).view(5, 2)
    rt = rg.arange(10.).view(5, 2)
    tb = next(iter(td.DataLoader(td.StackDataset(td.Subset(td.TensorDataset(tt), [4, 3, 2, 1, 0]), xs),
                                 batch_size=3)))
    rb = next(iter(rd.DataLoader(rd.StackDataset(rd.Subset(rd.TensorDataset(rt), [4, 3, 2, 1, 0]), xs),
                                 batch_size=3)))
    same(tb, rb)


def test_stack_dataset_errors():
    raises_like(lambda: td.StackDataset([1], b=[2]), lambda: rd.StackDataset([1], b=[2]))
    raises_like(lambda: td.StackDataset(), lambda: rd.StackDataset())
    raises_like(lambda: td.StackDataset([1, 2], [3]), lambda: rd.StackDataset([1, 2], [3]))
    raises_like(lambda: td.StackDataset(a=[1, 2], b=[3]), lambda: rd.StackDataset(a=[1, 2], b=[3]))

    class Short:
        def __len__(self):
            return 3

        def __getitems__(self, idx):
            return [0]
    raises_like(lambda: td.StackDataset(Short()).__getitems__([0, 1]),
                lambda: rd.StackDataset(Short()).__getitems__([0, 1]))
