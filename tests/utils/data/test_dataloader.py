"""utils.data against PyTorch 2.13: same batches and collation where deterministic; seeded shuffles reproduce."""
import collections

import numpy as np
import pytest

import retrograd as rg
from retrograd.utils import data as rd

torch = pytest.importorskip("torch")
td = torch.utils.data

Point = collections.namedtuple("Point", ["x", "y"])


def same(a, b, path="batch"):
    """Assert that a torch structure ``a`` and a retrograd structure ``b`` hold the same things."""
    if isinstance(a, torch.Tensor):
        assert isinstance(b, rg.Tensor), f"{path}: {type(b)}"
        assert str(a.dtype).split(".")[1] == b.dtype.name, f"{path}: {a.dtype} vs {b.dtype}"
        assert tuple(a.shape) == tuple(b.shape), path
        np.testing.assert_array_equal(b.numpy(), a.numpy(), err_msg=path)
    elif isinstance(a, dict):
        assert type(a) is type(b) and list(a) == list(b), path
        for k in a:
            same(a[k], b[k], f"{path}[{k!r}]")
    elif isinstance(a, (list, tuple)):
        assert type(a) is type(b) and len(a) == len(b), f"{path}: {type(a)} {type(b)}"
        for i, (x, y) in enumerate(zip(a, b)):
            same(x, y, f"{path}[{i}]")
    else:
        assert type(a) is type(b) and a == b, f"{path}: {a!r} vs {b!r}"


def batches(mod, lib, ds_factory, **kw):
    return list(mod.DataLoader(ds_factory(lib), **kw))


X = np.arange(30, dtype=np.float32).reshape(10, 3)
Y = np.arange(10) % 3


def tensor_ds(lib):
    mod = td if lib is torch else rd
    return mod.TensorDataset(lib.tensor(X), lib.tensor(Y))


@pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=10),
                                dict(batch_size=4, sampler=[9, 0, 3, 3, 7]),
                                dict(batch_sampler=[[1, 2], [0], [5, 6, 7]]), dict(batch_size=None), dict(batch_size=1)])
def test_tensor_dataset_batches_match_torch(kw):
    a = batches(td, torch, tensor_ds, **kw)
    b = batches(rd, rg, tensor_ds, **kw)
    same(a, b)
    assert len(rd.DataLoader(tensor_ds(rg), **kw)) == len(td.DataLoader(tensor_ds(torch), **kw))


class Mixed:
    """Samples of every kind default_collate knows."""

    def __init__(self, lib):
        self.lib = lib

    def __len__(self):
        return 5

    def __getitem__(self, i):
        lib = self.lib
        return {"t": lib.tensor([i, i + 1.0]), "i": i, "f": i / 2, "s": f"s{i}", "b": b"x",
                "a": np.full((2, 2), i, dtype=np.int32), "ns": np.float32(i), "nb": np.bool_(i % 2),
                "tup": (i, lib.tensor(i)), "lst": [i * 1.5, "k"], "nt": Point(i, lib.tensor([i])),
                "od": collections.OrderedDict(z=i)}


def test_default_collate_of_mixed_samples_matches_torch():
    a = list(td.DataLoader(Mixed(torch), batch_size=2))
    b = list(rd.DataLoader(Mixed(rg), batch_size=2))
    same(a, b)


def test_default_convert_without_batching_matches_torch():
    a = list(td.DataLoader(Mixed(torch), batch_size=None))
    b = list(rd.DataLoader(Mixed(rg), batch_size=None))
    same(a, b)


def test_collate_errors_match_torch():
    for bad, exc in ([[1, 2], [3]], RuntimeError), ([object(), object()], TypeError):
        with pytest.raises(exc) as et:
            td.default_collate(bad)
        with pytest.raises(exc) as er:
            rd.default_collate(bad)
        assert str(er.value) == str(et.value)
    with pytest.raises(TypeError, match="default_collate: batch must contain tensors, numpy arrays, numbers"):
        rd.default_collate([np.array(["a"]), np.array(["b"])])


def test_custom_collate_fn_and_subset_concat():
    for mod, lib in ((td, torch), (rd, rg)):
        ds = mod.ConcatDataset([mod.Subset(list(range(10)), [9, 8, 7]), [100, 101]])
        assert [ds[i] for i in range(len(ds))] == [9, 8, 7, 100, 101] and ds[-1] == 101
        got = list(mod.DataLoader(ds, batch_size=2, collate_fn=lambda b: sum(b)))
        assert got == [17, 107, 101]
    with pytest.raises(ValueError, match="absolute value of index should not exceed dataset length"):
        rd.ConcatDataset([[1]])[-2]


class Stream(rd.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = rd.get_worker_info()
        self.seen_info = info
        return iter(range(self.n))

    def __len__(self):
        return self.n


class TStream(td.IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))

    def __len__(self):
        return self.n


@pytest.mark.parametrize("kw", [dict(batch_size=3), dict(batch_size=3, drop_last=True), dict(batch_size=None)])
def test_iterable_dataset_matches_torch(kw):
    a = list(td.DataLoader(TStream(7), **kw))
    b = list(rd.DataLoader(Stream(7), **kw))
    same(a, b)
    assert len(rd.DataLoader(Stream(7), **kw)) == len(td.DataLoader(TStream(7), **kw))


def test_num_workers_runs_in_process():
    calls = []
    ds = Stream(4)
    out = list(rd.DataLoader(ds, batch_size=2, num_workers=2, worker_init_fn=calls.append))
    assert [o.tolist() for o in out] == [[0, 1], [2, 3]]
    assert calls == [0] and ds.seen_info.id == 0 and ds.seen_info.num_workers == 1
    assert rd.get_worker_info() is None
    list(rd.DataLoader(ds, batch_size=2))
    assert ds.seen_info is None


def test_seeded_shuffle_is_reproducible_permutation():
    ds = tensor_ds(rg)

    def order(**kw):
        return [y.tolist() for (y,) in rd.DataLoader(rd.TensorDataset(rg.arange(20)), batch_size=4, shuffle=True, **kw)]

    a = order(generator=rg.Generator().manual_seed(7))
    b = order(generator=rg.Generator().manual_seed(7))
    c = order(generator=rg.Generator().manual_seed(8))
    assert a == b and a != c
    assert sorted(sum(a, [])) == list(range(20))
    rg.manual_seed(3)
    d = order()
    e = order()
    rg.manual_seed(3)
    assert order() == d and d != e  # a new epoch reshuffles; reseeding replays
    g = rg.Generator().manual_seed(1)
    loader = rd.DataLoader(ds, batch_size=5, shuffle=True, generator=g)
    epoch1, epoch2 = [list(loader), list(loader)]
    assert [t[1].tolist() for t in epoch1] != [t[1].tolist() for t in epoch2]


def test_samplers():
    assert list(rd.SequentialSampler(range(4))) == list(td.SequentialSampler(range(4)))
    bs = rd.BatchSampler(rd.SequentialSampler(range(7)), 3, False)
    assert list(bs) == list(td.BatchSampler(td.SequentialSampler(range(7)), 3, False)) and len(bs) == 3
    assert len(rd.BatchSampler(range(7), 3, True)) == 2
    rs = rd.RandomSampler(range(6), replacement=True, num_samples=40, generator=rg.Generator().manual_seed(0))
    draws = list(rs)
    assert len(draws) == 40 and set(draws) <= set(range(6))
    rs = rd.RandomSampler(range(6), num_samples=9, generator=rg.Generator().manual_seed(0))
    assert len(list(rs)) == 9
    sub = list(rd.SubsetRandomSampler([10, 20, 30], generator=rg.Generator().manual_seed(0)))
    assert sorted(sub) == [10, 20, 30]
    w = list(rd.WeightedRandomSampler([0.0, 1.0, 0.0], 5, generator=rg.Generator().manual_seed(0)))
    assert w == [1] * 5
    with pytest.raises(ValueError, match="batch_size should be a positive integer value, but got batch_size=0"):
        rd.BatchSampler(range(3), 0, False)


def test_random_split_like_torch():
    for lengths in ([3, 7], [0.3, 0.3, 0.4], [0.5, 0.5], [1, 1, 8]):
        a = td.random_split(range(10), lengths, generator=torch.Generator().manual_seed(0))
        b = rd.random_split(range(10), lengths, generator=rg.Generator().manual_seed(0))
        assert [len(s) for s in b] == [len(s) for s in a]
        assert sorted(i for s in b for i in s) == list(range(10))
    s1 = rd.random_split(range(10), [0.5, 0.5], generator=rg.Generator().manual_seed(4))
    s2 = rd.random_split(range(10), [0.5, 0.5], generator=rg.Generator().manual_seed(4))
    assert [list(s) for s in s1] == [list(s) for s in s2]
    assert [len(s) for s in rd.random_split(range(11), [0.3, 0.3, 0.4])] == [4, 3, 4]  # floors, then round-robin
    assert [len(s) for s in rd.random_split(range(7), [0.25, 0.25, 0.5])] == [2, 2, 3]
    with pytest.raises(ValueError, match="Sum of input lengths does not equal the length of the input dataset!"):
        rd.random_split(range(10), [3, 3])


@pytest.mark.parametrize("kw,msg", [
    (dict(shuffle=True, sampler=[0]), "sampler option is mutually exclusive with shuffle"),
    (dict(batch_sampler=[[0]], batch_size=2), "batch_sampler option is mutually exclusive with batch_size"),
    (dict(batch_size=None, drop_last=True), "batch_size=None option disables auto-batching"),
    (dict(num_workers=-1), "num_workers option should be non-negative"),
    (dict(prefetch_factor=2), "prefetch_factor option could only be specified in multiprocessing"),
    (dict(persistent_workers=True), "persistent_workers option needs num_workers > 0"),
])
def test_dataloader_argument_errors_match_torch(kw, msg):
    with pytest.raises(ValueError) as et:
        td.DataLoader(list(range(3)), **kw)
    with pytest.raises(ValueError, match=msg) as er:
        rd.DataLoader(list(range(3)), **kw)
    assert str(er.value) == str(et.value)


def test_iterable_dataset_rejects_shuffle_and_attribute_assignment():
    with pytest.raises(ValueError, match="expected unspecified shuffle option, but got shuffle=True"):
        rd.DataLoader(Stream(3), shuffle=True)
    loader = rd.DataLoader([1, 2])
    with pytest.raises(ValueError, match="batch_size attribute should not be set after DataLoader is initialized"):
        loader.batch_size = 3


def test_utils_data_is_reachable_from_the_package():
    import retrograd

    assert retrograd.utils.data.DataLoader is rd.DataLoader


def test_docs_examples_run(capsys):
    """Every Python block in docs/optim_data_io.md runs as written."""
    import re
    from pathlib import Path

    text = (Path(__file__).resolve().parents[3] / "docs" / "optim_data_io.md").read_text()
    blocks = re.findall(r"```python\n(.*?)```", text, re.S)
    assert len(blocks) == 5
    for code in blocks:
        exec(compile(code, "optim_data_io.md", "exec"), {"__name__": "__docs__"})


def test_get_worker_info_none_in_main_process():
    assert td.get_worker_info() is None
    assert rd.get_worker_info() is None


def test_pin_memory_without_accelerator_warns_at_each_iteration():
    import warnings

    def run(T):
        with warnings.catch_warnings(record=True) as w:
            warnings.simplefilter("always")
            dl = T.utils.data.DataLoader([1, 2, 3], pin_memory=True)
            iter(dl)
            iter(dl)
        return [str(m.message) for m in w if "pin_memory" in str(m.message)]

    assert run(rg) == run(torch)
